"""Leaf values of a depth-limited hold'em subgame from the blueprint, on sampled runouts
(:class:`BlueprintLeafValues`, a :class:`solver.subgame.depth_limited_range.LeafValues`).

At a leaf (the chance node that would deal the next round) the rest of the hand is the
blueprint's.  The leaf's betting is translated down the blueprint's tree as a real hand
is (:func:`solver.follow.walk`) to the node where the next round starts; the subgame
rebuilt from that node with the blueprint's sizes is played by both players with the
blueprint's rows, the chooser's biased per continuation (fold, call or raise
probabilities times a factor, :func:`solver.subgame.depth_limited.biased_strategy`).
Values are scaled from the tree's pot to the leaf's, as a first solve's alternatives are.
A leaf with nothing left to decide (an all-in called) is a showdown on the runout; one
whose betting leaves the blueprint's tree is valued as checked down.

What is sampled: the runout of the remaining board cards.  Each solve iteration draws
one (:meth:`BlueprintLeafValues.begin_iteration`): the rest is then one deal, valued
exactly by the range kernel (every hand, card removal, showdowns) and scaled so that its
mean over runouts is the exact value (the kernel weighs each deal by its probability
given both hands).  So the solver sees unbiased estimates; a measurement averages a fixed
set of runouts (:meth:`BlueprintLeafValues.use`).  What is approximate: the blueprint's
own abstraction of the rest (sizes, card buckets) and translated leaf betting.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from protocol.fasteval import rank_range
from protocol.rules import State, with_cards
from solver.follow import TranslationMemory
from solver.follow import walk as follow
from solver.ranges import EVALUATE, WHOLE, walk
from solver.subgame.alternatives import BlueprintRows, blueprint_strategy
from solver.subgame.depth_limited import BIAS_FACTOR, CONTINUATIONS, biased_strategy
from solver.subgame.range_solver import Subgame, SubgameError, build_subgame
from solver.tree import DECISION

#: Rows a leaf's rest of the hand may read from the blueprint on one runout.
MAX_REST_ROWS = 20000


class BlueprintLeafValues:
    """Leaf values of the depth-limited subgame ``cut`` (re-solver ``me``) from ``blueprint``.

    ``continuations``: names from :data:`solver.subgame.depth_limited.CONTINUATIONS`
    except ``best-response`` (the first is the blueprint's), the chooser's options at
    every leaf; ``factor`` the bias; ``seed`` the runouts' and translations' draws;
    ``memory`` the hand's translations of the real actions before the root, if any.

    Raises:
        SubgameError: if a continuation is unknown or ``cut`` is not depth-limited.
    """

    def __init__(
        self, cut: Subgame, blueprint: BlueprintRows, me: int, continuations: Sequence[str] = ("blueprint",),
        factor: float = BIAS_FACTOR, seed: int = 0, memory: TranslationMemory | None = None,
    ) -> None:
        unknown = [c for c in continuations if c not in CONTINUATIONS[:4]]
        if unknown or not continuations:
            raise SubgameError(f"continuations are among {', '.join(CONTINUATIONS[:4])}, got {list(continuations)}")
        if not len(cut.leaves):
            raise SubgameError("the subgame has no leaves: build it with depth_limited=True")
        self.cut = cut
        self.blueprint = blueprint
        self.chooser = 1 - me
        self.continuations = tuple(continuations)
        self.k = len(self.continuations)
        self.factor = factor
        self.rng = np.random.default_rng(seed)
        game = cut.root.game
        known = game.board_cards_through(cut.root.round)
        self.board = tuple(int(c) for c in cut.root.board[:known])
        self.rest_cards = game.board_cards_through(game.num_rounds - 1) - known
        self.deck = np.array([c for c in range(game.deck_size) if c not in self.board], np.int64)
        self.scale = _runout_scale(game.deck_size - known, self.rest_cards, game.num_players * game.num_hole_cards)
        # Each leaf's path from its own copy of the hand's translations (``memory``: the
        # real actions before the root): translations are remembered by their place in the
        # betting, which two leaves' paths fill with different actions.
        self.targets = [
            self._target(cut.tree.states[int(leaf)], TranslationMemory(dict(memory.edges) if memory else {}), me)
            for leaf in cut.leaves
        ]
        self.runouts: list[tuple[int, ...]] = [self.draw()]
        self._cache: dict[tuple[int, tuple[int, ...], int], tuple[Subgame, np.ndarray]] = {}

    # --- runouts -----------------------------------------------------------------------

    def draw(self) -> tuple[int, ...]:
        """A uniformly drawn runout: the remaining board cards, in dealing order."""
        return tuple(int(c) for c in self.rng.choice(self.deck, self.rest_cards, replace=False))

    def begin_iteration(self, iteration: int) -> None:
        """A new runout for this solve iteration (the solver calls it before each)."""
        self.use([self.draw()])

    def use(self, runouts: Sequence[Sequence[int]]) -> None:
        """Value the leaves as the mean over ``runouts`` until the next call."""
        if not runouts:
            raise SubgameError("at least one runout is needed")
        self.runouts = [tuple(int(c) for c in r) for r in runouts]
        self._cache.clear()

    # --- values ------------------------------------------------------------------------

    def values(self, leaf: int, option: int, trav: int, reach_t: np.ndarray, reach_o: np.ndarray) -> np.ndarray:
        """The traverser's counterfactual values at leaf ``leaf`` under continuation ``option``."""
        cut = self.cut
        total = np.zeros(cut.n_hands)
        for runout in self.runouts:
            state = self.targets[leaf][0]
            if state.finished:  # an all-in called: a showdown on the runout
                total += _showdown(cut, state, self.board + runout, trav, reach_o)
                continue
            rest, strategy = self._rest(leaf, runout, option)
            pot_ratio = self.targets[leaf][2]
            t = rest.from_hole_pairs(cut.to_hole_pairs(reach_t))
            o = rest.from_hole_pairs(cut.to_hole_pairs(reach_o))
            unused = np.zeros(0)
            v = walk(
                np.int64(0), np.int64(0), np.int64(trav), t, o, np.int64(EVALUATE), rest.arrays, rest.cards, unused,
                unused, strategy, unused, 1.0, 1.0, 1.0, np.int64(WHOLE), np.zeros((0, 2, rest.n_hands)),
                np.zeros((0, rest.n_hands)),
            )
            total += cut.from_hole_pairs(rest.to_hole_pairs(v)) * pot_ratio
        return total * self.scale / len(self.runouts)

    def _target(self, leaf_state: State, memory: TranslationMemory, me: int) -> tuple[State, int | None, float]:
        """Where a leaf's rest of the hand starts: the blueprint's state at the next round's
        first node and that node, with the pot ratio; or the leaf itself (no node) when
        nothing is left to decide or its betting leaves the blueprint's tree."""
        found = follow(self.blueprint.tree, leaf_state, memory, self.rng, me)
        if found is None:
            return leaf_state, None, 1.0
        node = found[0]
        abstract = self.blueprint.tree.states[node]
        return abstract, node, leaf_state.pot / abstract.pot

    def _rest(self, leaf: int, runout: tuple[int, ...], option: int) -> tuple[Subgame, np.ndarray]:
        """The rest of the hand below ``leaf`` on ``runout`` and the strategy it is played by."""
        key = (leaf, runout, option)
        if key in self._cache:
            return self._cache[key]
        state, node, _ = self.targets[leaf]
        game = state.game
        through = game.board_cards_through(state.round) - len(self.board)
        root = with_cards(state, ((),) * game.num_players, self.board + runout[:through])
        abstraction = self.blueprint.tree.abstraction if node is not None else self.cut.abstraction
        rest = build_subgame(root, abstraction, runout=runout[through:])
        strategy = None
        if node is not None:
            strategy = blueprint_strategy(self.blueprint, rest, node, (0, 1), MAX_REST_ROWS)
        if strategy is None:
            # Nothing to decide, or no blueprint rows to play: checked down.
            strategy = _check_down(rest)
        elif self.continuations[option] != "blueprint":
            strategy = biased_strategy(rest.tabular, strategy, self.chooser, self.continuations[option], self.factor)
        self._cache[key] = (rest, strategy)
        return rest, strategy


def _showdown(cut: Subgame, state: State, board: tuple[int, ...], trav: int, reach_o: np.ndarray) -> np.ndarray:
    """The traverser's counterfactual values (``cut``'s hands) of a showdown of the finished
    ``state`` on ``board``: against each opponent hand sharing no card with it or the
    board, what it wins (the opponent's chips) or loses (its own), half the difference on a tie."""
    ranks = cut.from_hole_pairs(rank_range(np.array(board, np.int64)).astype(np.float64))
    live = ~np.isin(cut.hands, board).any(axis=1)
    o = np.where(live, reach_o, 0.0)
    clash = (cut.hands[:, None, :, None] == cut.hands[None, :, None, :]).any(axis=(2, 3))
    pairs = np.where(clash, 0.0, o[None, :])
    win, lose = float(state.spent[1 - trav]), float(state.spent[trav])
    sign = np.sign(ranks[:, None] - ranks[None, :])
    payoff = np.where(sign > 0, win, np.where(sign < 0, -lose, (win - lose) / 2))
    return np.where(live, (pairs * payoff).sum(axis=1), 0.0)


def _check_down(sg: Subgame) -> np.ndarray:
    """Every decision checks or calls (a tabular strategy of ``sg``)."""
    tree, lay = sg.tree, sg.tabular.layout
    out = np.zeros(lay.size)
    for node in np.flatnonzero(tree.kind == DECISION):
        actions = [a.kind.name for a in tree.actions(int(node))]
        n_a = len(actions)
        rows = lay.rows[int(tree.round[node])]
        block = np.zeros((rows, n_a))
        block[:, actions.index("CALL")] = 1.0
        out[lay.offset[node] : lay.offset[node] + rows * n_a] = block.ravel()
    return out


def _runout_scale(unseen: int, cards: int, hole: int) -> float:
    """What makes one uniformly drawn runout an unbiased estimate of the kernel's deal
    weighting: (ordered runouts) × (the kernel's probability of each, given both hands)."""
    scale = 1.0
    for i in range(cards):
        scale *= (unseen - i) / (unseen - hole - i)
    return scale
