"""``dealer report`` speed and memory per estimator, on a 10,000-hand heads-up no-limit log.

    nice -n 10 .venv/bin/python tests/bench/bench_report.py [--hands 10000] [--seed 11] [--memory-hands 2000]

The log is made here, self-contained: two ``random`` players (the reference
example player's strategy) play ``holdem.nolimit.2p`` with the dealer's cards for
the seed, and its header names the reference dealer's game file
``holdem.nolimit.2p.reverse_blinds.game`` (which is not at hand: the report finds it
by name), like the reference dealer's logs the issue timed.  Each figure is a
fresh ``dealer report`` process (kernels loaded from numba's cache), timed around
:func:`dealer.evaluation.report.report_match` (wall clock, which the targets are about,
and the process's CPU time, which other jobs on a shared machine do not inflate), with
its peak resident memory:

* ``chance only``: no decision logs (a reference dealer's log): deal and board corrections;
* ``logged σ``: decision logs that name no policy (a bot of your own): also the
  correction at every decision, from the distributions the logs give;
* ``declared policies``: decision logs whose headers name the baseline (``dealer bot``
  writes them): also imaginary observations, in closed form.

Baseline, measured in the same run: counting every board completion one by one (the
kernel AIVAT used before board classes, kept in ``tests/dealer/evaluation/test_showdown.py``)
on the first hands' deal nodes, against the class count on the same nodes.
Targets (issue 16): chance only ≤ 2 ms per hand (10,000 hands ≤ 20 s), logged σ ≤ 5 ms per
hand; memory flat in the number of hands (compare with ``--memory-hands``).

Agent matches (issue 13), ``--agent FOLDER ...``: each folder holds match logs and a
``decisions`` folder with the agent's decision logs only (the opponent unknown to the
report).  Each is reported in-process with the full-range estimator (the default) and
with ``--no-full-range`` (only the hands held corrected), printing the agent's mean ±
95% CI (mbb/hand) for raw chips and AIVAT, the std-dev cut, and ms per hand (wall and
CPU; the first report of a process also loads the pre-flop margin table).  Target: cut
≥ 70% over 3,000 hands, ≤ 5 ms per hand.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import repo_root  # noqa: F401  (the repository on sys.path, for tests.*)

from dealer.bots import POLICIES
from protocol.cards import deck
from protocol.gamedef import load_game
from tests.dealer.evaluation.simulate import simulate_match

REFERENCE_NAME = "holdem.nolimit.2p.reverse_blinds.game"
TARGETS_MS = {"chance only": 2.0, "logged σ": 5.0}


def make_log(folder: Path, hands: int, seed: int, *, declared: bool) -> Path:
    """A match log of two random players, header naming the reference game file; decision logs in folder/decisions."""
    random = POLICIES["random"]
    policy = random if declared else (lambda state: random(state))  # a wrapped policy declares nothing
    sim = simulate_match(load_game("holdem.nolimit.2p"), [("Alice", policy), ("Bob", policy)], hands, seed, name="bench")
    path = sim.write(folder)
    (folder / "bench.game").unlink()
    text = path.read_text()
    path.write_text(text.replace(" bench.game ", f" {REFERENCE_NAME} ", 1))
    return path


def measure(log: Path, decisions: Path | None) -> dict[str, float]:
    """Run one report in a fresh process; returns wall and CPU seconds, hands and peak RSS (MiB)."""
    args = [sys.executable, __file__, "--child", str(log)] + ([str(decisions)] if decisions else [])
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def child(log: Path, decisions: Path | None) -> None:
    import io

    from dealer.evaluation.report import report_match

    started, cpu = time.perf_counter(), time.process_time()
    summary = report_match([log], decisions, out=io.StringIO()).as_dict()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu": cpu, "hands": summary["logs"][0]["hands"], "peak_mib": peak}))


def baseline_ratio(log_folder: Path, hands: int, seed: int) -> tuple[float, float]:
    """ms per deal node: brute-force enumeration vs board classes, on the first ``hands`` deals."""
    from dealer.dealing import Dealer
    from dealer.evaluation.showdown import outcome_counts

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for tests.*
    from tests.dealer.evaluation.test_showdown import enumerate_patterns

    game = load_game("holdem.nolimit.2p")
    dealer = Dealer(game, seed)
    full_deck = tuple(deck(game))
    # The public counter without its cache (every node here is a new deal anyway); it
    # also lists the unseen cards itself, a few microseconds next to the count.
    count = outcome_counts.__wrapped__

    def classes(holes: np.ndarray, board: np.ndarray, rest: np.ndarray, k: int) -> np.ndarray:
        return count(full_deck, tuple(map(tuple, holes.tolist())), tuple(board.tolist()), len(board) + k)

    nodes = []
    for _ in range(hands):
        holes, _ = dealer.deal()
        rest = np.array([c for c in deck(game) if c not in set().union(*holes)], np.int64)
        nodes.append((np.array(holes, np.int64), np.zeros(0, np.int64), rest, 5))
    timed = {}
    for name, kernel in (("enumerate", enumerate_patterns), ("classes", classes)):
        kernel(*nodes[0])  # compiled or loaded, and the enumeration's board list made
        started = time.perf_counter()
        for node in nodes:
            counts = kernel(*node)
        timed[name] = 1000 * (time.perf_counter() - started) / len(nodes)
        assert counts.sum() == 1_712_304
    return timed["enumerate"], timed["classes"]


def agent_matches(folders: list[Path]) -> None:
    """Full-range and held-hand AIVAT on agent matches: cut, mean ± CI, ms per hand."""
    import io

    from dealer.evaluation.margins import preflop_table
    from dealer.evaluation.report import report_match

    print(f"load average before: {os.getloadavg()}  (cores: {os.cpu_count()})")
    cpu = time.process_time()
    preflop_table()
    print(f"pre-flop margin table loaded in {time.process_time() - cpu:.2f} s CPU (once per process)")
    cpu = time.process_time()
    report_match(sorted(folders[0].glob("*.log")), folders[0] / "decisions", out=io.StringIO())
    print(f"untimed warm-up report of {folders[0].name}: {time.process_time() - cpu:.1f} s CPU")
    configs = (("full range", True, True), ("--no-guard", True, False), ("held hand only", False, True))
    for folder in folders:
        logs = sorted(folder.glob("*.log"))
        for label, full, guard in configs:
            started, cpu = time.perf_counter(), time.process_time()
            report = report_match(logs, folder / "decisions", out=io.StringIO(), full_range=full, guard=guard).as_dict()
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            hands = sum(m["hands"] for m in report["logs"])
            lineup = report["lineups"][0]
            seat = next(s for s in lineup["seats"] if lineup["results"][s]["decisions_corrected"])
            r = lineup["results"][seat]
            cells = ", ".join(
                f"{name} {r[name]['mbb_per_hand']:.0f} [{r[name]['mbb_ci_low']:.0f}, {r[name]['mbb_ci_high']:.0f}]"
                f" p(win) {r[name]['p_value']:.3f}"
                for name in ("raw", "aivat")
            )
            print(
                f"{folder.name:<8} {label:<15} {hands:>6,} hands  {seat}: {cells}; std cut "
                f"{100 * r['std_reduction']['aivat']:.1f}% (raw chips on {r['aivat_raw_hands']:,} hands)  "
                f"{1000 * seconds / hands:.2f} ms/hand wall, "
                f"{1000 * cpu / hands:.2f} CPU  (strategy used: {r['strategy_used']})"
            )
    print(f"load average after: {os.getloadavg()}  (the machine is shared: other jobs slow every figure)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--memory-hands", type=int, default=2_000, help="a shorter log, to show memory does not grow with hands")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--baseline-hands", type=int, default=20, help="deal nodes timed for the brute-force baseline")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--agent", nargs="+", type=Path, metavar="FOLDER", help="agent match folders (see above)")
    args = parser.parse_args()
    if args.agent:
        agent_matches(args.agent)
        return
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]) if len(args.child) > 1 else None)
        return
    print(f"load average before: {os.getloadavg()}  (cores: {os.cpu_count()})")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        logged = make_log(root / "logged", args.hands, args.seed, declared=False)
        declared = make_log(root / "declared", args.hands, args.seed, declared=True)
        short = make_log(root / "short", args.memory_hands, args.seed, declared=False)
        print(f"made the logs ({args.hands:,} and {args.memory_hands:,} hands) in {time.perf_counter() - started:.1f} s")
        cases = [
            ("chance only", logged, None),
            ("logged σ", logged, logged.parent / "decisions"),
            ("declared policies", declared, declared.parent / "decisions"),
            (f"chance only, {args.memory_hands:,} hands", short, None),
            (f"logged σ, {args.memory_hands:,} hands", short, short.parent / "decisions"),
        ]
        # A first report compiles whatever kernels changed since numba cached them: not timed.
        warm = make_log(root / "warm", 50, args.seed, declared=True)
        measure(warm, warm.parent / "decisions")
        for label, log, decisions in cases:
            r = measure(log, decisions)
            ms, cpu_ms = 1000 * r["seconds"] / r["hands"], 1000 * r["cpu"] / r["hands"]
            target = TARGETS_MS.get(label)
            verdict = "" if target is None else f"  target ≤ {target:g} ms: {'met' if ms <= target else 'MISSED'} (wall)"
            print(
                f"{label:<28} {r['hands']:>7,} hands  {r['seconds']:7.1f} s  {ms:6.2f} ms/hand wall, {cpu_ms:6.2f} CPU  "
                f"peak {r['peak_mib']:6.0f} MiB{verdict}"
            )
        enumerate_ms, classes_ms = baseline_ratio(root, args.baseline_hands, args.seed)
        print(
            f"deal node (1,712,304 boards), first {args.baseline_hands} hands: enumerate every board {enumerate_ms:.2f} ms, "
            f"board classes {classes_ms:.3f} ms: {enumerate_ms / classes_ms:.0f}x faster"
        )
    print(f"load average after: {os.getloadavg()}  (the machine is shared: other jobs slow every figure)")


if __name__ == "__main__":
    main()
