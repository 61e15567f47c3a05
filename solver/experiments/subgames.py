"""Table 1: blueprint alone vs. every subgame re-solved by each method, by exact best response.

For a game of :data:`solver.experiments.TABLE1`: solve the blueprint (card abstraction
on the later rounds, :mod:`solver.experiments.blueprint`); then, for each method,
re-solve every public state at the start of ``subgame_round`` without card
abstraction — once per player, each keeping its own strategy there (``unsafe``
solves once for both) — and measure the combined strategy (blueprint outside,
re-solved strategies inside) by exact best response in the real game.  Beside them:
Reach-Maxmargin without splitting its gifts (:data:`NO_SPLIT`), our ``-unsafe``
gadgets (:data:`solver.subgame.gadgets.OURS`, labelled "ours") and the floor no re-solve can
beat (:func:`solver.experiments.blueprint.best_completion`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple

import numpy as np

from solver.bestresponse import exploitability
from solver.bets import parse_abstraction
from solver.experiments import ExperimentGame
from solver.experiments.blueprint import best_completion, bucketed_cfr
from solver.experiments.buckets import strength_buckets
from solver.ranges import TabularGame, tabular_game
from solver.subgame.blueprint_values import BlueprintValues, subgames_below
from solver.subgame.gadgets import GADGETS, OURS, Gadget
from solver.subgame.safe import (
    NEGLIGIBLE_WEIGHT,
    Rows,
    SubgameSolution,
    adopt,
    build_gadget,
    margin_summary,
    solve_subgame,
    subgame_rows,
)
from solver.tree import CHANCE, DECISION

#: The Reach-Maxmargin row with its gifts not split across the subgames below them
#: (the "no split" scaling: better in the paper's experiments, not safe in theory).
NO_SPLIT = "reach-maxmargin-nosplit"
METHODS = (*GADGETS, NO_SPLIT)
#: Rows whose margins theory keeps >= 0 at convergence.
GUARANTEED = ("resolve", "maxmargin")


class MethodResult(NamedTuple):
    """A method's combined strategy and its figures.

    ``min_margin``: the smallest margin (chips) over every re-solved subgame and hand
    that is not negligible (see :func:`solver.subgame.safe.margin_summary`), ``min_margin_all``
    over every hand (both NaN for ``unsafe``, which has no alternatives); ``excess``:
    the bound, in mbb/hand, on how much the combined strategy can be more exploitable
    than the blueprint (the opponent's CBV gains summed over subgames, mean of the two
    players); ``solved``: subgames re-solved.
    """

    method: str
    strategy: np.ndarray
    mbb: float
    min_margin: float
    min_margin_all: float
    excess: float
    solved: int
    seconds: float


class Combined(NamedTuple):
    """What :func:`combined_strategy` returns (margins in chips, excess in chips per hand)."""

    strategy: np.ndarray
    min_margin: float
    min_margin_all: float
    excess: float
    solved: int


def subgame_roots(tg: TabularGame, round_: int) -> list[int]:
    """Decision nodes right after a deal into ``round_``: the roots of its public states."""
    tree = tg.tree
    out = []
    for chance in np.flatnonzero((tree.kind == CHANCE) & (tree.round == round_)):
        child = int(tree.children[tree.child_start[chance]])
        if tree.kind[child] == DECISION:
            out.append(child)
    return out


#: Builds the gadget of one re-solve: (root, board, player) -> gadget.
GadgetFor = Callable[[int, int, int], Gadget]
#: Re-solves one subgame into shared arrays: (root, board, player, gadget, regret, avg) -> its solution, or None.
Solve = Callable[[int, int, int, Gadget, np.ndarray, np.ndarray], SubgameSolution | None]


def resolve_round(
    bv: BlueprintValues, strategy: np.ndarray, roots: Sequence[int], round_: int, player: int,
    gadget_for: GadgetFor, solve: Solve, *, players: Sequence[int] | None = None, rows: Rows = subgame_rows,
) -> list[SubgameSolution]:
    """Re-solve every public state at ``roots`` (each board of ``round_``) for ``player``,
    the solves accumulating into one pair of arrays (their rows do not overlap), and
    write the results into ``strategy`` (see :func:`solver.subgame.safe.adopt`)."""
    tg = bv.game
    regret, avg = np.zeros(tg.layout.size), np.zeros(tg.layout.size)
    solutions = []
    for root in roots:
        for board in range(tg.space.n_boards[round_]):
            solution = solve(root, board, player, gadget_for(root, board, player), regret, avg)
            if solution is not None:
                solutions.append(solution)
    adopt(bv, strategy, avg, solutions, players=players, rows=rows)
    return solutions


def combined_strategy(
    bv: BlueprintValues, roots: Sequence[int], round_: int, method: str, iterations: int,
    *, gift_form: str = "lower-bound", gadget_for: GadgetFor | None = None,
) -> Combined:
    """Blueprint outside, ``method``'s re-solved strategy (a gadget name or
    :data:`NO_SPLIT`) in every subgame.

    ``gadget_for(root, board, player)``, if given, builds each re-solve's gadget
    instead of ``method`` (which then only says whether one solve serves both players,
    as for ``unsafe``): the diagnostics try other ranges and alternatives with it.
    """
    gadget_name = "reach-maxmargin" if method == NO_SPLIT else method
    split = None if method == NO_SPLIT else subgames_below(bv, list(roots), round_)
    by_method = partial(build_gadget, bv, name=gadget_name, gift_form=gift_form, split=split)
    solve = partial(solve_subgame, bv, iterations=iterations)
    strategy = bv.strategy.copy()
    solutions = []
    unsafe = method == "unsafe"  # one solve, kept for both players
    for player in (0,) if unsafe else (0, 1):
        solutions += resolve_round(
            bv, strategy, roots, round_, player, gadget_for or by_method, solve, players=(0, 1) if unsafe else None
        )
    if unsafe:
        return Combined(strategy, math.nan, math.nan, math.nan, len(solutions))
    summaries = [margin_summary(bv, s, strategy) for s in solutions]
    smallest = min((m[0] for m in summaries), default=math.nan)
    smallest_all = min((m[1] for m in summaries), default=math.nan)
    return Combined(strategy, smallest, smallest_all, sum(m[2] for m in summaries) / 2, len(solutions))


def run_game(
    spec: ExperimentGame, methods: Sequence[str] = METHODS, log: Callable[[str], None] = print
) -> tuple[TabularGame, float, float, list[MethodResult]]:
    """Blueprint, floor and every method on one game; returns the game, the blueprint's
    and the floor's exploitability (mbb/hand; see :func:`best_completion`) and each
    method's result."""
    tg = tabular_game(spec.game(), parse_abstraction(spec.abstraction))
    mbb_per_chip = 1000.0 / tg.game.big_blind
    started = time.perf_counter()
    blueprint = bucketed_cfr(tg, strength_buckets(tg.space, spec.buckets), spec.blueprint_iterations)
    base = exploitability(tg, blueprint).exploitability_mbb
    log(f"{spec.key}: {tg.tree.n_nodes} betting nodes, {tg.space.n_hands} hands, {tg.layout.size:,} strategy entries; "
        f"blueprint {spec.blueprint_iterations} DCFR iterations in {time.perf_counter() - started:.1f} s: {base:.2f} mbb/hand")
    started = time.perf_counter()
    _, floor = best_completion(tg, blueprint, spec.subgame_round, spec.blueprint_iterations)
    log(f"{spec.key}: floor (best play from round {spec.subgame_round + 1} on, the blueprint before) "
        f"in {time.perf_counter() - started:.1f} s: {floor:.2f} mbb/hand")
    bv = BlueprintValues(tg, blueprint)
    roots = subgame_roots(tg, spec.subgame_round)
    results = []
    for method in methods:
        started = time.perf_counter()
        c = combined_strategy(bv, roots, spec.subgame_round, method, spec.subgame_iterations)
        mbb = exploitability(tg, c.strategy).exploitability_mbb
        seconds = time.perf_counter() - started
        results.append(MethodResult(method, c.strategy, mbb, c.min_margin, c.min_margin_all, c.excess * mbb_per_chip,
                                    c.solved, seconds))
        log(f"{spec.key}: {method}: {c.solved} subgames x {spec.subgame_iterations} iterations in {seconds:.1f} s: "
            f"{mbb:.2f} mbb/hand, min margin {c.min_margin:.4g} chips ({c.min_margin_all:.4g} over every hand), "
            f"excess {c.excess * mbb_per_chip:.4g} mbb/hand")
    return tg, base, floor, results


