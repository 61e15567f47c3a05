"""CFR-Jr and CFR-S: time to a CCE of accuracy α = ε/Δ, next to Celli et al.'s Table 1.

    nice -n 10 .venv/bin/python tests/bench/bench_cce.py [--games K3-6,K3-7,K3-10,L3-4]
        [--algorithms cfr-jr,cfr-s] [--variants plus,vanilla] [--max-seconds 60]

Each (game, algorithm) runs in its own process (so its peak RSS is its own), until
α <= 0.0005 or ``--max-seconds`` of solving.  The gap is evaluated exactly at
iteration counts growing by ~10%; the time to a target is the solve time (CFR,
reconstruction or sampling, storing the joint distribution and accumulating the gap
terms) of the first evaluation at or below it; the best-response sweeps of the
evaluations themselves are not counted.  Also printed: α of plain CFR's output
(the product of the same run's average behavioural strategies), the stored joint
distribution's size, the most plans one player's mixture needed in one iteration
against the paper's bound |Z|, peak RSS and the load average.

The published times were measured on the authors' server, not this machine; K3-7
has no published time.  Target: every time at least 10x below the published one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

GAMES = {
    "K3-6": "kuhn.limit.3p.r6",
    "K3-7": "kuhn.limit.3p.r7",
    "K3-10": "kuhn.limit.3p.r10",
    "L3-4": "leduc.limit.3p.r4",
    "L3-6": "leduc.limit.3p.r6",
}
TARGETS = (0.05, 0.005, 0.0005)
#: Celli et al. (NeurIPS 2019) Table 1, CFR-Jr, seconds to α = 0.05 / 0.005 / 0.0005 (None: not reported).
PUBLISHED = {
    "K3-6": (1.03, 13.4, 11 * 60 + 21),
    "K3-7": (None, None, None),
    "K3-10": (7.2, 72.8, 4 * 3600 + 11 * 60),
    "L3-4": (75.0, 6 * 3600.0, None),
    "L3-6": (160.0, 11 * 3600 + 19 * 60.0, None),
}


def run_one(game: str, algorithm: str, variant: str, max_seconds: float, seed: int) -> dict:
    """Solve one game until α <= the last target or the time cap; return the measurements."""
    from protocol.gamedef import load_game
    from solver.cce.cfr_jr import CCESolver
    from solver.cce.game import full_game

    fg = full_game(load_game(GAMES[game]))
    warm = CCESolver(fg, algorithm, variant, seed=seed)  # compile the kernels outside the clock
    warm.run(2)
    warm.gap()
    warm.cfr_product_gap()
    solver = CCESolver(fg, algorithm, variant, seed=seed)
    solve_time, reached, curve = 0.0, {}, []
    next_eval = 1
    while True:
        started = time.perf_counter()
        solver.run(next_eval - solver.iterations)
        solve_time += time.perf_counter() - started
        gap = solver.gap()
        plain = solver.cfr_product_gap().alpha if algorithm == "cfr-jr" else None
        curve.append((solver.iterations, round(solve_time, 3), gap.alpha, plain))
        for target in TARGETS:
            if gap.alpha <= target and str(target) not in reached:
                reached[str(target)] = (round(solve_time, 3), solver.iterations)
        if gap.alpha <= TARGETS[-1] or solve_time >= max_seconds:
            break
        next_eval = max(next_eval + 1, int(next_eval * 1.1))
    return {
        "game": game,
        "algorithm": algorithm,
        "variant": variant,
        "terminals": fg.n_terminals,
        "iterations": solver.iterations,
        "solve_seconds": round(solve_time, 3),
        "capped": gap.alpha > TARGETS[-1],
        "final_alpha": gap.alpha,
        "reached": reached,
        "curve": curve,
        "sizes": solver.joint.sizes(),
        "max_plans": solver.max_plans,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.2f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} m {seconds % 60:04.1f} s"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} m"


def report(results: list[dict]) -> None:
    print("\nTime to α (ours: solve seconds on this shared 2-core machine; published: CFR-Jr on the authors' server)")
    print(f"{'game':>6} {'algo':>7} {'variant':>8} {'α':>7} {'ours':>16} {'iters':>8} {'published':>12} {'ratio':>8}")
    for r in results:
        for k, target in enumerate(TARGETS):
            got = r["reached"].get(str(target))
            ours = _fmt_time(got[0]) if got else f"> {_fmt_time(r['solve_seconds'])} (cap)"
            pub = PUBLISHED[r["game"]][k]
            ratio = f"{pub / max(got[0], 1e-3):,.0f}x" if got and pub else "—"
            its = got[1] if got else r["iterations"]
            name = f"{r['game']:>6} {r['algorithm']:>7} {r['variant']:>8}"
            print(f"{name} {target:>7} {ours:>16} {its:>8} {_fmt_time(pub):>12} {ratio:>8}")
    print("\nPlain CFR (product of average behavioural strategies) against CFR-Jr's joint distribution, same run")
    for r in results:
        if r["algorithm"] != "cfr-jr":
            continue
        points = r["curve"][:: max(1, len(r["curve"]) // 8)] + [r["curve"][-1]]
        row = ", ".join(f"t={it}: {a:.2g} vs {p:.2g}" for it, _, a, p in points)
        print(f"{r['game']:>6} {r['variant']:>8}: α(CFR-Jr) vs α(CFR product): {row}")
    print("\nStored joint distribution and memory")
    for r in results:
        s = r["sizes"]
        print(
            f"{r['game']:>6} {r['algorithm']:>7} {r['variant']:>8}: {r['iterations']:,} iterations, {s['terms']:,} terms, "
            f"plans per player {s['plans']}, {s['bytes'] / 1e6:.1f} MB stored, joint support <= {s['joint_upper_bound']:,}; "
            f"max plans per player per iteration {r['max_plans']} (bound |Z| = {r['terminals']:,}); "
            f"peak RSS {r['peak_rss_mb']:.0f} MB"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="K3-6,K3-7,K3-10,L3-4", help=f"comma-separated, from {', '.join(GAMES)}")
    parser.add_argument("--algorithms", default="cfr-jr,cfr-s")
    parser.add_argument("--variants", default="plus,vanilla", help="plus (RM+, linear averaging) and/or vanilla (the paper's)")
    parser.add_argument("--max-seconds", type=float, default=60.0, help="solve-time cap per run (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one", nargs=2, metavar=("GAME", "ALGORITHM"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], args.one[1], args.variants, args.max_seconds, args.seed)))
        return 0
    games = args.games.split(",")
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        parser.error(f"unknown game {unknown[0]!r} (expected one of {', '.join(GAMES)})")
    print(f"load average before: {os.getloadavg()}; cap {args.max_seconds:g} s of solving per run", flush=True)
    results = []
    for variant in args.variants.split(","):
        for game in games:
            for algorithm in args.algorithms.split(","):
                cmd = [sys.executable, __file__, "--one", game, algorithm, "--variants", variant,
                       "--max-seconds", str(args.max_seconds), "--seed", str(args.seed)]
                out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                results.append(json.loads(out.strip().splitlines()[-1]))
                r = results[-1]
                print(
                    f"{game} {algorithm} {variant}: α={r['final_alpha']:.3g} after {r['iterations']:,} iterations, "
                    f"{r['solve_seconds']:.1f} s, load {os.getloadavg()[0]:.1f}", flush=True,
                )
    report(results)
    print(f"\nload average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
