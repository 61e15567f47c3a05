"""Where the turn + river subgame solve spends its time (issue 11, item 8).

    nice -n 10 .venv/bin/python docs/investigations/profile_subgame.py [--reps 8]

The subgame is case 2 of ``tests/bench/bench_subgame.py`` (board Qs Jh 2h 8d, bets 50/100% +
all-in, raise 100% + all-in, 1,128 hands in both ranges).  Numba kernels cannot be
profiled by Python's profilers, so the script measures, on one thread:

1. one traversal of each mode (DCFR update, best response, evaluation): the least CPU
   time over ``--reps`` runs per player (the least is the one the other jobs on a shared
   machine disturbed least);
2. what one traversal does, counted on the tree: decision visits (node, board),
   (hand, action) entries, showdown calls (one per decision with a showdown child:
   two sweeps over the hands in rank order) and compatible-weight calls (one per
   decision with a terminal child);
3. each of those kernels alone, called in a compiled loop on this subgame's arrays;

and prints the estimated split of an update traversal: terminals (calls times cost),
regret matching (entries times cost), and the rest of the decision-node passes
(child reaches, values, regret and average updates, recursion, allocation).

4. two threads, measured so that other jobs on the machine do not decide the figure:
   each (frontier node, river card) task of a split update traversal timed alone (least
   CPU time), the serial parts (the walks above the frontier), and from those the
   busiest thread's work under the static split and under the atomic counter (greedy,
   largest subtrees first), hence the two-thread speedup an idle second core would
   give; beside it the CPU one traversal costs on 2 threads against 1 (the split's
   overhead).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

# The subgame is the benchmark's own: import it from tests/bench rather than copy it.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "bench"))
from bench_subgame import COARSE, GAME, checked_to

from protocol.cards import parse_cards
from solver.range_terminals import compatible_weight, ranked_weights
from solver.ranges import BEST_RESPONSE, EVALUATE, READ, RECORD, UPDATE, regret_match, walk
from solver.subgame.range_solver import Subgame, SubgameSolver, build_subgame
from solver.subgame.split import frontier_task, frontier_tasks
from solver.tree import CHANCE, DECISION, FOLD_END, SHOWDOWN


@njit
def _loop_ranked(reps, x, order, pairs, ends, slots, mask, out_w, out_s):
    """``reps`` showdown calls (the arguments of ``ranked_weights``), compiled."""
    for _ in range(reps):
        ranked_weights(x, x, order, pairs, ends, slots, mask, out_w, out_s)


@njit
def _loop_compatible(reps, x, pairs, slots, mask, out):
    """``reps`` compatible-weight calls, compiled."""
    for _ in range(reps):
        compatible_weight(x, pairs, slots, mask, out)


@njit
def _loop_regret_match(reps, regret, out):
    """``reps`` regret-matching calls on ``out``'s (hands, actions) rows, compiled."""
    for _ in range(reps):
        regret_match(regret, 0, out.shape[0], out.shape[1], out)


def least_cpu(run: Callable[[], object], reps: int) -> float:
    """The least CPU seconds of ``reps`` calls of ``run()``."""
    best = float("inf")
    for _ in range(reps):
        cpu = time.process_time()
        run()
        best = min(best, time.process_time() - cpu)
    return best


def counts(sg: Subgame) -> dict[str, int]:
    """Decision visits, entries, showdown and compatible-weight calls of one traversal."""
    tree, n_boards = sg.tree, sg.space.n_boards
    out = {"visits": 0, "entries": 0, "showdown calls": 0, "compatible calls": 0}
    stack = [(0, 1)]
    while stack:
        node, times = stack.pop()
        first, n_a = int(tree.child_start[node]), int(tree.child_count[node])
        children = [int(c) for c in tree.children[first : first + n_a]]
        if tree.kind[node] == CHANCE:
            deals = n_boards[tree.round[node]] // n_boards[tree.deal_from[node]]
            stack.append((children[0], times * deals))
            continue
        if tree.kind[node] != DECISION:
            continue
        out["visits"] += times
        out["entries"] += times * n_a * sg.n_hands
        kinds = {int(tree.kind[c]) for c in children}
        out["compatible calls"] += times * bool(kinds & {FOLD_END, SHOWDOWN})
        out["showdown calls"] += times * (SHOWDOWN in kinds)
        stack.extend((c, times) for c in children)
    return out


