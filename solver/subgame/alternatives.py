"""Safe re-solving in a real hand: Estimated-Maxmargin with gifts (Libratus; docs/algorithms.md, "Subgame solving").

A hand's first subgame is solved safe against the blueprint (:func:`blueprint_alternatives`):
each opponent hand's alternative is its best-response value against the blueprint's
own play from the node the real state translates to.  An unsafe first solve (the
opponent's range as the blueprint models it, nothing more) was measured to be badly
exploitable: local best response shoves the turn and the unsafe solve, trusting the
blueprint's bluff-heavy shoving range, calls too wide (README, "Local best response").
Every later solve of the hand — after an opponent bet the last subgame's
tree does not hold (nested solving), or at a new round — puts the opponent's root
in a Maxmargin gadget (:mod:`solver.subgame.gadgets`): each opponent hand gets an
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
from typing import Protocol

import numpy as np

from protocol.rules import Action, State, with_cards
from solver.subgame.gadgets import UNSAFE_WEIGHT, GadgetHook, hand_weights, make_gadget
from solver.subgame.range_solver import Subgame, SubgameError, SubgameSolver, build_subgame
from solver.tree import DECISION, BettingTree, skip_chance

#: The root gadget of every safe solve: Maxmargin with a small weight on the unsafe
#: objective (ours, :mod:`solver.subgame.gadgets`).  Plain Maxmargin stops improving once the
#: smallest margin is as large as it can be, and a hand that loses whatever we do pins
#: it at 0 in most re-solves (README, Table 1: 84%); the unsafe term keeps lowering the
#: opponent's value over its range after that, at no measured cost in safety (Table 1:
#: 163.71 -> 125.46, 140.60 -> 125.09, 179.42 -> 144.20 mbb/hand).
GADGET_KERNEL = "maxmargin-unsafe"
#: The root gadgets ``agent connect --gadget`` offers (the default first).
SAFE_GADGETS = (GADGET_KERNEL, "maxmargin", "resolve")
#: A later solve's kind: that gadget with the last solve's estimates (and gifts) as alternatives.
GADGET = f"estimated-{GADGET_KERNEL}"
#: The first solve's kind: that gadget with alternatives from the blueprint.
FIRST_GADGET = f"blueprint-{GADGET_KERNEL}"
#: Blueprint rows a first solve may read to value the blueprint's subtree (decision
#: nodes of ours times their boards; a turn subtree fits, and costs about 0.7 s of CPU);
#: a bigger subtree is solved unsafe instead.
MAX_BLUEPRINT_ROWS = 3000


class BlueprintRows(Protocol):
    """What a first solve reads of a blueprint (:class:`precompute.blueprint.Blueprint` has
    it; the solver may not import ``precompute``, which builds on it)."""

    tree: BettingTree

    def actions(self, node: int) -> list[Action]: ...

    def child(self, node: int, action: Action) -> int: ...

    def range_strategy(self, node: int, board: Sequence[int] = ()) -> np.ndarray: ...

    def range_strategies(self, nodes: Sequence[int], board: Sequence[int] = ()) -> np.ndarray: ...


def _chips(solver: SubgameSolver, node: int, player: int, board: Sequence[int], weight: np.ndarray) -> np.ndarray:
    return _per_chip(solver.values_at(node, player, board), weight)


def estimated_alternatives(solver: SubgameSolver, actions: Sequence[Action], board: Sequence[int], me: int) -> np.ndarray:
    """The opponent's alternative per hand in chips (over ``solver.subgame``'s hands) for
    a new subgame reached from the old one's root by ``actions``: its estimated value
    (best in-tree action where it left the tree, else the node reached, on the real
    ``board``) plus gifts.  Gifts and off-tree estimates at a decision are valued on that
    decision's own board: an action that ends the round (a call of a turn bet) at its
    chance node, averaged over the next card, as the hand saw it when it chose.

    (Until 2026-11-27 there were no estimates below an opponent decision with a
    round-ending option, and the agent solved those later spots unsafe: every nested
    solve on the turn after a turn solve, and on the river after one.)"""
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
            weight = hand_weights(sg.hands, solver.reach_at(node, board)[me])
            # An action that ends the round is valued at its chance node, before the next
            # card: what the hand expected there, like its other actions at this decision.
            children = [int(tree.children[start + i]) for i in range(len(offered))]
            chips = np.array([_chips(solver, c, opponent, board, weight) for c in children])
            if action not in offered:
                return chips.max(axis=0) + gifts  # nested: the best action the tree offered
            gifts += chips.max(axis=0) - chips[offered.index(action)]
        elif action not in offered:
            break
        node = skip_chance(tree, int(tree.children[start + offered.index(action)]))
    weight = hand_weights(sg.hands, solver.reach_at(node, board)[me])
    return _chips(solver, node, opponent, board, weight) + gifts


def safe_hook(
    subgame: Subgame, ranges: np.ndarray, me: int, alternatives_hole_pairs: np.ndarray, unsafe_weight: float = UNSAFE_WEIGHT,
    gadget: str = GADGET_KERNEL,
) -> GadgetHook:
    """The safe root hook ``gadget`` (one of :data:`SAFE_GADGETS`) of a new subgame:
    ``alternatives_hole_pairs`` in chips per opponent hand (HOLE_PAIRS order), ``ranges``
    the subgame's root ranges, ``unsafe_weight`` the weight of the modelled range's
    objective beside the margins (``maxmargin-unsafe`` only)."""
    opponent = 1 - me
    weight = hand_weights(subgame.hands, ranges[me])
    alternatives = subgame.from_hole_pairs(alternatives_hole_pairs) * weight
    return GadgetHook(make_gadget(gadget, alternatives, weight, ranges[opponent], unsafe_weight), opponent)


def blueprint_alternatives(
    blueprint: BlueprintRows, node: int, real: State, our_reach: np.ndarray, me: int | None = None
) -> np.ndarray | None:
    """The opponent's alternative per hand in chips (HOLE_PAIRS order) for a hand's first
    subgame, rooted at the real state ``real`` that translates to the blueprint's decision
    ``node`` (ours): the opponent's best-response value there against the blueprint's own
    play below ``node``, with our real reach ``our_reach`` (HOLE_PAIRS order), scaled
    from the tree's pot to the real one (the tree's sizes are pot fractions of the real ones).

    ``me``: our seat, by default the player to act at ``node`` (given: ``node`` may be the
    opponent's, a subgame rooted at the start of a round the opponent opens).
    ``blueprint``: a :class:`precompute.blueprint.Blueprint` or the like.  None when the subtree
    cannot be valued (the rebuilt subtree disagrees with the blueprint's, or it needs
    more than :data:`MAX_BLUEPRINT_ROWS` blueprint rows).
    """
    tree = blueprint.tree
    abstract = tree.states[node]
    me = int(tree.player[node]) if me is None else me
    known = tuple(real.board[: abstract.game.board_cards_through(abstract.round)])
    try:
        sg = build_subgame(with_cards(abstract, ((),) * 2, known), tree.abstraction)
    except SubgameError:
        return None
    strategy = blueprint_strategy(blueprint, sg, node, (me,))
    if strategy is None:
        return None
    ranges = np.ones((2, sg.n_hands))
    ranges[me] = sg.from_hole_pairs(our_reach)
    if ranges[me].sum() <= 0:
        return None
    solver = SubgameSolver(sg, ranges)  # the solver's usual dtype: kernels compiled once, at warm-up
    solver.avg[:] = strategy
    values = solver.best_response_values(0, 1 - me)
    chips = _per_chip(values, hand_weights(sg.hands, ranges[me]))
    return sg.to_hole_pairs(chips * (real.pot / abstract.pot))


def blueprint_pairs(
    blueprint: BlueprintRows, sg: Subgame, node: int, players: tuple[int, ...], max_rows: int = MAX_BLUEPRINT_ROWS
) -> list[tuple[int, int]] | None:
    """Each decision of ``sg`` (a subgame rebuilt from the blueprint's state at ``node``
    with its abstraction) beside the blueprint's node it is, in a walk from the root; None
    when the rebuilt tree disagrees with the blueprint's or the rows of ``players`` it
    needs (decisions times their boards) exceed ``max_rows``.  It depends on ``sg``'s tree
    and board counts only: subgames of one tree on other runouts share it."""
    tree = sg.tree
    budget = max_rows
    pairs = []
    todo = [(skip_chance(tree, 0), node)]
    while todo:
        s_node, b_node = todo.pop()
        actions = tree.actions(s_node)
        if blueprint.actions(b_node) != actions:
            return None
        if int(tree.player[s_node]) in players:
            budget -= sg.space.n_boards[int(tree.round[s_node])]
            if budget < 0:
                return None
        pairs.append((s_node, b_node))
        for i, action in enumerate(actions):
            child = skip_chance(tree, int(tree.children[tree.child_start[s_node] + i]))
            if tree.kind[child] == DECISION:
                todo.append((child, blueprint.child(b_node, action)))
    return pairs


def blueprint_strategy(
    blueprint: BlueprintRows, sg: Subgame, node: int, players: tuple[int, ...], max_rows: int = MAX_BLUEPRINT_ROWS,
    pairs: list[tuple[int, int]] | None = None,
) -> np.ndarray | None:
    """The blueprint's play below ``node`` in ``sg``'s tabular layout (a subgame rebuilt
    from the blueprint's state at ``node`` with its abstraction): the rows of ``players``
    from the blueprint, the others' uniform (a best response ignores them); None when the
    rebuilt tree disagrees with the blueprint's or needs more than ``max_rows`` rows.
    ``pairs``: :func:`blueprint_pairs` of ``sg``'s tree, if already known.  The rows of a
    round's decisions with as many actions are read in one gather per board."""
    if pairs is None:
        pairs = blueprint_pairs(blueprint, sg, node, players, max_rows)
        if pairs is None:
            return None
    tree, lay, n_h = sg.tree, sg.tabular.layout, sg.n_hands
    strategy = np.zeros(lay.size)
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for s_node, b_node in pairs:
        n_a, r = int(tree.child_count[s_node]), int(tree.round[s_node])
        if int(tree.player[s_node]) in players:
            groups.setdefault((r, n_a), []).append((s_node, b_node))
        else:
            base = int(lay.offset[s_node])
            strategy[base : base + sg.space.n_boards[r] * n_h * n_a] = 1.0 / n_a
    hands = sg.hole_pair_index()
    for (r, n_a), group in groups.items():
        for b in range(sg.space.n_boards[r]):
            board = tuple(int(c) for c in sg.space.boards[r][b])
            rows = blueprint.range_strategies([b_node for _, b_node in group], board)[:, hands]  # to the subgame's hands
            rows[rows.sum(axis=2) <= 0] = 1.0 / n_a  # hands on this board: never reached
            for (s_node, _), block in zip(group, rows):
                start = int(lay.offset[s_node]) + b * n_h * n_a
                strategy[start : start + n_h * n_a] = block.ravel()
    return strategy


def _per_chip(values: np.ndarray, weight: np.ndarray) -> np.ndarray:
    return np.divide(values, weight, out=np.zeros_like(values), where=weight > 0)
