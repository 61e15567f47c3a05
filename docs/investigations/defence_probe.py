"""How a river solve defends against a pot-sized bet, and what the bet earns the bettor,
under several ways of solving the spot.

    .venv/bin/python docs/investigations/defence_probe.py RUN/hands.jsonl [--spots 30] [--iterations 300]

For the first ``--spots`` hands of an ``agent lbr`` run (its ``hands.jsonl``) in which
LBR's last bet was a pot-sized river bet that the agent answered, the agent's
blueprint-only line is walked to its decision facing that bet (its own actions forced, as
in ``replay_hand.py``).  There each variant is solved rooted after the bet, with the
agent's river bet sizes, and measured over the agent's whole range (its blueprint reach):

* ``folds``: the range's fold frequency (a pot bet is a break-even bluff at 50%);
* ``strong``: the fold frequency of the range's hands stronger than its median;
* ``gain``: what the pot bet earns the bettor over checking the hand down, in pots,
  averaged over every hand the bettor can hold (LBR's range at the river is broad), the
  bet taken only where it gains, as LBR does; a raise by the agent counts as a call;
* ``lbr``: the same for the bettor's real hand in that record.

``best-threshold`` is a yardstick, not a strategy: per spot, the call-the-top-share
defence with the least ``gain``.  ``*-monotone``: the blueprint's or the agent's fold
mass moved onto the range's weakest hands.

Variants: the blueprint's own rows; the agent's first solve (Maxmargin with a small
unsafe term, alternatives from the blueprint) and its gadgets without the unsafe term or
with a larger one; ``resolve``; unsafe (no gadget) against the modelled range; and the
same with the opponent's modelled range widened to half modelled, half every live hand
(``broad``), alone and under the agent's gadget.
"""

from __future__ import annotations

import argparse
import json
import re

import numpy as np
from replay_hand import force, walk_line  # this folder: run as a script

from agent.lbr_lines import classify
from agent.player import Agent
from agent.solving import SolvingStage
from agent.strategist import build_strategist
from agent.timing import TimeLimits, TimeManager
from protocol.decisions import ROW_TOTAL
from protocol.fasteval import HOLE_PAIRS, rank_range
from protocol.gamedef import load_game
from protocol.rules import ActionType, start_of_round
from protocol.wire import parse_state_line
from solver.subgame.alternatives import blueprint_alternatives, safe_hook
from solver.subgame.range_solver import SubgameSolver, build_subgame

GAME = load_game("holdem.nolimit.2p")
#: (name, gadget or None for unsafe, unsafe weight, share of every live hand in the opponent's range)
VARIANTS = (
    ("agent", "maxmargin-unsafe", 0.01, 0.0),
    ("maxmargin", "maxmargin", 0.0, 0.0),
    ("mm-unsafe-1", "maxmargin-unsafe", 1.0, 0.0),
    ("resolve", "resolve", 0.0, 0.0),
    ("unsafe", None, 0.0, 0.0),
    ("unsafe-broad.2", None, 0.0, 0.2),
    ("unsafe-broad.5", None, 0.0, 0.5),
    ("agent-broad.5", "maxmargin-unsafe", 0.01, 0.5),
    ("mm1-broad.5", "maxmargin-unsafe", 1.0, 0.5),
    ("mm10-broad.5", "maxmargin-unsafe", 10.0, 0.5),
    ("mm10-broad.2", "maxmargin-unsafe", 10.0, 0.2),
)
#: The same, rooted at the start of the river (the bet solved too), measured at the bet.
START_VARIANTS = (
    ("start-agent", "maxmargin-unsafe", 0.01, 0.0),
    ("start-mm1-broad.5", "maxmargin-unsafe", 1.0, 0.5),
    ("start-unsafe", None, 0.0, 0.0),
    ("start-broad.2", None, 0.0, 0.2),
)


def spots(path: str, limit: int) -> list[dict]:
    """The first ``limit`` records whose last LBR bet was a river pot bet the agent answered."""
    found = []
    with open(path) as lines:
        for record in map(json.loads, list(lines)[1:]):
            if not record.get("line"):
                continue
            line = classify(record["line"], GAME)
            if (line.street, line.size) == ("river", "pot") and line.end in ("agent folds", "showdown"):
                found.append(record)
            if len(found) == limit:
                break
    return found


