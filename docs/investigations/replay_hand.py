"""Replay one hand against the agent with its own actions forced, and print its rows.

    .venv/bin/python docs/investigations/replay_hand.py BETTING CARDS --position P [--solve-from turn]
        [--gadget G] [--later-gadget G] [--new-round-alternatives A] [--unsafe-weight W]

``BETTING`` is a dealer log's betting (``r200c/cr600c/r1800c/r5400f``), ``CARDS`` the
agent's view of the cards (``|2d2s/4c2h5c/2c/Kc`` for position 1, ``4s9s|/9c5dJh/2h/Ah``
for position 0).  At every decision of the agent's along the line it prints the row's
source (blueprint, first or later solve and its detail), the agent's reach of its own
holding and the holding's probabilities; then it takes the logged action (the nearest
raise when bet-size randomisation drew another size).  At the last decision on a full
board it also prints how often the strongest 2% of the agent's range (by weight) folds.
Solves are seeded by ``--seed``, not the match's: the rows are the agent's kind of
answer at that spot, not the logged ones bit for bit.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

import numpy as np

from agent.player import Agent, HandContext
from agent.solving import SAFE_ITERATIONS, SolveSettings
from agent.strategist import build_strategist
from agent.strategy import RangeStrategy
from agent.timing import TimeLimits, TimeManager
from protocol.decisions import ROW_TOTAL
from protocol.fasteval import rank_range
from protocol.gamedef import GameDef, load_game
from protocol.rules import ActionType
from protocol.wire import MatchState, parse_matchstate

TOP_SHARE = 0.02


def walk_line(
    game: GameDef, betting: str, cards: str, position: int, number: int,
    decide: Callable[[str, str | None, MatchState], str | None],
) -> None:
    """Call ``decide(prefix, token, match)`` at each of the agent's decisions along a
    logged line (``token``: the logged action there, None past the line's end, where the
    walk stops); ``decide`` returns the action the agent took instead (its own size, see
    :func:`force`), from which the line goes on."""
    rounds = cards.split("/")
    prefix = ""
    for token in [*re.findall(r"r\d+|c|f|/", betting), None]:
        if token == "/":
            prefix += token
            continue
        shown = "/".join(rounds[: prefix.count("/") + 1])
        match = parse_matchstate(f"MATCHSTATE:{position}:{number}:{prefix}:{shown}", game)
        if match.state.finished or match.state.current_player != position:
            if token is None:
                return
            prefix += token
            continue
        taken = decide(prefix, token, match)
        if token is None or taken is None:
            return
        prefix += taken


def force(agent: Agent, match: MatchState, hand: HandContext, strategy: RangeStrategy, counts: np.ndarray, token: str) -> str:
    """Take the logged action ``token`` at the agent's decision: its reach keeps that
    action's probability; returns the action as the agent's tree has it (the nearest raise
    when bet-size randomisation drew another size than the log's)."""
    columns = [j for j, a in enumerate(strategy.actions) if str(a) == token or (token == "c" and a.kind == ActionType.CALL)]
    if not columns:
        size = int(token[1:])
        columns = [min((abs(a.size - size), j) for j, a in enumerate(strategy.actions) if a.kind == ActionType.RAISE)[1]]
    hand.reach = np.where(agent.blocked(match), 0.0, hand.reach) * (counts[:, columns[0]] / ROW_TOTAL)
    return str(strategy.actions[columns[0]]) if strategy.actions[columns[0]].kind == ActionType.RAISE else token


def top_fold(agent: Agent, match: MatchState, counts: np.ndarray, fold: int) -> float:
    """Weighted fold probability of the strongest ``TOP_SHARE`` of the agent's live range."""
    ranks = rank_range(np.array(match.state.board, np.int64)).astype(np.int64)
    weight = np.where(agent.blocked(match), 0.0, agent.hand.reach)
    order = np.argsort(-ranks)
    top = order[: int(np.searchsorted(np.cumsum(weight[order]) / weight.sum(), TOP_SHARE)) + 1]
    top = top[weight[top] > 0]
    return float((counts[top, fold] / ROW_TOTAL * weight[top]).sum() / weight[top].sum())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("betting")
    p.add_argument("cards")
    p.add_argument("--position", type=int, required=True)
    p.add_argument("--hand", type=int, default=0, help="hand number (seeds the agent's per-hand streams)")
    p.add_argument("--solve-from", default="river", choices=("river", "turn"))
    p.add_argument("--gadget", default="maxmargin-unsafe")
    p.add_argument("--later-gadget", default=None)
    p.add_argument("--new-round-alternatives", default="estimated", choices=("estimated", "blueprint"))
    p.add_argument("--unsafe-weight", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--solve-iterations", type=int, default=SAFE_ITERATIONS, help="a safe solve's iterations")
    args = p.parse_args()
    game = load_game("holdem.nolimit.2p")
    settings = SolveSettings(
        args.gadget, args.unsafe_weight, later_gadget=args.later_gadget, new_round=args.new_round_alternatives,
        iterations=args.solve_iterations,
    ).validated()
    strategist = build_strategist(game, None, blueprint_only=False, seed=args.seed, solve_from=args.solve_from,
                                  solve=settings)  # fmt: skip
    agent = Agent(game, strategist, TimeManager(TimeLimits(per_hand=28.0).validated()), seed=args.seed)
    def decide(prefix: str, token: str | None, match: MatchState) -> str | None:
        hand = agent.observe(match)
        strategy, counts = agent.rows(match, hand)
        held = agent.hand_index[tuple(sorted(match.my_cards))]
        names = [str(a) for a in strategy.actions]
        row = ", ".join(f"{n} {c / ROW_TOTAL:.3f}" for n, c in zip(names, counts[held]))
        print(f"{prefix!r}: {strategy.source}, own reach {hand.reach[held]:.4g}: {row}")
        print(f"    {strategy.detail}")
        if token is None:
            if len(match.state.board) == 5 and "f" in names:
                print(f"strongest {TOP_SHARE:.0%} of the range fold {top_fold(agent, match, counts, names.index('f')):.3f}")
            return None
        return force(agent, match, hand, strategy, counts, token)

    walk_line(game, args.betting, args.cards, args.position, args.hand, decide)

if __name__ == "__main__":
    main()
