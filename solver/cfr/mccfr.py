"""External-sampling MCCFR for any number of players, through a card abstraction.

Each iteration runs one traversal per player, each on its own sampled deal: the
traverser tries every action, the others and chance are sampled.  On top of plain
external sampling, the Pluribus schedule (docs/algorithms.md, "Monte Carlo CFR") is available:

* linear discounting early: every ``discount_every`` iterations up to
  ``discount_until``, regrets and average-strategy sums are multiplied by k/(k+1)
  (k = discounts so far, counting this one);
* negative-regret pruning after ``prune_after`` iterations: with probability
  ``prune_probability`` a traversal skips the traverser's actions whose regret is
  below the threshold, never on the last round and never for an action that ends
  the hand; regrets are floored at ``regret_floor_bb`` so pruned actions can recover;
* the average strategy is kept for the first ``average_rounds`` rounds only; later
  rounds play the current (regret-matching) strategy.

Regrets are float32 (half the memory of float64), average sums float64.  Cards reach
the kernel as buckets: a :class:`CardAbstraction` maps sampled deals to one bucket per
player and round.  Randomness is two explicit splitmix64 states (deals, actions), so
a run is reproducible from its seed and a resumed run continues exactly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from math import comb
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from protocol.handrank import rank_cards
from solver.artifacts import ArtifactError, load_artifact, save_artifact
from solver.deals import CardSpace, deal_indices, random_unit, sample_deals
from solver.ranges import normalized
from solver.tree import (
    CHANCE,
    FOLD_END,
    SHOWDOWN,
    BettingTree,
    Layout,
    layout,
    pot_shares,
    showdown_table,
)

CHECKPOINT_KIND = "mccfr-checkpoint"


class MCCFRConfig(NamedTuple):
    """The Pluribus schedule's knobs (regret thresholds in big blinds); :data:`PLAIN`
    turns all of them off."""

    prune_after: int = 0
    prune_probability: float = 0.0
    prune_threshold_bb: float = -300.0
    regret_floor_bb: float = -math.inf
    discount_every: int = 0
    discount_until: int = 0
    average_rounds: int = 4


PLAIN = MCCFRConfig()


def pluribus_schedule(iterations: int, *, average_rounds: int = 1) -> MCCFRConfig:
    """Pluribus's schedule scaled to a run of ``iterations``.

    Pluribus trained 8 days (11,520 minutes), discounted every 10 minutes for the
    first 400 and started pruning (95% of traversals) after 200 minutes; its
    threshold and floor, -300M and -310M in its regret units, are kept as -300 and
    -310 big blinds here.
    """
    every = max(1, round(iterations * 10 / 11520))
    return MCCFRConfig(
        prune_after=round(iterations * 200 / 11520),
        prune_probability=0.95,
        regret_floor_bb=-310.0,
        discount_every=every,
        discount_until=40 * every,
        average_rounds=average_rounds,
    )


def apply_discounts(regret: np.ndarray, avg: np.ndarray, config: MCCFRConfig, first: int, last: int) -> None:
    """Linear discounting for each of ``config``'s discount points in iterations
    ``first..last``, applied at once (at the end of a block of those iterations)."""
    every, until = config.discount_every, config.discount_until
    if every <= 0:
        return
    for t in range(-(-first // every) * every, min(last, until) + 1, every):
        k = t // every
        regret *= np.float32(k / (k + 1.0))
        avg *= k / (k + 1.0)


class SampledDeals(NamedTuple):
    """A batch of deals: card ids (hole cards player by player, then the board in
    dealing order), each player's hand index and the board index per round."""

    cards: np.ndarray
    hands: np.ndarray
    boards: np.ndarray


class CardAbstraction(NamedTuple):
    """Buckets per round and the function giving each (deal, player, round) its bucket.

    ``buckets(deals)`` returns an int64 array (deals, players, rounds).
    """

    name: str
    n_buckets: tuple[int, ...]
    buckets: Callable[[SampledDeals], np.ndarray]


def identity_abstraction(space: CardSpace) -> CardAbstraction:
    """No card abstraction: a bucket is a (board, hand) row, so strategies are tabular."""
    n_hands = space.n_hands

    def buckets(deals: SampledDeals) -> np.ndarray:
        return deals.boards[:, None, :] * n_hands + deals.hands[:, :, None]

    return CardAbstraction("identity", tuple(space.rows(r) for r in range(space.game.num_rounds)), buckets)