def measure(fold: np.ndarray, ours: np.ndarray, board: tuple[int, ...], pot: float, bet: float,
            held: int | None) -> tuple[float, float, float, float]:
    """(range fold frequency, strong hands' fold frequency, mean gain of a pot bet over
    every bettor hand (taken where positive), the real hand's), gains in pots."""
    ranks = rank_range(np.array(board, np.int64)).astype(np.int64)
    live = ~np.isin(HOLE_PAIRS, np.array(board)).any(axis=1)
    w = ours * live
    folds = float((w * fold).sum() / w.sum())
    order = np.argsort(ranks[live])
    median = np.median(np.repeat(ranks[live][order], np.maximum(1, (w[live][order] / w.max() * 100).astype(int))))
    strong = w * (ranks > median)
    strong_folds = float((strong * fold).sum() / max(strong.sum(), 1e-300))
    # Bettor hand o against agent hand h: blocked pairs excluded.
    share = (HOLE_PAIRS[:, None, 0] == HOLE_PAIRS[None, :, 0]) | (HOLE_PAIRS[:, None, 0] == HOLE_PAIRS[None, :, 1])
    share |= (HOLE_PAIRS[:, None, 1] == HOLE_PAIRS[None, :, 0]) | (HOLE_PAIRS[:, None, 1] == HOLE_PAIRS[None, :, 1])
    wh = np.where(share, 0.0, w[None, :])  # (bettor, agent)
    s = np.sign(ranks[:, None] - ranks[None, :]).astype(float)  # +1: the bettor wins
    total = wh.sum(axis=1)
    half = pot / 2
    bet_value = (wh * (fold[None, :] * half + (1 - fold[None, :]) * s * (half + bet))).sum(axis=1)
    check_value = (wh * s * half).sum(axis=1)
    gain = np.divide(bet_value - check_value, total, out=np.zeros(len(total)), where=total > 0) / pot
    mean_gain = float(np.maximum(gain[live], 0).mean())
    return folds, strong_folds, mean_gain, float(gain[held]) if held is not None else float("nan")


def deciles(fold: np.ndarray, ours: np.ndarray, board: tuple[int, ...]) -> str:
    """The range's fold frequency by decile of its weight, weakest first."""
    ranks = rank_range(np.array(board, np.int64)).astype(np.int64)
    w = ours * ~np.isin(HOLE_PAIRS, np.array(board)).any(axis=1)
    order = np.argsort(ranks, kind="stable")
    cum = np.cumsum(w[order]) / w.sum()
    part = np.minimum((cum * 10).astype(int), 9)
    out = []
    for d in range(10):
        idx = order[part == d]
        out.append(f"{(w[idx] * fold[idx]).sum() / max(w[idx].sum(), 1e-300):.2f}" if w[idx].sum() > 0 else "  - ")
    return " ".join(out)


def monotone(fold: np.ndarray, ours: np.ndarray, board: tuple[int, ...]) -> np.ndarray:
    """The same fold mass over the range, moved onto its weakest hands (ties share alike):
    every bettor hand's value weakly falls when a stronger bluff-catcher calls instead of a
    weaker one (up to card removal)."""
    ranks = rank_range(np.array(board, np.int64)).astype(np.int64)
    w = ours * ~np.isin(HOLE_PAIRS, np.array(board)).any(axis=1)
    mass = float((w * fold).sum())
    out = np.zeros(len(fold))
    for r in np.unique(ranks[w > 0]):  # weakest first
        group = (ranks == r) & (w > 0)
        weight = float(w[group].sum())
        if mass <= 0:
            break
        share = min(1.0, mass / weight)
        out[group] = share
        mass -= share * weight
    return out


def best_threshold(ours: np.ndarray, board: tuple[int, ...], pot: float, bet: float, held: int) -> tuple:
    """The defence that calls the strongest hands of the range and folds the rest, with the
    calling share (0, 5%, ..., 100% of the range's weight) that leaves the broad bettor the
    least gain: a yardstick for what a defence could do at this spot against ``gain``."""
    ranks = rank_range(np.array(board, np.int64)).astype(np.int64)
    live = ~np.isin(HOLE_PAIRS, np.array(board)).any(axis=1)
    w = ours * live
    order = np.argsort(-ranks, kind="stable")
    cum = np.cumsum(w[order]) / w.sum()
    best = None
    for share in np.linspace(0, 1, 21):
        fold = np.ones(len(ours))
        fold[order[cum <= share + 1e-12]] = 0.0
        found = measure(fold, ours, board, pot, bet, held)
        if best is None or found[2] < best[2]:
            best = found
    return best


