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
set of runouts (:meth:`BlueprintLeafValues.use`).  With a ``pool`` of runouts drawn once,
the iterations cycle through it instead and each runout's rest-of-hand trees and rows are
built once and kept: the solve then converges to the model whose chance is the pool (a
fixed sample), each iteration 2.3x cheaper once built but no better at equal time on
independent runouts (docs/results/2026-11-27-river-defence.md).  What is approximate: the
blueprint's own abstraction of the rest (sizes, card buckets) and translated leaf betting.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from protocol.fasteval import rank_range
from protocol.rules import State, with_cards
from solver.deals import CardSpace, card_space
from solver.follow import TranslationMemory
from solver.follow import walk as follow
from solver.ranges import EVALUATE, WHOLE, walk
from solver.subgame.alternatives import BlueprintRows, blueprint_pairs, blueprint_strategy
from solver.subgame.depth_limited import BIAS_FACTOR, CONTINUATIONS, BiasPlan, bias_plan, biased_strategy
from solver.subgame.leaf_walk import showdown_signs, signed_sums
from solver.subgame.range_solver import SharedParts, Subgame, SubgameError, assemble_subgame
from solver.tree import DECISION, BettingTree, build_tree

#: Rows a leaf's rest of the hand may read from the blueprint on one runout.
MAX_REST_ROWS = 20000
#: Showdown sign matrices (5.5 MB each on the flop) are kept for this many runouts at most.
SIGN_CACHE = 4


