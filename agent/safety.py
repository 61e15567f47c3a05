"""Safe re-solving for the agent: Estimated-Maxmargin with gifts (Libratus, ALGORITHMS.md §2).

A hand's first subgame is solved unsafe (the opponent's range as the agent's model
gives it).  Every later solve of the hand — after an opponent bet the last subgame's
tree does not hold (nested solving), or at a new round — puts the opponent's root
in a Maxmargin gadget (:mod:`solver.gadgets`): each opponent hand gets an
*alternative* payoff, and the solver maximises the smallest margin by which the new
strategy keeps every hand's value below it.

* Estimate: the opponent hand's value in chips under the previous solution, of the
  best action that solution's tree offered where the opponent went off it (nested),
  or of the node the new subgame starts at (new round).
* Gifts: at each earlier opponent decision inside the previous subgame, what the hand
  gave up against that solution's best action there, ``max_a v(a) - v(taken)``,
  added to its alternative.

Values of the previous solve are counterfactual (weighted by the agent's reach);
dividing by the opponent hand's weight (the agent's compatible reach) gives chips,
and multiplying by its weight in the new subgame gives the gadget's units.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent.translate import skip_chance
from protocol.rules import Action
from solver.gadgets import GadgetHook, make_gadget
from solver.subgame import Subgame, SubgameSolver
from solver.tree import DECISION

GADGET = "estimated-maxmargin"


def compatible_mass(hands: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """Per hand (rows of ``hands``, two cards each), the reach of the hands sharing no card with it."""
    per_card = np.zeros(64)
    np.add.at(per_card, hands[:, 0], reach)
    np.add.at(per_card, hands[:, 1], reach)
    return reach.sum() - per_card[hands[:, 0]] - per_card[hands[:, 1]] + reach


def _chips(solver: SubgameSolver, node: int, player: int, board: Sequence[int], weight: np.ndarray) -> np.ndarray:
    values = solver.values_at(node, player, board)
    return np.divide(values, weight, out=np.zeros_like(values), where=weight > 0)


def estimated_alternatives(
    solver: SubgameSolver, actions: Sequence[Action], board: Sequence[int], me: int
) -> np.ndarray:
    """The opponent's alternative per hand in chips (over ``solver.subgame``'s hands) for
    a new subgame reached from the old one's root by ``actions``: its estimated value
    (best in-tree action where it left the tree, else the node reached) plus gifts."""
    sg: Subgame = solver.subgame
    tree = sg.tree
    opponent = 1 - me
    gifts = np.zeros(sg.n_hands)
    node = skip_chance(tree, 0)
    for action in actions:
        if tree.kind[node] != DECISION:
            break
        offered = tree.actions(node)
        start = int(tree.child_start[node])
        if int(tree.player[node]) == opponent:
            weight = compatible_mass(sg.hands, solver.reach_at(node, board)[me])
            children = [int(tree.children[start + i]) for i in range(len(offered))]
            chips = np.array([_chips(solver, skip_chance(tree, c), opponent, board, weight) for c in children])
            if action not in offered:
                return chips.max(axis=0) + gifts  # nested: the best action the tree offered
            gifts += chips.max(axis=0) - chips[offered.index(action)]
        elif action not in offered:
            break
        node = skip_chance(tree, int(tree.children[start + offered.index(action)]))
    weight = compatible_mass(sg.hands, solver.reach_at(node, board)[me])
    return _chips(solver, node, opponent, board, weight) + gifts


def safe_hook(subgame: Subgame, ranges: np.ndarray, me: int, alternatives_hole_pairs: np.ndarray) -> GadgetHook:
    """The Estimated-Maxmargin hook of a new subgame: ``alternatives_hole_pairs`` in
    chips per opponent hand (HOLE_PAIRS order), ``ranges`` the subgame's root ranges."""
    opponent = 1 - me
    weight = compatible_mass(subgame.hands, ranges[me])
    alternatives = subgame.from_hole_pairs(alternatives_hole_pairs) * weight
    return GadgetHook(make_gadget(GADGET, alternatives, weight, ranges[opponent]), opponent)
