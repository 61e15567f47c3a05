"""Where full-range AIVAT's remaining spread comes from on an agent match, and how far value
functions of the check-down kind could take it.

    nice -n 10 .venv/bin/python docs/investigations/aivat_variance.py FOLDER [FOLDER ...]

FOLDER as for ``tests/bench/bench_report.py --agent``: match logs and a ``decisions`` folder with the
agent's decision logs (the seat named ``agent``).  Two diagnostics, per folder:

1. **By step.**  Board corrections cancel the board's luck exactly and the deal correction
   the deal's, so the per-hand estimate telescopes to ``ṽ(before the deal)`` plus one term per
   action: at the agent's decisions ``Σ_a σ(h, a) ṽ(h·a) − ṽ(h)``, at the opponent's (not
   corrected: its strategy is unknown) ``ṽ(h·a*) − ṽ(h)``, each averaged over the agent's
   hands with the estimator's weights.  Printed per kind and round: each term's standard
   deviation and its share of the estimate's variance (``cov(term, estimate) / var``; the
   shares add up to 1).  Only the sum over a run of opponent and agent steps between two
   chance nodes is pinned down (ṽ at a node reached by the opponent's action only appears in
   the next step), so read ``opp`` and ``our`` of one round together.
2. **Ceiling of margin × pot value functions.**  Every correction is linear in ṽ, so the
   corrections of ``Σ_j θ_j f_j`` are ``Σ_j θ_j C(f_j)``.  With basis functions ``f_j``
   (check-down ``margin · called``; the opponent's chips in, what a fold by it would pay;
   ``margin · stack``; ``margin · (stack − called)``), the corrections are split by kind and
   round (deal, each board, the agent's actions per round, imaginary) and fitted by least
   squares to the raw chips: in-sample (an upper bound no fixed function of this family can
   beat on these hands) and across the two mirrored logs (fit on one, apply to the other).
   A fit on the evaluated hands themselves is not an unbiased estimator: this only measures
   how much such value functions could explain.
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from pathlib import Path

import numpy as np

from dealer.evaluation.decisionlogs import load_decision_logs
from dealer.evaluation.matchlog import MatchLogReader
from dealer.evaluation.rangeaivat import RangeAivat
from dealer.evaluation.values import CheckDownValue, deal_logged_board
from protocol.rules import State, initial_state

BASES = ("check-down", "opponent's chips", "margin·stack", "margin·(stack−called)")
SLOTS = ("deal", "flop", "turn", "river", "act 0", "act 1", "act 2", "act 3")
SEAT = "agent"


class _Margins:
    """The margins of every private hand against the opponent's, by board length, computed once."""

    def __init__(self, ranged: RangeAivat, opponent: tuple[int, ...]) -> None:
        self.ranged, self.opponent = ranged, opponent
        self.known: dict[int, np.ndarray] = {}

    def __call__(self, board: tuple[int, ...]) -> np.ndarray:
        if len(board) not in self.known:
            self.known[len(board)] = self.ranged.margins.margins(self.opponent, board)
        return self.known[len(board)]


def bases(state: State, pos: int, stack: float, margin: _Margins) -> np.ndarray:
    """float64 (bases, hands): each basis ṽ of position ``pos`` at ``state``."""
    hands = len(margin.ranged.margins.hands)
    if state.folded[pos] or state.folded[1 - pos]:
        paid = -float(state.spent[pos]) if state.folded[pos] else float(state.spent[1 - pos])
        return np.full((len(BASES), hands), paid)
    m, called = margin(state.board), float(min(state.max_spent, stack))
    return np.stack([m * called, np.full(hands, float(state.spent[1 - pos])), m * stack, m * (stack - called)])


