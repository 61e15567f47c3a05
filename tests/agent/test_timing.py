"""The time manager: budgets from the bank, and solves cut off at their deadline."""

from __future__ import annotations

import time

import pytest

from agent.timing import Deadline, TimeLimits, TimeManager, run_with_deadline


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_bank_grows_per_hand_and_shrinks_with_use():
    clock = FakeClock()
    tm = TimeManager(TimeLimits(per_hand=7.0, per_action=60.0, max_solve=6.0), clock)
    tm.start_hand()
    assert tm.bank == pytest.approx(1.75)  # aims at a quarter of the dealer's 7 s
    tm.start_action()
    assert tm.solve_budget() == pytest.approx(0.875)
    clock.now += 1.5
    assert tm.end_action() == pytest.approx(1.5)
    assert tm.bank == pytest.approx(0.25)
    for _ in range(20):  # fast hands save time for a later solve, up to max_solve
        tm.start_hand()
    tm.start_action()
    assert tm.solve_budget(share=1.0) == pytest.approx(6.0)
    tm.used += 100
    assert tm.solve_budget() == 0.0  # behind the target: play the blueprint


def test_budget_never_exceeds_the_action_limit():
    clock = FakeClock()
    tm = TimeManager(TimeLimits(per_hand=7.0, per_action=2.0, max_solve=6.0, reserve=0.25), clock)
    for _ in range(100):
        tm.start_hand()
    tm.start_action()
    clock.now += 0.5
    assert tm.solve_budget(share=1.0) == pytest.approx(1.25)


def test_bad_limits_are_named():
    with pytest.raises(ValueError, match="per_hand"):
        TimeLimits(per_hand=0).validated()
    with pytest.raises(ValueError, match="target"):
        TimeLimits(per_hand=7, target=8).validated()


def test_overrunning_solve_returns_best_so_far_in_time():
    def solve(deadline, publish):
        publish("first")
        publish("better")
        time.sleep(5)  # ignores its deadline
        return "final"

    started = time.monotonic()
    result, finished = run_with_deadline(solve, Deadline(0.2))
    assert time.monotonic() - started < 1.0
    assert (result, finished) == ("better", False)


def test_solve_without_a_result_falls_back():
    def solve(deadline, publish):
        time.sleep(5)
        return "final"

    started = time.monotonic()
    assert run_with_deadline(solve, Deadline(0.1)) == (None, False)
    assert time.monotonic() - started < 1.0


def test_cooperative_solve_finishes_and_failing_solve_gives_none():
    def solve(deadline, publish):
        n = 0
        while not deadline.expired():
            n += 1
            publish(n)
            time.sleep(0.01)
        return -n

    # The property is that a solve stopping at its deadline hands over its final result;
    # a generous grace keeps a loaded machine's thread wake-up (it failed once at load 5.4
    # with the production 0.05 s) from deciding the test.
    result, finished = run_with_deadline(solve, Deadline(0.1), grace=2.0)
    assert finished and result < 0

    def failing(deadline, publish):
        raise RuntimeError("solver bug")

    assert run_with_deadline(failing, Deadline(1.0)) == (None, False)


def test_a_second_solve_in_one_action_gets_a_share_of_what_the_first_left():
    clock = FakeClock()
    tm = TimeManager(TimeLimits(per_hand=7.0, per_action=60.0, max_solve=6.0), clock)
    for _ in range(4):
        tm.start_hand()
    tm.start_action()
    assert tm.solve_budget() == pytest.approx(3.5)  # half of the 7 s bank
    clock.now += 3.5  # a solve that could not be played
    assert tm.solve_budget() == pytest.approx(1.75)  # half of the 3.5 s left, not 3.5 again