class BlueprintLeafValues:
    """Leaf values of the depth-limited subgame ``cut`` (re-solver ``me``) from ``blueprint``.

    ``continuations``: names from :data:`solver.subgame.depth_limited.CONTINUATIONS`
    except ``best-response`` (the first is the blueprint's), the chooser's options at
    every leaf; ``factor`` the bias; ``seed`` the runouts' and translations' draws;
    ``memory`` the hand's translations of the real actions before the root, if any;
    ``pool``: if positive, that many runouts drawn once, cycled through by the solve's
    iterations with their trees and rows kept (0: a fresh runout every iteration).

    Raises:
        SubgameError: if a continuation is unknown, ``cut`` is not depth-limited or ``pool`` negative.
    """

    def __init__(
        self, cut: Subgame, blueprint: BlueprintRows, me: int, continuations: Sequence[str] = ("blueprint",),
        factor: float = BIAS_FACTOR, seed: int = 0, memory: TranslationMemory | None = None, pool: int = 0,
    ) -> None:
        unknown = [c for c in continuations if c not in CONTINUATIONS[:4]]
        if unknown or not continuations:
            raise SubgameError(f"continuations are among {', '.join(CONTINUATIONS[:4])}, got {list(continuations)}")
        if not len(cut.leaves):
            raise SubgameError("the subgame has no leaves: build it with depth_limited=True")
        if pool < 0:
            raise SubgameError(f"the runout pool is a count of runouts, 0 or more, got {pool}")
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
        self.pool: list[tuple[int, ...]] = [self.draw() for _ in range(pool)]
        self._pooled = frozenset(self.pool)
        self.runouts: list[tuple[int, ...]] = [self.pool[0] if self.pool else self.draw()]
        # Built once: each leaf's rest-of-hand tree.  Per runout (dropped by use() unless
        # the runout is in the pool): the card space all leaves share, each leaf's
        # subgame and blueprint rows, the showdown payoff signs of the all-in leaves, and
        # each (leaf, option)'s strategy.
        self._trees: dict[int, BettingTree] = {}
        self._spaces: dict[tuple[int, ...], CardSpace] = {}
        self._signs: dict[tuple[int, ...], np.ndarray] = {}
        self._clash: np.ndarray | None = None
        self._cache: dict[tuple[int, tuple[int, ...], int], tuple[Subgame, np.ndarray]] = {}
        # Per leaf, whatever runout: its tree's blueprint nodes, each continuation's bias
        # plan and the tree's packed arrays (with each kept runout's card arrays).
        self._pairs: dict[int, list[tuple[int, int]] | None] = {}
        self._plans: dict[tuple[int, int, int], BiasPlan] = {}
        self._shared = SharedParts()

    # --- runouts -----------------------------------------------------------------------

    def draw(self) -> tuple[int, ...]:
        """A uniformly drawn runout: the remaining board cards, in dealing order."""
        return tuple(int(c) for c in self.rng.choice(self.deck, self.rest_cards, replace=False))

    def begin_iteration(self, iteration: int) -> None:
        """This solve iteration's runout (the solver calls it before each): a new one, or
        the pool's next."""
        if self.pool:
            self.runouts = [self.pool[iteration % len(self.pool)]]
        else:
            self.use([self.draw()])

    def use(self, runouts: Sequence[Sequence[int]]) -> None:
        """Value the leaves as the mean over ``runouts`` until the next call (what the
        pool's runouts have built is kept)."""
        if not runouts:
            raise SubgameError("at least one runout is needed")
        self.runouts = [tuple(int(c) for c in r) for r in runouts]
        self._cache = {key: v for key, v in self._cache.items() if key[1] in self._pooled}
        for key in [key for key in self._spaces if key not in self._pooled]:
            self._shared.forget(self._spaces.pop(key))
        self._signs = {key: v for key, v in self._signs.items() if key in self._pooled}

    # --- values ------------------------------------------------------------------------

    def choices(self, leaf: int) -> int:
        """How many continuations differ at ``leaf``: 1 where nothing is left to decide."""
        return 1 if self.targets[leaf][0].finished else self.k

    def values(self, leaf: int, option: int, trav: int, reach_t: np.ndarray, reach_o: np.ndarray) -> np.ndarray:
        """The traverser's counterfactual values at leaf ``leaf`` under continuation ``option``."""
        cut = self.cut
        total = np.zeros(cut.n_hands)
        for runout in self.runouts:
            state = self.targets[leaf][0]
            if state.finished:  # an all-in called: a showdown on the runout
                if self._clash is None:
                    self._clash = _clashes(cut)
                signs = self._signs.get(runout)
                if signs is None:
                    signs = _showdown_signs(cut, self._clash, self.board + runout)
                    if len(self.runouts) <= SIGN_CACHE or runout in self._pooled:  # read by every traversal
                        self._signs[runout] = signs
                total += _showdown(signs, state, trav, reach_o)
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
        if leaf not in self._trees:
            self._trees[leaf] = build_tree(game, abstraction, root=root)
        if runout not in self._spaces:
            self._spaces[runout] = card_space(game, self.board + runout)
        base = self._cache.get((leaf, runout, 0))
        if base is not None:  # the same subgame: another continuation of it
            rest, strategy = base
        else:
            rest = assemble_subgame(root, abstraction, 1.0, self._trees[leaf], self._spaces[runout], self._shared)
            strategy = None
            if node is not None:
                if leaf not in self._pairs:  # the tree's walk against the blueprint, the same on every runout
                    self._pairs[leaf] = blueprint_pairs(self.blueprint, rest, node, (0, 1), MAX_REST_ROWS)
                pairs = self._pairs[leaf]
                strategy = None if pairs is None else blueprint_strategy(self.blueprint, rest, node, (0, 1), pairs=pairs)
            if strategy is None:
                # Nothing to decide, or no blueprint rows to play: checked down.
                strategy = _check_down(rest)
        if self._pairs.get(leaf) is not None and self.continuations[option] != "blueprint":  # blueprint rows to bias
            plan_key = (leaf, option, rest.tabular.layout.size)
            if plan_key not in self._plans:
                self._plans[plan_key] = bias_plan(rest.tabular, self.chooser, self.continuations[option], self.factor)
            strategy = biased_strategy(rest.tabular, strategy, self.chooser, self.continuations[option], self.factor,
                                       self._plans[plan_key])
        self._cache[key] = (rest, strategy)
        return rest, strategy


def _clashes(cut: Subgame) -> np.ndarray:
    """(hands, hands) bool over ``cut``'s hands: the two share a card."""
    hands = cut.hands
    return (hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))


def _showdown_signs(cut: Subgame, clash: np.ndarray, board: tuple[int, ...]) -> np.ndarray:
    """(hands, hands) float32 over ``cut``'s hands on the full ``board``: +1 where the row
    hand beats the column hand, -1 where it loses, 0 on a tie or where the two share a card
    (``clash``) or either touches the board (:func:`solver.subgame.leaf_walk.showdown_signs`)."""
    ranks = cut.from_hole_pairs(rank_range(np.array(board, np.int64)).astype(np.float64))
    live = ~np.isin(cut.hands, board).any(axis=1)
    return showdown_signs(ranks, live, clash)


def _showdown(signs: np.ndarray, state: State, trav: int, reach_o: np.ndarray) -> np.ndarray:
    """The traverser's counterfactual values of a showdown of the finished ``state`` (both
    all in, so ties split evenly): against each opponent hand it may meet, the chips
    committed by the loser (``signs`` from :func:`_showdown_signs`)."""
    if state.spent[0] != state.spent[1]:
        raise SubgameError(f"a showdown leaf with unequal stakes {state.spent}")
    return float(state.spent[trav]) * signed_sums(signs, reach_o.astype(np.float32))


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
