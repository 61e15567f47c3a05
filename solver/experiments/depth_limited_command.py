"""``solver experiment depth-limited``: its parser and handler (the solvers load when it runs)."""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from pathlib import Path

from protocol.arguments import add_command

DESCRIPTION = """\
Depth-limited safe subgame solving (Brown, Sandholm and Amos, NeurIPS 2018) against
full-depth safe solving on a 3-round game with exact best response: every public state
at the start of round 2 is re-solved, to the end of the game or to the end of round 2
with k continuation strategies at the leaves (the blueprint, then the blueprint biased
toward fold, call, raise; k = 5 adds the opponent's best response to the blueprint).
Prints exploitability (mbb/hand) and seconds per strategy.  --quick runs a tiny game
in seconds; the full run takes minutes."""

EPILOG = """examples:
  solver experiment depth-limited --quick
  solver experiment depth-limited --k 1,2,4 --cut round,card --floor --save runs/dls
  solver experiment depth-limited --blueprint-buckets table1 --gadget maxmargin-unsafe
  solver export runs/dls/three3-depth-limited-k4.strategy --game three3 --out dls.json
"""

#: Card abstractions of the blueprint: Table 1's (rounds 2 and 3 bucketed), or round 2
#: only (the default: the blueprint beyond the depth limit is then not what limits it).
BLUEPRINT_BUCKETS = {"round2": (None, 4, None), "table1": (None, 4, 4)}


def add_parser(which: argparse._SubParsersAction) -> None:
    """Add ``depth-limited`` to ``solver experiment``'s subcommands."""
    p = add_command(which, "depth-limited", "depth-limited vs full-depth safe subgame solving (k continuations)",
                    DESCRIPTION, EPILOG)
    p.add_argument("--quick", action="store_true", help="the cheap setting the tests run (tiny 3-round game)")
    p.add_argument("--k", default="1,4",
                   help="comma-separated numbers of continuation strategies, 1-5 (default 1,4): the blueprint, then "
                        "biased toward fold, call, raise, then (5, ours) the opponent's best response to the blueprint")
    p.add_argument("--factor", type=float, default=5.0, help="bias factor of the biased continuations (default 5)")
    p.add_argument("--gadget", default="maxmargin", help="the safe gadget of every re-solve (default maxmargin)")
    p.add_argument("--alternatives", choices=("game", "model"), default="game",
                   help="the depth-limited gadget's alternatives: the full game's values (default) or the model's")
    p.add_argument("--blueprint-buckets", choices=sorted(BLUEPRINT_BUCKETS), default="round2",
                   help="the blueprint's card abstraction (default round2: 4 buckets on round 2 only)")
    p.add_argument("--cut", default="round",
                   help="where subgames are cut, comma-separated: round (the chance node ending round 2; default) "
                        "and/or card (after the card it deals: the opponent picks a continuation per card)")
    p.add_argument("--limit", action="store_true",
                   help="also the limit of depth-limited solving as k grows: full-depth re-solves in which the "
                        "re-solver keeps the blueprint after round 2 and the opponent is free (costs as full depth)")
    p.add_argument("--floor", action="store_true", help="also the least exploitable strategy changing only round 2")
    p.add_argument("--save", type=Path, default=None, help="save every strategy as DIR/GAME-ROW.strategy for 'solver export'")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from solver.experiments import CommandError
    from solver.experiments.depth_limited import CUTS, DL_GAME, DL_QUICK, format_rows, run_depth_limited
    from solver.strategies import save_strategy
    from solver.subgame.gadgets import GADGETS

    try:
        ks = [int(x) for x in args.k.split(",") if x.strip()]
    except ValueError:
        raise CommandError(f"--k {args.k!r} must be comma-separated integers") from None
    if not ks or any(not 1 <= k <= 5 for k in ks):
        raise CommandError(f"--k {args.k!r}: each k must be between 1 and 5")
    cuts = [c.strip() for c in args.cut.split(",") if c.strip()]
    if not cuts or any(c not in CUTS for c in cuts):
        raise CommandError(f"--cut {args.cut!r}: each cut must be one of {', '.join(CUTS)}")
    if args.gadget not in GADGETS:
        raise CommandError(f"unknown gadget {args.gadget!r} (expected one of {', '.join(GADGETS)})")
    if not args.factor > 0:
        raise CommandError(f"--factor {args.factor} must be positive")
    spec = DL_QUICK if args.quick else DL_GAME
    if not args.quick:
        spec = replace(spec, buckets=BLUEPRINT_BUCKETS[args.blueprint_buckets])
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    started = time.perf_counter()
    tg, rows, floor = run_depth_limited(
        spec, gadget=args.gadget, ks=ks, factor=args.factor, alternatives=args.alternatives, cuts=cuts,
        floor=args.floor, limit=args.limit,
        log=lambda line: print(line, flush=True),
    )
    print(format_rows(spec, rows, floor))
    if args.save:
        for r in rows:
            name = r.key or r.name.split()[0] + (f"-k{r.k}" if r.k else "") + ("-card" if r.cut == "card" else "")
            save_strategy(args.save / f"{spec.key}-{name}.strategy", tg.tree, tg.layout, r.strategy, method=r.name)
    print(f"total {time.perf_counter() - started:.1f} s; load average after: {os.getloadavg()[0]:.2f} (machine shared)")
    return 0
