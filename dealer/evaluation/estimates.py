"""From match logs to estimates: each log read hand by hand and valued (raw chips,
AIVAT), then per lineup and seat the statistics of every estimator (:mod:`dealer.evaluation.summary`).

Used by ``dealer report`` (:mod:`dealer.evaluation.report`), ``dealer compare`` and the
tournament's rankings.  ``--jobs`` spreads the logs over worker processes, each of
which loads its own ṽ (the value function of AIVAT's whole-range estimator) once.
"""

from __future__ import annotations

import math
import multiprocessing
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dealer.evaluation.aivat import (
    KINDS,
    DecisionIndex,
    MatchAivat,
    declared_strategies,
    evaluate_hands,
    stream_decision_logs,
)
from dealer.evaluation.arguments import VALUES
from dealer.evaluation.guard import guarded
from dealer.evaluation.matchlog import EvaluationError, LogSummary, MatchLogReader
from dealer.evaluation.rangeaivat import CheckDown
from dealer.evaluation.stats import DuplicateGroup, duplicate_groups, duplicate_values, hands_needed, std_reduction, summarize
from dealer.evaluation.summary import Estimate, LineupReport, LogEntry, MatchReport, SeatReport
from dealer.evaluation.terms import TermSums
from dealer.evaluation.values import CheckDownValue
from protocol.gamedef import GameDef
from protocol.wire import LoggedHand
from solver.artifacts import ArtifactError

if TYPE_CHECKING:
    from protocol.progress import Progress


# --- reading and valuing the logs --------------------------------------------------------


@dataclass(frozen=True)
class Evaluated:
    """Match logs read and valued: per log its summary and AIVAT (seats in log order)."""

    logs: list[LogSummary]
    results: list[MatchAivat]
    decision_files: list[Path]
    notes: list[str]
    value_function: str
    #: the ṽ used, to reuse it (None when worker processes each loaded their own)
    seat_values: CheckDown | None


def default_decisions(logs: Sequence[Path], decisions: Path | None) -> Path | list[Path | None]:
    """``decisions`` for every log, or else per log the ``decisions`` folder beside it if
    there is one: logs of several ``dealer run`` folders then each read their own
    (their match names repeat from one run to the next).

    Raises:
        EvaluationError: if ``decisions`` was given and does not exist.
    """
    if decisions is None:
        return [folder if (folder := log.parent / "decisions").is_dir() else None for log in logs]
    if not decisions.exists():
        raise EvaluationError(f"--decisions {decisions}: no such folder or decision log")
    return decisions


def evaluate_logs(
    log_paths: Sequence[Path],
    decisions: Path | Sequence[Path | None] | None,
    *,
    game: GameDef | None = None,
    progress: bool = False,
    full_range: bool = True,
    guard: bool = True,
    value: str = "check-down",
    loaded: CheckDown | None = None,
    blueprint: Path | None = None,
    jobs: int = 1,
    prog: str = "dealer report",
    terms: TermSums | None = None,
) -> Evaluated:
    """Read every log hand by hand and value it (raw chips and AIVAT).

    The arguments are :func:`dealer.evaluation.report.report_match`'s; ``loaded`` is
    the ṽ named ``value`` when an earlier call loaded it already (its
    :attr:`Evaluated.seat_values`), to reuse it in this process; ``prog`` names the
    command in messages; ``terms``, if given, receives every hand's corrections term by term
    (:mod:`dealer.evaluation.terms`; the logs are then read in this process, whatever ``jobs``).

    Raises:
        EvaluationError: (one sentence) for unreadable or inconsistent logs.
    """
    sources = list(decisions) if isinstance(decisions, (list, tuple)) else [decisions] * len(log_paths)
    if len(sources) != len(log_paths):
        raise EvaluationError(f"{len(sources)} decision sources for {len(log_paths)} logs")
    if value == "blueprint" and progress and loaded is None:
        print(f"{prog}: --value blueprint loads the blueprint and averages its value over every deal first "
              "(about 20 s)", file=sys.stderr)  # fmt: skip
    if jobs > 1 and len(log_paths) > 1 and terms is None:
        _check_value(value, blueprint)  # before any process starts
        return _evaluate_in_processes(log_paths, sources, jobs, game, full_range, guard, value, blueprint, progress)
    seat_values = loaded if loaded is not None else _seat_values(value, blueprint)
    indexes = {source: stream_decision_logs(_decision_files(source)) for source in dict.fromkeys(sources)}
    readers = [MatchLogReader(p, game) for p in log_paths]
    bar = DelayedProgress(sum(r.planned_hands for r in readers), enabled=progress and sys.stderr.isatty())
    logs, results, notes = [], [], []
    try:
        for reader, source in zip(readers, sources):
            result, note = _evaluate_log(reader, indexes[source], bar, full_range, guard, seat_values, terms)
            logs.append(reader.summary())
            results.append(result)
            notes += [note] if note else []
    finally:
        bar.close()
    files = sorted({f for index in indexes.values() for f in index.files})
    return Evaluated(logs, results, files, notes, seat_values.name, seat_values)


