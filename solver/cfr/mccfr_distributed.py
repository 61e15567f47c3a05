"""External-sampling MCCFR split over worker processes: rounds of blocks against a snapshot.

A run is a sequence of *rounds*.  Round r covers iterations rR+1 .. (r+1)R, where
R = ``workers`` × ``block``; worker w of the round runs the block of iterations
rR + wB + 1 .. rR + (w+1)B (B = ``block``) with plain sequential external sampling
(:class:`~solver.cfr.mccfr.MCCFRSolver`, both players each iteration) on its own copy
of the regrets as they stood at the round's start (the *snapshot*), starting its
average-strategy sums from zero.  It returns what changed, sparsely: the indices and
differences of the regrets it moved and its average-strategy sums.  The coordinator
(:class:`DistributedMCCFRSolver`) adds the workers' changes in worker order, floors the
regrets it touched, applies the Pluribus discount points the round covered
(:func:`~solver.cfr.mccfr.apply_discounts`, as the two-thread solver does at the end
of a block) and hands out the new snapshot.  Pruning happens inside the workers'
traversals with the run's knobs and the global iteration numbers.

Each block's random streams (deals, actions) are derived from (seed, round, worker)
by :class:`numpy.random.SeedSequence`, so a block gives the same result wherever and
however often it runs: a lost worker's block is simply run again, and a run is
bit-identical for a given seed, worker count and block size, whether its workers are
local processes or Ray tasks, and across a checkpoint (taken between rounds) and a
resume.  Within a round a worker plays against regrets up to R iterations old: the
staleness of every parallel CFR that shares a snapshot.

Where the blocks run is a :class:`BlockPool` (:mod:`solver.cfr.block_pools`).
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

import numpy as np

from solver.cfr.block_kernels import add_at, changed_entries, floor_at, nonzero_entries
from solver.cfr.mccfr import PLAIN, CardAbstraction, MCCFRConfig, MCCFRSolver, apply_discounts
from solver.tree import BettingTree


class WorkerError(RuntimeError):
    """A block could not be run (one sentence)."""


class BlockJob(NamedTuple):
    """Iterations ``first .. first + count - 1``, worker ``worker``'s block of round
    ``round``, with the random streams (deals, actions) it starts from."""

    round: int
    worker: int
    first: int
    count: int
    streams: tuple[int, int]

    @property
    def last(self) -> int:
        return self.first + self.count - 1


class BlockResult(NamedTuple):
    """What a block changed: regret differences (float32) and average-strategy sums
    (float64) at the given indices, and where and how fast it ran."""

    job: BlockJob
    regret_index: np.ndarray
    regret_delta: np.ndarray
    avg_index: np.ndarray
    avg_delta: np.ndarray
    seconds: float  # the traversals
    overhead: float  # copying the snapshot in and the changes out, on the worker
    peak_rss_mb: float  # the worker process's

    @property
    def nbytes(self) -> int:
        """Bytes of the changes sent back."""
        return sum(a.nbytes for a in (self.regret_index, self.regret_delta, self.avg_index, self.avg_delta))


class RoundStats(NamedTuple):
    """One round as the coordinator saw it."""

    iterations: int
    seconds: float  # wall time of the whole round
    merge_seconds: float  # adding the changes, flooring, discounting
    snapshot_bytes: int  # sent to each worker
    results: tuple[BlockResult, ...]

    @property
    def communication_seconds(self) -> float:
        """Wall time of the round beyond the slowest worker's own work: handing out the
        snapshot, collecting the changes, merging them."""
        busiest = max(r.seconds + r.overhead for r in self.results)
        return max(0.0, self.seconds - busiest)


class BlockPool(Protocol):
    """Runs the blocks of a round somewhere; results come back in the order of ``jobs``."""

    workers: int

    def run(self, snapshot: np.ndarray, jobs: Sequence[BlockJob]) -> list[BlockResult]: ...

    def describe(self) -> str: ...

    def close(self) -> None: ...


def block_streams(seed: int, round_: int, worker: int, offset: int = 0) -> tuple[int, int]:
    """The (deals, actions) splitmix64 states of a block, derived from (seed, round,
    worker) and the block's ``offset`` into its slice (0 unless a run ended mid-block)."""
    state = np.random.SeedSequence([seed % 2**64, round_, worker, offset]).generate_state(2, np.uint64)
    return int(state[0]), int(state[1])


def round_jobs(done: int, target: int, workers: int, block: int, seed: int) -> list[BlockJob]:
    """The blocks of the round holding iteration ``done + 1``, cut at ``target``."""
    size = workers * block
    round_ = done // size
    jobs = []
    for w in range(workers):
        start = round_ * size + w * block + 1  # the worker's slice: start .. start + block - 1
        first = max(start, done + 1)
        last = min(start + block - 1, target)
        if first <= last:
            jobs.append(BlockJob(round_, w, first, last - first + 1, block_streams(seed, round_, w, first - start)))
    return jobs


