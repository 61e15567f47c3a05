"""Facing an opponent's river bet: how much of the agent's range folds when the solve is
rooted after the bet (the agent's way) or at the start of the river (the bet solved too).

    .venv/bin/python docs/investigations/root_probe.py BETTING CARDS --position P --hand K

``BETTING`` ends with the opponent's river bet (``r200c/cc/r600c/r1800``), ``CARDS`` is the
agent's view (``|8c9s/6d4dJh/5h/Ad`` for position 1).  The agent's range is its
blueprint-only reach along the line (its own actions forced); the opponent's is the
blueprint's along the translated path, to the bet or to the start of the river.  Both
subgames are solved unsafe (no gadget) to 0.5% of the pot with sizes ½, 1, 2 pots and
all-in; printed: the range's fold frequency at the bet (rooted at the river's start: at
the tree's raise nearest to the real one) and the held hand's.
"""

from __future__ import annotations

import argparse

import numpy as np
from replay_hand import force, walk_line  # this folder: run as a script

from agent.player import Agent
from agent.strategist import build_strategist
from agent.timing import TimeLimits, TimeManager
from protocol.gamedef import load_game
from protocol.rules import ActionType, start_of_round
from protocol.wire import MatchState
from solver.bets import parse_abstraction
from solver.subgame.range_solver import SubgameSolver, build_subgame

SIZES = "0.5,1,2;allin;cap=2"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("betting")
    p.add_argument("cards")
    p.add_argument("--position", type=int, required=True)
    p.add_argument("--hand", type=int, default=0)
    args = p.parse_args()
    game = load_game("holdem.nolimit.2p")
    strategist = build_strategist(game, None, blueprint_only=True, seed=7)
    agent = Agent(game, strategist, TimeManager(TimeLimits(per_hand=28.0).validated()), seed=7)
    found: dict = {}

    def decide(prefix: str, token: str | None, match: MatchState) -> str | None:
        hand = agent.observe(match)
        if token is None:  # the decision facing the bet
            found.update(match=match, hand=hand)
            return None
        strategy, counts = agent.rows(match, hand)
        return force(agent, match, hand, strategy, counts, token)

    walk_line(game, args.betting, args.cards, args.position, args.hand, decide)
    match, hand = found["match"], found["hand"]
    state, me = match.state, args.position
    start = start_of_round(state)
    ours = np.where(agent.blocked(match), 0.0, hand.reach)
    held = agent.hand_index[tuple(sorted(match.my_cards))]
    bet = state.actions[state.round][-1]
    for name, root in (("after the bet", state), ("river start", start)):
        sg = build_subgame(root, parse_abstraction(SIZES))
        ranges = np.zeros((2, sg.n_hands))
        ranges[me] = sg.from_hole_pairs(ours)
        ranges[1 - me] = sg.from_hole_pairs(strategist.view(hand, root, me).opponent_reach)
        solver = SubgameSolver(sg, ranges)
        solver.solve(0.5, max_iterations=2000)
        node = 0
        if root is start:
            raises = [a for a in sg.tree.actions(0) if a.kind == ActionType.RAISE]
            node = sg.node_after([min(raises, key=lambda a: abs(a.size - bet.size))])
        actions = [str(a) for a in sg.tree.actions(node)]
        fold = sg.to_hole_pairs(solver.node_strategy(node, state.board)[:, actions.index("f")])
        live = ours * (sg.to_hole_pairs(np.ones(sg.n_hands)) > 0)
        print(f"{name:14s} the range folds {float((live * fold).sum() / live.sum()):.3f}, the held hand {fold[held]:.3f} "
              f"(exploitability {solver.exploitability():.2f}% of the pot, {solver.iterations} iterations)")  # fmt: skip


if __name__ == "__main__":
    main()
