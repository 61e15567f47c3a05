"""The agent's clock: how long each decision may think, and interruptible solving.

The dealer limits a seat twice: each reply must come within the per-action limit
(``--t_response``), and the match's total time must stay under the per-hand budget
(``--t_per_hand``, 7 s in the reference dealer) times the hands played.  The agent
aims far below the budget: it keeps a *bank* that grows by ``target`` seconds per
hand and shrinks by the time its decisions take, and gives a solve a share of the
bank, capped so that one hand never comes near the per-action limit.  Unused time
carries over (a hand of preflop folds pays for a later river solve).

:func:`run_with_deadline` runs a solve in a worker thread and returns at the
deadline whatever it has published so far, so a solve that overruns its budget
can never make a reply late.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import structlog

log = structlog.get_logger("agent.timing")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TimeLimits:
    """The dealer's limits and the agent's aim, in seconds.

    ``per_hand``: the dealer's average budget per hand; ``per_action``: its limit on one
    reply; ``target``: the average the agent aims at (default a quarter of ``per_hand``);
    ``max_solve``: the longest one solve may run; ``reserve``: kept back from every
    limit for reading, sampling and replying.
    """

    per_hand: float = 7.0
    per_action: float = 60.0
    target: float | None = None
    max_solve: float = 4.0
    reserve: float = 0.25

    @property
    def aim(self) -> float:
        return self.target if self.target is not None else self.per_hand / 4

    def validated(self) -> TimeLimits:
        """These limits, checked.

        Raises:
            ValueError: naming the first limit that is not positive or not consistent.
        """
        for name in ("per_hand", "per_action", "max_solve"):
            if getattr(self, name) <= 0:
                raise ValueError(f"the time limit {name} must be positive, got {getattr(self, name)}")
        if self.aim <= 0 or self.aim > self.per_hand:
            raise ValueError(f"the target time per hand must be in (0, {self.per_hand}], got {self.aim}")
        return self


class Deadline:
    """A point in time a solve must stop by; :meth:`cancel` ends it early."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.at = clock() + max(seconds, 0.0)
        self._cancelled = threading.Event()

    def remaining(self) -> float:
        return 0.0 if self._cancelled.is_set() else max(self.at - self._clock(), 0.0)

    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def cancel(self) -> None:
        self._cancelled.set()


class TimeManager:
    """Tracks the time the agent's decisions take over the match and hands out budgets."""

    def __init__(self, limits: TimeLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits.validated()
        self._clock = clock
        self.hands = 0
        self.used = 0.0
        self._action_started: float | None = None

    def start_hand(self) -> None:
        self.hands += 1

    def start_action(self) -> None:
        """Call when the state to act on has arrived."""
        self._action_started = self._clock()

    def end_action(self) -> float:
        """Call when the reply is sent; returns the seconds the action took."""
        if self._action_started is None:
            return 0.0
        spent = self._clock() - self._action_started
        self.used += spent
        self._action_started = None
        return spent

    @property
    def bank(self) -> float:
        """Seconds saved so far against the target (negative when behind)."""
        return self.limits.aim * self.hands - self.used

    def solve_budget(self, share: float = 0.5) -> float:
        """Seconds the next solve may take (0: do not solve, play the blueprint).

        ``share`` of the bank less what this action has already spent (a second solve in
        one decision, after one that could not be played, gets a share of what is left),
        never more than ``max_solve`` nor what is left of the per-action limit, and 0 once
        the match is behind its own target.
        """
        lim = self.limits
        elapsed = self._clock() - self._action_started if self._action_started is not None else 0.0
        action_left = lim.per_action - lim.reserve - elapsed
        budget = min((self.bank - elapsed) * share, lim.max_solve, action_left)
        return budget if budget > 0.05 else 0.0


class _Slot(Generic[T]):
    """The latest value a worker published, handed over under a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.value: T | None = None
        self.final = False

    def publish(self, value: T, final: bool = False) -> None:
        with self._lock:
            self.value, self.final = value, final

    def read(self) -> tuple[T | None, bool]:
        with self._lock:
            return self.value, self.final


def run_with_deadline(
    work: Callable[[Deadline, Callable[[T], None]], T], deadline: Deadline, grace: float = 0.05
) -> tuple[T | None, bool]:
    """Run ``work(deadline, publish)`` until it returns or the deadline (plus ``grace``
    seconds for a solve that stops at its deadline to hand over its result) passes.

    ``work`` should call ``publish(best_so_far)`` as it improves and return its final
    result; it should also stop by itself once ``deadline.expired()``.  Returns
    ``(result, finished)``: its return value if it finished in time, else the last
    value it published (None if none) with ``finished`` False.  A worker still
    running at the deadline is told to stop (the deadline is cancelled) and left to
    end on its own; an exception in ``work`` is logged and counts as no result.
    """
    slot: _Slot[T] = _Slot()

    def target() -> None:
        try:
            slot.publish(work(deadline, slot.publish), final=True)
        except Exception as exc:  # a failed solve must not cost the reply: fall back
            log.error("solve failed", error=repr(exc))

    worker = threading.Thread(target=target, name="agent-solve", daemon=True)
    worker.start()
    worker.join(deadline.remaining() + grace)
    value, final = slot.read()
    if worker.is_alive():
        deadline.cancel()
        # Its best strategy so far is the normal outcome; nothing at all is worth a warning.
        (log.info if value is not None else log.warning)("solve overran its budget", has_result=value is not None)
    return value, final
