"""Why Table 1's safe rows stay far from 4x: the measurements behind the README's findings.

    .venv/bin/python tests/bench/table1_diagnostics.py --game small2 --iterations 150,600,2000

Prints, for one game of ``solver experiment subgames``: Maxmargin and Resolve at each
iteration count (exploitability, smallest margins), Reach-Maxmargin with the ``exact``
gift form, and the distribution over re-solves of Maxmargin's smallest margin at the
largest iteration count.  CPU time and load are printed (the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from solver.abstraction import parse_abstraction
from solver.bestresponse import exploitability
from solver.blueprint_values import BlueprintValues
from solver.experiments import TABLE1, TABLE1_QUICK
from solver.experiments.blueprint import bucketed_cfr
from solver.experiments.buckets import strength_buckets
from solver.experiments.subgames import combined_strategy, subgame_roots
from solver.ranges import normalized, tabular_game
from solver.safe import build_gadget, margin_summary, solve_subgame, subgame_rows


def per_subgame_margins(bv: BlueprintValues, roots: list[int], round_: int, iterations: int) -> np.ndarray:
    """Maxmargin's smallest non-negligible margin (chips) in every re-solve."""
    tg = bv.game
    out = []
    for player in (0, 1):
        regret, avg = np.zeros(tg.layout.size), np.zeros(tg.layout.size)
        solutions = []
        for root in roots:
            for board in range(tg.space.n_boards[round_]):
                gadget = build_gadget(bv, root, board, player, "maxmargin")
                solution = solve_subgame(bv, root, board, player, gadget, regret, avg, iterations=iterations)
                if solution is not None:
                    solutions.append(solution)
        solved = normalized(tg.layout, tg.tree, avg)
        strategy = bv.strategy.copy()
        for s in solutions:
            rows = subgame_rows(bv, s.node, s.board, player)
            strategy[rows] = solved[rows]
        out += [margin_summary(bv, s, strategy)[0] for s in solutions]
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="small2", help="a game of solver experiment subgames (or quick2)")
    parser.add_argument("--iterations", default="150,600,2000", help="comma-separated re-solve iteration counts")
    args = parser.parse_args()
    spec = next(s for s in (*TABLE1, *TABLE1_QUICK) if s.key == args.game)
    counts = [int(x) for x in args.iterations.split(",")]
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    tg = tabular_game(spec.game(), parse_abstraction(spec.abstraction))
    bv = BlueprintValues(tg, bucketed_cfr(tg, strength_buckets(tg.space, spec.buckets), spec.blueprint_iterations))
    roots, round_ = subgame_roots(tg, spec.subgame_round), spec.subgame_round
    mbb_per_chip = 1000.0 / tg.game.big_blind
    runs = [(m, n, "lower-bound") for m in ("maxmargin", "resolve") for n in counts]
    for method, n, form in [*runs, ("reach-maxmargin", spec.subgame_iterations, "exact")]:
        started = time.process_time()
        c = combined_strategy(bv, roots, round_, method, n, gift_form=form)
        mbb = exploitability(tg, c.strategy).exploitability_mbb
        print(f"{spec.key} {method} ({form} gifts) {n} iterations: {mbb:.2f} mbb/hand, min margin {c.min_margin:.4g} "
              f"chips ({c.min_margin_all:.4g} over all), excess {c.excess * mbb_per_chip:.4g} mbb/hand, "
              f"CPU {time.process_time() - started:.1f} s", flush=True)
    mins = per_subgame_margins(bv, roots, round_, max(counts))
    q = np.nanquantile(mins, [0.1, 0.5, 0.9])
    print(f"maxmargin {max(counts)} iterations, smallest margin per re-solve ({len(mins)}): 10/50/90% {q[0]:.3g} / "
          f"{q[1]:.3g} / {q[2]:.3g} chips; share <= 0.1 chip {np.mean(mins <= 0.1):.3f}")
    print(f"load average after: {os.getloadavg()[0]:.2f} (machine shared)")


if __name__ == "__main__":
    main()
