"""A spot solved (or reopened): its subgame, ranges, average strategy and the solve's figures.

:func:`solve_spot` builds a :class:`solver.spot.Spot`'s subgame and solves it with
:class:`solver.subgame.range_solver.SubgameSolver` to the spot's accuracy, time limit
and iteration cap, with a progress bar on stderr.  :func:`save_solution` writes the
result as a JSON policy (:mod:`solver.export`'s format) with three keys of its own,
``spot`` (the spot as :func:`solver.spot.spot_from_mapping` reads it), ``ranges`` (each
seat's combos and weights) and ``solve`` (the figures of the solve); the hands outside
a seat's range have no entries.  :func:`load_solution` rebuilds the same subgame from
``spot`` and reads the strategy back, exactly.
"""

from __future__ import annotations

import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from protocol.progress import Progress
from solver.export import export_policy, policy_strategy, read_policy
from solver.range_notation import format_weights, weights_from_combos
from solver.spot import SEATS, STREETS, Spot, SpotError, spot_from_mapping
from solver.subgame.range_solver import Subgame, SubgameSolver, build_subgame
from solver.tree import DECISION

#: The keys of ``figures`` (and of a saved file's ``solve``).
FIGURES = ("nodes", "decisions", "infoset_rows", "hands", "build_seconds", "iterations", "seconds", "exploitability_pct",
           "stopped", "memory_bytes", "peak_rss_mb", "threads")  # fmt: skip


@dataclass(frozen=True, eq=False)
class SpotSolution:
    """A spot's subgame with its average strategy.

    ranges: (2, n_hands) each player's root range over the subgame's hands.
    strategy: the average strategy, tabular layout of ``subgame.tabular.layout``.
    figures: what the solve measured (see :func:`solve_spot`).
    never_offered: the spot's sizes that never made a bet of their own, e.g. ``river IP raise 100%``.
    """

    spot: Spot
    subgame: Subgame
    ranges: np.ndarray
    strategy: np.ndarray
    figures: dict[str, Any]
    never_offered: list[str]


