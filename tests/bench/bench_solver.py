"""Solver speed against OpenSpiel's C++ solvers on Leduc poker, in one run.

    .venv/bin/python tests/bench/bench_solver.py [--mccfr-iterations 1000000]

OpenSpiel is installed into its own virtual environment (``$OPENSPIEL_VENV``, default
``/tmp/acpc-openspiel-venv``; created with pip on first use, never a dependency of
this project) and driven through ``pyspiel`` in a subprocess that reports JSON.

Measured, both sides the same way in the same run:

* full-width: iterations/s and exploitability at equal iterations for our CFR+ and
  DCFR against OpenSpiel's ``CFRPlusSolver``, and the solve time until exploitability
  first drops below 0.001 chips (checked every 10 iterations; evaluation time not
  counted).  Exploitability is OpenSpiel's: NashConv / 2.
* sampled: iterations/s and NashConv at equal iterations for our external-sampling
  MCCFR against OpenSpiel's ``ExternalSamplingMCCFRSolver`` (default, simple averaging).

Our kernels are compiled (and cached) before timing.  Targets: time to 0.001 at least
10x shorter than OpenSpiel's CFR+; MCCFR iterations/s at least 2x at equal or lower
NashConv.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from protocol.cards import deck
from protocol.gamedef import load_game
from solver.bestresponse import exploitability
from solver.cfr.fullwidth import CFR_PLUS, DCFR, CFRConfig, CFRSolver
from solver.cfr.mccfr import PLAIN, MCCFRSolver, identity_abstraction
from solver.ranges import TabularGame, tabular_game

VENV = Path(os.environ.get("OPENSPIEL_VENV", "/tmp/acpc-openspiel-venv"))
THRESHOLD = 1e-3
STEP = 10
CURVE = (10, 50, 100, 200, 500, 1000)
MCCFR_POINTS = (100_000, 1_000_000)

OPENSPIEL_SCRIPT = r"""
import json, sys, time
import pyspiel
threshold, step, curve, mccfr_points = json.loads(sys.argv[1])
game = pyspiel.load_game("leduc_poker")
out = {"version": getattr(pyspiel, "__version__", "?")}

solver = pyspiel.CFRPlusSolver(game)
solve_time, it, curve_out, reached = 0.0, 0, {}, None
while it < max(curve) or reached is None:
    t = time.perf_counter()
    for _ in range(step):
        solver.evaluate_and_update_policy()
    solve_time += time.perf_counter() - t
    it += step
    policy = solver.average_policy()
    nash_conv = pyspiel.nash_conv(game, policy)
    if it in curve:
        curve_out[it] = nash_conv
    if reached is None and nash_conv / 2 < threshold:
        reached = (it, solve_time)
    if it >= 5000:
        break
out["cfr_plus"] = {"iterations": it, "seconds": solve_time, "curve": curve_out, "reached": reached}

solver = pyspiel.ExternalSamplingMCCFRSolver(game, 1)
done, seconds, points = 0, 0.0, {}
for target in mccfr_points:
    t = time.perf_counter()
    for _ in range(target - done):
        solver.run_iteration()
    seconds += time.perf_counter() - t
    done = target
    points[target] = pyspiel.nash_conv(game, solver.average_policy())
out["mccfr"] = {"iterations": done, "seconds": seconds, "curve": points}
print(json.dumps(out))
"""


def openspiel_python() -> Path:
    """The OpenSpiel venv's interpreter, creating the venv and installing open_spiel if needed."""
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"installing open_spiel into {VENV} (first run only) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "open_spiel"], check=True)
    return python


