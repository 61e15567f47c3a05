"""Raise sizes: separate raise fractions, the all-in threshold, and bet-size randomization."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.gamedef import load_game
from protocol.rules import CALL, ActionType, initial_state, raise_to
from solver.bets import AbstractionError, draw_size_scale, parse_abstraction

HOLDEM = load_game("holdem.nolimit.2p")
BENCH = parse_abstraction("0.33,0.67,1,1.5;raise=0.5,1;allin;allinabove=0.67")


def test_new_options_round_trip_and_are_checked():
    for text in ("0.33,0.67,1,1.5;raise=0.5,1;allin;allinabove=0.67", "0.5,1/1;raise=1/0.5;allin;cap=3"):
        assert parse_abstraction(text).spec() == text
    with pytest.raises(AbstractionError, match="all-in threshold"):
        parse_abstraction("1;allinabove=2")
    with pytest.raises(AbstractionError, match="must be numbers"):
        parse_abstraction("1;raise=big")


def test_first_bets_raises_and_the_all_in_threshold():
    state = initial_state(HOLDEM).apply(CALL).apply(CALL)  # flop, pot 200, 19,900 behind
    # A third of the pot (66) is below the minimum bet (the big blind, 100): dropped.
    assert BENCH.raise_sizes(state) == [100 + 134, 100 + 200, 100 + 300, 20000]
    facing = state.apply(raise_to(300))  # a 200 bet: raises are sized from the pot after calling, 600
    assert BENCH.raise_sizes(facing) == [300 + 300, 300 + 600, 20000]
    small = parse_abstraction("1;allin;allinabove=0.01")  # any raise above 1% of the chips behind is all-in
    assert small.raise_sizes(state) == [20000]


def _random_state(data, game):
    state = initial_state(game)
    for _ in range(data.draw(st.integers(0, 12))):
        if state.finished:
            break
        kinds = state.legal_action_types()
        kind = data.draw(st.sampled_from(kinds))
        if kind == ActionType.RAISE:
            low, high = state.raise_bounds()
            state = state.apply(raise_to(data.draw(st.integers(low, high))))
        else:
            state = state.apply(CALL if kind == ActionType.CALL else state.fix_action(CALL)[0])
    return state


@settings(max_examples=300, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), spec=st.sampled_from(["0.5,1;allin", BENCH.spec(), "0.1;minraise"]))
def test_randomized_sizes_are_always_legal(data, seed, spec):
    state = _random_state(data, HOLDEM)
    scale = draw_size_scale(np.random.default_rng(seed))
    assert 0.92 <= scale <= 1.08
    if state.finished:
        return
    sizes = parse_abstraction(spec).raise_sizes(state, scale)
    assert sizes == sorted(set(sizes)) and all(isinstance(s, int) for s in sizes)
    for size in sizes:
        assert state.illegal_reason(raise_to(size)) is None


def test_size_scale_draws_cover_both_signs_and_the_spread():
    rng = np.random.default_rng(1)
    draws = np.array([draw_size_scale(rng) for _ in range(4000)])
    assert draws.min() >= 0.92 and draws.max() <= 1.08
    assert (draws < 1).mean() == pytest.approx(0.5, abs=0.03)
    assert np.abs(draws - 1).mean() == pytest.approx(0.04, abs=0.003)
    with pytest.raises(AbstractionError):
        draw_size_scale(rng, 1.5)
