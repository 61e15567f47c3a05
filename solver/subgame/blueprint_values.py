"""What a safe subgame needs from the blueprint: reaches, counterfactual values and gifts.

All on a two-player :class:`~solver.ranges.TabularGame` and a tabular strategy, at a
*public state* = (betting node, board index at that node's round).  Values come from
the full-game range kernel (:func:`solver.ranges.walk`) started at the node with the
reach the blueprint gives it, so they are counterfactual values of the whole game:
the opponent's expected chips per private hand weighted by chance and the other
player's reach.  Counterfactual values add up along the tree, which is why a gift
found at an earlier decision can be spent at a later subgame in the same units.

Gifts (docs/algorithms.md, "Subgame solving"): at an earlier opponent decision ``I'`` where the opponent
took ``a'`` on the way to the subgame, ``g(I', a') = max_a CBV(I', a) - CBV(I', a')``
per opponent hand, CBV the opponent's best-response values against the blueprint.
The ``lower-bound`` form takes the max over ``a'`` and the actions that end the hand
at once (what Libratus could compute cheaply); ``exact`` over every action.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.ranges import BEST_RESPONSE, EVALUATE, WHOLE, TabularGame, kernel_arrays, walk
from solver.subgame.gadgets import hand_weights
from solver.tree import CHANCE, DECISION, FOLD_END, SHOWDOWN, path_from_root

GIFT_FORMS = ("lower-bound", "exact")


@dataclass(eq=False)
class BlueprintValues:
    """A tabular game, a blueprint strategy on it, and caches of what gadgets ask of them.

    Attributes:
        game: the game (its layout is the blueprint's).
        strategy: the blueprint, tabular, float64.
        parent: (n,) parent node (-1 at the root); parent_edge: (n,) the edge into it.
    """

    game: TabularGame
    strategy: np.ndarray
    parent: np.ndarray = field(init=False)
    parent_edge: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        tree = self.game.tree
        self.strategy = np.asarray(self.strategy, np.float64)
        self.arrays = kernel_arrays(self.game)
        self.parent = np.full(tree.n_nodes, -1, np.int64)
        self.parent_edge = np.full(tree.n_nodes, -1, np.int64)
        for node in range(tree.n_nodes):
            start = tree.child_start[node]
            for e in range(start, start + tree.child_count[node]):
                self.parent[tree.children[e]] = node
                self.parent_edge[tree.children[e]] = e
        self._cbv_cache: dict[tuple[int, int, int], np.ndarray] = {}

    # --- public states ---------------------------------------------------------------

    def path(self, node: int) -> list[tuple[int, int]]:
        """(ancestor, edge taken) pairs from the root down to ``node``."""
        return path_from_root(self.parent, self.parent_edge, node)

    def board_at(self, board: int, from_round: int, to_round: int) -> int:
        """Index at ``to_round`` (≤ ``from_round``) of the board ``board`` of ``from_round``."""
        return board // self.game.space.extensions(to_round, from_round) if to_round >= 0 else 0

    def reach(self, node: int, board: int, player: int, strategy: np.ndarray | None = None) -> np.ndarray:
        """(n_hands,) ``player``'s own probability of playing to ``node`` per hand
        (``board`` indexes the boards of the node's round; hands clashing with it get 0)."""
        tg, s = self.game, self.strategy if strategy is None else strategy
        tree, n_h = tg.tree, tg.space.n_hands
        r = self.board_round(node)
        out = self._mask(r, board).astype(np.float64)
        for ancestor, edge in self.path(node):
            if tree.kind[ancestor] != DECISION or tree.player[ancestor] != player:
                continue
            n_a = int(tree.child_count[ancestor])
            b = self.board_at(board, r, int(tree.round[ancestor]))
            rows = tg.layout.offset[ancestor] + (b * n_h + np.arange(n_h)) * n_a
            out *= s[rows + edge - tree.child_start[ancestor]]
        return out

    def deal_probability(self, node: int) -> float:
        """Probability of one board extension on each chance node above ``node``."""
        p = 1.0
        for ancestor, _ in self.path(node):
            if self.game.tree.kind[ancestor] == CHANCE:
                p *= float(self.arrays[0].deal_factor[ancestor])
        return p

    def board_round(self, node: int) -> int:
        """The round whose boards index the public states of ``node`` (at a chance node:
        the last round already dealt, -1 before any)."""
        tree = self.game.tree
        return int(tree.deal_from[node] if tree.kind[node] == CHANCE else tree.round[node])

    def _mask(self, round_: int, board: int) -> np.ndarray:
        if round_ < 0:
            return np.ones(self.game.space.n_hands, np.uint8)
        return self.game.space.compat[round_][board]

    def weight(self, node: int, board: int, player: int, strategy: np.ndarray | None = None) -> np.ndarray:
        """(n_hands,) counterfactual weight of each hand of ``player`` at the public state:
        chance times the other player's reach, summed over the other's hands (no shared card)."""
        space = self.game.space
        other = self.reach(node, board, 1 - player, strategy)
        mask = self._mask(self.board_round(node), board)
        scale = space.hand_probability() * self.deal_probability(node)
        return mask * hand_weights(space.hands, other) * scale

    # --- values ----------------------------------------------------------------------

    def values(self, node: int, board: int, player: int, *, best: bool, strategy: np.ndarray | None = None) -> np.ndarray:
        """(n_hands,) ``player``'s counterfactual values below ``node`` on ``board``:
        best response to the other's strategy if ``best``, else both play ``strategy``
        (default: the blueprint)."""
        s = self.strategy if strategy is None else strategy
        if strategy is None and best:
            key = (node, board, player)
            if key not in self._cbv_cache:
                self._cbv_cache[key] = self._walk(node, board, player, BEST_RESPONSE, s)
            return self._cbv_cache[key]
        return self._walk(node, board, player, BEST_RESPONSE if best else EVALUATE, s)

    def _walk(self, node: int, board: int, player: int, mode: int, s: np.ndarray) -> np.ndarray:
        tree_arrays, cards = self.arrays
        n_h = self.game.space.n_hands
        other = self.reach(node, board, 1 - player, s) * self.deal_probability(node)
        unused = np.zeros(0)
        return walk(
            np.int64(node), np.int64(board), np.int64(player), np.ones(n_h), other, np.int64(mode),
            tree_arrays, cards, unused, unused, s, unused, 1.0, 1.0, 1.0, np.int64(WHOLE), np.zeros((0, 2, n_h)),
            np.zeros((0, n_h)),
        )

    def action_values(self, node: int, board: int, player: int) -> np.ndarray:
        """(n_actions, n_hands) ``player``'s counterfactual best-response value of each
        action at its decision ``node`` against the blueprint."""
        tree = self.game.tree
        edges = range(tree.child_start[node], tree.child_start[node] + tree.child_count[node])
        return np.array([self.values(int(tree.children[e]), board, player, best=True) for e in edges])

    def gifts(
        self, node: int, board: int, player: int, *, form: str = "lower-bound", split: dict[int, int] | None = None
    ) -> np.ndarray:
        """(n_hands,) sum of ``player``'s gifts on its decisions on the way to ``node``.

        Each gift is divided by ``split[edge]`` if given (the number of subgames it
        reaches; see :func:`subgames_below`).

        Raises:
            ValueError: for an unknown ``form``.
        """
        if form not in GIFT_FORMS:
            raise ValueError(f"unknown gift form {form!r} (expected one of {', '.join(GIFT_FORMS)})")
        tree = self.game.tree
        r = self.board_round(node)
        total = np.zeros(self.game.space.n_hands)
        for ancestor, edge in self.path(node):
            if tree.kind[ancestor] != DECISION or tree.player[ancestor] != player:
                continue
            b = self.board_at(board, r, int(tree.round[ancestor]))
            cbv = self.action_values(ancestor, b, player)
            start = tree.child_start[ancestor]
            taken = edge - start
            if form == "exact":
                candidates = list(range(len(cbv)))
            else:
                ends = np.isin(tree.kind[tree.children[start : start + len(cbv)]], (FOLD_END, SHOWDOWN))
                candidates = [taken, *np.flatnonzero(ends).tolist()]
            gift = cbv[candidates].max(axis=0) - cbv[taken]
            total += gift / (split[edge] if split else 1)
        return total


def subgames_below(bv: BlueprintValues, roots: list[int], round_: int) -> dict[int, int]:
    """How many subgames (a node of ``roots`` on any board of ``round_``) lie below each
    edge, per board at the edge's node — the equal split of a gift taken on that edge."""
    tree, space = bv.game.tree, bv.game.space
    below: dict[int, int] = {}
    for root in roots:
        for ancestor, edge in bv.path(root):
            below[edge] = below.get(edge, 0) + space.extensions(int(tree.round[ancestor]), round_)
    return below
