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
from typing import NamedTuple

import numpy as np
from numba import njit

from solver.cfr.fullwidth import DCFR, CFRConfig
from solver.ranges import WHOLE, CardArrays, TreeArrays, discounts, walk
from solver.subgame.blueprint_values import BlueprintValues
from solver.subgame.gadgets import GADGETS, Gadget, gadget_reach, gadget_update, make_gadget
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
def _solve(
    node: np.int64, board: np.int64, player: np.int64, tree: TreeArrays, cards: CardArrays,
    regret: np.ndarray, avg: np.ndarray, our_reach: np.ndarray, deal: float, kind: int,
    alternatives: np.ndarray, weight: np.ndarray, blueprint_reach: np.ndarray, gadget_regret: np.ndarray,
    iterations: int, alpha: float, beta: float, gamma: float, unsafe_weight: float,
) -> None:
    """Run ``iterations`` of alternating DCFR on the subtree at (``node``, ``board``) with
    the gadget at its root.  Mutates ``regret``, ``avg`` (tabular layout, float64) and
    ``gadget_regret`` ((n_hands, 2) float64).  ``our_reach`` is the re-solver's reach
    (n_hands,), ``deal`` the probability of the board extensions above the node."""
    n_h = our_reach.shape[0]
    opponent = np.int64(1) - player
    update = np.int64(0)
    unused = np.zeros(0)
    whole, no_reach, no_value = np.int64(WHOLE), np.zeros((0, 2, n_h)), np.zeros((0, n_h))
    opp_reach = np.empty(n_h)
    for t in range(1, iterations + 1):
        d_pos, d_neg, d_avg = discounts(t, alpha, beta, gamma)
        gadget_reach(kind, gadget_regret, weight, blueprint_reach, opp_reach, unsafe_weight)
        walk(
            node, board, player, our_reach, opp_reach * deal, update,
            tree, cards, regret, avg, unused, d_pos, d_neg, d_avg, whole, no_reach, no_value,
        )
        values = walk(
            node, board, opponent, opp_reach.copy(), our_reach * deal, update,
            tree, cards, regret, avg, unused, d_pos, d_neg, d_avg, whole, no_reach, no_value,
        )
        gadget_update(kind, gadget_regret, alternatives, weight, opp_reach, values, d_pos, d_neg)


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

    Returns None (nothing solved) when the subgame is unreachable: the re-solver never
    plays to it, or (``unsafe`` only) the opponent never does, so no distribution over
    its root is defined — the blueprint stays in force there.

    Raises:
        ValueError: if ``node`` is not a decision node.
    """
    tree = bv.game.tree
    if tree.kind[node] != DECISION:
        raise ValueError(f"subgames start at decision nodes; node {node} is not one")
    our_reach = bv.reach(node, board, player)
    if not our_reach.any() or not (gadget.weight > 0).any():
        return None
    if gadget.kind == GADGETS["unsafe"][0] and not (gadget.blueprint_reach * (gadget.weight > 0)).any():
        return None
    tree_arrays, cards = bv.arrays
    _solve(
        np.int64(node), np.int64(board), np.int64(player), tree_arrays, cards, regret, avg, our_reach,
        bv.deal_probability(node), gadget.kind, gadget.alternatives, gadget.weight, gadget.blueprint_reach,
        gadget.new_regrets(), iterations, *(float(x) for x in config), gadget.unsafe_weight,
    )
    return SubgameSolution(node, board, player, gadget)


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


def finite_min(x: np.ndarray) -> float:
    """The smallest finite entry of ``x`` (NaN if none)."""
    x = x[np.isfinite(x)]
    return float(x.min()) if len(x) else math.nan
