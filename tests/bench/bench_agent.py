"""Decision time and memory of the agent over a match with the competition limits.

    nice -n 10 .venv/bin/python tests/bench/bench_agent.py --hands 3000
    .venv/bin/python tests/bench/bench_agent.py --hands 200 --opponent random

Plays ``agent connect`` against a baseline on ``dealer serve`` (7 s per hand on
average, 10 minutes per action) and prints decision time per action and per hand
(mean, p99, max: the agent's own clock, from a state's arrival to its reply, as its
decision log records it), the agent's peak resident memory, and how the decisions
were made (blueprint, unsafe / nested solves, fallbacks).  The same match in
``--blueprint-only`` mode is the baseline the solving time is compared with.
Targets: <= 2 s per hand on average, p99 <= 10 s, <= 4 GiB, no late or illegal action.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.agent_match import describe, play


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--skip-baseline", action="store_true", help="do not also run the blueprint-only match")
    args = parser.parse_args()
    print(f"bench_agent: agent vs {args.opponent}, {args.hands} hands; load {os.getloadavg()} (machine shared)", flush=True)
    modes = [("full agent", [])] + ([] if args.skip_baseline else [("blueprint only", ["--blueprint-only"])])
    runs = {}
    for label, extra in modes:
        out = Path(tempfile.mkdtemp(prefix="bench_agent."))
        cmd = [sys.executable, "-m", "agent.cli", "connect", "--decision-log", str(out / "agent.dlog"), "--match", "match",
               "--seed", str(args.seed), "-v", *extra]  # fmt: skip
        runs[label] = run = play(cmd, opponent=args.opponent, hands=args.hands, seed=args.seed, out=out)
        print(f"--- {label} (logs in {out})\n{describe(run)}", flush=True)
    if len(runs) == 2:
        full, base = runs["full agent"], runs["blueprint only"]
        if full.hand_seconds.size and base.hand_seconds.size and base.hand_seconds.mean() > 0:
            ratio = full.hand_seconds.mean() / base.hand_seconds.mean()
            print(f"mean time per hand, full agent / blueprint only: {ratio:.1f}x")
    print(f"load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