def format_table(
    specs: Sequence[ExperimentGame], blueprints: Sequence[float], floors: Sequence[float],
    results: Sequence[Sequence[MethodResult]],
) -> str:
    """The table in mbb/hand, ours beside the published figure, and the verdicts."""
    width, label = 26, 30
    lines = [f"{'exploitability (mbb/hand)':<{label}}" + "".join(f"{s.label:>{width}}" for s in specs)]
    lines.append(f"{'':<{label}}" + "".join(f"{'ours (published)':>{width}}" for _ in specs))

    def cell(value: float, spec: ExperimentGame, row: str) -> str:
        published = spec.published.get(row)
        text = f"{value:,.2f}" + (f" ({published:,.3g})" if published is not None else "")
        return f"{text:>{width}}"

    lines.append(f"{'blueprint':<{label}}" + "".join(cell(b, s, "blueprint") for b, s in zip(blueprints, specs)))
    for i, method in enumerate(r.method for r in results[0]):
        row = "unsafe" if method == "unsafe" else "safe"
        name = f"{method} (ours)" if method in OURS else method
        lines.append(f"{name:<{label}}" + "".join(cell(res[i].mbb, s, row) for res, s in zip(results, specs)))
    lines.append(f"{'floor (best after round 1)':<{label}}" + "".join(cell(f, s, "floor") for f, s in zip(floors, specs)))
    lines.append("(published: Brown & Sandholm / Libratus Table 1; their 'safe' row is Libratus's safe method;")
    lines.append(" (ours): not a method of the paper, see solver.subgame.gadgets;")
    lines.append(" floor: the least exploitable strategy that keeps the blueprint's first round, which no re-solve can beat)")
    for spec, base, floor, res in zip(specs, blueprints, floors, results):
        safe = [r for r in res if r.method != "unsafe"]
        if not safe:
            continue
        worst = max(safe, key=lambda r: r.mbb)
        best = min(safe, key=lambda r: r.mbb)
        ratio = base / worst.mbb if worst.mbb > 0 else math.inf
        verdict = "met" if ratio >= 4 else "MISSED"
        guaranteed = [r for r in safe if r.method in GUARANTEED]
        margin = min((r.min_margin for r in guaranteed), default=math.nan)
        margin_all = min((r.min_margin_all for r in guaranteed), default=math.nan)
        excess = max((r.excess for r in guaranteed), default=math.nan)
        lines.append(
            f"{spec.label}: worst safe variant {worst.method} is {ratio:.1f}x below the blueprint, best "
            f"{best.method} {base / best.mbb:.1f}x (target 4x: {verdict}; the floor allows {base / floor:.1f}x)"
        )
        lines.append(
            f"  min Resolve/Maxmargin margin {margin:.3g} chips (hands with >= {NEGLIGIBLE_WEIGHT:g} of their "
            f"subgame's largest weight; {margin_all:.3g} over all); their excess over the blueprint's CBVs "
            f"<= {excess:.3g} mbb/hand"
        )
    return "\n".join(lines)
