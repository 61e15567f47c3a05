"""Significance as the field reports it: per-hand winnings as i.i.d. samples.

For one seat's per-hand values (raw chips, duplicate-paired, or AIVAT) a
:class:`Summary` gives hands, total, mean in chips and mbb/hand (1000 × chips / big
blind / hands), standard deviation, standard error, a two-sided 95% confidence
interval of the mean, and a one-tailed t test of "the seat wins" (mean > 0).

Duplicate pairing: matches played with the same game and seed but different seat
orders deal each position the same cards in hand h, so averaging a seat's value in
hand h over those mirrored matches cancels most of the luck of the cards.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import permutations

import numpy as np

# scipy.special, not scipy.stats: the same distribution functions (scipy.stats' t and
# normal call these), and a second less to import for every report a match prints.
from scipy.special import ndtri, stdtr, stdtrit

from dealer.evaluation.matchlog import EvaluationError, LogSummary, MatchLog

CONFIDENCE = 0.95


class PairingError(EvaluationError):
    """Logs that look mirrored (same game and seed) do not deal the same cards."""


@dataclass(frozen=True, slots=True)
class Summary:
    """Statistics of per-hand values; chips per hand unless the name says mbb."""

    hands: int
    total: float
    mean: float
    std: float
    stderr: float
    ci_low: float
    ci_high: float
    t: float
    p_value: float
    mbb_per_hand: float
    mbb_std: float
    mbb_stderr: float
    mbb_ci_low: float
    mbb_ci_high: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def summarize(values: Sequence[float] | np.ndarray, big_blind: float) -> Summary:
    """Summary of per-hand ``values`` (chips); ``big_blind`` converts to mbb/hand.

    The p-value is that of a one-tailed one-sample t test against a mean of 0 with
    the alternative "greater": small means the seat wins.  With fewer than two hands,
    or no spread, the spread-based figures are NaN.
    """
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    mean = float(x.mean()) if n else math.nan
    if n >= 2 and float(np.ptp(x)) > 0:
        std = float(x.std(ddof=1))
        stderr = std / math.sqrt(n)
        t = mean / stderr  # the one-sample t statistic against a mean of 0
        p = float(stdtr(n - 1, -t))  # P(T > t): the upper tail, "the seat wins"
        half = float(stdtrit(n - 1, 0.5 + CONFIDENCE / 2)) * stderr
    else:
        std = stderr = t = p = half = math.nan
    scale = 1000.0 / big_blind
    return Summary(
        hands=n,
        total=float(x.sum()),
        mean=mean,
        std=std,
        stderr=stderr,
        ci_low=mean - half,
        ci_high=mean + half,
        t=t,
        p_value=p,
        mbb_per_hand=mean * scale,
        mbb_std=std * scale,
        mbb_stderr=stderr * scale,
        mbb_ci_low=(mean - half) * scale,
        mbb_ci_high=(mean + half) * scale,
    )


def hands_needed(mean: float, std: float, confidence: float = CONFIDENCE) -> float:
    """Hands for a one-tailed test at ``confidence`` to detect ``mean`` given ``std``.

    The normal approximation n = (z · std / mean)²; infinite for a zero mean.
    """
    if mean == 0 or not math.isfinite(mean) or not math.isfinite(std):
        return math.inf
    return (float(ndtri(confidence)) * std / mean) ** 2


def std_reduction(raw_std: float, other_std: float) -> float:
    """Fraction by which ``other_std`` is below ``raw_std`` (negative if above)."""
    return 1.0 - other_std / raw_std if raw_std > 0 else math.nan


# --- duplicate matches ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DuplicateGroup:
    """Mirrored matches: same game, seed and players, each in a different seat order.

    ``members`` index the logs passed to :func:`duplicate_groups`; ``hands`` is the
    number of hands every member finished (the ones paired).  ``complete`` says
    whether every seat order is present (2 for two players, 6 for three).
    """

    members: tuple[int, ...]
    seats: tuple[str, ...]
    hands: int
    complete: bool


def duplicate_groups(logs: Sequence[MatchLog | LogSummary]) -> list[DuplicateGroup]:
    """Group mirrored matches and check that they dealt each position the same cards.

    Logs with no mirror are in no group.

    Raises:
        PairingError: if two logs of a group play the same seat order, or deal
            different cards to a position in some hand.
    """
    by_key: dict[tuple, list[int]] = {}
    for i, m in enumerate(logs):
        by_key.setdefault((m.game, m.seed, frozenset(m.seats)), []).append(i)
    groups = []
    for members in by_key.values():
        if len(members) < 2:
            continue
        orders = [logs[i].seats for i in members]
        if len(set(orders)) != len(orders):
            raise PairingError(
                f"{logs[members[0]].path} and another log share game, seed and seat order; they are not mirrored matches"
            )
        hands = min(len(logs[i].deals) for i in members)
        for i in members[1:]:
            check_same_deals(logs[members[0]], logs[i], hands)
        seats = tuple(sorted(logs[members[0]].seats))
        complete = set(orders) == set(permutations(logs[members[0]].seats))
        groups.append(DuplicateGroup(tuple(members), seats, hands, complete))
    return groups


def check_same_deals(a: MatchLog | LogSummary, b: MatchLog | LogSummary, hands: int) -> None:
    """Check that logs ``a`` and ``b`` (same seed) dealt every position the same cards
    in their first ``hands`` hands.

    Raises:
        PairingError: naming the first hand that differs.
    """
    # Boards differ in length where one hand ended sooner (-1 past its end).
    x, y = a.deals[:hands], b.deals[:hands]
    differ = ((x != y) & (x >= 0) & (y >= 0)).any(axis=1)
    if differ.any():
        raise PairingError(
            f"{a.path} and {b.path} have the same seed but deal different cards in hand {int(np.argmax(differ))}"
        )


def duplicate_values(group: DuplicateGroup, per_log: Sequence[np.ndarray], seat_orders: Sequence[tuple[str, ...]]) -> np.ndarray:
    """Per-hand values averaged over a group's mirrored matches.

    Args:
        per_log: for each member, ``float64[H, S]`` values by seat in that log's seat order.
        seat_orders: each member's seat order.

    Returns:
        ``float64[hands, S]`` with seats in ``group.seats`` order.
    """
    total = np.zeros((group.hands, len(group.seats)))
    for values, order in zip(per_log, seat_orders):
        columns = [order.index(s) for s in group.seats]
        total += values[: group.hands, columns]
    return total / len(per_log)