#: A worker process's ṽ, loaded once for every log it evaluates (``--jobs``).
_WORKER_VALUES: dict[tuple[str, Path | None], CheckDown] = {}


def _evaluate_in_worker(
    path: Path, source: Path | None, game: GameDef | None, full_range: bool, guard: bool, value: str, blueprint: Path | None
) -> tuple[LogSummary, MatchAivat, str | None, list[Path]]:
    """One log's evaluation in a worker process (``--jobs``): what :func:`evaluate_logs` keeps of it."""
    if (value, blueprint) not in _WORKER_VALUES:
        _WORKER_VALUES[(value, blueprint)] = _seat_values(value, blueprint)
    index = stream_decision_logs(_decision_files(source))
    reader = MatchLogReader(path, game)
    silent = DelayedProgress(0, enabled=False)
    result, note = _evaluate_log(reader, index, silent, full_range, guard, _WORKER_VALUES[(value, blueprint)])
    return reader.summary(), result, note, list(index.files)


def _evaluate_in_processes(
    log_paths: Sequence[Path], sources: Sequence[Path | None], jobs: int, game: GameDef | None, full_range: bool,
    guard: bool, value: str, blueprint: Path | None, progress: bool,
) -> Evaluated:  # fmt: skip
    """:func:`evaluate_logs` with the logs spread over ``jobs`` processes (each log in one)."""
    # spawn, not fork: the parent may hold numba's threads or a loaded blueprint.
    context = multiprocessing.get_context("spawn")
    done: dict[int, tuple[LogSummary, MatchAivat, str | None, list[Path]]] = {}
    bar = DelayedProgress(len(log_paths), enabled=progress and sys.stderr.isatty(), unit="logs")
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(log_paths)), mp_context=context) as pool:
            futures = {
                pool.submit(_evaluate_in_worker, path, source, game, full_range, guard, value, blueprint): i
                for i, (path, source) in enumerate(zip(log_paths, sources))
            }
            for future in as_completed(futures):
                done[futures[future]] = future.result()  # a worker's EvaluationError is raised here
                bar.advance()
    finally:
        bar.close()
    ordered = [done[i] for i in range(len(log_paths))]
    files = sorted({f for *_, found in ordered for f in found})
    return Evaluated([o[0] for o in ordered], [o[1] for o in ordered], files, [o[2] for o in ordered if o[2]], value, None)


def _decision_files(source: Path | None) -> list[Path]:
    """A decision log itself, the ``*.dlog`` files under a folder, or none."""
    if source is not None and source.is_file():
        return [source]
    return sorted(source.rglob("*.dlog")) if source is not None and source.is_dir() else []


def _check_value(value: str, blueprint: Path | None) -> None:
    """Raise EvaluationError unless ``value`` names a ṽ and ``blueprint`` goes with it."""
    if value not in VALUES:
        raise EvaluationError(f"unknown value function {value!r} (choose from {', '.join(VALUES)})")
    if value == "check-down" and blueprint is not None:
        raise EvaluationError("--blueprint is for --value blueprint")


def _seat_values(value: str, blueprint: Path | None) -> CheckDown:
    """The whole-range estimator's ṽ named ``value``."""
    _check_value(value, blueprint)
    if value == "check-down":
        return CheckDown()
    from dealer.evaluation.blueprintvalue import BlueprintValue  # loads the blueprint (and numba) only when asked

    try:
        return BlueprintValue(path=blueprint)
    except ArtifactError as exc:
        raise EvaluationError(f"--value blueprint: {exc}") from None


def _evaluate_log(
    reader: MatchLogReader, index: DecisionIndex, bar: DelayedProgress, full_range: bool, guard: bool,
    seat_values: CheckDown, terms: TermSums | None = None,
) -> tuple[MatchAivat, str | None]:  # fmt: skip
    """AIVAT of one log as it is read (with ``guard``, :func:`guarded`); and a note if
    declared policies could not be used."""
    hands = iter(reader)
    first = next(hands)  # a log with no hand raises here
    # Seats whose decision logs name the baseline they play: their whole strategy is
    # known, so AIVAT may also average over their private cards.
    strategies, note = declared_strategies(reader.name, reader.game, first.names, index)

    def counted() -> Iterator[LoggedHand]:
        for hand in chain([first], hands):
            yield hand
            bar.advance()

    result = evaluate_hands(
        reader.name, first.names, counted(), index, CheckDownValue(reader.game), strategies=strategies,
        full_range=full_range, seat_values=seat_values, terms=terms,
    )  # fmt: skip
    result = result.in_order(reader.summary().seats)
    return guarded(result) if guard else result, note


