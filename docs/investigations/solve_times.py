"""Where a seat's thinking time goes, by street and row source: from decision logs.

    .venv/bin/python docs/investigations/solve_times.py RUN/decisions/*.agent-flop-bp.dlog
    .venv/bin/python docs/investigations/solve_times.py RUN/decisions/*.agent.dlog --json times.json

For every street and row source (``blueprint``, ``depth-limited-unsafe``,
``blueprint-maxmargin-unsafe``, ...): how many decisions, the seconds a decision took
(median, 99th percentile, largest: the wait the dealer saw, a solve given up included),
and for solved rows the solve's iterations and the exploitability it reached (percent of
the pot, in the solve's own model).  Then the seconds per hand: over the hands in which
the seat decided at least once, and over every hand of the logs (a hand's number + 1 in
each match counts its hands; a match's last hands without a decision are missed).
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

import numpy as np

from protocol.decisions import read_decision_log

STREETS = ("preflop", "flop", "turn", "river")


def street_of(state: str) -> str:
    """The street of a logged MATCHSTATE: its betting's round separators."""
    betting = state.split(":")[3]
    return STREETS[betting.count("/")]


def _spread(values: list[float]) -> dict[str, float]:
    a = np.asarray(values, dtype=float)
    return {"median": float(np.median(a)), "p99": float(np.percentile(a, 99)), "max": float(a.max())}


def summarize(paths: list[Path]) -> dict:
    """Per (street, source) figures and the per-hand seconds of the decision logs."""
    rows: dict[tuple[str, str], dict[str, list[float]]] = collections.defaultdict(lambda: collections.defaultdict(list))
    per_hand: dict[tuple[str, str, int], float] = collections.defaultdict(float)
    hands_per_match: dict[tuple[str, str], int] = {}
    for path in paths:
        _, decisions = read_decision_log(path)
        for d in decisions:
            if d.seconds is None:
                continue
            detail = d.detail or {}
            row = rows[street_of(d.state), detail.get("source", "?")]
            row["seconds"].append(d.seconds)
            for key in ("iterations", "exploitability_pct"):
                if key in detail:
                    row[key].append(float(detail[key]))
            per_hand[str(path), d.match, d.hand] += d.seconds
            key = (str(path), d.match)
            hands_per_match[key] = max(hands_per_match.get(key, 0), d.hand + 1)
    table = []
    for (street, source), row in sorted(rows.items(), key=lambda kv: (STREETS.index(kv[0][0]), kv[0][1])):
        entry = {"street": street, "source": source, "decisions": len(row["seconds"]), "seconds": _spread(row["seconds"])}
        for key in ("iterations", "exploitability_pct"):
            if row[key]:
                entry[key] = float(np.median(row[key]))
        table.append(entry)
    totals = list(per_hand.values())
    hands = sum(hands_per_match.values())
    decided = {"hands": len(totals), "mean": float(np.mean(totals)) if totals else 0.0}
    decided.update(_spread(totals) if totals else {})
    return {
        "rows": table,
        "hands_with_a_decision": decided,
        "all_hands": {"hands": hands, "mean": float(sum(totals) / hands) if hands else 0.0},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="+", type=Path, help="one seat's decision logs (.dlog)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the figures as JSON")
    args = p.parse_args(argv)
    result = summarize(args.logs)
    print(f"{'street':8} {'source':28} {'decisions':>9} {'s median':>9} {'s p99':>7} {'s max':>7} {'iters':>6} {'expl %':>7}")
    for r in result["rows"]:
        s = r["seconds"]
        iters = f"{r['iterations']:.0f}" if "iterations" in r else "-"
        expl = f"{r['exploitability_pct']:.1f}" if "exploitability_pct" in r else "-"
        print(f"{r['street']:8} {r['source']:28} {r['decisions']:9d} {s['median']:9.3f} {s['p99']:7.2f} {s['max']:7.2f} "
              f"{iters:>6} {expl:>7}")  # fmt: skip
    h, a = result["hands_with_a_decision"], result["all_hands"]
    if h["hands"]:
        print(f"\nseconds per hand with a decision ({h['hands']} hands): mean {h['mean']:.2f}, median {h['median']:.2f}, "
              f"p99 {h['p99']:.2f}, max {h['max']:.2f}")  # fmt: skip
    print(f"seconds per hand over all {a['hands']} hands: mean {a['mean']:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
