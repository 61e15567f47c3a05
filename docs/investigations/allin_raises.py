"""A seat's all-in raises, by street, row source and size against the pot, with the hands' results.

    .venv/bin/python docs/investigations/allin_raises.py SEAT RUN [RUN ...]
    .venv/bin/python docs/investigations/allin_raises.py agent-flopdl matches/agent-flopdl-seed30[345]

For every all-in raise the seat made (from its decision logs in ``RUN/decisions``, one
``dealer run`` folder each): the street, where the row came from (``detail.source``),
whether it put in more than three times the pot (an overbet shove) or not, the
probability it had, and the chips the seat won in that hand (the match log's).  A
group's mean result says whether those shoves lost chips; it is raw chips over few
hands, so its standard error is printed beside it, and a hand's result is all its
luck too (read the biggest ones with ``dealer hands``).
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

import numpy as np

from dealer.evaluation.matchlog import MatchLogReader
from protocol.decisions import read_decision_log
from protocol.wire import parse_matchstate

STREETS = ("preflop", "flop", "turn", "river")
#: An all-in raise adding more than this many pots is an overbet shove.
OVERBET = 3.0


def allin_raises(seat: str, runs: list[Path]) -> dict[tuple[str, str, str], list[tuple[float, float]]]:
    """(street, source, ``overbet``/``smaller``) -> [(chips won in the hand, the raise's probability)]."""
    groups: dict[tuple[str, str, str], list[tuple[float, float]]] = collections.defaultdict(list)
    for run in runs:
        for log in sorted(run.glob("*.log")):
            reader = MatchLogReader(log)
            results = {h.state.hand_number: h.values[h.names.index(seat)] for h in reader}
            path = run / "decisions" / f"{log.stem}.{seat}.dlog"
            if not path.exists():
                continue
            _, decisions = read_decision_log(path)
            for d in decisions:
                if not d.taken.startswith("r"):
                    continue
                state = parse_matchstate(d.state, reader.game).state
                amount = int(d.taken[1:])
                if amount < min(reader.game.stack):
                    continue
                added = (amount - state.max_spent) / max(state.pot, 1)
                size = "overbet" if added > OVERBET else "smaller"
                source = (d.detail or {}).get("source", "?")
                groups[STREETS[state.round], source, size].append((results[d.hand], dict(d.probs).get(d.taken, 0.0)))
    return groups


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("seat", help="the seat's name in the logs")
    p.add_argument("runs", nargs="+", type=Path, help="dealer run folders (match logs and decisions/)")
    args = p.parse_args(argv)
    groups = allin_raises(args.seat, args.runs)
    print(f"{'street':8} {'source':46} {'size':8} {'shoves':>6} {'mean won':>9} {'s.e.':>7} {'mean p':>7}")
    for (street, source, size), rows in sorted(groups.items(), key=lambda kv: (STREETS.index(kv[0][0]), kv[0][1:])):
        won = np.array([r[0] for r in rows])
        se = won.std(ddof=1) / np.sqrt(len(won)) if len(won) > 1 else float("nan")
        print(f"{street:8} {source:46} {size:8} {len(rows):>6} {won.mean():>9.0f} {se:>7.0f} "
              f"{np.mean([r[1] for r in rows]):>7.3f}")  # fmt: skip
    total = np.array([r[0] for rows in groups.values() for r in rows])
    if total.size:
        se = total.std(ddof=1) / np.sqrt(total.size)
        print(f"all {total.size} all-in raises: mean {total.mean():.0f} chips (s.e. {se:.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
