"""Distributed blueprint training: iterations/s on 1 and 2 local workers and on Ray with 2 CPUs,
what a block costs in bytes and communication, and projections to 16, 64 and 256 workers.

    .venv/bin/python tests/bench/bench_blueprint_workers.py [--iterations 65536] [--block 1024] [--quick]

Trains the default blueprint's betting tree on the shipped blueprint's card maps
(``precompute.blueprint_train.WorkerSpec``, the Pluribus schedule) with
:class:`solver.cfr.mccfr_distributed.DistributedMCCFRSolver` on a local pool of 1 and of
2 worker processes and, if Ray is installed, on a one-node Ray cluster on 127.0.0.1 with
2 CPUs, from the same seed.  A first round (starting the workers, loading kernels) is
not timed.  Prints each setting's iterations/s, the ratios (targets: 2 local ≥ 1.7 × 1
local on an idle 2-core machine; Ray within 15% of 2 local), whether Ray's arrays equal
the local pool's (they must), per block: the bytes of the snapshot sent to a worker and
of the changes sent back, the worker's traversal time, its own copying, the driver's
merge and the rest of the round's wall time (dispatch and transfer), the workers' peak
memory, and projections to 16, 64 and 256 workers (see :func:`projection`).

The machine may be shared: the load average is printed before and after; on a loaded
machine the rates and the ratios say what this run saw, not what idle cores give.
``--quick`` is a seconds-long check of the whole path (the test suite runs it).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np

from precompute.blueprint import Blueprint, cache_dir
from precompute.blueprint_train import DEFAULT_ACTIONS, WorkerSpec, build_block_worker
from precompute.treecache import cached_tree, tree_arrays
from protocol.cards import deck
from protocol.cluster import connect_ray
from protocol.gamedef import load_game
from solver.bets import parse_abstraction
from solver.cfr.block_pools import LocalBlockPool, RayBlockPool
from solver.cfr.mccfr import pluribus_schedule
from solver.cfr.mccfr_distributed import BlockPool, DistributedMCCFRSolver, RoundStats
from tests.dealer.ray_head import LOOPBACK_ENV, local_ray_head


class Measured(NamedTuple):
    label: str
    workers: int
    rate: float  # iterations/s over the timed rounds
    rounds: list[RoundStats]
    arrays: tuple[np.ndarray, np.ndarray]

    def per_block(self, figure: Callable[[RoundStats], float]) -> float:
        """Mean over the timed rounds of ``figure(round)``."""
        return statistics.fmean(figure(r) for r in self.rounds)


def measure(label: str, make_pool: Callable[[], BlockPool], setup: tuple, iterations: int, block: int) -> Measured:
    """Warm up one round, then time ``iterations`` on a fresh pool from ``make_pool``."""
    tree, game, cards, schedule = setup
    pool = make_pool()
    try:
        solver = DistributedMCCFRSolver(tree, deck(game), cards.abstraction("bench"), schedule, seed=1, block=block,
                                        pool=pool)  # fmt: skip
        solver.run(pool.workers * block)  # start the workers, load their kernels
        rounds: list[RoundStats] = []
        started = time.perf_counter()
        solver.run(iterations, progress=lambda _i, _s: rounds.append(solver.round_stats))
        wall = time.perf_counter() - started
    finally:
        pool.close()
    measured = Measured(label, pool.workers, iterations / wall, rounds, (solver.regret, solver.avg))
    report(measured)
    return measured


def report(m: Measured) -> None:
    up = m.per_block(lambda r: statistics.fmean(b.nbytes for b in r.results))
    traverse = m.per_block(lambda r: statistics.fmean(b.seconds for b in r.results))
    copying = m.per_block(lambda r: statistics.fmean(b.overhead for b in r.results))
    merge = m.per_block(lambda r: r.merge_seconds / len(r.results))
    rest = m.per_block(lambda r: r.communication_seconds - r.merge_seconds)
    print(f"{m.label}: {m.rate:,.0f} iterations/s ({len(m.rounds)} timed rounds)", flush=True)
    print(f"  bytes per block: {m.rounds[0].snapshot_bytes / 2**20:.1f} MiB snapshot to the worker, "
          f"{up / 2**20:.2f} MiB of changes back")
    print(f"  communication per block: {1e3 * traverse:.1f} ms traversing; {1e3 * copying:.1f} ms copying on the "
          f"worker, {1e3 * merge:.1f} ms merging on the driver, {1e3 * rest:.1f} ms dispatch and transfer per round "
          f"({100 * m.per_block(lambda r: r.communication_seconds / r.seconds):.0f}% of the round's wall time)")
    peak = max(b.peak_rss_mb for r in m.rounds for b in r.results)
    print(f"  memory per worker: {peak:,.0f} MB peak RSS")


def projection(m: Measured, workers: int, gbit: float, cores_per_node: int) -> tuple[float, float]:
    """Efficiency and iterations/s of ``workers`` workers projected from ``m``'s figures.

    A round lasts T(W) = C + X + H + W·M + (W·U + N·S) / BW: a block's traversals C
    and the worker's copying X (both as measured; they do not grow with W), the
    round's dispatch H (as measured), the driver's merge M per block (serial, so W
    times), and the network: W blocks' changes U into the driver and the snapshot S
    out to each of N = ⌈W / cores_per_node⌉ nodes (Ray's object store sends it to a
    node once) at ``gbit`` Gbit/s.  Efficiency is C / T(W): the share of a worker's
    time spent traversing.
    """
    traverse = m.per_block(lambda r: statistics.fmean(b.seconds for b in r.results))
    copying = m.per_block(lambda r: statistics.fmean(b.overhead for b in r.results))
    merge = m.per_block(lambda r: r.merge_seconds / len(r.results))
    dispatch = max(0.0, m.per_block(lambda r: r.communication_seconds - r.merge_seconds))
    up = m.per_block(lambda r: statistics.fmean(b.nbytes for b in r.results))
    snapshot = m.rounds[0].snapshot_bytes
    network = (workers * up + math.ceil(workers / cores_per_node) * snapshot) / (gbit * 1e9 / 8)
    round_time = traverse + copying + dispatch + workers * merge + network
    block = m.rounds[0].iterations / m.workers
    return traverse / round_time, workers * block / round_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=65_536, help="timed iterations per setting")
    parser.add_argument("--block", type=int, default=1024, help="iterations per block (per worker and round)")
    parser.add_argument("--gbit", type=float, default=10.0, help="network bandwidth assumed by the projection")
    parser.add_argument("--cores-per-node", type=int, default=16, help="cores per node assumed by the projection")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray setting")
    parser.add_argument("--quick", action="store_true", help="a few small rounds: a check that everything runs")
    args = parser.parse_args()
    os.environ.update(LOOPBACK_ENV)  # before Ray is imported: it reads this once
    if args.quick:
        args.iterations, args.block = 1024, 128
    print(f"load average before: {os.getloadavg()}")
    print(f"settings: {args.iterations:,} timed iterations per setting, blocks of {args.block}, seed 1, "
          f"{os.cpu_count()} cores on this machine", flush=True)
    game = load_game("holdem.nolimit.2p")
    tree = cached_tree(game, parse_abstraction(DEFAULT_ACTIONS), cache_dir() / "trees")
    cards = Blueprint.load().cards  # the shipped maps: nothing to build
    schedule = pluribus_schedule(8 * args.iterations, average_rounds=2)
    spec = WorkerSpec(game, DEFAULT_ACTIONS, tree_arrays(tree), tuple(np.array(m) for m in cards.maps),  # type: ignore[arg-type]
                      cards.n_buckets[3], "bench", schedule, 1)  # fmt: skip
    factory = partial(build_block_worker, spec)
    setup = (tree, game, cards, schedule)
    one = measure("1 local worker", lambda: LocalBlockPool(factory, 1), setup, args.iterations, args.block)
    two = measure("2 local workers", lambda: LocalBlockPool(factory, 2), setup, args.iterations, args.block)
    print(f"2 local / 1 local: {two.rate / one.rate:.2f}x (target >= 1.7 on an idle 2-core machine)")
    basis = two
    ray_skipped = "--no-ray" if args.no_ray else ""
    if not ray_skipped and importlib.util.find_spec("ray") is None:
        ray_skipped = "not installed (pip install -e '.[cluster]')"
    if ray_skipped:
        print(f"Ray: skipped ({ray_skipped})")
    else:
        with local_ray_head(cpus=2) as address:
            ray = connect_ray(address)
            try:
                on_ray = measure("Ray, 2 CPUs", lambda: RayBlockPool(factory, 2, ray), setup, args.iterations, args.block)
            finally:
                ray.shutdown()
        print(f"Ray / 2 local: {on_ray.rate / two.rate:.2f}x (target >= 0.85)")
        same = all(np.array_equal(a, b) for a, b in zip(two.arrays, on_ray.arrays))
        print(f"arrays identical to 2 local workers: {same}")
        basis = on_ray
    for workers in (16, 64, 256):
        efficiency, rate = projection(basis, workers, args.gbit, args.cores_per_node)
        print(f"projected efficiency at {workers} workers: {efficiency:.0%} ({rate:,.0f} iterations/s)")
    print(f"  (from the {basis.label} figures above, {args.gbit:g} Gbit/s, {args.cores_per_node} cores per node; "
          f"the same model at 2 workers: {projection(basis, 2, args.gbit, args.cores_per_node)[0]:.0%})")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