class BlockWorker:
    """A worker's side: runs blocks against snapshots with a sequential solver of its own.

    Args are :class:`~solver.cfr.mccfr.MCCFRSolver`'s; the solver runs ``config``
    without its discounting, which the coordinator applies.
    """

    def __init__(
        self, tree: BettingTree, deck: Sequence[int], abstraction: CardAbstraction, config: MCCFRConfig = PLAIN,
        seed: int = 0,
    ) -> None:
        self.solver = MCCFRSolver(tree, deck, abstraction, config._replace(discount_every=0, discount_until=0), seed)
        # Average sums are kept on the first average_rounds rounds only: look for changes there.
        ranges = self.solver.layout.block[:, : config.average_rounds].reshape(-1, 2)
        self._averaged = np.ascontiguousarray(ranges[np.argsort(ranges[:, 0], kind="stable")], np.int64)
        self._avg_used: np.ndarray | None = np.empty(0, np.int64)  # the avg entries a block left nonzero

    def run(self, snapshot: np.ndarray, job: BlockJob) -> BlockResult:
        """Run ``job``'s iterations from ``snapshot`` (read only); returns the changes."""
        s = self.solver
        started = time.perf_counter()
        np.copyto(s.regret, snapshot)
        if self._avg_used is None:  # an earlier block failed half-way
            s.avg.fill(0.0)
        else:  # zeroing what the last block wrote is much cheaper than the whole array
            s.avg[self._avg_used] = 0.0
        self._avg_used = None
        s.rng = np.array(job.streams, np.uint64)
        s.iterations = job.first - 1
        prepared = time.perf_counter()
        s.run(job.count, batch=job.count)
        traversed = time.perf_counter()
        index_type = np.int32 if s.regret.size < 2**31 else np.int64
        regret_index, regret_delta = changed_entries(s.regret, snapshot)
        avg_index = nonzero_entries(s.avg, self._averaged)
        self._avg_used = avg_index
        done = time.perf_counter()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return BlockResult(
            job, regret_index.astype(index_type), regret_delta, avg_index.astype(index_type), s.avg[avg_index],
            traversed - prepared, (prepared - started) + (done - traversed), peak,
        )  # fmt: skip


class DistributedMCCFRSolver(MCCFRSolver):
    """The coordinator: holds the regrets and average sums, runs rounds of blocks on
    ``pool`` and merges them (see the module docstring).  Saves and resumes like
    :class:`~solver.cfr.mccfr.MCCFRSolver`; a checkpoint records ``block`` and
    ``workers``, which the arrays depend on.

    Raises:
        ValueError: if ``block`` is not positive or ``pool`` has no workers.
    """

    def __init__(
        self, tree: BettingTree, deck: Sequence[int], abstraction: CardAbstraction, config: MCCFRConfig,
        seed: int, *, block: int, pool: BlockPool,
    ) -> None:
        if block < 1 or pool.workers < 1:
            raise ValueError(f"block and workers must be positive, got block={block} workers={pool.workers}")
        super().__init__(tree, deck, abstraction, config, seed)
        self.block, self.pool, self.workers = block, pool, pool.workers
        self.floor = np.float32(config.regret_floor_bb * tree.game.big_blind)
        self.round_stats: RoundStats | None = None

    def _params(self) -> dict:
        return {**super()._params(), "block": self.block, "workers": self.workers}

    def run(self, iterations: int, *, batch: int = 0, progress: Callable[[int, float], None] | None = None,
            stop: Callable[[], bool] | None = None) -> None:
        """Run ``iterations`` more iterations in rounds (ending early, between rounds,
        once ``stop()`` is true), calling ``progress(iterations, seconds)`` after each;
        :attr:`round_stats` holds the round's figures.  ``batch`` is ignored.

        Raises:
            ValueError: if ``iterations`` is negative.
            WorkerError: if the pool cannot run a block.
        """
        if iterations < 0:
            raise ValueError(f"the number of iterations must not be negative, got {iterations}")
        started = time.perf_counter()
        target = self.iterations + iterations
        while self.iterations < target and not (stop and stop()):
            jobs = round_jobs(self.iterations, target, self.workers, self.block, self.seed)
            began = time.perf_counter()
            results = self.pool.run(self.regret, jobs)
            received = time.perf_counter()
            self.merge(results)
            ended = time.perf_counter()
            self.iterations = jobs[-1].last
            self.round_stats = RoundStats(sum(j.count for j in jobs), ended - began, ended - received,
                                         self.regret.nbytes, tuple(results))  # fmt: skip
            if progress is not None:
                progress(self.iterations, time.perf_counter() - started)

    def merge(self, results: Sequence[BlockResult]) -> None:
        """Add a round's changes in worker order, floor the regrets they touched (the
        workers floor their own, a sum may still go below) and discount."""
        for r in sorted(results, key=lambda r: r.job.worker):
            add_at(self.regret, r.regret_index, r.regret_delta)
            add_at(self.avg, r.avg_index, r.avg_delta)
        for r in results:
            floor_at(self.regret, r.regret_index, self.floor)
        first = min(r.job.first for r in results)
        last = max(r.job.last for r in results)
        apply_discounts(self.regret, self.avg, self.config, first, last)
