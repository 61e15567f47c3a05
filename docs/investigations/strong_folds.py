"""How often a seat's strongest hands fold on the river, from its decision logs.

    .venv/bin/python docs/investigations/strong_folds.py DLOG [DLOG ...] [--top 0.02] [--worst 15]

For every logged river decision facing a bet (fold among the actions) it takes the
strongest ``--top`` share of the seat's live range at that decision (by reach weight,
ranked by showdown strength on the board) and their probability of folding, then prints
the reach-weighted fold rate per row source (``detail.source``: blueprint, a hand's
first solve, a later one) and the decisions where those hands fold most.  A near-
equilibrium strategy folds its strongest hands rarely; a fold rate that differs by
source points at the stage that folds them.
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

import numpy as np

from protocol.decisions import read_decision_log
from protocol.fasteval import rank_range
from protocol.gamedef import load_game
from protocol.wire import parse_matchstate


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="+", type=Path)
    p.add_argument("--top", type=float, default=0.02, help="share of the live range counted as strongest")
    p.add_argument("--worst", type=int, default=15, help="decisions listed where the strongest hands fold most")
    args = p.parse_args()
    game = load_game("holdem.nolimit.2p")
    totals: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    worst = []
    for path in args.logs:
        _, decisions = read_decision_log(path)
        for d in decisions:
            names = [a for a, _ in d.probs]
            if d.range is None or "f" not in names:
                continue
            board = np.array(parse_matchstate(d.state, game).state.board, np.int64)
            weight = d.range.weights().astype(np.float64)
            if len(board) != 5 or weight.sum() <= 0:
                continue
            order = np.argsort(-rank_range(board).astype(np.int64))
            top = order[: int(np.searchsorted(np.cumsum(weight[order]) / weight.sum(), args.top)) + 1]
            top = top[weight[top] > 0]
            fold = float((d.range.strategy()[top, names.index("f")] * weight[top]).sum() / weight[top].sum())
            source = (d.detail or {}).get("source", "?")
            totals[source][0] += 1
            totals[source][1] += fold * weight[top].sum()
            totals[source][2] += weight[top].sum()
            worst.append((fold, str(path), d.hand, d.state, source))
    for source, (n, folded, held) in sorted(totals.items()):
        print(f"{source:32s} {int(n):6d} river decisions facing a bet; strongest {args.top:.0%} fold {folded / held:.2%}")
    worst.sort(reverse=True)
    for fold, path, hand, state, source in worst[: args.worst]:
        print(f"  {fold:.2f}  {path} hand {hand}  {state}  {source}")


if __name__ == "__main__":
    main()
