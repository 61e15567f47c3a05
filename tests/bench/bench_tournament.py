"""Tournament throughput: hands/s of a baseline round robin on 1 and 2 workers, locally and on Ray.

    .venv/bin/python tests/bench/bench_tournament.py [--hands 200] [--duplicate] [--no-ray]

The five baseline bots (random, call, raise, allin, fold) play a heads-up no-limit
round robin (10 pairs, 10 matches of --hands hands; 20 with --duplicate) with
the local pool at 1 and 2 workers and, if Ray is installed, on a one-node Ray cluster
on 127.0.0.1 with 1 and 2 CPUs.  Only the matches are timed (not the rankings).  Each
match's transaction log time-stamps its first and last action: the time between is
play, the rest of the match's wall time (starting the runner, dealer and bots,
connecting, closing) is its fixed cost.  From those, an on-paper estimate of the ACPC-size
example: 8 bots, 2 duplicate orders x 10 seeds x 3,000 hands (1.68 M hands, 560
matches) on a 10-node cluster.

The machine is shared: the load average is printed before and after, and the figures
say what this run saw, not what an idle machine gives.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from dealer.backends import LocalPool, RayBackend, run_matches
from dealer.tournament import plan_matches
from tests.dealer.ray_head import LOOPBACK_ENV, local_ray_head

BOTS = ("random", "call", "raise", "allin", "fold")


def settings(hands: int, duplicate: bool, bots: tuple[str, ...] = BOTS) -> dict:
    return {
        "game": "holdem.nolimit.2p", "hands": hands, "seeds": 1, "seed": 1, "duplicate": duplicate,
        "bots": [{"name": b, "seat": b} for b in bots], "t_response": 60000, "t_per_hand": 7000, "start_timeout": 600000,
    }  # fmt: skip


def play_seconds(tlog: Path) -> float:
    """Seconds from the first action's send time to the last action's receipt."""
    lines = tlog.read_text().splitlines()
    return float(lines[-1].split()[3]) - float(lines[0].split()[2])


def timed_round_robin(hands: int, duplicate: bool, backend) -> tuple[float, int, int, float, float]:
    """Wall seconds, hands played, matches, mean seconds of play and mean fixed seconds per match."""
    tasks = plan_matches(settings(hands, duplicate), 2, "holdem.nolimit.2p")
    with tempfile.TemporaryDirectory(prefix="bench-tourn-") as out:
        started = time.monotonic()
        outcomes = run_matches(tasks, Path(out), backend, progress=False)
        elapsed = time.monotonic() - started
        play = [play_seconds(t.folder(Path(out)) / f"{t.match}.tlog") for t in tasks]
    failed = [o["match"] for o in outcomes.values() if o["status"] != "ok"]
    if failed:
        raise SystemExit(f"bench: matches failed: {failed}")
    fixed = [outcomes[t.match]["seconds"] - p for t, p in zip(tasks, play)]
    return elapsed, sum(o["hands"] for o in outcomes.values()), len(tasks), sum(play) / len(play), sum(fixed) / len(fixed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per match of the timed round robins (default 200)")
    parser.add_argument("--duplicate", action="store_true", help="play both seat orders (twice the matches)")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray runs")
    args = parser.parse_args()
    os.environ.update(LOOPBACK_ENV)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    rows = []
    for workers in (1, 2):
        row = timed_round_robin(args.hands, args.duplicate, LocalPool(workers))
        print(f"local pool, {workers} worker(s): {row[0]:.1f} s", flush=True)
        rows.append((f"local pool, {workers} worker{'s' * (workers > 1)}", workers, *row))
    if not args.no_ray:
        for cpus in (1, 2):
            with local_ray_head(cpus) as address:
                backend = RayBackend(address)
                row = timed_round_robin(args.hands, args.duplicate, backend)
            print(f"Ray, {cpus} CPU(s): {row[0]:.1f} s", flush=True)
            rows.append((f"Ray, 1 node, {cpus} CPU{'s' * (cpus > 1)}", cpus, *row))
    print(f"\nround robin of {len(BOTS)} baseline bots: {rows[0][4]} matches x {args.hands} hands")
    print(f"  {'backend':<24} {'wall s':>8} {'hands/s':>9} {'s/match':>8} {'play s':>7} {'fixed s':>8} {'vs 1 local':>10}")
    base = rows[0][3] / rows[0][2]
    for name, _, elapsed, hands, matches, play, fixed in rows:
        rate = hands / elapsed
        per_match = elapsed / matches
        print(f"  {name:<24} {elapsed:>8.1f} {rate:>9,.0f} {per_match:>8.2f} {play:>7.2f} {fixed:>8.2f} {rate / base:>9.2f}x")
    print("  (play: first to last action of a match, from its transaction log; fixed: the rest of its wall time)")
    local2 = next(r for r in rows if r[0].startswith("local") and r[1] == 2)
    ray2 = next((r for r in rows if r[0].startswith("Ray") and r[1] == 2), None)
    print(f"\n2 local workers / 1: {(local2[3] / local2[2]) / base:.2f}x (target >= 1.5x)")
    if ray2:
        print(f"Ray 2 CPUs / local 2 workers: {(ray2[3] / ray2[2]) / (local2[3] / local2[2]):.2f}x (target >= 0.85x)")

    # On paper: 8 bots, 28 pairs x 2 orders x 10 seeds = 560 matches of 3,000 hands, in
    # waves of (nodes x slots) matches; a match's wall time with w slots busy on a node is
    # the measured one-worker cost stretched by what w workers measured here.
    one = rows[0]
    overhead, per_hand = one[6], one[5] / args.hands
    match_cost = overhead + 3000 * per_hand
    matches, nodes = 28 * 2 * 10, 10
    print(f"\ncost of one match on one worker: {overhead:.2f} s + {per_hand * 1000:.2f} ms/hand; 3,000 hands: {match_cost:.1f} s")
    for _, slots, elapsed, _, count, _, _ in (r for r in rows if r[0].startswith("local")):
        stretch = (elapsed * slots / count) / (one[2] / one[4])
        waves = math.ceil(matches / (nodes * slots))
        print(
            f"1.68 M-hand example on {nodes} nodes like this one, {slots} match{'es' * (slots > 1)} per node at once: "
            f"{waves} waves x {match_cost * stretch:.1f} s = {waves * match_cost * stretch / 60:.1f} min"
        )
    print(f"  (one worker on one machine: {matches * match_cost / 3600:.1f} h)")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
