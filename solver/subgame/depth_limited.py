"""Depth-limited safe subgame solving inside a tabular game (Modicum: Brown, Sandholm and
Amos, NeurIPS 2018; docs/algorithms.md, "Depth-limited solving").

A depth-limited subgame is a public state (betting node, board of its round) of a
two-player :class:`~solver.ranges.TabularGame` cut at the end of its betting round: its
nodes are the decisions of that round below the root; its *leaves* are the chance nodes
that deal the next round and the terminals reached inside the round.  A leaf is
replaced by a table of payoffs per pair of private hands, the value of the rest of the
game for player 0 (counterfactual: chance and the hands' probability included, as
:func:`solver.ranges.walk` returns values).  At a chance leaf the opponent of the
re-solver (the *chooser*) picks, per private hand, one of k continuation strategy pairs
for the rest of the game: our side plays the blueprint there, the opponent the
blueprint or the blueprint biased toward folding, calling or raising (each probability
of that class multiplied by a factor, 5 by default, and renormalised; ours, k = 5: its
best response to the blueprint).  The leaf is an opponent decision with k actions,
solved by CFR like any other, so the re-solver's strategy in the round must be good
against every continuation, not only the blueprint's.  Cut *after the card* instead,
the subgame also holds the deal and its leaves are the first nodes of the next round,
one table set per card, so the chooser picks knowing the card.

Leaf payoffs are exact: the rest-of-game tree is evaluated by the range kernel once per
opponent hand (a unit range), i.e. n_hands walks per (leaf, board, continuation); a solve
iteration then costs n_hands² per leaf.  The gadget at the root is the one
:func:`solver.safe.build_gadget` builds (alternatives from the full game's values).
The kernel that walks such a subgame is :func:`solver.subgame.leaf_walk.dl_walk`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from protocol.rules import ActionType
from solver.cfr.fullwidth import DCFR, CFRConfig
from solver.ranges import BEST_RESPONSE, EVALUATE, WHOLE, CardArrays, TabularGame, TreeArrays, walk
from solver.subgame.blueprint_values import BlueprintValues
from solver.subgame.gadgets import Gadget
from solver.subgame.leaf_walk import LeafArrays, dl_walk
from solver.subgame.safe import SubgameSolution, solve_with_gadget, subgame_rows, subtree_nodes
from solver.tree import CHANCE, DECISION

#: The continuation strategies in the order ``k`` takes them: Pluribus's four, then
#: (ours, k = 5) the opponent's best response to the blueprint after the cut, the
#: "generative" kind of continuation Modicum describes, computed once, not grown.
CONTINUATIONS = ("blueprint", "fold", "call", "raise", "best-response")
#: Multiplier of the biased action class's probabilities.
BIAS_FACTOR = 5.0
_BIASED_ACTION = {"fold": ActionType.FOLD, "call": ActionType.CALL, "raise": ActionType.RAISE}


def biased_strategy(
    tg: TabularGame, strategy: np.ndarray, player: int, bias: str, factor: float = BIAS_FACTOR,
    plan: BiasPlan | None = None,
) -> np.ndarray:
    """``strategy`` with ``player``'s probabilities of the ``bias`` action class (fold,
    call or raise; ``blueprint``: none) multiplied by ``factor`` and renormalised, at
    every decision of that player.  Rows where the class is absent are unchanged.
    ``plan``: :func:`bias_plan` of the same arguments, if already made (it depends on the
    tree and the layout only).

    Raises:
        ValueError: for an unknown ``bias``.
    """
    if bias not in _BIASED_ACTION and bias != "blueprint":
        raise ValueError(f"unknown continuation {bias!r} (expected one of {', '.join(CONTINUATIONS)})")
    out = np.array(strategy, np.float64)
    if bias == "blueprint":
        return out
    for index, scale in plan if plan is not None else bias_plan(tg, player, bias, factor):
        rows = out[index] * scale
        total = rows.sum(axis=1, keepdims=True)
        out[index] = np.divide(rows, total, out=np.full_like(rows, 1.0 / index.shape[1]), where=total > 0)
    return out


#: Where :func:`biased_strategy` rescales: per action count, the (rows, actions) indices of
#: the rows it touches and each entry's multiplier.
BiasPlan = list[tuple[np.ndarray, np.ndarray]]


def bias_plan(tg: TabularGame, player: int, bias: str, factor: float = BIAS_FACTOR) -> BiasPlan:
    """The rows :func:`biased_strategy` rescales, grouped by action count so that each group
    is one gather (a row's sum is the same sum over the same entries as row by row)."""
    tree, lay = tg.tree, tg.layout
    wanted = int(_BIASED_ACTION[bias])
    groups: dict[int, tuple[list[np.ndarray], list[np.ndarray]]] = {}
    for node in np.flatnonzero((tree.kind == DECISION) & (tree.player == player)):
        n_a = int(tree.child_count[node])
        start = int(tree.child_start[node])
        scale = np.where(tree.edge_action[start : start + n_a] == wanted, factor, 1.0)
        if (scale == 1.0).all():
            continue
        rows = lay.rows[int(tree.round[node])]
        index = lay.offset[node] + np.arange(rows * n_a, dtype=np.int64).reshape(rows, n_a)
        found = groups.setdefault(n_a, ([], []))
        found[0].append(index)
        found[1].append(np.broadcast_to(scale, (rows, n_a)))
    return [(np.concatenate(ix), np.concatenate(sc)) for ix, sc in groups.values()]


def best_response_strategy(bv: BlueprintValues, player: int, rounds: Sequence[int]) -> np.ndarray:
    """The blueprint with ``player``'s rows in ``rounds`` replaced by a pure best response
    to the blueprint: at each of its infosets the action of largest counterfactual
    best-response value (the first on ties).  Counterfactual values do not depend on the
    player's own earlier play, so the rows of other rounds can stay the blueprint's."""
    tg = bv.game
    tree, lay, n_h = tg.tree, tg.layout, tg.space.n_hands
    out = bv.strategy.copy()
    for node in np.flatnonzero((tree.kind == DECISION) & (tree.player == player) & np.isin(tree.round, list(rounds))):
        n_a = int(tree.child_count[node])
        for board in range(tg.space.n_boards[int(tree.round[node])]):
            best = bv.action_values(int(node), board, player).argmax(axis=0)
            start = lay.offset[node] + board * n_h * n_a
            out[start : start + n_h * n_a] = np.eye(n_a)[best].ravel()
    return out


@njit(cache=True)
def _pair_payoffs(node: np.int64, board: np.int64, tree: TreeArrays, cards: CardArrays, strategy: np.ndarray) -> np.ndarray:
    """(n_hands, n_hands): player 0's counterfactual value below ``node`` on ``board`` per
    (hand of player 0, hand of player 1), both playing ``strategy``.  Values are linear in
    the opponent's range, so a walk with a unit range per player-1 hand gives one column."""
    n_h = cards.hand_cards.shape[0]
    out = np.empty((n_h, n_h))
    unit = np.zeros(n_h)
    ones = np.ones(n_h)
    unused = np.zeros(0)
    trav = np.int64(0)
    for j in range(n_h):
        unit[j] = 1.0
        out[:, j] = walk(
            node, board, trav, ones, unit, np.int64(EVALUATE), tree, cards, unused, unused, strategy, unused,
            1.0, 1.0, 1.0, np.int64(WHOLE), np.zeros((0, 2, n_h)), np.zeros((0, n_h)),
        )
        unit[j] = 0.0
    return out


@dataclass(eq=False)
class LeafValues:
    """Payoff tables of leaves, computed once and shared by every subgame that needs them.

    Attributes:
        bv: the blueprint.
        continuations: the continuation names the chooser picks from (first k of
            :data:`CONTINUATIONS` unless given otherwise).
        factor: the bias factor.
    """

    bv: BlueprintValues
    continuations: tuple[str, ...] = ("blueprint",)
    factor: float = BIAS_FACTOR
    #: ``best-response`` replaces the chooser's rows of the rounds after this one only
    #: (the rows a leaf's table reads; earlier ones would cost walks for nothing).
    best_response_after: int = 0

    def __post_init__(self) -> None:
        for name in self.continuations:
            if name not in CONTINUATIONS:
                raise ValueError(f"unknown continuation {name!r} (expected one of {', '.join(CONTINUATIONS)})")
        self._profiles: dict[tuple[str, int], np.ndarray] = {}
        self._tables: dict[tuple[int, int, str, int], np.ndarray] = {}
        self.walks = 0  # rest-of-game walks run so far (the cost)

    def profile(self, name: str, chooser: int) -> np.ndarray:
        """The continuation pair ``name``: the blueprint with ``chooser``'s play biased."""
        key = (name if name != "blueprint" else "blueprint", chooser if name != "blueprint" else -1)
        if key not in self._profiles:
            if name == "best-response":
                rounds = range(self.best_response_after + 1, self.bv.game.game.num_rounds)
                self._profiles[key] = best_response_strategy(self.bv, chooser, rounds)
            else:
                self._profiles[key] = biased_strategy(self.bv.game, self.bv.strategy, chooser, name, self.factor)
        return self._profiles[key]

    def table(self, node: int, board: int, name: str, chooser: int) -> np.ndarray:
        """(n_hands, n_hands) player 0's value below ``node`` on ``board`` under continuation ``name``."""
        key = (node, board, name, chooser if name != "blueprint" else -1)
        if key not in self._tables:
            tree_arrays, cards = self.bv.arrays
            table = _pair_payoffs(np.int64(node), np.int64(board), tree_arrays, cards, self.profile(name, chooser))
            # The kernel masks only the traverser's hands by the board; mask both so the
            # table serves either player (player 1's values are minus its transpose).
            mask = self.bv.game.space.compat[self.bv.board_round(node)][board].astype(np.float64)
            self._tables[key] = table * mask[:, None] * mask[None, :]
            self.walks += cards.hand_cards.shape[0]
        return self._tables[key]


@dataclass(eq=False)
class DepthLimitedSubgame:
    """One depth-limited subgame, ready for the kernel.

    Attributes:
        node, board, player: the root, its board (index at the root's round), the re-solver.
        nodes: the decision nodes inside the round (re-solver's and opponent's).
        arrays: the leaves (:class:`LeafArrays`).
        n_choices: (leaf, board) pairs where the chooser picks a continuation.
        k: the largest number of options at a leaf.
        after_card: whether the cut is after the next card (leaves at the start of the
            next round, one choice per card) rather than at the chance node dealing it.
    """

    node: int
    board: int
    player: int
    nodes: np.ndarray
    arrays: LeafArrays
    n_choices: int
    k: int
    after_card: bool = False


def depth_limited_subgame(
    leaves: LeafValues, node: int, board: int, player: int, *, after_card: bool = False
) -> DepthLimitedSubgame:
    """Cut the subgame at (``node``, ``board``) for re-solver ``player`` at the end of its
    round, or with ``after_card`` after the next card (the subgame then holds the deal,
    and the chooser picks a continuation knowing the card).

    Raises:
        ValueError: if ``node`` is not a decision node.
    """
    tree, space = leaves.bv.game.tree, leaves.bv.game.space
    if tree.kind[node] != DECISION:
        raise ValueError(f"subgames start at decision nodes; node {node} is not one")
    chooser = 1 - player
    n = tree.n_nodes
    option_start = np.full(n, -1, np.int64)
    option_count = np.zeros(n, np.int64)
    first_board = np.zeros(n, np.int64)
    leaf_slot = np.full(n, -1, np.int64)
    tables, decisions, choices = [], [], 0
    stack = [(node, [board])]
    while stack:
        here, boards = stack.pop()
        kind = tree.kind[here]
        if kind == DECISION and here != node and tree.round[here] != tree.round[node]:
            kind = -1  # the first decision after the card: a leaf
        if kind == DECISION:
            decisions.append(here)
            start = tree.child_start[here]
            stack.extend((int(c), boards) for c in tree.children[start : start + tree.child_count[here]])
            continue
        if kind == CHANCE and after_card:
            ext = space.extensions(int(tree.deal_from[here]), int(tree.round[here]))
            stack.append((int(tree.children[tree.child_start[here]]), [boards[0] * ext + j for j in range(ext)]))
            continue
        # A terminal, the chance node dealing the next round, or the first node after it: a leaf.
        names = leaves.continuations if kind in (CHANCE, -1) else ("blueprint",)
        option_start[here] = len(tables)
        option_count[here] = len(names)
        first_board[here] = boards[0]
        for b in boards:
            tables.extend(leaves.table(here, b, name, chooser) for name in names)
        if len(names) > 1:
            leaf_slot[here] = choices
            choices += len(boards)
    n_h = space.n_hands
    payoff = np.array(tables) if tables else np.zeros((0, n_h, n_h))
    arrays = LeafArrays(option_start, option_count, first_board, leaf_slot, payoff)
    return DepthLimitedSubgame(
        node, board, player, np.array(sorted(decisions), np.int64), arrays, choices,
        int(option_count.max(initial=1)), after_card,
    )


def solve_keeping_blueprint(
    bv: BlueprintValues, node: int, board: int, player: int, gadget: Gadget, regret: np.ndarray, avg: np.ndarray,
    *, iterations: int = 200, config: CFRConfig = DCFR,
) -> SubgameSolution | None:
    """The limit of depth-limited solving as k grows: a full-depth safe solve in which the
    re-solver plays the blueprint after the root's round while the opponent is free
    there (any continuation, learned by CFR as the rest of the subgame is).  Accumulates
    into ``regret`` and ``avg`` as :func:`solver.safe.solve_subgame`; only the round's
    rows of the result are the re-solve's (take them with :func:`round_rows`)."""
    later = np.setdiff1d(subgame_rows(bv, node, board, player), round_rows(bv, node, board, player))
    return solve_with_gadget(bv, node, board, player, gadget, regret, avg, iterations=iterations, config=config, kept=later)


def solve_depth_limited(
    leaves: LeafValues, sub: DepthLimitedSubgame, gadget: Gadget, regret: np.ndarray, avg: np.ndarray,
    *, iterations: int = 200, config: CFRConfig = DCFR,
) -> SubgameSolution | None:
    """Re-solve the depth-limited subgame ``sub`` with ``gadget`` at its root, accumulating
    into the full-layout ``regret`` and ``avg`` (only the round's rows of the subgame
    change).  None when the subgame is unreachable (as :func:`solver.safe.solve_subgame`)."""
    leaf_regret = np.zeros((sub.n_choices, leaves.bv.game.space.n_hands, sub.k))
    return solve_with_gadget(
        leaves.bv, sub.node, sub.board, sub.player, gadget, regret, avg, iterations=iterations, config=config,
        leaves=sub.arrays, leaf_regret=leaf_regret,
    )


def modelled_best_response(leaves: LeafValues, sub: DepthLimitedSubgame, strategy: np.ndarray) -> np.ndarray:
    """(n_hands,) the opponent's counterfactual best-response values at the root of
    ``sub`` against ``strategy`` (tabular) as the depth-limited model sees them: the
    best action at each decision and the best of the leaf's continuations, the
    re-solver playing ``strategy`` in the round and the blueprint beyond."""
    bv = leaves.bv
    opponent = 1 - sub.player
    other = bv.reach(sub.node, sub.board, sub.player, strategy) * bv.deal_probability(sub.node)
    n_h = bv.game.space.n_hands
    unused = np.zeros(0)
    empty = np.zeros((0, n_h, max(sub.k, 1)))
    return dl_walk(
        np.int64(sub.node), np.int64(sub.board), np.int64(opponent), np.int64(opponent), np.ones(n_h), other,
        np.int64(BEST_RESPONSE), *bv.arrays, sub.arrays, unused, unused, empty, empty,
        np.asarray(strategy, np.float64), 1.0, 1.0, 1.0,
    )


def round_rows(bv: BlueprintValues, node: int, board: int, player: int) -> np.ndarray:
    """Layout indices of ``player``'s numbers in the subgame at (``node``, ``board``),
    inside the root's round only (what a depth-limited solve decides)."""
    tg = bv.game
    tree, lay, n_h = tg.tree, tg.layout, tg.space.n_hands
    r0 = int(tree.round[node])
    parts = []
    for n in subtree_nodes(bv, node):
        if tree.kind[n] == DECISION and tree.player[n] == player and tree.round[n] == r0:
            span = n_h * int(tree.child_count[n])
            parts.append(lay.offset[n] + board * span + np.arange(span))
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def continuation_names(k: int, names: Sequence[str] = CONTINUATIONS) -> tuple[str, ...]:
    """The first ``k`` continuations.

    Raises:
        ValueError: if ``k`` is not between 1 and the number of ``names``.
    """
    if not 1 <= k <= len(names):
        raise ValueError(f"k must be between 1 and {len(names)}, not {k}")
    return tuple(names[:k])
