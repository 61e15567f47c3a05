"""Safe subgame solving inside a tabular game: a gadget at a public state, solved with
the full-game range kernel started at that state.

A subgame is a public state (betting node, board of its round) of a two-player
:class:`~solver.ranges.TabularGame`; its numbers are the rows of the nodes below it on
the boards that extend its board, so the regrets of many subgames can share one
full-layout array without touching each other.  Each iteration runs the re-solver's
update with the opponent's root reach from the gadget, then the opponent's update,
whose root values feed the gadget (:mod:`solver.subgame.gadgets`).  This is the whole-game
evaluation path of the experiments; the agent solves rebuilt subtrees instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from solver.cfr.fullwidth import DCFR, CFRConfig
from solver.ranges import UPDATE, WHOLE, CardArrays, TreeArrays, discounts, normalized, walk
from solver.subgame.blueprint_values import BlueprintValues
from solver.subgame.gadgets import GADGETS, Gadget, gadget_reach, gadget_update, make_gadget
from solver.subgame.leaf_walk import NO_LEAVES, LeafArrays, dl_walk
from solver.tree import DECISION


class SubgameSolution(NamedTuple):
    """One re-solved subgame: the gadget used and where the result lives.

    ``margins`` are per opponent hand in chips (NaN for hands that cannot be here),
    filled by :func:`margins` once the strategy is known.
    """

    node: int
    board: int
    player: int
    gadget: Gadget


@njit(cache=True)
def _gadget_dcfr(
    node: np.int64, board: np.int64, player: np.int64, tree: TreeArrays, cards: CardArrays, leaves: LeafArrays,
    regret: np.ndarray, avg: np.ndarray, leaf_regret: np.ndarray, leaf_avg: np.ndarray,
    kept: np.ndarray, kept_values: np.ndarray, our_reach: np.ndarray, deal: float, kind: int,
    alternatives: np.ndarray, weight: np.ndarray, blueprint_reach: np.ndarray, gadget_regret: np.ndarray,
    iterations: int, alpha: float, beta: float, gamma: float, unsafe_weight: float,
) -> None:
    """Run ``iterations`` of alternating DCFR on the subtree at (``node``, ``board``) with
    the gadget at its root.  Mutates ``regret``, ``avg`` (tabular layout, float64) and
    ``gadget_regret`` ((n_hands, 2) float64).  ``our_reach`` is the re-solver's reach
    (n_hands,), ``deal`` the probability of the board extensions above the node.

    With ``leaves`` (not :data:`~solver.subgame.leaf_walk.NO_LEAVES`) the subtree is a
    depth-limited subgame (:func:`~solver.subgame.leaf_walk.dl_walk`; the chooser's
    regrets in ``leaf_regret``, ``leaf_avg``), else it runs to the end of the game.
    The entries ``kept`` of ``regret`` are reset to ``kept_values`` after every update
    of the re-solver, so regret matching plays exactly those probabilities there.
    """
    n_h = our_reach.shape[0]
    opponent = np.int64(1) - player
    opp_reach = np.empty(n_h)
    regret[kept] = kept_values
    for t in range(1, iterations + 1):
        d_pos, d_neg, d_avg = discounts(t, alpha, beta, gamma)
        gadget_reach(kind, gadget_regret, weight, blueprint_reach, opp_reach, unsafe_weight)
        _update(
            node, board, player, opponent, our_reach, opp_reach * deal, tree, cards, leaves,
            regret, avg, leaf_regret, leaf_avg, d_pos, d_neg, d_avg,
        )
        regret[kept] = kept_values
        values = _update(
            node, board, opponent, opponent, opp_reach.copy(), our_reach * deal, tree, cards, leaves,
            regret, avg, leaf_regret, leaf_avg, d_pos, d_neg, d_avg,
        )
        gadget_update(kind, gadget_regret, alternatives, weight, opp_reach, values, d_pos, d_neg)


@njit(cache=True)
def _update(
    node: np.int64, board: np.int64, trav: np.int64, chooser: np.int64, reach_t: np.ndarray, reach_o: np.ndarray,
    tree: TreeArrays, cards: CardArrays, leaves: LeafArrays, regret: np.ndarray, avg: np.ndarray,
    leaf_regret: np.ndarray, leaf_avg: np.ndarray, d_pos: float, d_neg: float, d_avg: float,
) -> np.ndarray:
    """``trav``'s CFR update of the subtree at ``node``: to the end of the game, or to the
    ``leaves`` of a depth-limited subgame where there are any."""
    update = np.int64(UPDATE)
    unused = np.zeros(0)
    if leaves.option_count.shape[0] > 0:
        return dl_walk(
            node, board, trav, chooser, reach_t, reach_o, update, tree, cards, leaves,
            regret, avg, leaf_regret, leaf_avg, unused, d_pos, d_neg, d_avg,
        )
    n_h = reach_t.shape[0]
    return walk(
        node, board, trav, reach_t, reach_o, update, tree, cards, regret, avg, unused, unused,
        d_pos, d_neg, d_avg, np.int64(WHOLE), np.zeros((0, 2, n_h)), np.zeros((0, n_h)),
    )


def solve_with_gadget(
    bv: BlueprintValues, node: int, board: int, player: int, gadget: Gadget, regret: np.ndarray, avg: np.ndarray,
    *, iterations: int, config: CFRConfig, leaves: LeafArrays = NO_LEAVES, leaf_regret: np.ndarray | None = None,
    kept: np.ndarray | None = None,
) -> SubgameSolution | None:
    """:func:`_gadget_dcfr` at (``node``, ``board``) for re-solver ``player``, accumulating
    into ``regret`` and ``avg``; ``leaf_regret`` (zeros, (choices, hands, options)) the
    chooser's regrets at ``leaves``; ``kept`` the entries of ``regret`` that keep the
    blueprint's probabilities.

    Returns None (nothing solved) when the subgame is unreachable: the re-solver never
    plays to it, or (``unsafe`` only) the opponent never does, so no distribution over
    its root is defined — the blueprint stays in force there.
    """
    our_reach = bv.reach(node, board, player)
    if not our_reach.any() or not (gadget.weight > 0).any():
        return None
    if gadget.kind == GADGETS["unsafe"][0] and not (gadget.blueprint_reach * (gadget.weight > 0)).any():
        return None
    leaf_regret = np.zeros((0, 0, 1)) if leaf_regret is None else leaf_regret
    kept = np.zeros(0, np.int64) if kept is None else kept
    _gadget_dcfr(
        np.int64(node), np.int64(board), np.int64(player), *bv.arrays, leaves, regret, avg,
        leaf_regret, np.zeros_like(leaf_regret), kept, bv.strategy[kept].copy(),
        our_reach, bv.deal_probability(node), gadget.kind, gadget.alternatives, gadget.weight, gadget.blueprint_reach,
        gadget.new_regrets(), iterations, *(float(x) for x in config), gadget.unsafe_weight,
    )
    return SubgameSolution(node, board, player, gadget)


def build_gadget(
    bv: BlueprintValues, node: int, board: int, player: int, name: str, *,
    gift_form: str = "lower-bound", split: dict[int, int] | None = None,
) -> Gadget:
    """The gadget protecting ``player``'s re-solve at (``node``, ``board``) against the opponent.

    Alternatives: the opponent's blueprint CBV (``resolve``, ``maxmargin``), its value
    under the blueprint profile (``estimated-maxmargin``), or either plus its gifts
    on the way here, each divided by ``split`` (``reach-maxmargin``,
    ``reach-estimated-maxmargin``; ``split=None`` is the "no split" scaling).
    """
    if name not in GADGETS:
        return make_gadget(name, np.zeros(0), np.zeros(0), np.zeros(0))  # raises with the list of names
    opponent = 1 - player
    source = GADGETS[name][1]
    weight = bv.weight(node, board, opponent)
    if source == "none":
        alternatives = np.zeros_like(weight)
    else:
        alternatives = bv.values(node, board, opponent, best=not source.startswith("estimate")).copy()
        if source.endswith("+gifts"):
            alternatives += bv.gifts(node, board, opponent, form=gift_form, split=split)
    return make_gadget(name, alternatives, weight, bv.reach(node, board, opponent))


def solve_subgame(
    bv: BlueprintValues, node: int, board: int, player: int, gadget: Gadget,
    regret: np.ndarray, avg: np.ndarray, *, iterations: int = 200, config: CFRConfig = DCFR,
) -> SubgameSolution | None:
    """Re-solve the subgame for ``player`` with ``gadget``, accumulating into the
    full-layout ``regret`` and ``avg`` arrays (mutated; rows outside the subgame untouched).

    Returns None when the subgame is unreachable (see :func:`solve_with_gadget`).

    Raises:
        ValueError: if ``node`` is not a decision node.
    """
    if bv.game.tree.kind[node] != DECISION:
        raise ValueError(f"subgames start at decision nodes; node {node} is not one")
    return solve_with_gadget(bv, node, board, player, gadget, regret, avg, iterations=iterations, config=config)


def margins(bv: BlueprintValues, solution: SubgameSolution, strategy: np.ndarray) -> np.ndarray:
    """Per opponent hand margin (chips) of the re-solved ``strategy`` in this subgame."""
    opponent = 1 - solution.player
    cbv = bv.values(solution.node, solution.board, opponent, best=True, strategy=strategy)
    return solution.gadget.margins(cbv)


#: Hands holding less than this fraction of their subgame's largest weight are left out
#: of the reported minimum margin: a margin is divided by its hand's weight, and the
#: re-solver's range meets such hands only through the ~1e-8 probabilities an
#: unconverged blueprint leaves on its actions, so their margins are noise, not safety.
NEGLIGIBLE_WEIGHT = 1e-6


def margin_summary(
    bv: BlueprintValues, solution: SubgameSolution, strategy: np.ndarray, *, negligible: float = NEGLIGIBLE_WEIGHT
) -> tuple[float, float, float]:
    """Margins of one re-solved subgame under ``strategy``.

    Returns the smallest margin (chips) over hands holding at least ``negligible`` of
    the largest weight, the smallest over every held hand, and the *excess*: the
    opponent's counterfactual best-response values above its blueprint CBVs, summed
    over its hands (chips per hand of the whole game).  The opponent's best-response
    gain against the combined strategy exceeds its gain against the blueprint by at
    most the sum of the excesses of every re-solved subgame.
    """
    opponent = 1 - solution.player
    cbv = bv.values(solution.node, solution.board, opponent, best=True, strategy=strategy)
    m = solution.gadget.margins(cbv)
    weight = solution.gadget.weight
    significant = weight >= negligible * weight.max() if len(weight) else weight > 0
    blueprint = bv.values(solution.node, solution.board, opponent, best=True)
    excess = float(np.maximum(cbv - blueprint, 0.0)[weight > 0].sum())
    return finite_min(np.where(significant, m, np.nan)), finite_min(m), excess


def subtree_nodes(bv: BlueprintValues, node: int) -> np.ndarray:
    """Every node in the subtree of ``node`` (itself included)."""
    tree = bv.game.tree
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        start = tree.child_start[n]
        stack.extend(int(c) for c in tree.children[start : start + tree.child_count[n]])
    return np.array(sorted(out), np.int64)


def subgame_rows(bv: BlueprintValues, node: int, board: int, player: int) -> np.ndarray:
    """Indices in the tabular layout of ``player``'s numbers inside the subgame."""
    tg = bv.game
    tree, lay, space = tg.tree, tg.layout, tg.space
    r0 = bv.board_round(node)
    parts = []
    for n in subtree_nodes(bv, node):
        if tree.kind[n] != DECISION or tree.player[n] != player:
            continue
        r, n_a = int(tree.round[n]), int(tree.child_count[n])
        ext = space.extensions(r0, r)
        span = ext * space.n_hands * n_a
        start = lay.offset[n] + board * span
        parts.append(np.arange(start, start + span))
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


#: Where a solution's numbers are: (blueprint values, node, board, player) -> layout indices.
Rows = Callable[[BlueprintValues, int, int, int], np.ndarray]


def adopt(
    bv: BlueprintValues, strategy: np.ndarray, avg: np.ndarray, solutions: Iterable[SubgameSolution],
    *, players: Sequence[int] | None = None, rows: Rows = subgame_rows,
) -> None:
    """Write re-solves into ``strategy``: at each solution's ``rows`` of its re-solver
    (or of each of ``players``), the average strategy ``avg`` they accumulated, normalised."""
    solved = normalized(bv.game.layout, bv.game.tree, avg)
    for s in solutions:
        for p in (s.player,) if players is None else players:
            at = rows(bv, s.node, s.board, p)
            strategy[at] = solved[at]


def finite_min(x: np.ndarray) -> float:
    """The smallest finite entry of ``x`` (NaN if none)."""
    x = x[np.isfinite(x)]
    return float(x.min()) if len(x) else math.nan
