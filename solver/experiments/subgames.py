"""Table 1: blueprint alone vs. every subgame re-solved by each method, by exact best response.

For a game of :data:`solver.experiments.TABLE1`: solve the blueprint (card abstraction
on the later rounds, :mod:`solver.experiments.blueprint`); then, for each method,
re-solve every public state at the start of ``subgame_round`` without card
abstraction — once per player, each keeping its own strategy there (``unsafe``
solves once for both) — and measure the combined strategy (blueprint outside,
re-solved strategies inside) by exact best response in the real game.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from solver.abstraction import parse_abstraction
from solver.bestresponse import exploitability
from solver.blueprint_values import BlueprintValues, subgames_below
from solver.experiments import ExperimentGame
from solver.experiments.blueprint import bucketed_cfr
from solver.experiments.buckets import strength_buckets
from solver.gadgets import GADGETS
from solver.ranges import TabularGame, normalized, tabular_game
from solver.safe import build_gadget, finite_min, margins, solve_subgame, subgame_rows
from solver.tree import CHANCE, DECISION

METHODS = tuple(GADGETS)


class MethodResult(NamedTuple):
    """A method's combined strategy and its figures.

    ``min_margin``: the smallest margin (chips) over every re-solved subgame and hand
    (NaN for ``unsafe``, which has no alternatives); ``solved``: subgames re-solved.
    """

    method: str
    strategy: np.ndarray
    mbb: float
    min_margin: float
    solved: int
    seconds: float


def subgame_roots(tg: TabularGame, round_: int) -> list[int]:
    """Decision nodes right after a deal into ``round_``: the roots of its public states."""
    tree = tg.tree
    out = []
    for chance in np.flatnonzero((tree.kind == CHANCE) & (tree.round == round_)):
        child = int(tree.children[tree.child_start[chance]])
        if tree.kind[child] == DECISION:
            out.append(child)
    return out


def combined_strategy(
    bv: BlueprintValues, roots: Sequence[int], round_: int, method: str, iterations: int,
    *, gift_form: str = "lower-bound", split_gifts: bool = True,
) -> tuple[np.ndarray, float, int]:
    """Blueprint outside, ``method``'s re-solved strategy in every subgame.

    Returns the tabular strategy, the minimum margin (chips; NaN for ``unsafe``) and
    the number of subgames solved.
    """
    tg = bv.game
    n_boards = tg.space.n_boards[round_]
    split = subgames_below(bv, list(roots), round_) if split_gifts else None
    strategy = bv.strategy.copy()
    solutions = []
    players = (0,) if method == "unsafe" else (0, 1)
    for player in players:
        regret, avg = np.zeros(tg.layout.size), np.zeros(tg.layout.size)
        mine = []
        for root in roots:
            for board in range(n_boards):
                gadget = build_gadget(bv, root, board, player, method, gift_form=gift_form, split=split)
                solution = solve_subgame(bv, root, board, player, gadget, regret, avg, iterations=iterations)
                if solution is not None:
                    mine.append(solution)
        solved = normalized(tg.layout, tg.tree, avg)
        keep = (0, 1) if method == "unsafe" else (player,)
        for s in mine:
            for p in keep:
                rows = subgame_rows(bv, s.node, s.board, p)
                strategy[rows] = solved[rows]
        solutions.extend(mine)
    if method == "unsafe":
        return strategy, math.nan, len(solutions)
    smallest = min((finite_min(margins(bv, s, strategy)) for s in solutions), default=math.nan)
    return strategy, smallest, len(solutions)


def run_game(
    spec: ExperimentGame, methods: Sequence[str] = METHODS, log: Callable[[str], None] = print
) -> tuple[TabularGame, float, list[MethodResult]]:
    """Blueprint and every method on one game; returns the game, the blueprint's
    exploitability (mbb/hand) and each method's result."""
    tg = tabular_game(spec.game(), parse_abstraction(spec.abstraction))
    started = time.perf_counter()
    blueprint = bucketed_cfr(tg, strength_buckets(tg.space, spec.buckets), spec.blueprint_iterations)
    base = exploitability(tg, blueprint).exploitability_mbb
    log(f"{spec.key}: {tg.tree.n_nodes} betting nodes, {tg.space.n_hands} hands, {tg.layout.size:,} strategy entries; "
        f"blueprint {spec.blueprint_iterations} DCFR iterations in {time.perf_counter() - started:.1f} s: {base:.2f} mbb/hand")
    bv = BlueprintValues(tg, blueprint)
    roots = subgame_roots(tg, spec.subgame_round)
    results = []
    for method in methods:
        started = time.perf_counter()
        strategy, smallest, solved = combined_strategy(bv, roots, spec.subgame_round, method, spec.subgame_iterations)
        mbb = exploitability(tg, strategy).exploitability_mbb
        seconds = time.perf_counter() - started
        results.append(MethodResult(method, strategy, mbb, smallest, solved, seconds))
        log(f"{spec.key}: {method}: {solved} subgames x {spec.subgame_iterations} iterations in {seconds:.1f} s: "
            f"{mbb:.2f} mbb/hand, min margin {smallest:.4g} chips")
    return tg, base, results


def format_table(specs: Sequence[ExperimentGame], blueprints: Sequence[float], results: Sequence[Sequence[MethodResult]]) -> str:
    """The table in mbb/hand, ours beside the published figure."""
    width = 26
    lines = [f"{'exploitability (mbb/hand)':<24}" + "".join(f"{s.label:>{width}}" for s in specs)]
    lines.append(f"{'':<24}" + "".join(f"{'ours (published)':>{width}}" for _ in specs))

    def cell(value: float, spec: ExperimentGame, row: str) -> str:
        published = spec.published.get(row)
        text = f"{value:,.2f}" + (f" ({published:,.3g})" if published is not None else "")
        return f"{text:>{width}}"

    lines.append(f"{'blueprint':<24}" + "".join(cell(b, s, "blueprint") for b, s in zip(blueprints, specs)))
    for i, method in enumerate(r.method for r in results[0]):
        row = "unsafe" if method == "unsafe" else "safe"
        lines.append(f"{method:<24}" + "".join(cell(res[i].mbb, s, row) for res, s in zip(results, specs)))
    lines.append("(published: Brown & Sandholm / Libratus Table 1; their 'safe' row is Libratus's safe method)")
    for spec, base, res in zip(specs, blueprints, results):
        safe = [r for r in res if r.method != "unsafe"]
        if safe:
            worst = max(safe, key=lambda r: r.mbb)
            ratio = base / worst.mbb if worst.mbb > 0 else math.inf
            verdict = "met" if ratio >= 4 else "MISSED"
            margin = min(r.min_margin for r in safe if r.method in ("resolve", "maxmargin"))
            lines.append(
                f"{spec.label}: worst safe variant {worst.method} is {ratio:.1f}x below the blueprint "
                f"(target 4x: {verdict}); min Resolve/Maxmargin margin {margin:.3g} chips"
            )
    return "\n".join(lines)
