"""How a seat answers bets on one street, by where its rows came from: from decision logs.

    .venv/bin/python docs/investigations/facing_bets.py RUN/decisions/*.agent.dlog
    .venv/bin/python docs/investigations/facing_bets.py RUN/decisions/*.dlog --street turn

For every logged decision on the street (default the river) that faces a bet or raise:
the seat, the row's source (``blueprint``, a solve's kind, ...), how many such decisions,
the mean probability the seat gave fold, call and raise holding its real cards, and how
often it raised; then the same for the decisions that face a re-raise of its own raise
(the spot a river subgame capped at two raises never models).
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

import numpy as np

from protocol.decisions import read_decision_log
from protocol.gamedef import load_game
from protocol.wire import parse_matchstate

STREETS = ("preflop", "flop", "turn", "river")


def kind_of(action: str) -> str:
    """'fold', 'call' or 'raise' for a logged action string (f, c, rN)."""
    return {"f": "fold", "c": "call"}.get(action[:1], "raise")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="+", type=Path, help="decision logs (.dlog)")
    p.add_argument("--street", choices=STREETS, default="river")
    p.add_argument("--game", default="holdem.nolimit.2p")
    args = p.parse_args(argv)
    game = load_game(args.game)
    street = STREETS.index(args.street)
    rows: dict[tuple[str, str, str], list[np.ndarray]] = collections.defaultdict(list)
    for path in args.logs:
        header, decisions = read_decision_log(path)
        for d in decisions:
            state = parse_matchstate(d.state, game).state
            if state.round != street or state.amount_to_call() <= 0:
                continue
            acts, actors = state.actions[street], state.actors[street]
            ours_raised = len(acts) >= 2 and acts[-2].kind.name == "RAISE" and actors[-2] == state.current_player
            spot = "facing a re-raise" if ours_raised else "facing a bet"
            probs = {"fold": 0.0, "call": 0.0, "raise": 0.0}
            for action, prob in d.probs:
                probs[kind_of(action)] += prob
            taken = kind_of(d.taken)
            source = (d.detail or {}).get("source", "?")
            seat = header.get("seat", "?")
            rows[seat, source, spot].append(
                np.array([probs["fold"], probs["call"], probs["raise"], taken == "raise"], dtype=float)
            )
    print(f"{args.street} decisions facing a bet, by seat and row source: mean probability of fold / call / raise "
          "with the real holding, and the share raised")  # fmt: skip
    print(f"{'seat':<16} {'source':<30} {'spot':<18} {'n':>6} {'fold':>6} {'call':>6} {'raise':>6} {'raised':>7}")
    for (seat, source, spot), values in sorted(rows.items()):
        m = np.mean(values, axis=0)
        print(f"{seat:<16} {source:<30} {spot:<18} {len(values):>6} {m[0]:>6.3f} {m[1]:>6.3f} {m[2]:>6.3f} {m[3]:>7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