class TraversalTree(NamedTuple):
    """The betting tree's arrays as the traversal kernels read them (shared with
    :mod:`solver.cfr.mccfr_parallel`)."""

    kind: np.ndarray
    player: np.ndarray
    round: np.ndarray
    child_start: np.ndarray
    child_count: np.ndarray
    children: np.ndarray
    ends_hand: np.ndarray  # per edge: the child is a terminal (never pruned)
    offset: np.ndarray
    fold_value: np.ndarray
    spent: np.ndarray
    folded: np.ndarray
    showdown_value: np.ndarray  # two players: (nodes, 3, 2) chips when player 0 wins, ties, loses


class TraversalKnobs(NamedTuple):
    """Scalars of one run, in chips and iterations, as the traversal kernels read them."""

    threshold: float
    floor: float
    prune_after: int
    prune_probability: float
    discount_every: int
    discount_until: int
    average_rounds: int
    last_round: int
    max_actions: int


@njit(cache=True)
def _showdown(node: np.int64, trav: int, ranks: np.ndarray, tree: TraversalTree) -> float:
    if ranks.shape[0] == 2:  # the common case, without allocating
        outcome = 0 if ranks[0] > ranks[1] else (1 if ranks[0] == ranks[1] else 2)
        return tree.showdown_value[node, outcome, trav]
    return pot_shares(tree.spent[node], tree.folded[node], ranks)[trav]


@njit(cache=True)
def _regret_matching(regret: np.ndarray, base: int, n_a: int, out: np.ndarray) -> None:
    """``out[:n_a]`` ∝ positive ``regret[base : base + n_a]``, uniform if none is positive."""
    total = 0.0
    for a in range(n_a):
        out[a] = max(regret[base + a], 0.0)
        total += out[a]
    for a in range(n_a):
        out[a] = out[a] / total if total > 0 else 1.0 / n_a


@njit(cache=True)
def _next_action(frame: np.ndarray, after: int, n_a: int, m: int) -> int:
    """The first action after ``after`` marked explored in ``frame[2m:]``, or -1."""
    for a in range(after + 1, n_a):
        if frame[2 * m + a] > 0:
            return a
    return -1


@njit(cache=True)
def traverse(
    trav: int, buckets: np.ndarray, ranks: np.ndarray, prune: bool, tree: TraversalTree, regret: np.ndarray,
    others: np.ndarray, avg: np.ndarray, rng: np.ndarray, frames: np.ndarray, at: np.ndarray, sums: np.ndarray,
    knobs: TraversalKnobs,
) -> float:
    """One external-sampling traversal for ``trav``; returns its sampled value.

    Iterative (numba cannot cache recursive kernels reliably): each open traverser
    node is a frame, ``frames[d]`` holding (max_actions each) its strategy, action
    values and explored flags, ``at[d]`` its (node, action being explored) and
    ``sums[d]`` its value so far.  Others' nodes and chance are sampled in place.
    Mutates ``regret`` (traverser's nodes), ``avg`` (others' nodes), ``rng`` and the
    work arrays ``frames``, ``at``, ``sums``.  The other players act by regret
    matching on ``others`` (read only): ``regret`` itself, or a snapshot of it when
    two traversers run at once (:mod:`solver.cfr.mccfr_parallel`).
    ``buckets`` is (players, rounds), ``ranks`` (players,).
    """
    m = knobs.max_actions
    depth = 0  # open frames
    node = 0
    value = 0.0
    descending = True
    while True:
        if descending:
            kind = tree.kind[node]
            first = tree.child_start[node]
            if kind == CHANCE:
                node = tree.children[first]
                continue
            if kind in (FOLD_END, SHOWDOWN):
                value = tree.fold_value[node, trav] if kind == FOLD_END else _showdown(node, trav, ranks, tree)
                descending = False
                continue
            p, r, n_a = tree.player[node], tree.round[node], tree.child_count[node]
            base = tree.offset[node] + buckets[p, r] * n_a
            frame = frames[depth]
            _regret_matching(regret if p == trav else others, base, n_a, frame)
            if p != trav:
                if r < knobs.average_rounds:
                    for a in range(n_a):
                        avg[base + a] += frame[a]
                u = random_unit(rng)
                pick = n_a - 1
                for a in range(n_a - 1):
                    u -= frame[a]
                    if u < 0:
                        pick = a
                        break
                node = tree.children[first + pick]
                continue
            explored = 0
            for a in range(n_a):
                skip = prune and r != knobs.last_round and not tree.ends_hand[first + a] and regret[base + a] < knobs.threshold
                frame[2 * m + a] = 0.0 if skip else 1.0
                explored += not skip
            if explored == 0:  # never prune every action of a node
                frame[2 * m : 2 * m + n_a] = 1.0
            a = _next_action(frame, -1, n_a, m)
            at[depth, 0], at[depth, 1] = node, a
            sums[depth] = 0.0
            depth += 1
            node = tree.children[first + a]
            continue
        if depth == 0:
            return value
        d = depth - 1
        frame = frames[d]
        parent, a = at[d, 0], at[d, 1]
        n_a, first = tree.child_count[parent], tree.child_start[parent]
        frame[m + a] = value
        sums[d] += frame[a] * value
        a = _next_action(frame, a, n_a, m)
        if a >= 0:
            at[d, 1] = a
            node = tree.children[first + a]
            descending = True
            continue
        value = sums[d]
        p, r = tree.player[parent], tree.round[parent]
        base = tree.offset[parent] + buckets[p, r] * n_a
        for a in range(n_a):
            if frame[2 * m + a] > 0:
                regret[base + a] = max(regret[base + a] + frame[m + a] - value, knobs.floor)
        depth = d


