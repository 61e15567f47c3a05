"""Depth-limited hold'em search speed (issue 26's first target): a flop subgame cut at the
end of the flop, the blueprint's rest of the hand at its leaves on sampled runouts, k
continuations, solved for a time budget; ``--spot turn``: a turn subgame cut at the end
of the turn (the agent's fallback where a full-depth turn solve does not fit its time;
``turn-check`` after the first player's check).

    .venv/bin/python tests/bench/bench_depth_limited.py [--budget 1.5] [--k 4] [--runouts 128] [--pool 12] [--threads 2]
    .venv/bin/python tests/bench/bench_depth_limited.py --spot turn --pool 12 --threads 2 --budget 1.0
    .venv/bin/python tests/bench/bench_depth_limited.py --quick      # a few iterations (what the tests run)

Prints the tree's size (nodes, leaves, hands, the round's rows) beside the build time,
the iterations the budget bought and the seconds each took, the solve's root mix (each
action's probability averaged over the hands; with ``--sizes blueprint`` the blueprint's
beside it), then the exploitability
reached in % of the pot, measured in the depth-limited model on ``--runouts`` fixed
runouts (the solve itself draws one runout per iteration), the process's peak memory and
the machine's load.  The target (issue 26): 1% of the pot within 1.5 s on 2 threads, with
all 1,326 hands; ``--threads 2`` values a traversal's leaves on two threads, as the agent does.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

from precompute.blueprint import Blueprint
from protocol.cards import cards_str
from protocol.gamedef import load_game
from protocol.wire import parse_matchstate
from solver.bets import parse_abstraction
from solver.follow import TranslationMemory
from solver.follow import walk as follow
from solver.subgame.alternatives import blueprint_strategy
from solver.subgame.blueprint_leaves import BlueprintLeafValues
from solver.subgame.depth_limited import CONTINUATIONS
from solver.subgame.depth_limited_range import DepthLimitedSolver
from solver.subgame.range_solver import build_subgame

#: The spots: a called min-raise preflop, the flop 2c 7h Ks, the big blind to act; the
#: same flop checked through and the turn 9d, at its start and after the first check.
SPOTS = {"flop": "MATCHSTATE:0:0:r200c/:AsKd|/2c7hKs", "turn": "MATCHSTATE:0:0:r200c/cc/:AsKd|/2c7hKs/9d",
         "turn-check": "MATCHSTATE:1:0:r200c/cc/c:|AsKd/2c7hKs/9d"}
#: The agent's sizes at each spot (``SolvingStage.abstraction_at``: one pot-sized bet or
#: raise and all-in, two raises in the root's round, one in later rounds; until 2026-11-28
#: one in the root's round, ``1;allin;cap=1``).
SPOT_SIZES = {"flop": "1;allin;cap=0,2,1,1", "turn": "1;allin;cap=0,0,2,1", "turn-check": "1;allin;cap=0,0,2,1"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spot", choices=sorted(SPOTS), default="flop", help="the subgame's root (default flop)")
    parser.add_argument("--budget", type=float, default=1.5, help="seconds of solving (default 1.5)")
    parser.add_argument("--k", type=int, default=4, help="continuations at the leaves, 1-4 (default 4)")
    parser.add_argument(
        "--runouts",
        type=int,
        default=128,
        help="fixed runouts of the exploitability measurement (default 128; fewer overstate it, the "
        "strategy being measured against those runouts' values, noise and all)",
    )
    parser.add_argument(
        "--sizes",
        default=None,
        help=f"the subgame's bet sizes (default the agent's: {SPOT_SIZES}; 'blueprint': the blueprint's own, which "
        "also measures the blueprint's rows in the same model)",
    )
    parser.add_argument(
        "--pool",
        type=int,
        default=0,
        help="runouts drawn once and cycled through, their trees and rows kept (default 0: a new runout every iteration)",
    )
    parser.add_argument("--threads", type=int, default=1, help="threads valuing the leaves (default 1; the agent uses 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="3 iterations and 2 measurement runouts")
    args = parser.parse_args(argv)
    if not 1 <= args.k <= 4 or args.runouts < 1 or args.budget <= 0 or args.pool < 0 or args.threads < 1:
        parser.error("--k is 1 to 4, --runouts at least 1, --budget positive, --pool 0 or more, --threads at least 1")
    game = load_game("holdem.nolimit.2p")
    blueprint = Blueprint.load()
    spot = SPOTS[args.spot]
    args.sizes = args.sizes or SPOT_SIZES[args.spot]
    root = parse_matchstate(spot, game).state
    started = time.perf_counter()
    sizes = blueprint.tree.abstraction if args.sizes == "blueprint" else parse_abstraction(args.sizes)
    cut = build_subgame(root, sizes, depth_limited=True)
    leaves = BlueprintLeafValues(cut, blueprint, me=root.current_player, continuations=CONTINUATIONS[: args.k],
                                 seed=args.seed, pool=args.pool)  # fmt: skip
    built = time.perf_counter() - started
    rows = int(cut.tabular.layout.size)
    print(f"{args.spot} subgame {spot.split(':')[3]} on {cards_str(root.board)}, sizes {args.sizes!r}: {cut.tree.n_nodes} nodes, "
          f"{len(cut.leaves)} leaves, {cut.n_hands} hands, {rows:,} strategy entries; built in {built:.3f} s")  # fmt: skip
    # Warm up: numba's kernels load (or compile) at their first call, which an agent does at
    # its start, not inside a solve's budget.
    warm = BlueprintLeafValues(cut, blueprint, me=root.current_player, continuations=CONTINUATIONS[: args.k],
                               seed=args.seed + 2)  # fmt: skip
    DepthLimitedSolver(cut, np.ones((2, cut.n_hands)), warm, chooser=1 - root.current_player, threads=args.threads).iterate(1)
    solver = DepthLimitedSolver(cut, np.ones((2, cut.n_hands)), leaves, chooser=1 - root.current_player, threads=args.threads)
    started = time.perf_counter()
    cpu = time.process_time()
    limit = 3 if args.quick else None
    while (limit is None and time.perf_counter() - started < args.budget) or (limit is not None and solver.iterations < limit):
        solver.iterate(1)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"solve: {solver.iterations} iterations in {wall:.2f} s wall ({cpu:.2f} s CPU), "
          f"{wall / solver.iterations:.3f} s each, k = {args.k}, leaves valued on {args.threads} thread(s), "
          + (f"a pool of {args.pool} runouts" if args.pool else "a new runout each iteration"))  # fmt: skip
    print(f"the solve's root, averaged over the player's hands (uniform range): {root_mix(cut, solver.average_strategy())}")
    solve_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the measurement's own runouts
    measure = 2 if args.quick else args.runouts
    rng = np.random.default_rng(args.seed + 1)
    leaves.use([tuple(int(c) for c in rng.choice(leaves.deck, leaves.rest_cards, replace=False)) for _ in range(measure)])
    started = time.perf_counter()
    exploitability = solver.exploitability()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"exploitability in the model on {measure} fixed runouts: {exploitability:.2f}% of the pot "
          f"(measured in {time.perf_counter() - started:.1f} s); target 1% within 1.5 s on 2 threads")  # fmt: skip
    if args.sizes == "blueprint":
        # The yardstick: the blueprint's own round, played by both players, in the same model.
        found = follow(blueprint.tree, root, TranslationMemory(), np.random.default_rng(0), root.current_player)
        rows = None if found is None else blueprint_strategy(blueprint, cut, found[0], (0, 1))
        if rows is None:
            print("the blueprint's rows: the subgame's tree differs from the blueprint's here")
        else:
            print(f"the blueprint's rows in the same model, same runouts: {solver.exploitability(rows):.2f}% of the pot; "
                  f"its root: {root_mix(cut, rows)}")  # fmt: skip
    print(f"peak memory {solve_peak:.0f} MB solving, {peak:.0f} MB with the measurement; load average {os.getloadavg()[0]:.2f}")
    return 0


def root_mix(cut, strategy: np.ndarray) -> str:
    """Each root action's probability averaged over the hands (the player's range is uniform)."""
    n_a = int(cut.tree.child_count[0])
    start = int(cut.tabular.layout.offset[0])
    mean = strategy[start : start + cut.n_hands * n_a].reshape(cut.n_hands, n_a).mean(axis=0)
    return ", ".join(f"{action} {p:.1%}" for action, p in zip(cut.tree.actions(0), mean))


if __name__ == "__main__":
    sys.exit(main())
