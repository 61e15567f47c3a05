"""What a seat's flop and turn searches offer and play against the blueprint, from decision logs.

    .venv/bin/python docs/investigations/early_raises.py SEARCH_RUN [--seat agent-flop]
        [--against BLUEPRINT_RUN --against-seat agent-turn]

``SEARCH_RUN`` is a ``dealer run`` folder (its ``decisions/*.SEAT.dlog``).  Printed:

1. every solved flop and turn decision, by whether it faced a bet, counted by whether the
   solve could raise (its logged actions include a raise);
2. with ``--against`` (a run of the same deals whose seat played those flops from the
   blueprint, e.g. ``--solve-from turn``): at each first flop decision the search solved,
   where the other run reached the very same state (same hand, same betting), the mean
   probability of fold / call or check / bet or raise of the search's row and of the
   blueprint's row, by situation (facing a bet, checked to, first to act).

Why: a subgame whose action abstraction forbids a raise cannot answer with one, and a
bet it cannot see raised is worth more in its model than in the game (2026-11-28).
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

import numpy as np

from protocol.decisions import read_decision_log


def _decisions(run: Path, seat: str) -> dict[str, object]:
    """Every decision of ``seat`` in ``run``, by its MATCHSTATE (unique: it holds the hand number)."""
    out = {}
    for path in sorted((run / "decisions").glob(f"*.{seat}.dlog")):
        for d in read_decision_log(path)[1]:
            out[d.state] = d
    return out


def _classes(probs) -> np.ndarray:
    """Probability of fold, call or check, bet or raise."""
    v = np.zeros(3)
    for action, p in probs:
        v[{"f": 0, "c": 1}.get(action[0], 2)] += p
    return v


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", type=Path, help="a dealer run folder of the searching seat")
    p.add_argument("--seat", default="agent-flop")
    p.add_argument("--against", type=Path, help="a run of the same deals whose seat played the flop from the blueprint")
    p.add_argument("--against-seat", default="agent-turn")
    args = p.parse_args()
    mine = _decisions(args.run, args.seat)
    offered: collections.Counter = collections.Counter()
    for state, d in mine.items():
        source = (d.detail or {}).get("source", "blueprint")
        rounds = state.split(":")[3].split("/")
        if source == "blueprint" or len(rounds) not in (2, 3):
            continue
        facing = "r" in rounds[-1]
        can_raise = any(a.startswith("r") for a, _ in d.probs)
        offered[("flop" if len(rounds) == 2 else "turn", "facing a bet" if facing else "no bet yet", can_raise)] += 1
    print(f"solved decisions of {args.seat} in {args.run}: round, situation, could raise -> count")
    for key, n in sorted(offered.items()):
        print(f"  {key[0]:5} {key[1]:13} {'can raise' if key[2] else 'cannot raise':13} {n:6,}")
    if args.against is None:
        return
    other = _decisions(args.against, args.against_seat)
    sums: dict[str, list] = collections.defaultdict(lambda: [0, np.zeros(3), np.zeros(3)])
    for state, d in mine.items():
        detail = d.detail or {}
        rounds = state.split(":")[3].split("/")
        if len(rounds) != 2 or detail.get("solve") != "new" or state not in other:
            continue
        if (other[state].detail or {}).get("source") != "blueprint":
            continue
        flop = rounds[1]
        situation = "facing a bet" if "r" in flop else "checked to" if flop == "c" else "first to act"
        s = sums[situation]
        s[0] += 1
        s[1] += _classes(d.probs)
        s[2] += _classes(other[state].probs)
    print(f"\nfirst flop decisions solved by {args.seat}, the same state in {args.against} (blueprint):")
    print("  situation      decisions   search f / c / r        blueprint f / c / r")
    for situation, (n, a, b) in sorted(sums.items()):
        search, blueprint = (" ".join(f"{x / n:.3f}" for x in v) for v in (a, b))
        print(f"  {situation:13} {n:10,}   {search}     {blueprint}")


if __name__ == "__main__":
    main()