def two_threads(sg: Subgame, solver: SubgameSolver, reps: int) -> None:
    """Case 4 of the docstring: the second core's gain from task costs and serial parts."""
    tree, cards, n_h = sg.arrays, sg.cards, sg.n_hands
    n_front = len(tree.frontier_nodes)
    # The update tasks write here, not into the solver.
    regret, avg, kept = solver.regret.copy(), solver.avg.copy(), solver.kept.copy()
    reach = solver.ranges
    buf_reach, buf_value = np.zeros((n_front, 2, n_h)), np.zeros((n_front, n_h))
    root = np.int64(0)

    def top(stage: int) -> None:
        walk(root, root, np.int64(0), reach[0], reach[1], np.int64(UPDATE), tree, cards, regret, avg, avg, kept,
             1.0, 1.0, 1.0, np.int64(stage), buf_reach, buf_value)

    top(RECORD)
    serial = least_cpu(lambda: top(RECORD), reps) + least_cpu(lambda: top(READ), reps)
    first, order = frontier_tasks(tree, cards)
    out = np.zeros((len(order), n_h))

    def task(i: int) -> None:
        frontier_task(np.int64(i), first, np.int64(0), np.int64(UPDATE), tree, cards, regret, avg, avg, kept,
                      1.0, 1.0, 1.0, buf_reach, out)

    cost = np.array([least_cpu(lambda i=i: task(i), max(2, reps // 2)) for i in range(len(order))])
    total = cost.sum()
    static = [cost[j::2].sum() for j in range(2)]
    greedy = [0.0, 0.0]
    for i in order:
        greedy[int(np.argmin(greedy))] += cost[i]
    print(
        f"two threads: {len(order)} tasks, {total * 1e3:.1f} ms of task work (largest {cost.max() * 1e3:.2f} ms), "
        f"serial {serial * 1e3:.1f} ms; busiest thread static {max(static) * 1e3:.1f} ms, atomic counter "
        f"{max(greedy) * 1e3:.1f} ms: an idle second core gives {(serial + total) / (serial + max(static)):.3f}x "
        f"(static) / {(serial + total) / (serial + max(greedy)):.3f}x (atomic counter)"
    )
    cpu = {}
    for threads in (1, 2):
        other = SubgameSolver(sg, solver.ranges, threads=threads)
        other.regret[:], other.avg[:] = solver.regret, solver.avg
        cpu[threads] = least_cpu(lambda o=other: o._values(0, EVALUATE, o.ranges, o.avg), reps)
    print(f"evaluation traversal CPU: {cpu[1] * 1e3:.1f} ms on 1 thread, {cpu[2] * 1e3:.1f} ms on 2 "
          f"(the split's overhead {cpu[2] / cpu[1] - 1:+.1%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=8, help="runs per measurement; the least CPU time is kept (default 8)")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    sg = build_subgame(checked_to(GAME, 2, parse_cards("QsJh2h8d")), COARSE)
    solver = SubgameSolver(sg, np.ones((2, sg.n_hands)), threads=1)
    solver.iterate(3)  # compile, and regrets that are not all zero
    c = counts(sg)
    print("one traversal: " + ", ".join(f"{v:,} {k}" for k, v in c.items()))
    per_mode = {}
    for mode, name in ((UPDATE, "update"), (BEST_RESPONSE, "best response"), (EVALUATE, "evaluation")):
        per_mode[name] = min(
            least_cpu(lambda p=p, mode=mode: solver._values(p, mode, solver.ranges, solver.avg), args.reps) for p in range(2)
        )
        per_entry = per_mode[name] / c["entries"] * 1e9
        print(f"{name} traversal, 1 thread: {per_mode[name] * 1e3:.1f} ms CPU ({per_entry:.1f} ns per entry)")

    cards, n_h, reps = sg.cards, sg.n_hands, 500
    board = 5
    mask = cards.compat[cards.compat_start[3] + board * n_h :][:n_h]
    x = np.random.default_rng(0).random(n_h) * mask
    out_w, out_s = np.empty(n_h), np.empty(n_h)
    sweep_args = (
        x, cards.final_order[board], cards.sorted_cards[board], cards.group_end[board], cards.card_slots, mask, out_w, out_s,
    )
    regret = np.random.default_rng(1).standard_normal(3 * n_h).astype(np.float32)
    sigma = np.empty((n_h, 3))
    kernels = {
        "showdown (two sweeps)": lambda: _loop_ranked(reps, *sweep_args),
        "compatible weight": lambda: _loop_compatible(reps, x, cards.hand_cards, cards.card_slots, mask, out_w),
        "regret matching, 3 actions": lambda: _loop_regret_match(reps, regret, sigma),
    }
    cost = {}
    for name, run in kernels.items():
        run()
        cost[name] = least_cpu(run, args.reps) / reps
        print(f"{name} on {n_h:,} hands: {cost[name] * 1e6:.2f} us CPU per call")
    showdowns = c["showdown calls"] * cost["showdown (two sweeps)"]
    folds = c["compatible calls"] * cost["compatible weight"]
    matching = c["entries"] / (3 * n_h) * cost["regret matching, 3 actions"]
    update = per_mode["update"]
    rest = update - showdowns - folds - matching
    print(
        f"update traversal {update * 1e3:.1f} ms: showdowns {showdowns * 1e3:.1f} ms ({showdowns / update:.0%}), "
        f"compatible weights {folds * 1e3:.1f} ms ({folds / update:.0%}), regret matching {matching * 1e3:.1f} ms "
        f"({matching / update:.0%}), the rest of the decision passes {rest * 1e3:.1f} ms ({rest / update:.0%})"
    )
    checks = 2 * per_mode["best response"] / (20 * update + 2 * per_mode["best response"])
    print(f"exploitability checks every 10 iterations (two best responses): {checks:.0%} of a solve")
    two_threads(sg, solver, args.reps)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