@njit(cache=True)
def _run_batch(
    tree: TraversalTree, buckets: np.ndarray, ranks: np.ndarray, regret: np.ndarray, avg: np.ndarray,
    rng: np.ndarray, first: int, knobs: TraversalKnobs,
) -> None:
    """Iterations ``first ..`` one per row of ``buckets`` (iters, players, players, rounds)
    and ``ranks`` (iters, players, players): traversal ``q`` of an iteration uses deal
    ``[i, q]``.  Mutates ``regret``, ``avg`` and ``rng``."""
    n_players = buckets.shape[1]
    depth = tree.kind.shape[0]  # a path cannot be longer than the tree has nodes
    frames = np.zeros((depth, 3 * knobs.max_actions))
    at = np.zeros((depth, 2), np.int64)
    sums = np.zeros(depth)
    for i in range(buckets.shape[0]):
        t = first + i
        for trav in range(n_players):
            prune = t > knobs.prune_after and knobs.prune_probability > 0 and random_unit(rng) < knobs.prune_probability
            traverse(trav, buckets[i, trav], ranks[i, trav], prune, tree, regret, regret, avg, rng, frames, at, sums, knobs)
        if knobs.discount_every > 0 and t <= knobs.discount_until and t % knobs.discount_every == 0:
            k = t // knobs.discount_every
            regret *= np.float32(k / (k + 1.0))
            avg *= k / (k + 1.0)


@njit(cache=True, nogil=True)
def _deal_ranks(cards: np.ndarray, n_players: int, k: int) -> np.ndarray:
    """(deals, players) showdown rank of each player's hole cards plus the full board."""
    count, width = cards.shape
    out = np.empty((count, n_players), np.int64)
    hand = np.empty(k + width - n_players * k, np.int64)
    for i in range(count):
        hand[k:] = cards[i, n_players * k :]
        for p in range(n_players):
            hand[:k] = cards[i, p * k : (p + 1) * k]
            out[i, p] = rank_cards(hand, hand.shape[0])
    return out


