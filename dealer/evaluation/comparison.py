"""What ``dealer compare`` found, as data: a :class:`Comparison` of two seats on paired deals.

Built by :func:`dealer.evaluation.compare.compare_matches`, printed by its renderer and
written as JSON from :meth:`Comparison.as_dict` (the same keys ``compare --json`` has
always written), as :mod:`dealer.evaluation.summary` does for ``dealer report``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dealer.evaluation.matchlog import EvaluationError
from dealer.evaluation.stats import Summary


class CompareError(EvaluationError):
    """Logs or saved values that cannot be paired or pooled (the message says why)."""


@dataclass(frozen=True, slots=True)
class PairedEstimate:
    """One estimator's figures: the per-hand difference (candidate minus baseline), each
    side's own values, and how much pairing cut the spread against two independent matches."""

    difference: Summary
    candidate: Summary
    baseline: Summary
    pairing_std_reduction: float

    def as_dict(self) -> dict[str, Any]:
        return {"difference": self.difference.as_dict(), "candidate": self.candidate.as_dict(),
                "baseline": self.baseline.as_dict(), "pairing_std_reduction": self.pairing_std_reduction}


@dataclass(frozen=True, slots=True)
class PairedLogs:
    """A log of the first set and its partner in the baseline set, paired on their first ``hands``."""

    log: str
    baseline_log: str
    hands: int
    #: the deals' seed and the first log's seat order: what makes two pairs the same deals
    seed: int
    seats: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"log": self.log, "baseline_log": self.baseline_log, "hands": self.hands, "seed": self.seed,
                "seats": list(self.seats)}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Comparison:
    """The candidate against the baseline, each facing ``opponents`` on the same deals."""

    candidate: str
    baseline: str
    opponents: list[str]
    game: str
    big_blind: int
    pairs: list[PairedLogs]
    #: paired hands, and those in which both seats won the same chips
    hands: int
    hands_alike: int
    value_function: str
    guard: bool
    decision_logs: list[str]
    #: by estimator, in :data:`dealer.evaluation.summary.ESTIMATORS` order
    results: dict[str, PairedEstimate]
    notes: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "candidate": self.candidate, "baseline": self.baseline, "opponents": self.opponents, "game": self.game,
            "big_blind": self.big_blind, "pairs": [p.as_dict() for p in self.pairs], "hands": self.hands,
            "hands_alike": self.hands_alike, "value_function": self.value_function, "guard": self.guard,
            "decision_logs": self.decision_logs, "results": {k: r.as_dict() for k, r in self.results.items()},
            "notes": self.notes,
        }  # fmt: skip