class DelayedProgress:
    """A progress bar over hands that appears only once the report has taken a few seconds."""

    DELAY = 2.0

    def __init__(self, total: int, *, enabled: bool, unit: str = "hands") -> None:
        self.total, self.enabled, self.unit = total, enabled, unit
        self.done = 0
        self.start = time.monotonic()
        self.bar: Progress | None = None

    def advance(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.advance()
        elif self.enabled and time.monotonic() - self.start > self.DELAY:
            from protocol.progress import Progress

            self.bar = Progress("dealer report", max(self.total, self.done), done=self.done, unit=self.unit)
            self.bar.__enter__()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__()


# --- the estimates ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lineup:
    """The logs of one game played by one set of players."""

    game: GameDef
    label: str
    seats: tuple[str, ...]
    members: tuple[int, ...]


def group_lineups(logs: Sequence[LogSummary]) -> list[Lineup]:
    """The logs grouped by game and set of players, in order of first appearance."""
    found: dict[tuple, list[int]] = {}
    for i, m in enumerate(logs):
        found.setdefault((m.game, tuple(sorted(m.seats))), []).append(i)
    return [
        Lineup(game, logs[members[0]].game_file, seats, tuple(members)) for (game, seats), members in found.items()
    ]


def summarize_report(evaluated: Evaluated) -> MatchReport:
    """Every lineup's and seat's estimates from valued logs."""
    logs, results = evaluated.logs, evaluated.results
    groups = duplicate_groups(logs)
    notes = [n for m in logs for n in m.notes] + list(evaluated.notes)
    lineups = []
    for lineup in group_lineups(logs):
        mine = [g for g in groups if set(g.members) <= set(lineup.members)]
        notes += [
            f"mirrored matches {', '.join(logs[i].name for i in g.members)} do not cover every seat order"
            for g in mine
            if not g.complete
        ]
        lineups.append(_lineup_report(lineup, mine, logs, results))
    return MatchReport(
        logs=[
            LogEntry(path=str(m.path), match=m.name, game=m.game_file, seed=m.seed, hands=m.num_hands, seats=list(m.seats))
            for m in logs
        ],
        decision_logs=[str(p) for p in evaluated.decision_files],
        lineups=lineups,
        notes=notes,
        value_function=evaluated.value_function,
    )


def _lineup_report(
    lineup: Lineup, groups: Sequence[DuplicateGroup], logs: Sequence[LogSummary], results: Sequence[MatchAivat]
) -> LineupReport:
    """One lineup's estimates; ``groups``: its mirrored matches."""
    bb = lineup.game.big_blind
    values = {
        "raw": np.concatenate([_columns(results[i].raw, logs[i].seats, lineup.seats) for i in lineup.members]),
        "aivat": np.concatenate([_columns(results[i].aivat, logs[i].seats, lineup.seats) for i in lineup.members]),
    }
    # A duplicate value averages `mirrors` hands: compare it per hand played.
    mirrors = float(np.mean([len(g.members) for g in groups])) if groups else 1.0
    if groups:
        for source, name in (("raw", "duplicate"), ("aivat", "aivat+duplicate")):
            values[name] = np.concatenate(
                [duplicate_values(g, [getattr(results[i], source) for i in g.members], [logs[i].seats for i in g.members])
                 for g in groups]
            )  # fmt: skip
    corrections = sum(
        results[i].corrections.sum(axis=0)[:, [logs[i].seats.index(s) for s in lineup.seats]] for i in lineup.members
    )
    seats: dict[str, SeatReport] = {}
    for s, seat in enumerate(lineup.seats):
        estimates = {}
        for name, v in values.items():
            stats = summarize(v[:, s], bb)
            paired = mirrors if name.endswith("duplicate") else 1.0
            estimates[name] = Estimate(stats, hands_needed(stats.mean, stats.std) * paired)
        raw_std = estimates["raw"].stats.std
        cuts = {
            name: std_reduction(raw_std, e.stats.std * math.sqrt(mirrors if name.endswith("duplicate") else 1.0))
            for name, e in estimates.items()
            if name != "raw"
        }
        seats[seat] = SeatReport(
            estimates=estimates,
            std_reduction=cuts,
            decisions_corrected=sum(results[i].decisions.get(seat, 0) for i in lineup.members),
            strategy_used=next((results[i].strategies[seat] for i in lineup.members if seat in results[i].strategies), None),
            aivat_raw_hands=sum(results[i].raw_hands.get(seat, 0) for i in lineup.members),
            aivat_corrections_total={kind: float(corrections[k, s]) for k, kind in enumerate(KINDS)},
        )
    paired_hands = values["duplicate"].shape[0] if groups else 0
    return LineupReport(
        game=lineup.label,
        big_blind=bb,
        seats=list(lineup.seats),
        logs=[str(logs[i].path) for i in lineup.members],
        duplicate_hands=int(paired_hands),
        duplicate_mirrors=mirrors if groups else 0,
        results=seats,
    )


def _columns(values: np.ndarray, order: Sequence[str], seats: Sequence[str]) -> np.ndarray:
    """``values`` (hands × seats in ``order``) with its columns in the order ``seats``."""
    return values[:, [order.index(s) for s in seats]]
