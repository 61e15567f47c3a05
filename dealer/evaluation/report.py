"""``dealer report``: did A beat B, by how much, and how sure are we?

Reads match logs (ours or the reference dealer's) and any decision logs, and reports
for every lineup (the players of a match, in one game) and every seat: raw chips,
duplicate-paired values when mirrored matches are present, and AIVAT values, each
with mbb/hand, spread, a 95% confidence interval and a one-tailed t test that the
seat wins; and how much AIVAT and duplicate pairing cut the standard deviation.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from dealer.evaluation.aivat import (
    KINDS,
    LOGGED_RANGE,
    DecisionIndex,
    MatchAivat,
    declared_strategies,
    evaluate_hands,
    stream_decision_logs,
)

# The command line lives in dealer.evaluation.arguments (no numpy: --help stays fast); these
# names are kept here for callers that import them from the report.
from dealer.evaluation.arguments import VALUES
from dealer.evaluation.arguments import add_evaluation_arguments as add_evaluation_arguments
from dealer.evaluation.arguments import add_report_arguments as add_report_arguments
from dealer.evaluation.guard import guarded
from dealer.evaluation.matchlog import EvaluationError, LogSummary, MatchLogReader
from dealer.evaluation.rangeaivat import CheckDown
from dealer.evaluation.stats import (
    duplicate_groups,
    duplicate_values,
    hands_needed,
    std_reduction,
    summarize,
)
from dealer.evaluation.values import CheckDownValue
from protocol.errors import ProtocolError
from protocol.gamedef import GameDef, load_game
from protocol.wire import LoggedHand
from solver.artifacts import ArtifactError

if TYPE_CHECKING:
    from protocol.progress import Progress

ESTIMATORS = ("raw", "duplicate", "aivat", "aivat+duplicate")


class PlotError(EvaluationError):
    """The plot cannot be drawn (matplotlib missing, or the file cannot be written)."""


def run_report(args: argparse.Namespace) -> int:
    """Run ``dealer report`` from parsed arguments; returns the exit code."""
    try:
        decisions = default_decisions(args.logs, args.decisions)
        game = load_game(args.game) if args.game else None
        report_match(
            args.logs, decisions, out=sys.stdout, json_path=args.json, plot_path=args.plot, game=game, progress=True,
            full_range=args.full_range, guard=args.guard, value=args.value, blueprint=args.blueprint, jobs=args.jobs,
        )  # fmt: skip
    except (EvaluationError, ProtocolError) as exc:
        print(f"dealer report: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader left (`dealer report ... | head`): stop quietly, as Unix tools do,
        # and keep Python from complaining when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    return 0


# --- building the report -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lineup:
    """The logs of one game played by one set of players."""

    game: GameDef
    label: str
    seats: tuple[str, ...]
    members: tuple[int, ...]


def report_match(
    log_paths: Sequence[Path],
    decisions: Path | None,
    *,
    out: TextIO = sys.stdout,
    json_path: Path | None = None,
    plot_path: Path | None = None,
    game: GameDef | None = None,
    progress: bool = False,
    full_range: bool = True,
    guard: bool = True,
    value: str = "check-down",
    blueprint: Path | None = None,
    jobs: int = 1,
) -> dict[str, Any]:
    """Evaluate match logs, print the report to ``out``, and return it as a dict.

    Logs are read hand by hand, so memory grows only by a few dozen bytes per hand.

    Args:
        log_paths: match logs; mirrored ones (same game and seed) are paired.
        decisions: a decision log (``.dlog``), or a folder whose ``*.dlog`` files
            (searched recursively) give the decisions AIVAT corrects; or a list of
            those, one per log (see :func:`default_decisions`); None or a missing
            folder means none.
        json_path: also write the returned dict there as JSON (folders are created).
        plot_path: also draw cumulative winnings there (needs matplotlib).
        game: the game of every log, instead of the one each header names.
        progress: show a progress bar on a terminal once the report takes a few seconds.
        full_range: average over the whole range of a seat whose decisions carry it
            (two-player matches; see :mod:`dealer.evaluation.rangeaivat`).
        guard: per seat, give a hand its raw chips when AIVAT's values had the larger
            spread on the log's earlier hands (:mod:`dealer.evaluation.guard`).
        value: ṽ of the whole-range estimator, one of :data:`VALUES`
            (:mod:`dealer.evaluation.blueprintvalue` for ``blueprint``).
        blueprint: the blueprint ``value="blueprint"`` loads (None: the shipped one).
        jobs: evaluate up to this many logs at once, each in its own process (which
            loads its own ṽ: worth it for ``value="blueprint"`` on long logs).

    Raises:
        EvaluationError: (one sentence) for unreadable or inconsistent logs, or a plot
            or JSON file that cannot be written.
    """
    evaluated = evaluate_logs(
        log_paths, decisions, game=game, progress=progress, full_range=full_range, guard=guard, value=value,
        blueprint=blueprint, jobs=jobs,
    )  # fmt: skip
    logs, results = evaluated.logs, evaluated.results
    report = _build(logs, results, evaluated.decision_files, evaluated.notes)
    report["value_function"] = evaluated.value_function
    _print(report, out)
    if json_path is not None:
        try:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(_finite(report), indent=2) + "\n")
        except OSError as exc:
            raise EvaluationError(f"cannot write the JSON summary to {json_path} ({exc.strerror or exc})") from None
    if plot_path is not None:
        _plot(logs, results, _lineups(logs), plot_path)
    return report


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
    value: str | CheckDown = "check-down",
    blueprint: Path | None = None,
    jobs: int = 1,
    prog: str = "dealer report",
) -> Evaluated:
    """Read every log hand by hand and value it (raw chips and AIVAT); the arguments
    are :func:`report_match`'s (``value`` may also be a ṽ already loaded, to reuse it);
    ``prog`` names the command in messages."""
    sources = list(decisions) if isinstance(decisions, (list, tuple)) else [decisions] * len(log_paths)
    if len(sources) != len(log_paths):
        raise EvaluationError(f"{len(sources)} decision sources for {len(log_paths)} logs")
    if value == "blueprint" and progress:  # (a loaded ṽ is not a string)
        print(f"{prog}: --value blueprint loads the blueprint and averages its value over every deal first "
              "(about 20 s)", file=sys.stderr)  # fmt: skip
    if jobs > 1 and len(log_paths) > 1:
        name = value.name if isinstance(value, CheckDown) else value
        _check_value(name, blueprint)  # before any process starts
        return _evaluate_in_processes(log_paths, sources, jobs, game, full_range, guard, name, blueprint, progress)
    seat_values = value if isinstance(value, CheckDown) else _seat_values(value, blueprint)
    indexes = {source: stream_decision_logs(_decision_files(source)) for source in dict.fromkeys(sources)}
    readers = [MatchLogReader(p, game) for p in log_paths]
    bar = _DelayedProgress(sum(r.planned_hands for r in readers), enabled=progress and sys.stderr.isatty())
    logs, results, notes = [], [], []
    try:
        for reader, source in zip(readers, sources):
            result, note = _evaluate_log(reader, indexes[source], bar, full_range, guard, seat_values)
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
    silent = _DelayedProgress(0, enabled=False)
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
    bar = _DelayedProgress(len(log_paths), enabled=progress and sys.stderr.isatty(), unit="logs")
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
    reader: MatchLogReader, index: DecisionIndex, bar: _DelayedProgress, full_range: bool, guard: bool,
    seat_values: CheckDown,
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
        full_range=full_range, seat_values=seat_values,
    )  # fmt: skip
    result = result.in_order(reader.summary().seats)
    return guarded(result) if guard else result, note


class _DelayedProgress:
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


def _lineups(logs: Sequence[LogSummary]) -> list[_Lineup]:
    found: dict[tuple, list[int]] = {}
    for i, m in enumerate(logs):
        found.setdefault((m.game, tuple(sorted(m.seats))), []).append(i)
    return [
        _Lineup(game, logs[members[0]].game_file, seats, tuple(members)) for (game, seats), members in found.items()
    ]


def _build(
    logs: Sequence[LogSummary], results: Sequence[MatchAivat], decision_files: Sequence[Path], notes: Sequence[str] = ()
) -> dict[str, Any]:
    groups = duplicate_groups(logs)
    notes = [n for m in logs for n in m.notes] + list(notes)
    lineups = []
    for lineup in _lineups(logs):
        bb = lineup.game.big_blind
        per_log = {
            "raw": [_columns(results[i].raw, logs[i].seats, lineup.seats) for i in lineup.members],
            "aivat": [_columns(results[i].aivat, logs[i].seats, lineup.seats) for i in lineup.members],
        }
        values = {name: np.concatenate(arrays) for name, arrays in per_log.items()}
        mine = [g for g in groups if set(g.members) <= set(lineup.members)]
        # A duplicate value averages `mirrors` hands: compare it per hand played.
        mirrors = float(np.mean([len(g.members) for g in mine])) if mine else 1.0
        for source, name in (("raw", "duplicate"), ("aivat", "aivat+duplicate")):
            if mine:
                values[name] = np.concatenate(
                    [
                        duplicate_values(g, [getattr(results[i], source) for i in g.members], [logs[i].seats for i in g.members])
                        for g in mine
                    ]
                )
        notes += [
            f"mirrored matches {', '.join(logs[i].name for i in g.members)} do not cover every seat order"
            for g in mine
            if not g.complete
        ]
        corrections = sum(
            results[i].corrections.sum(axis=0)[:, [logs[i].seats.index(s) for s in lineup.seats]] for i in lineup.members
        )
        seats: dict[str, Any] = {}
        for s, seat in enumerate(lineup.seats):
            r: dict[str, Any] = {}
            for name, v in values.items():
                sm = summarize(v[:, s], bb)
                paired = mirrors if name.endswith("duplicate") else 1.0
                r[name] = {**sm.as_dict(), "hands_needed_95": hands_needed(sm.mean, sm.std) * paired}
            r["std_reduction"] = {
                name: std_reduction(r["raw"]["std"], r[name]["std"] * math.sqrt(mirrors if name.endswith("duplicate") else 1.0))
                for name in values
                if name != "raw"
            }
            r["decisions_corrected"] = sum(results[i].decisions.get(seat, 0) for i in lineup.members)
            r["strategy_used"] = next(
                (results[i].strategies[seat] for i in lineup.members if seat in results[i].strategies), None
            )
            r["aivat_raw_hands"] = sum(results[i].raw_hands.get(seat, 0) for i in lineup.members)
            r["aivat_corrections_total"] = {kind: float(corrections[k, s]) for k, kind in enumerate(KINDS)}
            seats[seat] = r
        duplicate = values.get("duplicate")
        lineups.append(
            {
                "game": lineup.label,
                "big_blind": bb,
                "seats": list(lineup.seats),
                "logs": [str(logs[i].path) for i in lineup.members],
                "duplicate_hands": int(duplicate.shape[0]) if duplicate is not None else 0,
                "duplicate_mirrors": mirrors if duplicate is not None else 0,
                "results": seats,
            }
        )
    return {
        "logs": [
            {
                "path": str(m.path), "match": m.name, "game": m.game_file, "seed": m.seed,
                "hands": m.num_hands, "seats": list(m.seats),
            }
            for m in logs
        ],
        "decision_logs": [str(p) for p in decision_files],
        "lineups": lineups,
        "notes": notes,
    }


def _columns(values: np.ndarray, order: Sequence[str], seats: Sequence[str]) -> np.ndarray:
    return values[:, [order.index(s) for s in seats]]


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: write them as null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


# --- printing ------------------------------------------------------------------------------


def _fmt(x: float, digits: int = 1) -> str:
    return f"{x:,.{digits}f}" if math.isfinite(x) else "-"


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "-"
    return "<0.001" if p < 0.001 else ">0.999" if p > 0.999 else f"{p:.3f}"


def _print(report: dict[str, Any], out: TextIO) -> None:
    hands = sum(m["hands"] for m in report["logs"])
    print(f"Match report: {len(report['logs'])} log(s), {hands:,} hands", file=out)
    for lineup in report["lineups"]:
        print(file=out)
        print(
            f"{' vs '.join(lineup['seats'])} - {lineup['game']} (big blind {lineup['big_blind']}), "
            f"{len(lineup['logs'])} log(s)",
            file=out,
        )
        header = [
            "seat", "estimator", "hands", "chips", "mbb/hand", "95% CI (mbb/hand)", "std (mbb)", "s.e.", "p(win)", "hands needed",
        ]  # fmt: skip
        rows = []
        for seat, results in lineup["results"].items():
            for name in ESTIMATORS:
                if name not in results:
                    continue
                r = results[name]
                rows.append(
                    [
                        seat,
                        name,
                        f"{r['hands']:,}",
                        _fmt(r["total"], 0) if name == "raw" else "",
                        _fmt(r["mbb_per_hand"]),
                        f"[{_fmt(r['mbb_ci_low'])}, {_fmt(r['mbb_ci_high'])}]",
                        _fmt(r["mbb_std"], 0),
                        _fmt(r["mbb_stderr"]),
                        _p(r["p_value"]),
                        _fmt(r["hands_needed_95"], 0) if math.isfinite(r["hands_needed_95"]) else "-",
                    ]
                )
        widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            cells = (str(c).ljust(w) if i < 2 else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
            print("  " + "  ".join(cells), file=out)
        known = {seat: r["decisions_corrected"] for seat, r in lineup["results"].items() if r["decisions_corrected"]}
        if known:
            print("  AIVAT action corrections: " + ", ".join(f"{s} {n:,} decisions" for s, n in known.items()), file=out)
        else:
            print("  AIVAT action corrections: none (no decision logs); chance corrections only", file=out)
        whole = {seat: r["strategy_used"] for seat, r in lineup["results"].items() if r["strategy_used"]}
        if whole:
            print(
                "  AIVAT imaginary observations over the private cards of "
                + ", ".join(f"{s} ({p if p == LOGGED_RANGE else f'declares {p}'})" for s, p in whole.items()),
                file=out,
            )
            if LOGGED_RANGE in whole.values():
                print(f"  AIVAT value function over a logged range: {report.get('value_function', 'check-down')}", file=out)
        guarded_seats = {seat: r["aivat_raw_hands"] for seat, r in lineup["results"].items() if r["aivat_raw_hands"]}
        if guarded_seats:
            print(
                "  AIVAT guard: raw chips kept for "
                + ", ".join(f"{s} on {n:,} hands" for s, n in guarded_seats.items())
                + " (AIVAT had the larger spread on the log's earlier hands; --no-guard keeps AIVAT)",
                file=out,
            )
        # Two players' results mirror each other: one figure says it all.
        shown = lineup["seats"][:1] if len(lineup["seats"]) == 2 else lineup["seats"]
        for name in ESTIMATORS[1:]:
            cuts = [(seat, lineup["results"][seat]["std_reduction"].get(name, math.nan)) for seat in shown]
            if not any(math.isfinite(c) for _, c in cuts):
                continue
            label = {"aivat": "AIVAT", "duplicate": "duplicate pairing", "aivat+duplicate": "AIVAT with pairing"}[name]
            text = ", ".join(
                (f"{seat} " if len(shown) > 1 else "") + f"{100 * c:.1f}% (variance {100 * (1 - (1 - c) ** 2):.1f}%)"
                for seat, c in cuts
            )
            print(f"  {label} cut the standard deviation by {text}", file=out)
    if report["lineups"]:
        print(
            "  (hands needed: for a one-tailed 95% result at the measured mbb/hand; paired values count every"
            " hand played)",
            file=out,
        )
    for note in report["notes"]:
        print(f"note: {note}", file=out)


# --- plotting ---------------------------------------------------------------------------------


def _plot(logs: Sequence[LogSummary], results: Sequence[MatchAivat], lineups: Sequence[_Lineup], path: Path) -> None:
    """Cumulative winnings (big blinds) with a ±1 standard-error band, raw and AIVAT."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError("--plot needs matplotlib: pip install 'acpc-agent[plot]'") from None
    # Two-player results mirror each other: one panel per lineup is enough there.
    panels = [(lu, seat) for lu in lineups for seat in (lu.seats[:1] if len(lu.seats) == 2 else lu.seats)]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 3.2 * len(panels)), squeeze=False)
    for ax, (lu, seat) in zip(axes[:, 0], panels):
        for name, label, color in (("raw", "raw chips", "tab:gray"), ("aivat", "AIVAT", "tab:blue")):
            per_hand = np.concatenate(
                [getattr(results[i], name)[:, list(logs[i].seats).index(seat)] for i in lu.members]
            ) / lu.game.big_blind
            series = cumulative_with_band(per_hand)
            ax.plot(series[0], series[1], color=color, label=f"{label} ({_fmt(1000 * per_hand.mean())} mbb/hand)")
            ax.fill_between(series[0], series[2], series[3], color=color, alpha=0.25, linewidth=0)
        ax.axhline(0, color="black", linewidth=0.5)
        ax.set_title(f"{seat} in {' vs '.join(lu.seats)} ({lu.label})")
        ax.set_xlabel("hands")
        ax.set_ylabel("cumulative big blinds")
        ax.legend(loc="upper left")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise PlotError(f"cannot write the plot to {path} ({exc.strerror or exc})") from None
    finally:
        plt.close(fig)


def cumulative_with_band(per_hand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Hands 1..n, cumulative total, and the total ± one standard error (s·√k after k hands)."""
    n = per_hand.size
    hands = np.arange(1, n + 1)
    total = np.cumsum(per_hand)
    std = float(per_hand.std(ddof=1)) if n > 1 else 0.0
    spread = std * np.sqrt(hands)
    return hands, total, total - spread, total + spread
