"""Two-player external-sampling MCCFR on several cores, deterministic whatever the thread count.

Iterations run in blocks of ``block`` (block k covers iterations kB+1 .. (k+1)B, so
block boundaries do not depend on how a run was split or resumed).  At the start of
a block the regrets are copied into a snapshot; then player 0's B traversals and
player 1's B traversals run at the same time on two threads.  A traversal for
player p updates p's regrets (live: each traversal sees p's earlier ones) and the
opponent's average-strategy sums, and plays the opponent by regret matching on the
*snapshot*.  So the threads write disjoint parts of the arrays and read nothing the
other writes: no locks, no races, and the result is bit-identical with one thread
or two and across a checkpoint and resume (checkpoints are taken between blocks).

The price of determinism is staleness: within a block a player faces the opponent's
strategy as it was at the block's start (up to B iterations old), the usual trade
of parallel CFR variants; B is small against the millions of iterations of a run.
Linear discounting is applied at the end of the block holding each discount point.

Each player's deals and action samples come from its own splitmix64 stream, so
which thread runs a player cannot matter; the deals' buckets are computed inside
the thread too (the card abstraction's kernel releases the GIL).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from solver.cfr.mccfr import (
    PLAIN,
    CardAbstraction,
    MCCFRConfig,
    MCCFRSolver,
    TraversalKnobs,
    TraversalTree,
    apply_discounts,
    traverse,
)
from solver.deals import random_unit, sample_deals
from solver.tree import BettingTree


@njit(cache=True, nogil=True)
def _run_traverser(
    trav: int, tree: TraversalTree, buckets: np.ndarray, ranks: np.ndarray, regret: np.ndarray, snapshot: np.ndarray,
    avg: np.ndarray, rng: np.ndarray, first: int, knobs: TraversalKnobs,
) -> None:
    """Traversals for ``trav`` at iterations ``first ..``, one per row of ``buckets``
    (iters, players, rounds) and ``ranks`` (iters, players).  Mutates ``trav``'s part of
    ``regret``, the others' part of ``avg``, and ``rng`` (uint64 (1,)); reads ``snapshot``."""
    depth = tree.kind.shape[0]
    frames = np.zeros((depth, 3 * knobs.max_actions))
    at = np.zeros((depth, 2), np.int64)
    sums = np.zeros(depth)
    for i in range(buckets.shape[0]):
        t = first + i
        prune = t > knobs.prune_after and knobs.prune_probability > 0 and random_unit(rng) < knobs.prune_probability
        traverse(trav, buckets[i], ranks[i], prune, tree, regret, snapshot, avg, rng, frames, at, sums, knobs)


class ParallelMCCFRSolver(MCCFRSolver):
    """:class:`~solver.cfr.mccfr.MCCFRSolver` for two players, run in deterministic blocks on
    ``threads`` threads (1 or 2; the arrays are the same either way).

    ``rng`` holds three streams: [unused, player 0, player 1] so that a checkpoint
    restores every player's deals and action samples.

    Raises:
        ValueError: if the game does not have two players or ``block``/``threads`` are not positive.
    """

    def __init__(
        self, tree: BettingTree, deck: Sequence[int], abstraction: CardAbstraction, config: MCCFRConfig = PLAIN,
        seed: int = 0, *, block: int = 1024, threads: int = 2,
    ) -> None:
        if tree.game.num_players != 2:
            raise ValueError(f"parallel MCCFR needs a two-player game, this one has {tree.game.num_players}")
        if block < 1 or threads < 1:
            raise ValueError(f"block and threads must be positive, got block={block} threads={threads}")
        super().__init__(tree, deck, abstraction, config, seed)
        self.block, self.threads = block, threads
        self.rng = np.array([seed, seed ^ 0x5DEECE66D, seed ^ 0x2545F4914F6CDD1D], np.uint64)
        self._snapshot = np.empty_like(self.regret)
        self._pool = ThreadPoolExecutor(max_workers=2) if threads > 1 else None

    def _params(self) -> dict:
        return {**super()._params(), "block": self.block, "parallel": True}

    def _player_block(self, trav: int, n: int, first: int) -> None:
        g = self.tree.game
        width = g.num_players * g.num_hole_cards + g.total_board_cards
        state = self.rng[1 + trav : 2 + trav]
        positions = sample_deals(state, len(self.deck), width, n)
        buckets, ranks = self._deal_features(positions)
        _run_traverser(trav, self._tree, buckets, ranks, self.regret, self._snapshot, self.avg, state, first, self._knobs)

    def run(self, iterations: int, *, batch: int = 0, progress: Callable[[int, float], None] | None = None,
            stop: Callable[[], bool] | None = None) -> None:
        """Run ``iterations`` more iterations (ending early, between blocks, once ``stop()``
        is true), calling ``progress(iterations, seconds)`` after each block.  ``batch``
        is ignored: blocks are fixed by :attr:`block`.

        Raises:
            ValueError: if ``iterations`` is negative.
        """
        if iterations < 0:
            raise ValueError(f"the number of iterations must not be negative, got {iterations}")
        started = time.perf_counter()
        target = self.iterations + iterations
        while self.iterations < target and not (stop and stop()):
            first = self.iterations + 1
            n = min(self.block - self.iterations % self.block, target - self.iterations)
            np.copyto(self._snapshot, self.regret)
            if self._pool is None:
                for trav in (0, 1):
                    self._player_block(trav, n, first)
            else:
                jobs = [self._pool.submit(self._player_block, trav, n, first) for trav in (0, 1)]
                for job in jobs:
                    job.result()
            apply_discounts(self.regret, self.avg, self.config, first, first + n - 1)
            self.iterations += n
            if progress is not None:
                progress(self.iterations, time.perf_counter() - started)
