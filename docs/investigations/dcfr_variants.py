"""Exploitability against iterations for DCFR variants on the bench's spots (issue 25).

    nice -n 10 .venv/bin/python docs/investigations/dcfr_variants.py [--spot turn.toml] [--every 10] [--last 120]

Each variant runs the same spot (full ranges) and prints its exploitability (% of the
pot) every ``--every`` iterations, so the iterations each needs to reach a target can be
read off.  ``reset`` variants clear the average strategy at iterations 4, 16, 64, 256 ...
(the average then restarts from the better late iterates).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "bench"))
from bench_subgame import SPOTS, build_spot

from solver.cfr.fullwidth import CFRConfig
from solver.spot import load_spot
from solver.subgame.range_solver import SubgameSolver

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
}


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
        solver = SubgameSolver(sg, ranges, config, threads=spot.threads)
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
