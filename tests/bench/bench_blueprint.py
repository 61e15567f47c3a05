"""Blueprint training speed: MCCFR iterations/s with 1 and 2 threads, peak memory, load.

    .venv/bin/python tests/bench/bench_blueprint.py [--cards DIR] [--iterations 65536]

Trains the default blueprint's betting tree (``precompute.blueprint_train.DEFAULT_ACTIONS``)
on the blueprint card abstraction in ``--cards`` (a folder ``precompute abstraction
--preset blueprint`` wrote; the maps of the shipped default blueprint if omitted),
with the Pluribus schedule, once with one thread and once with two, from the same
seed.  Prints iterations/s of each (kernels compiled and a first block run before
timing), the ratio, whether the arrays are identical (they must be), the peak RSS
of the process, how many cores each run kept busy (CPU seconds per wall second: on a
shared machine two threads only help when a second core is free), the loading API's
times per lookup on the shipped default, and the
load average before and after.  The machine may be shared:
read the load average with the figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

import numpy as np

from precompute.blueprint import Blueprint
from precompute.blueprint_train import DEFAULT_ACTIONS
from precompute.cardbuckets import BlueprintCards
from protocol.cards import deck
from protocol.gamedef import load_game
from protocol.rules import CALL
from solver.bets import parse_abstraction
from solver.cfr.mccfr import pluribus_schedule
from solver.cfr.mccfr_parallel import ParallelMCCFRSolver
from solver.tree import build_tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cards", type=Path, help="folder with preflop/flop/turn.buckets (default: the shipped maps)")
    parser.add_argument("--iterations", type=int, default=65_536, help="timed iterations per thread count")
    parser.add_argument("--block", type=int, default=1024)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    game = load_game("holdem.nolimit.2p")
    if args.cards:
        cards = BlueprintCards.load_built(args.cards, game, 24)
    else:
        cards = Blueprint.load().cards
    tree = build_tree(game, parse_abstraction(DEFAULT_ACTIONS))
    schedule = pluribus_schedule(8 * args.iterations, average_rounds=2)
    rates, arrays = {}, {}
    for threads in (1, 2):
        solver = ParallelMCCFRSolver(tree, deck(game), cards.abstraction("bench"), schedule, seed=1,
                                     block=args.block, threads=threads)
        solver.run(args.block)  # compile and warm up
        start, cpu = time.perf_counter(), time.process_time()
        solver.run(args.iterations)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        rates[threads] = args.iterations / wall
        arrays[threads] = (solver.regret, solver.avg)
        print(f"{threads} thread(s): {rates[threads]:,.0f} iterations/s over {args.iterations:,} iterations "
              f"({tree.n_nodes:,} nodes, {solver.layout.size:,} strategy entries); cores busy on average "
              f"{cpu / wall:.2f} (CPU s / wall s), {args.iterations / cpu:,.0f} iterations per CPU second", flush=True)
    same = all(np.array_equal(a, b) for a, b in zip(arrays[1], arrays[2]))
    print(f"2 threads / 1 thread: {rates[2] / rates[1]:.2f}x; arrays identical: {same}")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    lookups()
    print(f"load average after: {os.getloadavg()}")


def lookups() -> None:
    """Time the loading API of the shipped default along a checked-down hand."""
    start = time.perf_counter()
    bp = Blueprint.load()
    print(f"Blueprint.load() of the shipped default: {time.perf_counter() - start:.2f} s")
    board = [10, 23, 31, 44, 50]
    node = bp.root
    for _ in range(7):
        seen = board[: (0, 3, 4, 5)[int(bp.tree.round[node])]]
        bp.range_strategy(node, seen)
        start = time.perf_counter()
        for _ in range(200):
            bp.strategy_at(node, [0, 1], seen)
        single = (time.perf_counter() - start) / 200
        start = time.perf_counter()
        for _ in range(50):
            bp.range_strategy(node, seen)
        whole = (time.perf_counter() - start) / 50
        print(f"  node {node} (round {bp.tree.round[node]}): strategy_at {1e3 * single:.3f} ms, "
              f"range_strategy {1e3 * whole:.3f} ms")
        if bp.tree.round[node] == 3:
            break
        node = bp.child(node, CALL)


if __name__ == "__main__":
    main()
