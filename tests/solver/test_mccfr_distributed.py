"""Distributed MCCFR's arithmetic on Leduc, with the blocks run in this process: the round
plan, the merge (changes summed in worker order, floored, then discounted), convergence,
and a resume between rounds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from protocol.cards import deck
from protocol.gamedef import load_game
from solver.bestresponse import exploitability
from solver.cfr.mccfr import MCCFRSolver, apply_discounts, identity_abstraction, pluribus_schedule
from solver.cfr.mccfr_distributed import BlockJob, BlockResult, BlockWorker, DistributedMCCFRSolver, round_jobs
from solver.ranges import tabular_game

LEDUC = tabular_game(load_game("leduc.limit.2p"))
SCHEDULE = pluribus_schedule(20_000, average_rounds=2)


class InProcessPool:
    """A :class:`~solver.cfr.mccfr_distributed.BlockPool` running every block here, on one worker per index."""

    def __init__(self, workers: int, config=SCHEDULE, seed: int = 3) -> None:
        self.workers = workers
        self.blocks = [BlockWorker(LEDUC.tree, deck(LEDUC.game), identity_abstraction(LEDUC.space), config, seed)
                       for _ in range(workers)]  # fmt: skip

    def run(self, snapshot: np.ndarray, jobs: Sequence[BlockJob]) -> list[BlockResult]:
        return [self.blocks[job.worker].run(snapshot, job) for job in jobs]

    def describe(self) -> str:
        return "in process"

    def close(self) -> None:
        pass


def coordinator(workers: int, block: int, config=SCHEDULE) -> DistributedMCCFRSolver:
    return DistributedMCCFRSolver(LEDUC.tree, deck(LEDUC.game), identity_abstraction(LEDUC.space), config, 3,
                                  block=block, pool=InProcessPool(workers, config))  # fmt: skip


def test_a_round_gives_each_worker_its_slice_once_whatever_the_split():
    jobs = round_jobs(0, 10_000, 3, 100, seed=7)
    assert [(j.round, j.worker, j.first, j.count) for j in jobs] == [(0, 0, 1, 100), (0, 1, 101, 100), (0, 2, 201, 100)]
    assert len({j.streams for j in jobs}) == 3
    # Cut at a target inside the round, then continued: the slice's rest gets its own streams.
    cut = round_jobs(300, 450, 3, 100, seed=7)
    assert [(j.worker, j.first, j.count) for j in cut] == [(0, 301, 100), (1, 401, 50)]
    rest = round_jobs(450, 10_000, 3, 100, seed=7)
    assert [(j.worker, j.first, j.count) for j in rest] == [(1, 451, 50), (2, 501, 100)]
    assert rest[0].streams != cut[1].streams
    assert round_jobs(300, 10_000, 3, 100, seed=7)[0].streams == cut[0].streams  # derived, not carried


def test_the_merge_sums_in_worker_order_then_floors_then_discounts():
    solver = coordinator(2, 50)
    solver.run(100)  # one round
    jobs = round_jobs(0, 100, 2, 50, seed=3)
    regret = np.zeros_like(solver.regret)
    avg = np.zeros_like(solver.avg)
    for job in jobs:  # each block on its own sequential solver, from the zero snapshot
        alone = MCCFRSolver(LEDUC.tree, deck(LEDUC.game), identity_abstraction(LEDUC.space),
                            SCHEDULE._replace(discount_every=0, discount_until=0), 3)  # fmt: skip
        alone.rng = np.array(job.streams, np.uint64)
        alone.iterations = job.first - 1
        alone.run(job.count)
        regret += alone.regret
        avg += alone.avg
    np.maximum(regret, np.float32(SCHEDULE.regret_floor_bb * LEDUC.game.big_blind), out=regret)
    apply_discounts(regret, avg, SCHEDULE, 1, 100)
    assert SCHEDULE.discount_every <= 100  # the round held discount points
    np.testing.assert_array_equal(solver.regret, regret)
    np.testing.assert_array_equal(solver.avg, avg)
    stats = solver.round_stats
    assert stats is not None and stats.iterations == 100 and len(stats.results) == 2


def test_converges_on_leduc_and_resumes_between_rounds_exactly(tmp_path):
    straight = coordinator(2, 64)
    straight.run(1_024)
    early = exploitability(LEDUC, straight.strategy()).nash_conv
    path = straight.save(tmp_path / "run.ckpt")
    straight.run(18_944)
    late = exploitability(LEDUC, straight.strategy()).nash_conv
    assert late < early / 2 and late < 0.4, (early, late)
    resumed = coordinator(2, 64)
    resumed.resume(path)
    resumed.run(18_944)
    np.testing.assert_array_equal(resumed.regret, straight.regret)
    np.testing.assert_array_equal(resumed.avg, straight.avg)