def run_openspiel(mccfr_points: tuple[int, ...]) -> dict:
    args = json.dumps([THRESHOLD, STEP, list(CURVE), list(mccfr_points)])
    done = subprocess.run([str(openspiel_python()), "-c", OPENSPIEL_SCRIPT, args], check=True, capture_output=True, text=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["cfr_plus"]["curve"] = {int(k): v for k, v in result["cfr_plus"]["curve"].items()}
    result["mccfr"]["curve"] = {int(k): v for k, v in result["mccfr"]["curve"].items()}
    return result


def run_ours_full_width(game: TabularGame, config: CFRConfig) -> dict:
    """Same protocol as the OpenSpiel script: STEP iterations, evaluate, repeat."""
    warm = CFRSolver(game, config)
    warm.run(2)  # compile outside the timing
    exploitability(game, warm.average_strategy())
    solver = CFRSolver(game, config)
    solve_time, curve, reached = 0.0, {}, None
    while solver.iterations < max(CURVE) or reached is None:
        t = time.perf_counter()
        solver.run(STEP)
        solve_time += time.perf_counter() - t
        nash_conv = exploitability(game, solver.average_strategy()).nash_conv
        if solver.iterations in CURVE:
            curve[solver.iterations] = nash_conv
        if reached is None and nash_conv / 2 < THRESHOLD:
            reached = (solver.iterations, solve_time)
        if solver.iterations >= 5000:
            break
    return {"iterations": solver.iterations, "seconds": solve_time, "curve": curve, "reached": reached}


def run_ours_mccfr(game: TabularGame, mccfr_points: tuple[int, ...]) -> dict:
    def make() -> MCCFRSolver:
        return MCCFRSolver(game.tree, deck(game.game), identity_abstraction(game.space), PLAIN, seed=1)

    make().run(10)  # compile outside the timing
    solver, seconds, curve = make(), 0.0, {}
    for target in mccfr_points:
        t = time.perf_counter()
        solver.run(target - solver.iterations)
        seconds += time.perf_counter() - t
        curve[target] = exploitability(game, solver.strategy()).nash_conv
    return {"iterations": solver.iterations, "seconds": seconds, "curve": curve}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mccfr-iterations", type=int, default=MCCFR_POINTS[-1], help="last MCCFR checkpoint (default 1,000,000)"
    )
    args = parser.parse_args()
    points = tuple(sorted({min(MCCFR_POINTS[0], args.mccfr_iterations), args.mccfr_iterations}))
    game = tabular_game(load_game("leduc.limit.2p"))

    print("running OpenSpiel (C++ solvers via pyspiel) ...", flush=True)
    theirs = run_openspiel(points)
    print("running ours ...", flush=True)
    ours = {"cfr+": run_ours_full_width(game, CFR_PLUS), "dcfr": run_ours_full_width(game, DCFR)}
    mccfr = run_ours_mccfr(game, points)

    base = theirs["cfr_plus"]
    rows = [("OpenSpiel CFRPlusSolver", base), ("ours CFR+", ours["cfr+"]), ("ours DCFR", ours["dcfr"])]
    print(f"\nLeduc poker, full width (OpenSpiel {theirs['version']}); NashConv in chips at equal iterations")
    print(f"{'solver':<26}{'it/s':>10}" + "".join(f"{f'@{n}':>12}" for n in CURVE) + f"{'to expl<0.001':>22}{'speed-up':>10}")
    for name, r in rows:
        it, secs = r["reached"] or (None, None)
        reached = f"{it} it, {secs:.3f} s" if it else "not reached"
        speedup = f"{base['reached'][1] / secs:.1f}x" if it and base["reached"] else "-"
        curve = "".join(f"{r['curve'].get(n, float('nan')):>12.3g}" for n in CURVE)
        print(f"{name:<26}{r['iterations'] / r['seconds']:>10,.0f}{curve}{reached:>22}{speedup:>10}")

    print("\nLeduc poker, external-sampling MCCFR; NashConv in chips at equal iterations")
    print(f"{'solver':<34}{'it/s':>12}" + "".join(f"{f'@{n:,}':>14}" for n in points) + f"{'speed-up':>10}")
    theirs_rate = theirs["mccfr"]["iterations"] / theirs["mccfr"]["seconds"]
    for name, r in (("OpenSpiel ExternalSamplingMCCFR", theirs["mccfr"]), ("ours ES-MCCFR", mccfr)):
        rate = r["iterations"] / r["seconds"]
        print(f"{name:<34}{rate:>12,.0f}" + "".join(f"{r['curve'][n]:>14.4f}" for n in points) + f"{rate / theirs_rate:>9.1f}x")

    full_target = base["reached"] and all(o["reached"] and base["reached"][1] / o["reached"][1] >= 10 for o in ours.values())
    mccfr_rate = (mccfr["iterations"] / mccfr["seconds"]) / theirs_rate
    mccfr_target = mccfr_rate >= 2 and mccfr["curve"][points[-1]] <= theirs["mccfr"]["curve"][points[-1]]
    print(f"\ntarget time-to-0.001 >= 10x OpenSpiel CFR+: {'met' if full_target else 'NOT met'}")
    print(f"target MCCFR >= 2x iterations/s at equal or lower NashConv (fixed seeds): {'met' if mccfr_target else 'NOT met'}")


if __name__ == "__main__":
    main()
