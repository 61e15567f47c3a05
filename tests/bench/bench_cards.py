"""Card code speed against eval7 and phevaluator, in one run.

    nice -n 10 .venv/bin/python tests/bench/bench_cards.py [--hands 10000000] [--abstraction small|full] [--no-baselines]

eval7 and phevaluator are installed into their own virtual environment
(``$CARDS_BENCH_VENV``, default ``/tmp/acpc-cards-bench-venv``; created with pip on
first use, never a dependency of this project) and timed in a subprocess on the same
random hands, which it reads from a ``.npy`` file.

Measured (best of several runs, kernels compiled before timing; one thread unless said):

* random 7-card evaluations per second: our public batch API (``rank_batch``, every
  card checked in the same pass) on all numba threads (its default for large batches)
  also into a reused ``out`` array, and on one thread; its kernel called directly (no
  wrapper); eval7's own Monte Carlo loop (two
  evaluations per trial, as eval7 counts them), ``eval7.evaluate`` and
  ``phevaluator.evaluate_cards`` called from Python;
* ranking every hole pair for one river board (the ``range_ranks`` kernel behind
  ``rank_range``: 1,326 pairs, 1,081 live), and the exact equity sweep of all
  pairs for one board;
* canonical index of a river hand (``HandIndexer((2, 5))``);
* with ``--abstraction``: wall time and peak memory (GNU ``/usr/bin/time``) of
  ``precompute abstraction``.

Targets (issue 4): >= 50 M evaluations/s; <= 50 us to rank a range for one board;
full abstraction under an hour and 8 GiB on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import get_num_threads, njit, set_num_threads

from precompute.equity import cluster_equities
from precompute.isomorphism import HandIndexer, index_many
from protocol.fasteval import NUM_HOLE_PAIRS, eval_tables, range_ranks, rank_batch, rank_rows
from protocol.handrank import rank_cards

VENV = Path(os.environ.get("CARDS_BENCH_VENV", "/tmp/acpc-cards-bench-venv"))

BASELINE_SCRIPT = r"""
import json, sys, time
import numpy as np
import eval7, phevaluator
from importlib.metadata import version

hands = np.load(sys.argv[1])
python_hands = int(sys.argv[2])
names = [r + s for r in "23456789TJQKA" for s in "cdhs"]
out = {"eval7": version("eval7"), "phevaluator": version("phevaluator")}

def best(f, repeats=3):
    times = []
    for _ in range(repeats):
        t = time.perf_counter(); f(); times.append(time.perf_counter() - t)
    return min(times)

small = hands[:python_hands].tolist()
e7 = [[eval7.Card(names[c]) for c in h] for h in small]
out["eval7_evaluate"] = python_hands / best(lambda: [eval7.evaluate(h) for h in e7])
out["phevaluator_evaluate_cards"] = python_hands / best(lambda: [phevaluator.evaluate_cards(*h) for h in small])

# eval7's Cython Monte Carlo: each trial deals a board and evaluates two 7-card hands.
hero = [eval7.Card("As"), eval7.Card("Kd")]
villain = eval7.HandRange("QQ,JTs,87o").hands
trials = 2_000_000
out["eval7_monte_carlo"] = 2 * trials / best(lambda: eval7.py_hand_vs_range_monte_carlo(hero, villain, [], trials))