class _ReportingSolver(SubgameSolver):
    """A SubgameSolver that moves a progress bar on every iteration and shows the
    exploitability of every check of its average strategy in the bar's status.

    It hooks the two public methods ``solve`` runs its loop with, so the solve itself
    stays the library's (``tests/solver/test_spot_command.py`` checks the bar moves).
    """

    def __init__(self, *args: Any, bar: Progress, target: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bar = bar
        self.target = target

    def iterate(self, count: int = 1, hook: Any = None) -> None:
        super().iterate(count, hook)
        self.bar.update(self.iterations)

    def exploitability(self, strategy: np.ndarray | None = None) -> float:
        measured = super().exploitability(strategy)
        if strategy is None:
            self.bar.report(f"exploitability {measured:.4f}% of the pot (target {self.target:g}%)")
        return measured


@dataclass(frozen=True, eq=False)
class BuiltSpot:
    """A spot's subgame, the sizes never offered as a bet of their own in it, the build's seconds."""

    subgame: Subgame
    never_offered: list[str]
    seconds: float


def build_spot(spot: Spot) -> BuiltSpot:
    """Build the spot's subgame."""
    start = time.perf_counter()
    abstraction = spot.abstraction()
    subgame = build_subgame(spot.root(), abstraction)
    missing = [
        f"{STREETS[r - 1]} {'OOP' if p == spot.oop else 'IP'} {kind} {100 * f:g}%"
        for r, p, kind, f in abstraction.never_offered()
    ]
    return BuiltSpot(subgame, missing, time.perf_counter() - start)


def solve_spot(
    spot: Spot, built: BuiltSpot | None = None, *, progress: bool = True, stream: TextIO | None = None
) -> SpotSolution:
    """Build (unless ``built`` is given) and solve ``spot`` to its accuracy, time limit or
    iteration cap; with ``progress``, say what is solved and show a progress bar
    (iterations against the cap, the last exploitability measured) on ``stream``
    (default stderr).

    ``figures`` holds: nodes, decisions, infoset_rows, hands, build_seconds, iterations,
    seconds (the solve), exploitability_pct, stopped (``accuracy``, ``time limit`` or
    ``iterations``), memory_bytes (the solver's arrays), peak_rss_mb (the process's
    peak so far), threads.

    Raises:
        SpotError: if a range is bad or the spot cannot be solved as given.
    """
    built = built or build_spot(spot)
    subgame, missing, build = built.subgame, built.never_offered, built.seconds
    ranges = spot.hand_ranges(subgame)
    nodes, rows = subgame.size()
    stream = stream or sys.stderr
    if progress:
        stream.write(
            f"solving the {spot.street} spot: {nodes:,} nodes, {rows:,} infoset rows, built in {build:.2f} s; "
            f"to {spot.accuracy:g}% of the pot, at most {spot.max_iterations:,} iterations"
            + ("" if spot.time_limit is None else f" or {spot.time_limit:g} s")
            + f", {spot.threads} thread(s)\n"
        )
    with Progress("solving", spot.max_iterations, stream=stream, enabled=progress, unit="it") as bar:
        try:
            solver = _ReportingSolver(subgame, ranges, threads=spot.threads, bar=bar, target=spot.accuracy)
        except ValueError as error:  # SubgameError: threads, or a subgame too large
            raise SpotError(str(error)) from None
        result = solver.solve(
            spot.accuracy,
            time_limit=float("inf") if spot.time_limit is None else spot.time_limit,
            max_iterations=spot.max_iterations,
            check_every=spot.check_every,
            final=True,  # nothing iterates it again: the strategy takes the regrets' memory
        )
    if result.exploitability_pct <= spot.accuracy:
        stopped = "accuracy"
    elif result.iterations >= spot.max_iterations:
        stopped = "iterations"
    else:
        stopped = "time limit"
    figures = {
        "nodes": nodes,
        "decisions": int((subgame.tree.kind == DECISION).sum()),
        "infoset_rows": rows,
        "hands": subgame.n_hands,
        "build_seconds": build,
        "iterations": result.iterations,
        "seconds": result.seconds,
        "exploitability_pct": result.exploitability_pct,
        "stopped": stopped,
        "memory_bytes": result.memory_bytes,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3,  # Linux reports KB
        "threads": spot.threads,
    }
    return SpotSolution(spot, subgame, ranges, result.strategy, figures, missing)


def save_solution(path: str | Path, solution: SpotSolution) -> int:
    """Write ``solution`` as a JSON policy with its spot, ranges and figures; returns
    the number of entries (see the module docstring).

    Raises:
        ValueError: if ``path`` is a folder.
        OSError: if the file cannot be written.
    """
    spot, sg = solution.spot, solution.subgame
    weights = {seat: sg.to_hole_pairs(solution.ranges[_player(spot, seat)]) for seat in SEATS}
    extra = {
        "spot": spot.to_mapping(),
        "ranges": {seat: format_weights(w) for seat, w in weights.items()},
        "solve": solution.figures,
    }
    return export_policy(path, sg.tabular, solution.strategy, extra=extra, hands=solution.ranges > 0)


def load_solution(path: str | Path) -> SpotSolution:
    """Reopen a file :func:`save_solution` wrote: the spot's subgame rebuilt, the strategy read back.

    Raises:
        SpotError: if the file is not a saved spot, or does not fit the rebuilt subgame.
        OSError: if it cannot be read.
    """
    try:
        document = read_policy(path)
    except ValueError as error:
        raise SpotError(str(error)) from None
    for key in ("spot", "ranges", "solve"):
        if not isinstance(document.get(key), dict):
            raise SpotError(
                f"{path} is a policy file but not a saved spot: it has no {key!r} (write one with 'solver spot --out')"
            )
    missing = [key for key in FIGURES if key not in document["solve"]]
    if missing:
        raise SpotError(f"{path}: the saved solve lacks the figures {missing}")
    try:
        spot = spot_from_mapping(document["spot"])
        built = build_spot(spot)
        subgame = built.subgame
        ranges = np.zeros((2, subgame.n_hands))
        for seat in SEATS:
            combos = document["ranges"].get(seat)
            if not isinstance(combos, dict):
                raise SpotError(f"the ranges have no {seat!r} combos")
            ranges[_player(spot, seat)] = subgame.from_hole_pairs(weights_from_combos(combos, f"{seat} range"))
        strategy = policy_strategy(subgame.tabular, document)
    except ValueError as error:  # SpotError, RangeError, or the policy not fitting the tree
        raise SpotError(f"{path}: {error}") from None
    return SpotSolution(spot, subgame, ranges, strategy, dict(document["solve"]), built.never_offered)


def _player(spot: Spot, seat: str) -> int:
    return spot.oop if seat == "oop" else 1 - spot.oop
