"""How strong is the agent?  Duplicate matches against every baseline bot, and the full
agent against its own blueprint-only mode, each judged by AIVAT with a one-tailed t test.

    nice -n 10 .venv/bin/python tests/bench/strength_agent.py --hands 3000
    .venv/bin/python tests/bench/strength_agent.py --hands 200 --opponents call,raise --no-self

Each line: the agent's result in mbb/hand with the raw, duplicate, AIVAT and
AIVAT+duplicate estimators (95% confidence interval and one-tailed p that the agent
wins).  Target: every baseline beaten with p < 0.01 over 3,000 duplicate hands.
Matches run through ``dealer run`` (real processes over loopback).  The self match is
then evaluated again with ``dealer report --value blueprint`` (AIVAT whose ṽ lets both
seats play the blueprint to the end of each betting round: a much smaller spread between
two agents; ``--no-blueprint-value`` skips it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASELINES = ("random", "call", "raise", "allin", "fold")
ESTIMATORS = ("raw", "duplicate", "aivat", "aivat+duplicate")


def run(seats: list[str], names: str, hands: int, seed: int, out: Path, t_per_hand: int) -> dict:
    """One duplicate ``dealer run`` (each side plays ``hands`` hands); its report.json."""
    cmd = [sys.executable, "-m", "dealer.cli", "run", *seats, "--hands", str(hands), "--duplicate", "--seed", str(seed),
           "--out", str(out), "--names", names, "--quiet", "--t_per_hand", str(t_per_hand)]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"strength_agent: {' '.join(seats)} failed:\n{done.stderr[-2000:]}")
    return json.loads((out / "report.json").read_text())


def blueprint_report(folder: Path) -> dict:
    """``dealer report --value blueprint`` of a finished match folder; its JSON summary."""
    json_path = folder / "report-blueprint-value.json"
    cmd = [sys.executable, "-m", "dealer.cli", "report", *map(str, sorted(folder.glob("*.log"))), "--value", "blueprint",
           "--json", str(json_path), "--jobs", "2"]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"strength_agent: dealer report --value blueprint failed:\n{done.stderr[-2000:]}")
    return json.loads(json_path.read_text())


def line(report: dict, seat: str) -> str:
    results = report["lineups"][0]["results"][seat]
    parts = []
    for est in ESTIMATORS:
        r = results.get(est)
        if r is None:
            continue
        p = r["p_value"]
        parts.append(
            f"{est} {r['mbb_per_hand']:,.0f} [{r['mbb_ci_low']:,.0f}, {r['mbb_ci_high']:,.0f}] p={p:.2g}"
            if p is not None
            else f"{est} {r['mbb_per_hand']}"
        )
    return "; ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=3000, help="hands per side of each duplicate match (default 3000)")
    parser.add_argument("--opponents", default=",".join(BASELINES))
    parser.add_argument("--no-self", action="store_true", help="skip the full agent vs blueprint-only match")
    parser.add_argument(
        "--no-blueprint-value", action="store_true",
        help="skip re-evaluating the self match with dealer report --value blueprint (about 0.12 s of CPU a hand)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--t-per-hand", type=int, default=7000, help="the dealer's ms per hand (the agent aims at a quarter)")
    parser.add_argument("--out", type=Path, default=Path("matches") / time.strftime("strength-%Y%m%d-%H%M%S"))
    args = parser.parse_args()
    print(f"strength_agent: {args.hands} hands per side, {args.t_per_hand} ms per hand; load {os.getloadavg()} (machine shared)",
          flush=True)
    for opponent in [o for o in args.opponents.split(",") if o]:
        started = time.monotonic()
        report = run(["agent", opponent], f"agent,{opponent}", args.hands, args.seed, args.out / opponent, args.t_per_hand)
        print(f"agent vs {opponent} ({time.monotonic() - started:.0f} s): {line(report, 'agent')}", flush=True)
    if not args.no_self:
        started = time.monotonic()
        # Both seats log their full range, so AIVAT corrects at every decision of the hand.
        seats, names = ["agent", "agent-blueprint"], "agent,blueprint-only"
        report = run(seats, names, args.hands, args.seed, args.out / "self", args.t_per_hand)
        print(f"agent vs its blueprint-only mode ({time.monotonic() - started:.0f} s): {line(report, 'agent')}", flush=True)
        if not args.no_blueprint_value:
            started = time.monotonic()
            report = blueprint_report(args.out / "self")
            print(f"  the same, AIVAT with the blueprint's ṽ ({time.monotonic() - started:.0f} s): {line(report, 'agent')}",
                  flush=True)  # fmt: skip
    print(f"load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
