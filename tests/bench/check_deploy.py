"""Validate an ACPC entry the way the competition did: ``deploy/startme.sh`` plays
3,000 hands against a random player on ``dealer serve`` with the competition time
limits (7 s per hand on average, 10 minutes per action); any WARNING or ERROR line
from the dealer, the agent or the opponent fails the check, and so does an agent
that does not exit within 10 s of the match.

    .venv/bin/python tests/bench/check_deploy.py                       # 3,000 hands
    .venv/bin/python tests/bench/check_deploy.py --hands 100 --opponent call
    .venv/bin/python tests/bench/check_deploy.py --agent-args "--solve-from flop"   # flop and turn search
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.agent_match import ROOT, describe, play


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--opponent", default="random", help="baseline bot kind (default random, as the competition)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--startme", type=Path, default=ROOT / "deploy" / "startme.sh")
    parser.add_argument("--agent-args", default="", help="extra agent connect options, e.g. '--solve-from flop'")
    parser.add_argument("--out", type=Path, default=None, help="folder for the logs (default: a temporary folder)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="check_deploy."))
    extra = f" {args.agent_args}" if args.agent_args else ""
    print(f"check_deploy: {args.startme}{extra} vs {args.opponent}, {args.hands} hands, logs in {out}; "
          f"load {os.getloadavg()}")  # fmt: skip
    run = play(
        [str(args.startme)], opponent=args.opponent, hands=args.hands, seed=args.seed, out=out,
        env={"ACPC_AGENT_ARGS": f"--decision-log {out / 'agent.dlog'} --match match{extra}"},
    )  # fmt: skip
    print(describe(run))
    print(f"load after: {os.getloadavg()}")
    ok = not run.problems and run.agent_exit == 0 and run.exit_seconds is not None and run.exit_seconds <= 10
    print("check_deploy: PASSED" if ok else "check_deploy: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
