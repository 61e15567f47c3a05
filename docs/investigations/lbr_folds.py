"""How often the agent folds to local best response's turn and river bets, and with what.

    .venv/bin/python docs/investigations/lbr_folds.py RUN/hands.jsonl [RUN/hands.jsonl ...]

For each ``agent lbr`` run (its ``hands.jsonl``, written since runs keep each hand's
dealer-log line): of the hands whose last LBR bet was a pot-sized bet or an all-in on the
turn or the river (``agent.lbr_lines``), how the hand ended (the agent folded, called to
a showdown, or raised and LBR folded); then, for the river pot bets the agent folded, how
strong its hand was: its rank's percentile among every hand live on that board.  A pot
bet is a break-even bluff when called half the time, so folding more than half, or
folding strong hands, is what LBR collects.
"""

from __future__ import annotations

import argparse
import collections
import json

import numpy as np

from agent.lbr_lines import classify
from protocol.fasteval import HOLE_PAIRS, rank_range
from protocol.gamedef import load_game
from protocol.wire import parse_state_line

GAME = load_game("holdem.nolimit.2p")


def strength(line: str) -> float:
    """The agent's hand's percentile among all hands live on the hand's final board."""
    hand = parse_state_line(line, GAME)
    board = np.array(hand.state.board, np.int64)
    ranks = rank_range(board)
    live = ~np.isin(HOLE_PAIRS, board).any(axis=1)
    low, high = sorted(hand.state.hole_cards[hand.names.index("agent")])
    held = int(np.flatnonzero((HOLE_PAIRS[:, 0] == low) & (HOLE_PAIRS[:, 1] == high))[0])
    return float((ranks[live] < ranks[held]).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="agent lbr runs' hands.jsonl")
    args = parser.parse_args()
    for path in args.runs:
        with open(path) as lines:
            records = [json.loads(line) for line in lines][1:]
        ends: dict[tuple[str, str], collections.Counter] = collections.defaultdict(collections.Counter)
        folded: list[float] = []
        for record in records:
            if not record.get("line"):
                continue
            line = classify(record["line"], GAME)
            if line.street in ("turn", "river") and line.size in ("pot", "all-in"):
                ends[(line.street, line.size)][line.end] += 1
                if (line.street, line.size, line.end) == ("river", "pot", "agent folds"):
                    folded.append(strength(record["line"]))
        print(f"{path}: {len(records)} hands")
        for (street, size), counts in sorted(ends.items()):
            n = sum(counts.values())
            print(f"  {street:6s} {size:7s} {n:5d} hands: agent folds {counts['agent folds'] / n:.0%}, "
                  f"showdown {counts['showdown'] / n:.0%}, LBR folds {counts['LBR folds'] / n:.0%}")  # fmt: skip
        if folded:
            pct = np.array(folded)
            shares = ", ".join(f"above the {q:.0%} percentile {(pct > q).mean():.2f}" for q in (0.25, 0.5, 0.75, 0.9))
            print(f"  river pot bets folded: {len(pct)}; share of them {shares}")


if __name__ == "__main__":
    main()
