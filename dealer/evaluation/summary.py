"""What ``dealer report`` found, as data: a :class:`MatchReport` of lineups, seats and estimates.

Built by :func:`dealer.evaluation.estimates.summarize_report`, drawn by
:mod:`dealer.evaluation.render`, and written as JSON (``report.json``) from
:meth:`MatchReport.as_dict`; :meth:`MatchReport.from_json` reads such a file back
(``dealer tournament`` reuses the reports of lineups it has already evaluated).
JSON has no NaN or infinity: :func:`dealer.evaluation.render.write_json` writes them as
null, and they are read back as NaN.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from dealer.evaluation.stats import Summary

#: The estimators a report may hold, in the order tables show them.
ESTIMATORS = ("raw", "duplicate", "aivat", "aivat+duplicate")


def _number(value: float | None) -> float:
    """A JSON number, with null read as NaN."""
    return math.nan if value is None else value


@dataclass(frozen=True, slots=True)
class Estimate:
    """One estimator's figures for one seat: the statistics of its per-hand values and
    the hands a one-tailed 95% test would need at that mean and spread."""

    stats: Summary
    hands_needed_95: float

    def as_dict(self) -> dict[str, Any]:
        return {**self.stats.as_dict(), "hands_needed_95": self.hands_needed_95}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Estimate:
        stats = Summary(**{f.name: _number(data[f.name]) for f in fields(Summary)})
        return Estimate(stats, _number(data["hands_needed_95"]))


@dataclass(frozen=True, slots=True)
class SeatReport:
    """One seat's results in a lineup, over all its logs."""

    #: by estimator name (raw and aivat always; the duplicate ones when mirrored matches were paired)
    estimates: dict[str, Estimate]
    #: by estimator but raw: how much it cut the standard deviation against raw chips (per hand played)
    std_reduction: dict[str, float]
    decisions_corrected: int
    #: the strategy AIVAT averaged over the seat's private cards with (a baseline's name, or the logged range)
    strategy_used: str | None
    #: hands the guard gave raw chips because AIVAT had the larger spread there
    aivat_raw_hands: int
    #: AIVAT's corrections summed over the hands, by kind
    aivat_corrections_total: dict[str, float]

    def as_dict(self) -> dict[str, Any]:
        return {
            **{name: e.as_dict() for name, e in self.estimates.items()},
            "std_reduction": self.std_reduction,
            "decisions_corrected": self.decisions_corrected,
            "strategy_used": self.strategy_used,
            "aivat_raw_hands": self.aivat_raw_hands,
            "aivat_corrections_total": self.aivat_corrections_total,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> SeatReport:
        return SeatReport(
            estimates={name: Estimate.from_json(data[name]) for name in data if name in ESTIMATORS},
            std_reduction={k: _number(v) for k, v in data["std_reduction"].items()},
            decisions_corrected=data["decisions_corrected"],
            strategy_used=data["strategy_used"],
            aivat_raw_hands=data["aivat_raw_hands"],
            aivat_corrections_total={k: _number(v) for k, v in data["aivat_corrections_total"].items()},
        )


@dataclass(frozen=True, slots=True)
class LineupReport:
    """The logs of one game played by one set of players, and each seat's results."""

    game: str  # the game file the logs' headers name
    big_blind: int
    seats: list[str]
    logs: list[str]
    duplicate_hands: int  # paired values (0: no mirrored matches)
    duplicate_mirrors: float  # hands a paired value averages over (0: no mirrored matches)
    results: dict[str, SeatReport]

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game, "big_blind": self.big_blind, "seats": self.seats, "logs": self.logs,
            "duplicate_hands": self.duplicate_hands, "duplicate_mirrors": self.duplicate_mirrors,
            "results": {seat: r.as_dict() for seat, r in self.results.items()},
        }  # fmt: skip

    @staticmethod
    def from_json(data: dict[str, Any]) -> LineupReport:
        return LineupReport(
            game=data["game"], big_blind=data["big_blind"], seats=data["seats"], logs=data["logs"],
            duplicate_hands=data["duplicate_hands"], duplicate_mirrors=data["duplicate_mirrors"],
            results={seat: SeatReport.from_json(r) for seat, r in data["results"].items()},
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One match log the report read."""

    path: str
    match: str
    game: str
    seed: int | None
    hands: int
    seats: list[str]


@dataclass(frozen=True, slots=True)
class MatchReport:
    """Everything ``dealer report`` found in a set of match logs."""

    logs: list[LogEntry]
    decision_logs: list[str]
    lineups: list[LineupReport]
    notes: list[str]
    value_function: str  # ṽ, the value function AIVAT's whole-range estimator used

    def as_dict(self) -> dict[str, Any]:
        """The report as ``report.json`` holds it (NaN where the file has null)."""
        return {
            "logs": [asdict(m) for m in self.logs],
            "decision_logs": self.decision_logs,
            "lineups": [lu.as_dict() for lu in self.lineups],
            "notes": self.notes,
            "value_function": self.value_function,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> MatchReport:
        return MatchReport(
            logs=[LogEntry(**m) for m in data["logs"]],
            decision_logs=data["decision_logs"],
            lineups=[LineupReport.from_json(lu) for lu in data["lineups"]],
            notes=data["notes"],
            value_function=data.get("value_function", "check-down"),
        )