def walk(folder: Path) -> tuple[list[dict[str, float]], np.ndarray]:
    """Per hand: the telescoped steps of check-down AIVAT, and a row [log, raw, imaginary,
    corrections by slot × basis]."""
    index = load_decision_logs(sorted((folder / "decisions").glob("*.dlog")))
    steps, rows = [], []
    for number, path in enumerate(sorted(folder.glob("*.log"))):
        reader = MatchLogReader(path)
        game = reader.game
        ranged = RangeAivat(CheckDownValue(game))
        stack = float(game.stack[0])
        hands = len(ranged.margins.hands)
        for hand in reader:
            final = hand.state
            pos = hand.names.index(SEAT)
            # A hand the opponent folded before the agent acted has no decisions.
            pending = list(index.by_node.get((reader.name, final.hand_number, pos), (SEAT, ()))[1])
            opponent = tuple(final.hole_cards[1 - pos])
            held = ranged.hand_index[tuple(sorted(final.hole_cards[pos]))]
            margin = _Margins(ranged, opponent)

            values = functools.partial(bases, pos=pos, stack=stack, margin=margin)

            corrections = np.zeros((len(SLOTS), len(BASES), hands))
            step: dict[str, np.ndarray] = {}
            reach = np.ones(hands)
            dealt = game.num_board_cards[0]
            state = initial_state(game, final.hand_number, final.hole_cards, final.board[:dealt])
            start = values(state)
            # The mean over the deal: zero for the margins (a uniform deal is symmetric), the
            # card-independent basis itself.
            corrections[0] = -start
            corrections[0, 1] += start[1]
            for action in (a for actions in final.actions for a in actions):
                parent = values(state)
                key = f"{'our' if state.current_player == pos else 'opp'} {state.round}"
                if state.current_player == pos:
                    sigma, taken = ranged._sigma(state, action, pending.pop(0), held)
                    children = {a: values(state.apply(a)) for a in sigma}
                    expected = sum(sigma[a] * children[a] for a in sigma)
                    corrections[4 + state.round] += expected - children[taken]
                    step[key] = step.get(key, 0) + expected[0] - parent[0]
                    reach = reach * sigma[taken]
                else:
                    step[key] = step.get(key, 0) + values(state.apply(action))[0] - parent[0]
                state, deals = deal_logged_board(state.apply(action), final)
                for before, after in deals:
                    corrections[{3: 1, 4: 2, 5: 3}[len(after.board)]] += values(before) - values(after)
            weight = np.where(ranged.margins.compatible(opponent + tuple(final.board)), reach, 0.0)
            weight /= weight.sum()
            steps.append({k: float(v @ weight) for k, v in step.items()})
            imaginary = values(state)[0] @ weight - hand.values[pos]
            rows.append(np.concatenate([[number, hand.values[pos], imaginary], (corrections @ weight).ravel()]))
    return steps, np.array(rows)


def report(folder: Path) -> None:
    started, cpu = time.perf_counter(), time.process_time()
    steps, rows = walk(folder)
    log, raw, imaginary = rows[:, 0], rows[:, 1], rows[:, 2]
    corrections = rows[:, 3:].reshape(len(rows), len(SLOTS), len(BASES))
    keys = sorted({k for s in steps for k in s})
    terms = np.array([[s.get(k, 0.0) for k in keys] for s in steps])
    estimate = raw + imaginary + corrections[:, :, 0].sum(axis=1)
    cut = 1 - estimate.std() / raw.std()
    print(
        f"{folder.name}: {len(raw):,} hands, raw std {raw.std():,.0f} chips, check-down AIVAT std "
        f"{estimate.std():,.0f} (cut {100 * cut:.1f}%); walked in {time.perf_counter() - started:.0f} s "
        f"({time.process_time() - cpu:.0f} s CPU)"
    )
    centred = estimate - estimate.mean()
    for j, key in enumerate(keys):
        share = (terms[:, j] - terms[:, j].mean()) @ centred / (centred @ centred)
        print(f"  step {key:<6} std {terms[:, j].std():8,.0f}  share of variance {100 * share:5.1f}%")
    for used in (1, 2, 3, 4):
        design = np.column_stack([imaginary] + [corrections[:, s, b] for b in range(used) for s in range(len(SLOTS))])
        design = np.column_stack([np.ones(len(raw)), design])
        theta = np.linalg.lstsq(design, -raw, rcond=None)[0]
        inside = raw + design[:, 1:] @ theta[1:]
        across = np.empty_like(raw)
        for held_out in np.unique(log):
            fit, apply = log != held_out, log == held_out
            theta = np.linalg.lstsq(design[fit], -raw[fit], rcond=None)[0]
            across[apply] = raw[apply] + design[apply, 1:] @ theta[1:]
        print(
            f"  fitted bases {' + '.join(BASES[:used])} ({design.shape[1] - 1} coefficients): cut "
            f"{100 * (1 - inside.std() / raw.std()):.1f}% in-sample, {100 * (1 - across.std() / raw.std()):.1f}% across logs"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, metavar="FOLDER")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}  (cores: {os.cpu_count()})")
    for folder in args.folders:
        report(folder)
    print(f"load average after: {os.getloadavg()}  (the machine is shared)")


if __name__ == "__main__":
    main()