# Same hands, same order: agreement with our ranks (phevaluator: smaller is better).
out["phevaluator_ranks"] = [phevaluator.evaluate_cards(*h) for h in small[:20000]]
print(json.dumps(out))
"""


@njit(cache=True)
def _general_batch(hands: np.ndarray, out: np.ndarray) -> None:
    """The general kernel over rows of ``hands`` (uint8 (N, 7)); ``out`` int32 (N,) written."""
    row = np.empty(7, np.int64)
    for h in range(hands.shape[0]):
        for i in range(7):
            row[i] = hands[h, i]
        out[h] = rank_cards(row, 7)


def best_time(f: Callable[[], object], repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def best_rates(f: Callable[[], object], n: int, repeats: int = 5) -> tuple[float, float]:
    """Best ``n`` per wall second and per CPU second (all threads' CPU time) of ``f``.

    On a shared machine the CPU-time rate shows the code's own speed, the wall rate
    what a user waits.
    """
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        f()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return n / min(walls), n / min(cpus)


def baseline_python() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV} with eval7 and phevaluator ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "numpy", "eval7", "phevaluator"], check=True)
    return python


def measure_ours(hands: np.ndarray) -> dict[str, float]:
    t = eval_tables()
    out = np.empty(len(hands), np.int32)
    rank_batch(hands)  # loads both kernels and wakes the threads before timing
    threads = get_num_threads()
    figures = {"threads": threads}
    figures["rank_batch"], figures["rank_batch_cpu"] = best_rates(lambda: rank_batch(hands, t), len(hands))
    figures["reused_out"], figures["reused_out_cpu"] = best_rates(lambda: rank_batch(hands, t, out), len(hands))
    set_num_threads(1)
    figures["rank_batch_1"], figures["rank_batch_1_cpu"] = best_rates(lambda: rank_batch(hands, t), len(hands))
    set_num_threads(threads)
    figures["kernel"], figures["kernel_cpu"] = best_rates(lambda: rank_rows(t, hands, out), len(hands))
    general = hands[:2_000_000]
    _general_batch(general[:10], out[:10])
    figures["general"] = len(general) / best_time(lambda: _general_batch(general, out[: len(general)]), 3)
    rng = np.random.default_rng(1)
    boards = np.argsort(rng.random((2000, 52)), axis=1)[:, :5].astype(np.int64)
    ranks = np.empty(NUM_HOLE_PAIRS, np.int32)
    keys = np.empty(NUM_HOLE_PAIRS, np.int64)
    eq = np.empty((NUM_HOLE_PAIRS, 1))
    zero = np.zeros(NUM_HOLE_PAIRS, np.int64)
    range_ranks(t, boards[0], 5, ranks)
    cluster_equities(t, boards[0], zero, 1, ranks, keys, eq)

    def all_ranges() -> None:
        for b in boards:
            range_ranks(t, b, 5, ranks)

    def all_equities() -> None:
        for b in boards:
            cluster_equities(t, b, zero, 1, ranks, keys, eq)

    figures["range_us"] = best_time(all_ranges) / len(boards) * 1e6
    figures["equity_us"] = best_time(all_equities) / len(boards) * 1e6
    river = HandIndexer((2, 5))
    sample = hands[:2_000_000].astype(np.int64)
    idx = np.empty(len(sample), np.int64)
    index_many(river.tables, sample[:10], idx[:10])
    figures["index_ns"] = best_time(lambda: index_many(river.tables, sample, idx), 3) / len(sample) * 1e9
    return figures


def measure_abstraction(preset: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (GiB) of ``precompute abstraction --preset`` in a child process.

    The peak comes from GNU ``/usr/bin/time``: a child forked from this (large) process
    would report this process's size as its own peak, since Linux carries it over fork
    and exec.
    """
    with tempfile.TemporaryDirectory() as out:
        report = Path(out) / "time.txt"
        command = ["/usr/bin/time", "-f", "%M", "-o", str(report), sys.executable, "-m", "precompute.cli",
                   "abstraction", "--game", "holdem.nolimit.2p", "--preset", preset, "--out", out]  # fmt: skip
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)  # its log; bars stay on stderr
        wall = time.perf_counter() - start
        peak_kib = int(report.read_text().split()[-1])
    return wall, peak_kib / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000_000, help="random 7-card hands (default 10M)")
    parser.add_argument("--python-hands", type=int, default=200_000, help="hands for the per-call Python APIs")
    parser.add_argument("--abstraction", choices=("small", "full"), help="also time a full abstraction build")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-baselines", action="store_true", help="skip eval7 and phevaluator (no venv, no pip)")
    args = parser.parse_args()

    print(f"load average before: {os.getloadavg()}  (the machine may be shared: other jobs slow every figure)")
    rng = np.random.default_rng(args.seed)
    hands = np.empty((args.hands, 7), np.uint8)
    for start in range(0, args.hands, 1_000_000):
        stop = min(start + 1_000_000, args.hands)
        hands[start:stop] = np.argsort(rng.random((stop - start, 52)), axis=1)[:, :7]

    ours = measure_ours(hands)
    rows = [
        (f"ours: rank_batch (public API, {ours['threads']} threads)", ours["rank_batch"]),
        (f"ours: rank_batch(out=reused array), {ours['threads']} threads", ours["reused_out"]),
        ("ours: rank_batch (public API, 1 thread)", ours["rank_batch_1"]),
        ("ours: its kernel rank_rows (1 thread)", ours["kernel"]),
        ("ours: general kernel rank_cards in a numba loop", ours["general"]),
    ]
    print("per CPU second (all threads' CPU time; what the code does with the CPU it gets): "
          f"rank_batch {ours['threads']} threads {ours['rank_batch_cpu'] / 1e6:.2f} M, with out= "
          f"{ours['reused_out_cpu'] / 1e6:.2f} M, 1 thread "
          f"{ours['rank_batch_1_cpu'] / 1e6:.2f} M, kernel {ours['kernel_cpu'] / 1e6:.2f} M")  # fmt: skip
    if args.no_baselines:
        print(f"random 7-card hands, per wall second ({args.hands:,} hands; baselines skipped)")
        for label, rate in rows:
            print(f"  {label:<50} {rate / 1e6:9.2f} M/s")
    else:
        with tempfile.NamedTemporaryFile(suffix=".npy") as f:
            np.save(f.name, hands[: max(args.python_hands, 20_000)])
            done = subprocess.run(
                [str(baseline_python()), "-c", BASELINE_SCRIPT, f.name, str(args.python_hands)],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
        base = json.loads(done.stdout)

        # Our ranks and phevaluator's must order the same hands the same way.
        ph = np.array(base["phevaluator_ranks"])
        mine = rank_batch(hands[: len(ph)])
        a, b = rng.integers(0, len(ph), (2, 200_000))
        agree = np.array_equal(np.sign(mine[a] - mine[b].astype(np.int64)), np.sign(ph[b] - ph[a]))

        reference = base["eval7_monte_carlo"]
        print(f"random 7-card hands, per wall second ({args.hands:,} hands; eval7 {base['eval7']}, "
              f"phevaluator {base['phevaluator']})")  # fmt: skip
        rows += [
            ("eval7: Monte Carlo loop (Cython, 2 evals/trial)", base["eval7_monte_carlo"]),
            ("eval7: evaluate() from Python", base["eval7_evaluate"]),
            ("phevaluator: evaluate_cards() from Python", base["phevaluator_evaluate_cards"]),
        ]
        for label, rate in rows:
            print(f"  {label:<50} {rate / 1e6:9.2f} M/s   x{rate / reference:7.2f} eval7 MC   "
                  f"x{rate / base['phevaluator_evaluate_cards']:8.2f} phevaluator")  # fmt: skip
        print(f"  orderings agree with phevaluator on 200,000 random pairs: {agree}")
    met = "met" if ours["rank_batch"] >= 100e6 else "MISSED"
    print(f"  public API rank_batch >= 100 M evals/s (issue 16): {met} ({ours['rank_batch'] / 1e6:.1f} M/s, "
          f"{ours['threads']} threads; x{ours['rank_batch'] / ours['kernel']:.2f} the 1-thread kernel)")  # fmt: skip
    print(f"rank a range (1,326 pairs) for one river board: {ours['range_us']:.2f} us  (target <= 50)")
    print(f"exact equity of every pair for one river board:  {ours['equity_us']:.2f} us")
    print(f"canonical river index (2, 5), per hand:          {ours['index_ns']:.0f} ns")
    if args.abstraction:
        wall, peak = measure_abstraction(args.abstraction)
        print(f"abstraction --preset {args.abstraction}: {wall / 60:.1f} min wall, peak RSS {peak:.2f} GiB")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