class MCCFRSolver:
    """External-sampling MCCFR on a betting tree through a card abstraction.

    Args:
        tree: the betting tree (any number of players).
        deck: the game's cards in the reference order (``protocol.cards.deck``).
        abstraction: buckets per round; :func:`identity_abstraction` for small games.
        config: the schedule (:data:`PLAIN`, :func:`pluribus_schedule`).
        seed: makes the run reproducible.
    """

    def __init__(
        self, tree: BettingTree, deck: Sequence[int], abstraction: CardAbstraction,
        config: MCCFRConfig = PLAIN, seed: int = 0,
    ) -> None:
        g = tree.game
        if len(abstraction.n_buckets) != g.num_rounds:
            raise ValueError(f"the card abstraction has {len(abstraction.n_buckets)} rounds, the game {g.num_rounds}")
        self.tree, self.abstraction, self.config, self.seed = tree, abstraction, config, seed
        self.deck = np.asarray(deck, np.int64)
        self.layout: Layout = layout(tree, abstraction.n_buckets)
        self.regret = np.zeros(self.layout.size, np.float32)
        self.avg = np.zeros(self.layout.size)
        # Two streams, so that how iterations are batched cannot change the run.
        self.rng = np.array([seed, seed ^ 0x5DEECE66D], np.uint64)
        self.iterations = 0
        #: Extra header parameters :meth:`save` records and :meth:`resume` does not check
        #: (a caller's, e.g. the hash of the card maps the run trains on).
        self.header_params: dict = {}
        children = tree.children
        self._tree = TraversalTree(
            tree.kind, tree.player, tree.round, tree.child_start, tree.child_count, children,
            (tree.kind[children] == FOLD_END) | (tree.kind[children] == SHOWDOWN),
            self.layout.offset, tree.fold_value, tree.spent, tree.folded, showdown_table(tree),
        )
        board = np.array(g.num_board_cards, np.int64)
        on_board = np.concatenate([[0], np.cumsum(board)[:-1]])
        self._board_sizes = board
        self._extensions = np.array([comb(len(self.deck) - int(o), int(n)) for o, n in zip(on_board, board)], np.int64)
        bb = g.big_blind
        self._knobs = TraversalKnobs(
            float(config.prune_threshold_bb * bb), float(config.regret_floor_bb * bb), int(config.prune_after),
            float(config.prune_probability), int(config.discount_every), int(config.discount_until),
            int(config.average_rounds), g.num_rounds - 1, int(tree.child_count.max()),
        )

    def _deals(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        g = self.tree.game
        positions = sample_deals(self.rng[0:1], len(self.deck), g.num_players * g.num_hole_cards + g.total_board_cards, count)
        return self._deal_features(positions)

    def _deal_features(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Buckets (deals, players, rounds) and showdown ranks (deals, players) of sampled
        deck positions (deals, cards)."""
        g = self.tree.game
        k, players = g.num_hole_cards, g.num_players
        hands, boards = deal_indices(positions, players, k, self._board_sizes, self._extensions)
        deals = SampledDeals(self.deck[positions], hands, boards)
        buckets = np.ascontiguousarray(self.abstraction.buckets(deals), dtype=np.int64)
        return buckets, _deal_ranks(deals.cards, players, k)

    def run(self, iterations: int, *, batch: int = 4096, progress: Callable[[int, float], None] | None = None) -> None:
        """Run ``iterations`` more iterations, calling ``progress(iterations, seconds)`` per batch.

        Raises:
            ValueError: if ``iterations`` is negative.
        """
        if iterations < 0:
            raise ValueError(f"the number of iterations must not be negative, got {iterations}")
        players, rounds = self.tree.game.num_players, self.tree.game.num_rounds
        started = time.perf_counter()
        done = 0
        while done < iterations:
            n = min(batch, iterations - done)
            buckets, ranks = self._deals(n * players)
            _run_batch(
                self._tree, buckets.reshape(n, players, players, rounds), ranks.reshape(n, players, players),
                self.regret, self.avg, self.rng[1:2], self.iterations + 1, self._knobs,
            )
            self.iterations += n
            done += n
            if progress is not None:
                progress(self.iterations, time.perf_counter() - started)

    def strategy(self, average_rounds: int | None = None) -> np.ndarray:
        """The strategy to play, in :attr:`layout`: the average on the first
        ``average_rounds`` rounds (default: the config's, the rounds whose average was
        kept), the current regret-matching strategy after."""
        rounds = self.config.average_rounds if average_rounds is None else min(average_rounds, self.config.average_rounds)
        average = normalized(self.layout, self.tree, self.avg)
        current = normalized(self.layout, self.tree, self.regret.astype(np.float64), positive_part=True)
        for p in range(self.tree.game.num_players):
            for r in range(rounds, self.tree.game.num_rounds):
                start, end = self.layout.block[p, r]
                average[start:end] = current[start:end]
        return average

    def _params(self) -> dict:
        return {
            "abstraction": self.abstraction.name,
            "n_buckets": list(self.abstraction.n_buckets),
            "config": list(self.config),
            "seed": self.seed,
            "nodes": self.tree.n_nodes,
            "action_abstraction": self.tree.abstraction.spec() if self.tree.abstraction else "",
        }

    def save(self, path: str | Path) -> Path:
        """Write a checkpoint that :meth:`resume` continues exactly."""
        arrays = {"regret": self.regret, "avg": self.avg, "rng": self.rng, "iterations": np.array([self.iterations], np.int64)}
        params = {**self.header_params, **self._params()}
        return save_artifact(path, CHECKPOINT_KIND, arrays, game=self.tree.game, params=params)

    def resume(self, path: str | Path) -> None:
        """Load a checkpoint written by :meth:`save` for this same tree, abstraction,
        schedule and seed.

        Raises:
            ArtifactError: if the checkpoint was made for something else.
        """
        art = load_artifact(path, CHECKPOINT_KIND, game=self.tree.game, params=self._params(), rebuild="a fresh run")
        if art.arrays["regret"].shape != self.regret.shape:
            raise ArtifactError(f"{path} holds {art.arrays['regret'].shape[0]} regrets, this tree needs {self.regret.size}")
        self.regret = np.array(art.arrays["regret"])
        self.avg = np.array(art.arrays["avg"])
        self.rng = np.array(art.arrays["rng"])
        self.iterations = int(art.arrays["iterations"][0])
