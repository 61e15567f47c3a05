"""Depth-limited against full-depth safe subgame solving on a 3-round game, by exact best response.

A blueprint of Table 1's 3-round game (:data:`solver.experiments.TABLE1`; by default
card-abstracted on round 2 only, so that the blueprint a depth-limited re-solve keeps
after its depth is not what limits it) is re-solved at every public state at the start
of round 2, once per player, with the same gadget: to the end of the game (full depth,
:func:`solver.experiments.subgames.combined_strategy`) or to the end of round 2 with
k continuation strategies at the leaves (:mod:`solver.subgame.depth_limited`).  The combined
strategies — blueprint on round 1, the re-solve inside its depth, the blueprint after —
are measured exactly.  A depth-limited re-solve leaves round 3 to the blueprint, so its
own floor is the least exploitable strategy that keeps the blueprint on rounds 1 and 3
(:func:`depth_limited_floor`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from solver.bestresponse import exploitability
from solver.bets import parse_abstraction
from solver.experiments import TABLE1, ExperimentGame
from solver.experiments.blueprint import bucketed_cfr, player_rows
from solver.experiments.buckets import strength_buckets
from solver.experiments.subgames import Solve, combined_strategy, resolve_round, subgame_roots
from solver.ranges import TabularGame, tabular_game
from solver.subgame.blueprint_values import BlueprintValues
from solver.subgame.depth_limited import (
    BIAS_FACTOR,
    LeafValues,
    continuation_names,
    depth_limited_subgame,
    modelled_best_response,
    round_rows,
    solve_depth_limited,
    solve_keeping_blueprint,
)
from solver.subgame.gadgets import Gadget, make_gadget
from solver.subgame.safe import SubgameSolution, build_gadget, margin_summary

#: The full run: Table 1's 3-round game and its iterations, 4 buckets on round 2 only.
DL_GAME = replace(next(s for s in TABLE1 if s.key == "three3"), buckets=(None, 4, None))
#: The cheap setting the tests run: a 3-round game with a 6-card deck.
DL_QUICK = ExperimentGame("quick3", "tiny 3-round (quick)", "0.5,1;allin;cap=2,1,1", (None, 3, 3), 1, 60, 40, {})
#: Where the gadget's alternatives come from: the full game (the opponent's values
#: against the blueprint to the end of the game) or the depth-limited model (its
#: best response against the blueprint inside the round and among the continuations).
ALTERNATIVE_SOURCES = ("game", "model")
#: Where a depth-limited subgame is cut: at the chance node ending its round, or after the card it deals.
CUTS = ("round", "card")


@dataclass(frozen=True)
class Row:
    """One strategy of the table: exploitability (mbb/hand), seconds, and for re-solves
    the safety figures of :func:`solver.safe.margin_summary` (excess in mbb/hand)."""

    name: str
    strategy: np.ndarray
    mbb: float
    seconds: float
    min_margin: float = math.nan
    excess: float = math.nan
    leaf_walks: int = 0
    k: int = 0  # continuations (0: not a depth-limited row)
    cut: str = ""  # "round" or "card" (see :data:`CUTS`)
    key: str = ""  # the file name's part for --save (default: from the name, k and cut)


def _assemble(
    bv: BlueprintValues, roots: Sequence[int], round_: int, gadget_name: str, solve: Solve
) -> tuple[np.ndarray, float, float]:
    """Blueprint outside, ``solve``'s strategy inside every subgame's round (each player's
    solves accumulating into one pair of arrays, as Table 1's); with the smallest margin
    (chips, against the true best response) and the excess (chips per hand; see
    :func:`solver.safe.margin_summary`) over every re-solve."""
    gadget_for = partial(build_gadget, bv, name=gadget_name)
    strategy = bv.strategy.copy()
    solutions = []
    for player in (0, 1):
        solutions += resolve_round(bv, strategy, roots, round_, player, gadget_for, solve, rows=round_rows)
    if gadget_name == "unsafe":
        return strategy, math.nan, math.nan
    summaries = [margin_summary(bv, s, strategy) for s in solutions]
    smallest = min((m[0] for m in summaries), default=math.nan)
    return strategy, smallest, sum(m[2] for m in summaries) / 2


def depth_limited_strategy(
    bv: BlueprintValues, roots: Sequence[int], round_: int, gadget_name: str, iterations: int,
    continuations: Sequence[str], *, factor: float = BIAS_FACTOR, alternatives: str = "game", after_card: bool = False,
) -> tuple[np.ndarray, float, float, int]:
    """Blueprint outside, the depth-limited re-solve inside every subgame's round.

    Returns the combined strategy, the smallest margin and the excess (see
    :func:`_assemble`), and the rest-of-game walks the leaf values cost.

    Raises:
        ValueError: for an unknown ``alternatives`` source.
    """
    if alternatives not in ALTERNATIVE_SOURCES:
        raise ValueError(f"unknown alternatives {alternatives!r} (expected one of {', '.join(ALTERNATIVE_SOURCES)})")
    leaves = LeafValues(bv, tuple(continuations), factor, best_response_after=round_)

    def solve(root: int, board: int, player: int, gadget: Gadget, regret: np.ndarray, avg: np.ndarray) -> SubgameSolution | None:
        sub = depth_limited_subgame(leaves, root, board, player, after_card=after_card)
        if alternatives == "model" and gadget.name != "unsafe":
            modelled = modelled_best_response(leaves, sub, bv.strategy)
            gadget = make_gadget(gadget.name, modelled, gadget.weight, gadget.blueprint_reach)
        return solve_depth_limited(leaves, sub, gadget, regret, avg, iterations=iterations)

    strategy, smallest, excess = _assemble(bv, roots, round_, gadget_name, solve)
    return strategy, smallest, excess, leaves.walks


def opponent_free_strategy(
    bv: BlueprintValues, roots: Sequence[int], round_: int, gadget_name: str, iterations: int
) -> tuple[np.ndarray, float, float]:
    """The limit of depth-limited solving as k grows (:func:`solver.subgame.depth_limited.solve_keeping_blueprint`):
    the re-solver keeps the blueprint after the round, the opponent is free there."""

    def solve(root: int, board: int, player: int, gadget: Gadget, regret: np.ndarray, avg: np.ndarray) -> SubgameSolution | None:
        return solve_keeping_blueprint(bv, root, board, player, gadget, regret, avg, iterations=iterations)

    return _assemble(bv, roots, round_, gadget_name, solve)


def depth_limited_floor(tg: TabularGame, strategy: np.ndarray, round_: int, iterations: int) -> float:
    """Exploitability (mbb/hand) of the least exploitable profile that changes only
    ``round_`` of ``strategy``: per player, DCFR with its other rounds frozen."""
    out = np.array(strategy, np.float64)
    others = [r for r in range(tg.game.num_rounds) if r != round_]
    for p in range(2):
        frozen = player_rows(tg, p, others)
        solved = bucketed_cfr(tg, [None] * tg.game.num_rounds, iterations, frozen=(frozen, out[frozen]))
        rows = player_rows(tg, p, [round_])
        out[rows] = solved[rows]
    return exploitability(tg, out).exploitability_mbb


def run_depth_limited(
    spec: ExperimentGame, *, gadget: str = "maxmargin", ks: Sequence[int] = (1, 4), factor: float = BIAS_FACTOR,
    alternatives: str = "game", cuts: Sequence[str] = ("round",), floor: bool = False, limit: bool = False,
    log: Callable[[str], None] = print,
) -> tuple[TabularGame, list[Row], float]:
    """Blueprint, full-depth and depth-limited (one row per cut and k) safe solving on ``spec``.

    Returns the game, the rows, and the depth-limited floor (NaN unless ``floor``).
    """
    tg = tabular_game(spec.game(), parse_abstraction(spec.abstraction))
    mbb_per_chip = 1000.0 / tg.game.big_blind
    started = time.perf_counter()
    blueprint = bucketed_cfr(tg, strength_buckets(tg.space, spec.buckets), spec.blueprint_iterations)
    rows = [Row("blueprint", blueprint, exploitability(tg, blueprint).exploitability_mbb, time.perf_counter() - started)]
    log(f"{spec.key}: {tg.tree.n_nodes} betting nodes, {tg.space.n_hands} hands, {tg.layout.size:,} strategy entries; "
        f"blueprint {spec.blueprint_iterations} DCFR iterations in {rows[0].seconds:.1f} s: {rows[0].mbb:.2f} mbb/hand")
    bv = BlueprintValues(tg, blueprint)
    round_ = spec.subgame_round
    roots = subgame_roots(tg, round_)
    started = time.perf_counter()
    full = combined_strategy(bv, roots, round_, gadget, spec.subgame_iterations)
    rows.append(Row(f"full-depth {gadget}", full.strategy, exploitability(tg, full.strategy).exploitability_mbb,
                    time.perf_counter() - started, full.min_margin, full.excess * mbb_per_chip))
    log(f"{spec.key}: {rows[-1].name}: {full.solved} subgames x {spec.subgame_iterations} iterations in "
        f"{rows[-1].seconds:.1f} s: {rows[-1].mbb:.2f} mbb/hand")
    for cut, k in ((c, k) for c in cuts for k in ks):
        names = continuation_names(k)
        started = time.perf_counter()
        strategy, margin, excess, walks = depth_limited_strategy(
            bv, roots, round_, gadget, spec.subgame_iterations, names, factor=factor, alternatives=alternatives,
            after_card=cut == "card",
        )
        name = f"depth-limited k={k} {gadget}" + (" after card" if cut == "card" else "")
        rows.append(Row(name, strategy, exploitability(tg, strategy).exploitability_mbb, time.perf_counter() - started,
                        margin, excess * mbb_per_chip, walks, k, cut))
        log(f"{spec.key}: {rows[-1].name} ({', '.join(names)}): {rows[-1].seconds:.1f} s, "
            f"{walks:,} rest-of-game walks for the leaves: {rows[-1].mbb:.2f} mbb/hand")
    if limit:
        started = time.perf_counter()
        strategy, margin, excess = opponent_free_strategy(bv, roots, round_, gadget, spec.subgame_iterations)
        rows.append(Row(f"opponent free after round {round_ + 1} {gadget}", strategy,
                        exploitability(tg, strategy).exploitability_mbb, time.perf_counter() - started, margin,
                        excess * mbb_per_chip, key="opponent-free"))
        log(f"{spec.key}: {rows[-1].name} (the limit of depth-limited as k grows): {rows[-1].seconds:.1f} s: "
            f"{rows[-1].mbb:.2f} mbb/hand")
    dl_floor = math.nan
    if floor:
        started = time.perf_counter()
        dl_floor = depth_limited_floor(tg, blueprint, round_, spec.blueprint_iterations)
        log(f"{spec.key}: depth-limited floor (best round {round_ + 1}, the blueprint elsewhere) in "
            f"{time.perf_counter() - started:.1f} s: {dl_floor:.2f} mbb/hand")
    return tg, rows, dl_floor


def format_rows(spec: ExperimentGame, rows: Sequence[Row], dl_floor: float = math.nan) -> str:
    """The table: strategy, exploitability, seconds, safety; then the target's verdict."""
    lines = [f"{spec.label}: exploitability by exact best response",
             f"{'strategy':<44}{'mbb/hand':>12}{'seconds':>10}{'min margin':>12}{'excess':>10}"]
    for r in rows:
        lines.append(f"{r.name:<44}{r.mbb:>12.2f}{r.seconds:>10.1f}{r.min_margin:>12.3g}{r.excess:>10.3g}")
    if not math.isnan(dl_floor):
        lines.append(f"{'floor: best round 2, blueprint elsewhere':<44}{dl_floor:>12.2f}")
    lines.append("(min margin: chips, smallest over re-solves and non-negligible hands, against the true best "
                 "response; excess: mbb/hand, the bound on how much the re-solves can add to the blueprint's "
                 "exploitability)")
    full = next((r for r in rows if r.name.startswith("full-depth")), None)
    for cut in CUTS:
        by_k = {r.k: r for r in rows if r.cut == cut}
        where = "at the end of the round" if cut == "round" else "after the card"
        if full is not None and 4 in by_k and full.mbb > 0:
            ratio = by_k[4].mbb / full.mbb
            lines.append(f"depth-limited k=4 cut {where} is {ratio:.3f}x full depth's exploitability "
                         f"(target <= 1.5x: {'met' if ratio <= 1.5 else 'MISSED'})")
        if 1 in by_k and 4 in by_k:
            lines.append(f"  k=1 minus k=4: {by_k[1].mbb - by_k[4].mbb:+.2f} mbb/hand")
    return "\n".join(lines)
