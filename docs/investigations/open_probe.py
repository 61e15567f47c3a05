"""Where the agent opens the river against ``equity``: the opponent range its solve models
against the range the bot really holds, and how a solve bets under each.

    .venv/bin/python docs/investigations/open_probe.py RUN/match.*.log --spots 40 [--solve]
    .venv/bin/python docs/investigations/open_probe.py docs/results/data/logs/agent-seed302/match.[12].log.gz --spots 80 --solve

For the first ``--spots`` hands of the given ``dealer run`` logs (the agent's seat named
``--seat``, the other ``equity``) in which the agent made a river decision with no bet
to face (first to act, or after the bot's check), the agent's blueprint-only line is
walked to that decision (its own actions forced, as in ``replay_hand.py``), and there:

* ``modelled``: the opponent's range a river solve starts from (the blueprint's reach
  along the translated path, as the agent computes it);
* ``true``: the bot's real range: each hole pair weighted by the product of the bot's
  probabilities (:func:`dealer.equitybot.equity_policy`, a function of its cards and what
  it sees) of every action it took in the hand;
* per range: its mean strength (showdown percentile against every live hand) and the
  agent's held hand's equity against it.

With ``--solve`` each spot is also solved as the agent's first river solve (its gadget
with blueprint alternatives, 300 iterations, the agent's river sizes, no jitter) and
unsafe (no gadget, to 0.5% of the pot), each from the modelled range and from the true
one, and the bet probability of the agent's range is printed by its hands' strength,
beside the blueprint's rows; ``--weights`` adds the safe solve from the modelled range
with other weights on its unsafe term (the agent's ``--unsafe-weight``, 0.01).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import re
import sys
from pathlib import Path

import numpy as np
from defence_probe import solve_spot  # this folder: run as a script
from replay_hand import force, walk_line

from agent.player import Agent
from agent.solving import SolvingStage
from agent.strategist import build_strategist
from agent.timing import TimeLimits, TimeManager
from dealer.equitybot import equity_policy
from protocol.cards import card_str
from protocol.decisions import ROW_TOTAL
from protocol.fasteval import HOLE_PAIRS, rank_range
from protocol.gamedef import load_game
from protocol.rules import ActionType
from protocol.wire import parse_matchstate
from solver.subgame.alternatives import blueprint_alternatives
from solver.subgame.range_solver import build_subgame

GAME = load_game("holdem.nolimit.2p")
BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0001)
#: The bet columns: the blueprint's rows; the agent's safe solve and an unsafe one, each from the modelled and the true range.
COLUMNS = ("blueprint", "safe-modelled", "safe-true", "unsafe-modelled", "unsafe-true")


def spots(logs: list[Path], seat: str, limit: int) -> list[tuple[int, str, str, int]]:
    """(hand, betting through the spot, cards, agent's position) of the first ``limit`` river-open spots."""
    found = []
    for log in logs:
        with gzip.open(log, "rt") if log.suffix == ".gz" else open(log) as f:
            lines = f.readlines()
        for line in lines:
            if not line.startswith("STATE:"):
                continue
            _, number, betting, cards, _, names = line.rstrip().split(":")
            names = names.split("|")
            if seat not in names or betting.count("/") != 3:
                continue
            me = names.index(seat)
            river = re.findall(r"r\d+|c|f", betting.split("/")[3])
            # The river's first actor is position 0: the agent opens at index 0 (OOP) or after a check (IP).
            at = 0 if me == 0 else (1 if river[:1] == ["c"] else None)
            if at is None or len(river) <= at:
                continue
            head = betting[: len(betting) - len(betting.split("/")[3])] + "".join(river[:at])
            found.append((int(number), head, cards, me))
            if len(found) == limit:
                return found
    return found


def true_range(betting: str, cards: str, bot: int, number: int) -> np.ndarray:
    """float64 (1326,): each pair's probability of the bot's own actions along ``betting``
    had it held that pair (0 for pairs on the board)."""
    rounds = cards.split("/")
    board = [c for r in rounds[1:] for c in re.findall(r"..", r)]
    out = np.zeros(len(HOLE_PAIRS))
    steps = []  # (prefix, round index, token) of the bot's decisions
    prefix = ""
    for token in re.findall(r"r\d+|c|f|/", betting):
        if token == "/":
            prefix += token
            continue
        holes = ["", ""]
        holes[bot] = rounds[0].split("|")[bot]
        shown = "/".join(["|".join(holes), *rounds[1: prefix.count("/") + 1]])
        if parse_matchstate(f"MATCHSTATE:{bot}:{number}:{prefix}:{shown}", GAME).state.current_player == bot:
            steps.append((prefix, prefix.count("/"), token))
        prefix += token
    for i, (a, b) in enumerate(HOLE_PAIRS.tolist()):
        if card_str(a) in board or card_str(b) in board:
            continue
        hole = card_str(a) + card_str(b)
        p = 1.0
        for pre, r, token in steps:
            holes = ["", ""]
            holes[bot] = hole
            shown = "/".join(["|".join(holes), *rounds[1: r + 1]])
            state = parse_matchstate(f"MATCHSTATE:{bot}:{number}:{pre}:{shown}", GAME).state
            dist = equity_policy(state)
            p *= sum(q for act, q in dist.probs if _same(act, token))
            if p == 0.0:
                break
        out[i] = p
    return out


def _same(action, token: str) -> bool:
    if token == "f":
        return action.kind == ActionType.FOLD
    if token == "c":
        return action.kind == ActionType.CALL
    return action.kind == ActionType.RAISE and action.size == int(token[1:])


def strength(board: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's showdown percentile against every pair (uniform), and the ranks."""
    ranks = rank_range(np.array(board, np.int64)).astype(np.int64)
    live = ranks > 0
    srt = np.sort(ranks[live])
    below = np.searchsorted(srt, ranks, "left")
    ties = np.searchsorted(srt, ranks, "right") - below
    return np.where(live, (below + 0.5 * ties) / live.sum(), 0.0), ranks


def equity_against(held: int, ranks: np.ndarray, weights: np.ndarray) -> float:
    """The held pair's showdown equity against ``weights`` (pairs meeting it excluded)."""
    a, b = HOLE_PAIRS[held]
    meet = np.isin(HOLE_PAIRS, [a, b]).any(axis=1)
    w = np.where(meet | (ranks <= 0), 0.0, weights)
    if w.sum() <= 0:
        return float("nan")
    r = ranks[held]
    return float((w * ((ranks < r) + 0.5 * (ranks == r))).sum() / w.sum())


def bet_rows(sg, me: int, ours: np.ndarray, theirs: np.ndarray, alternatives: np.ndarray | None, iterations: int,
             weight: float = 0.01) -> np.ndarray:
    """Bet probability per pair at the subgame's root, solved as the agent's first solve
    (``alternatives`` None: unsafe, to 0.5% of the pot)."""
    solver = solve_spot(sg, me, ours, theirs, alternatives, "maxmargin-unsafe", weight, iterations)
    actions = sg.tree.actions(0)
    rows = solver.node_strategy(0, sg.root.board)
    bets = [j for j, a in enumerate(actions) if a.kind == ActionType.RAISE]
    return sg.to_hole_pairs(rows[:, bets].sum(axis=1))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", type=Path, nargs="+", help="dealer run match logs (agent against equity; .gz read as such)")
    p.add_argument("--seat", default="agent", help="the agent's name in the logs (default agent)")
    p.add_argument("--spots", type=int, default=40)
    p.add_argument("--solve", action="store_true", help="also solve each spot from both ranges")
    p.add_argument("--iterations", type=int, default=300)
    p.add_argument("--weights", type=lambda t: [float(x) for x in t.split(",")], default=[],
                   help="also solve safe from the modelled range with these unsafe weights (e.g. 1,10)")
    args = p.parse_args()
    columns = (*COLUMNS, *(f"safe-w{w:g}" for w in args.weights))
    strategist = build_strategist(GAME, None, blueprint_only=True, seed=7)
    stage = SolvingStage(np.random.default_rng(7))
    table: dict[str, list] = {"IP": [], "OOP": []}
    bets: dict[str, list] = {"IP": [], "OOP": []}
    for number, betting, cards, me in spots(args.logs, args.seat, args.spots):
        parts = cards.split("/")
        holes = parts[0].split("|")
        mine = holes[me]
        holes[1 - me] = ""
        seen = "/".join(["|".join(holes), *parts[1:]])
        agent = Agent(GAME, strategist, TimeManager(TimeLimits(per_hand=28.0).validated()), seed=7)
        found: dict = {}

        def decide(prefix, token, match, agent=agent, found=found):
            hand = agent.observe(match)
            if token is None:
                found.update(match=match, hand=hand)
                return None
            strategy, counts = agent.rows(match, hand)
            return force(agent, match, hand, strategy, counts, token)

        walk_line(GAME, betting, seen, me, number, decide)
        if "match" not in found:
            continue
        match, hand = found["match"], found["hand"]
        state = match.state
        ours = np.where(agent.blocked(match), 0.0, hand.reach)
        view = strategist.view(hand, state, me)
        modelled = np.where(agent.blocked(match), 0.0, view.opponent_reach)
        truth = np.where(agent.blocked(match), 0.0, true_range(betting, cards, 1 - me, number))
        if ours.sum() <= 0 or modelled.sum() <= 0 or truth.sum() <= 0:
            continue
        hs, ranks = strength(state.board)
        held = int(np.flatnonzero((HOLE_PAIRS[:, 0] == min(match.my_cards)) & (HOLE_PAIRS[:, 1] == max(match.my_cards)))[0])
        pos = "IP" if me == 1 else "OOP"
        row = (hs[held], float(modelled @ hs / modelled.sum()), float(truth @ hs / truth.sum()),
               equity_against(held, ranks, modelled), equity_against(held, ranks, truth))
        table[pos].append(row)
        line = (f"hand {number:5d} {pos:3s} {mine} {betting:28s} {parts[1:]} held hs {row[0]:.2f}; "
                f"range hs modelled {row[1]:.2f} true {row[2]:.2f}; held equity modelled {row[3]:.2f} true {row[4]:.2f}")
        if args.solve:
            strategy, counts = agent.rows(match, hand)
            bp = counts[:, [j for j, a in enumerate(strategy.actions) if a.kind == ActionType.RAISE]].sum(axis=1) / ROW_TOTAL
            alternatives = None
            if view.valuer is not None and view.node is not None:
                alternatives = blueprint_alternatives(view.valuer, view.node, state, ours)
            if alternatives is not None:
                sg = build_subgame(state, stage.abstraction_at(state))
                solved = [bet_rows(sg, me, ours, r, alt, args.iterations)
                          for alt in (alternatives, None) for r in (modelled, truth)]
                solved += [bet_rows(sg, me, ours, modelled, alternatives, args.iterations, w) for w in args.weights]
                w = ours / ours.sum()
                bets[pos].append((hs, w, bp, *solved))
                line += "; range bets: " + ", ".join(f"{n} {w @ c:.2f}" for n, c in zip(columns, (bp, *solved)))
        print(line, flush=True)
    for pos, rows in table.items():
        if not rows:
            continue
        a = np.array(rows)
        print(f"\n{pos}: {len(a)} spots; means: held hs {a[:, 0].mean():.3f}; range hs modelled {a[:, 1].mean():.3f} "
              f"true {a[:, 2].mean():.3f}; held equity modelled {np.nanmean(a[:, 3]):.3f} true {np.nanmean(a[:, 4]):.3f}")
        if not bets[pos]:
            continue
        print(f"  the agent's range, bet probability by its hands' strength (range-weighted, {len(bets[pos])} spots):")
        print(f"  {'strength':>10s} {'weight':>7s} " + " ".join(f"{n:>15s}" for n in columns))
        for lo, hi in itertools.pairwise(BINS):
            num = np.zeros(len(columns))
            den = 0.0
            for hs, w, *cols in bets[pos]:
                m = (hs >= lo) & (hs < hi)
                den += w[m].sum()
                num += [w[m] @ c[m] for c in cols]
            if den > 0:
                print(f"  {lo:.1f}-{min(hi, 1):.1f}    {den / len(bets[pos]):7.3f} " + " ".join(f"{x / den:>15.3f}" for x in num))


if __name__ == "__main__":
    sys.exit(main())
