"""Exploitability against iterations for DCFR variants on the bench's spots (issue 25).

    nice -n 10 .venv/bin/python docs/investigations/dcfr_variants.py [--spot turn.toml] [--every 10] [--last 120]

Each variant runs the same spot (full ranges) and prints its exploitability (% of the
pot) every ``--every`` iterations, so the iterations each needs to reach a target can be
read off.  ``reset`` variants clear the average strategy at iterations 4, 16, 64, 256 ...
(the average then restarts from the better late iterates).  ``pred`` variants play
*predictive* regret matching (PCFR+ / PDCFR+: Farina, Kroer and Sandholm, AAAI 2021; Xu
et al., IJCAI 2024): each row plays regret matching of its regrets as the next update
will discount them plus the last instantaneous regret, recovered after each update from
the regrets before and after it (:func:`predictive_refresh`, rewriting the solver's kept
strategy; the solver itself is unchanged).  Measured 2026-11-27 on the river spot:
predictive variants need 280-470 iterations to 0.1% of the pot where DCFR needs 190
(docs/results/2026-11-27-search-yardsticks.md): not adopted.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "bench"))
from bench_subgame import SPOTS, build_spot

from solver.cfr.fullwidth import CFRConfig
from solver.ranges import discounts
from solver.spot import load_spot
from solver.subgame.range_solver import SubgameSolver
from solver.tree import DECISION

#: DCFR(alpha, beta, gamma), with or without the average reset (g: gamma, a: alpha, floor: beta -inf).
VARIANTS = {
    "g2": (CFRConfig(1.5, 0.0, 2.0), False),
    "g3": (CFRConfig(1.5, 0.0, 3.0), False),
    "g3-reset": (CFRConfig(1.5, 0.0, 3.0), True),
    "g2-reset": (CFRConfig(1.5, 0.0, 2.0), True),
    "g4": (CFRConfig(1.5, 0.0, 4.0), False),
    "g5": (CFRConfig(1.5, 0.0, 5.0), False),
    "a2-g3": (CFRConfig(2.0, 0.0, 3.0), False),
    "a1-g3": (CFRConfig(1.0, 0.0, 3.0), False),
    "floor-g3": (CFRConfig(1.5, -math.inf, 3.0), False),
    "b0.5-g3": (CFRConfig(1.5, 0.5, 3.0), False),
    "a1.75-g3": (CFRConfig(1.75, 0.0, 3.0), False),
    "a1.25-g3": (CFRConfig(1.25, 0.0, 3.0), False),
    "pred-pdcfr+": (CFRConfig(2.3, -math.inf, 5.0), "predictive"),  # the PDCFR+ paper's alpha and gamma
    "pred-floor-g3": (CFRConfig(1.5, -math.inf, 3.0), "predictive"),
    "pred-g3": (CFRConfig(1.5, 0.0, 3.0), "predictive"),
    "pred-b0.5-g3": (CFRConfig(1.5, 0.5, 3.0), "predictive"),
}


@njit(cache=True)
def predictive_refresh(
    regret: np.ndarray,
    before: np.ndarray,
    kept: np.ndarray,
    starts: np.ndarray,
    row_counts: np.ndarray,
    actions: np.ndarray,
    d_pos: float,
    d_neg: float,
    w_pos: float,
    w_neg: float,
) -> None:
    """Rewrite ``kept``'s rows of the decisions listed (``starts``, ``row_counts`` rows of
    ``actions`` each, in the tabular layout) with the predictive strategy.

    ``before``: the regrets before the update; ``d_pos``/``d_neg`` the discounts the
    update applied, so the instantaneous regret is ``regret - before * d``; ``w_pos`` /
    ``w_neg`` the next update's discounts of positive / negative regrets."""
    for i in range(starts.shape[0]):
        base = starts[i]
        n_a = actions[i]
        for h in range(row_counts[i]):
            row = base + h * n_a
            total = 0.0
            for a in range(n_a):
                old = np.float64(before[row + a])
                new = np.float64(regret[row + a])
                instant = new - old * (d_pos if old > 0 else d_neg)
                p = max(new * (w_pos if new > 0 else w_neg) + instant, 0.0)
                kept[row + a] = p
                total += p
            if total > 0:
                for a in range(n_a):
                    kept[row + a] /= total
            else:
                for a in range(n_a):
                    kept[row + a] = 1.0 / n_a


class PredictiveSolver(SubgameSolver):
    """The subgame solver playing predictive regret matching (the kept strategy rewritten
    after each update; needs a subgame small enough for the kept strategy)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not self.kept.size:
            raise SystemExit("predictive variants need the kept strategy: a smaller subgame")
        tree, lay = self.subgame.tree, self.subgame.tabular.layout
        self.rows = []
        for p in range(2):
            nodes = np.flatnonzero((tree.kind == DECISION) & (tree.player == p))
            counts = np.array([lay.rows[int(tree.round[n])] for n in nodes], np.int64)
            self.rows.append((lay.offset[nodes].astype(np.int64), counts, tree.child_count[nodes].astype(np.int64)))

    def _update(self, trav, reach, d):
        before = self.regret.copy()
        values = super()._update(trav, reach, d)
        w_pos, w_neg, _ = discounts(self.iterations + 1, *self.config)
        predictive_refresh(self.regret, before, self.kept, *self.rows[trav], d[0], d[1], w_pos, w_neg)
        return values


def main() -> None:
    """Each variant's exploitability curve on one spot, one line per variant."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spot", default="turn.toml", help="a file of tests/bench/spots (default turn.toml)")
    parser.add_argument("--every", type=int, default=10, help="iterations between measurements (default 10)")
    parser.add_argument("--last", type=int, default=120, help="iterations of each variant (default 120)")
    parser.add_argument(
        "--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)} (default: all)"
    )
    args = parser.parse_args()
    unknown = [name for name in args.variants.split(",") if name not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant {unknown[0]!r}; the variants are {', '.join(VARIANTS)}")
    spot = load_spot(SPOTS / args.spot)
    sg = build_spot(spot)[0]
    ranges = np.ones((2, sg.n_hands))
    for name in args.variants.split(","):
        config, reset = VARIANTS[name]
        kind = PredictiveSolver if reset == "predictive" else SubgameSolver
        reset = reset is True
        solver = kind(sg, ranges, config, threads=spot.threads)
        curve = []
        start = time.process_time()
        while solver.iterations < args.last:
            t = solver.iterations + 1
            if reset and t >= 4 and (t & (t - 1)) == 0 and (t.bit_length() - 1) % 2 == 0:
                solver.avg[:] = 0.0
            solver.iterate(1)
            if solver.iterations % args.every == 0:
                curve.append((solver.iterations, solver.exploitability()))
        cpu = time.process_time() - start
        print(f"{name}: " + " ".join(f"{t}:{e:.4f}" for t, e in curve) + f" | {cpu:.1f} s CPU", flush=True)


if __name__ == "__main__":
    main()