def solve_spot(
    sg, me: int, ours: np.ndarray, theirs: np.ndarray, alternatives: np.ndarray | None, gadget: str, weight: float,
    iterations: int,
) -> SubgameSolver:
    """Subgame ``sg`` solved from the two ranges (HOLE_PAIRS order): unsafe to 0.5% of the
    pot when ``alternatives`` is None, else ``iterations`` of ``gadget`` with them."""
    ranges = np.zeros((2, sg.n_hands))
    ranges[me] = sg.from_hole_pairs(ours)
    ranges[1 - me] = sg.from_hole_pairs(theirs)
    solver = SubgameSolver(sg, ranges)
    if alternatives is None:
        solver.solve(0.5, max_iterations=2000)
    else:
        solver.iterate(iterations, safe_hook(sg, ranges, me, alternatives, weight, gadget))
    return solver


def solved_folds(
    sg, node: int, me: int, ours: np.ndarray, theirs: np.ndarray, alternatives: np.ndarray | None, gadget: str | None,
    weight: float, iterations: int,
) -> np.ndarray | None:
    """The fold probability per hand (HOLE_PAIRS order) at ``node`` of subgame ``sg`` solved
    from the two ranges: unsafe to 0.5% of the pot (``gadget`` None), else ``iterations``
    of the gadget with ``alternatives`` (None when the gadget has none)."""
    if gadget is not None and alternatives is None:
        return None
    solver = solve_spot(sg, me, ours, theirs, alternatives if gadget else None, gadget or "", weight, iterations)
    actions = [str(a) for a in sg.tree.actions(node)]
    board = sg.root.board
    return sg.to_hole_pairs(solver.node_strategy(node, board)[:, actions.index("f")])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", help="an agent lbr run's hands.jsonl")
    p.add_argument("--spots", type=int, default=30)
    p.add_argument("--deciles", action="store_true", help="print each spot's fold frequency by decile of the range's strength")
    p.add_argument("--iterations", type=int, default=300, help="iterations of each gadget solve (the agent's 300)")
    args = p.parse_args()
    strategist = build_strategist(GAME, None, blueprint_only=True, seed=7)
    stage = SolvingStage(np.random.default_rng(7))
    names = ["blueprint", "best-threshold", "blueprint-monotone", "agent-monotone", *(v[0] for v in VARIANTS),
             *(v[0] for v in START_VARIANTS)]
    table = {name: [] for name in names}
    positions: list[int] = []  # 1: the agent acts last on the river
    for record in spots(args.run, args.spots):
        hand_line = parse_state_line(record["line"], GAME)
        me = hand_line.names.index("agent")
        state_all = hand_line.state
        fields = record["line"].split(":")
        parts = fields[3].split("/")
        holes = parts[0].split("|")
        holes[1 - me] = ""
        cards = "/".join(["|".join(holes), *parts[1:]])
        raises = list(re.finditer(r"r\d+", fields[2]))
        betting = fields[2][: raises[-1].end()]  # through LBR's last (the river pot) bet
        agent = Agent(GAME, strategist, TimeManager(TimeLimits(per_hand=28.0).validated()), seed=7)
        found: dict = {}

        def decide(prefix, token, match, agent=agent, found=found):
            hand = agent.observe(match)
            if match.state.round == GAME.num_rounds - 1 and "start_reach" not in found:
                found["start_reach"] = np.where(agent.blocked(match), 0.0, hand.reach)  # before the river's first action
            if token is None:
                found.update(match=match, hand=hand)
                return None
            strategy, counts = agent.rows(match, hand)
            return force(agent, match, hand, strategy, counts, token)

        walk_line(GAME, betting, cards, me, state_all.hand_number, decide)
        if "match" not in found:
            continue
        match, hand = found["match"], found["hand"]
        state = match.state
        ours = np.where(agent.blocked(match), 0.0, hand.reach)
        if ours.sum() <= 0:
            continue
        bettor = tuple(sorted(state_all.hole_cards[1 - me]))
        o_index = int(np.flatnonzero((HOLE_PAIRS[:, 0] == bettor[0]) & (HOLE_PAIRS[:, 1] == bettor[1]))[0])
        called = state.spent[me]
        pot, bet = 2.0 * called, float(state.spent[1 - me] - called)
        view = strategist.view(hand, state, me)
        strategy, counts = agent.rows(match, hand)
        fold_col = [j for j, a in enumerate(strategy.actions) if str(a) == "f"]
        fold = counts[:, fold_col[0]] / ROW_TOTAL if fold_col else np.zeros(len(ours))
        table["blueprint"].append(measure(fold, ours, state.board, pot, bet, o_index))
        positions.append(int(GAME.first_player[state.round] != me))
        if args.deciles:
            print(f"    {'blueprint':10s} folds by decile (weakest first): {deciles(fold, ours, state.board)}")
        table["best-threshold"].append(best_threshold(ours, state.board, pot, bet, o_index))
        table["blueprint-monotone"].append(measure(monotone(fold, ours, state.board), ours, state.board, pot, bet, o_index))
        sg = build_subgame(state, stage.abstraction_at(state))
        modelled = view.opponent_reach
        live = ~np.isin(HOLE_PAIRS, np.array(state.board)).any(axis=1) & ~np.isin(HOLE_PAIRS, state.hole_cards[me]).any(axis=1)
        alternatives = None
        if view.valuer is not None and view.node is not None:
            alternatives = blueprint_alternatives(view.valuer, view.node, state, ours)
        for name, gadget, weight, wide in VARIANTS:
            broad = (1 - wide) * modelled / modelled.sum() + wide * live / live.sum()
            fold = solved_folds(sg, 0, me, ours, broad, alternatives, gadget, weight, args.iterations)
            table[name].append((np.nan,) * 4 if fold is None else measure(fold, ours, state.board, pot, bet, o_index))
            if fold is not None and name == "agent":
                table["agent-monotone"].append(measure(monotone(fold, ours, state.board), ours, state.board, pot, bet, o_index))
            if fold is not None and args.deciles and name in ("agent", "unsafe"):
                print(f"    {name:10s} folds by decile (weakest first): {deciles(fold, ours, state.board)}")
        start = start_of_round(state)
        view_start = strategist.view(hand, start, me)
        modelled_start = view_start.opponent_reach
        alternatives_start = None
        if view_start.valuer is not None and view_start.node is not None:
            alternatives_start = blueprint_alternatives(view_start.valuer, view_start.node, start, found["start_reach"], me)
        sg = build_subgame(start, stage.abstraction_at(start))
        node = 0
        for action in state.actions[state.round]:
            offered = sg.tree.actions(node)
            if action.kind == ActionType.RAISE:
                action = min((a for a in offered if a.kind == ActionType.RAISE), key=lambda a: abs(a.size - action.size))
            node = sg.node_after([action], node)
        for name, gadget, weight, wide in START_VARIANTS:
            broad = (1 - wide) * modelled_start / modelled_start.sum() + wide * live / live.sum()
            fold = solved_folds(sg, node, me, found["start_reach"], broad, alternatives_start, gadget, weight, args.iterations)
            table[name].append((np.nan,) * 4 if fold is None else measure(fold, ours, state.board, pot, bet, o_index))
        print(f"hand {state_all.hand_number:5d} {fields[2]:24s} {fields[3]:28s} "
              + " ".join(f"{n}={table[n][-1][0]:.2f}" for n in names), flush=True)
    positions = np.array(positions)
    for label, keep in (("all", np.ones(len(positions), bool)), ("agent in position (LBR opened the river)", positions == 1),
                        ("agent out of position (LBR bet after its check)", positions == 0)):
        print(f"\n{label}: {int(keep.sum())} spots; means (gains in pots; the bettor bets only where its gain is positive):")
        print(f"{'variant':18s} {'folds':>6s} {'strong':>7s} {'gain':>7s} {'lbr':>7s}")
        for name in names:
            rows = np.array(table[name], float)[keep]
            if not len(rows):
                continue
            m = np.nanmean(rows, axis=0)
            print(f"{name:18s} {m[0]:6.3f} {m[1]:7.3f} {m[2]:7.3f} {m[3]:7.3f}")

if __name__ == "__main__":
    main()
