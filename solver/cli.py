"""The ``solver`` command: solve small games, print exploitability, save strategies."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.arguments import add_command, command_line, run_command
from protocol.errors import ProtocolError
from protocol.gamedef import GameDef, load_game
from solver.experiments import CommandError
from solver.experiments.commands import add_parsers
from solver.spot_command import SpotUsageError
from solver.spot_command import add_parser as add_spot_parser

if TYPE_CHECKING:  # the solvers (numpy, numba) load when a command runs, not for --help
    import numpy as np

    from solver.bestresponse import Exploitability
    from solver.bets import ActionAbstraction
    from solver.ranges import TabularGame
    from solver.tree import Layout

#: solver.cfr.fullwidth.PRESETS, "mccfr" and solver.cce.cfr_jr.ALGORITHMS, spelled out so that --help
#: imports no solver (tests/solver/test_cli.py checks they agree).
ALGORITHMS = ("cfr", "cfr+", "linear", "dcfr", "mccfr", "cfr-jr", "cfr-s")
#: solver.cce.cfr_jr.VARIANTS.
CCE_VARIANTS = ("plus", "vanilla")
CCE_ALGORITHMS = ("cfr-jr", "cfr-s")
DEFAULT_ABSTRACTION = "0.5,1;allin"

SOLVE_DESCRIPTION = """\
Runs a solver on a small game for --iterations, printing the exploitability curve
(nash_conv, exploitability, mbb/hand) at log-spaced points, and saves the average
strategy for 'solver eval' and 'solver export'.  cfr, cfr+, linear and dcfr are
full-width CFR for two players; mccfr samples (any number of players, resumable with
--checkpoint); cfr-jr and cfr-s compute coarse correlated equilibria and save a
joint distribution (.cce)."""

SOLVE_EPILOG = """examples:
  solver solve --game leduc.limit.2p --algo dcfr --iterations 2000
  solver solve --game kuhn.limit.3p --algo mccfr --iterations 100000 --seed 7
  solver solve --game leduc.nolimit.2p --abstraction '0.5,1/1;allin' --algo cfr+ --iterations 500
  solver solve --game leduc.limit.2p --algo mccfr --iterations 200000 --checkpoint run.ckpt
  solver solve --game kuhn.limit.3p.r6 --algo cfr-jr --iterations 2000
  solver solve --game leduc.limit.3p.r4 --algo cfr-s --iterations 5000 --seed 3
"""

EVAL_DESCRIPTION = """\
Measures a strategy saved by 'solver solve': the best response of each player against
it, nash_conv (the sum of their gains), exploitability (nash_conv / players) and its
mbb/hand.  Tabular strategies only (no card abstraction)."""

EVAL_EPILOG = """examples:
  solver solve --game leduc.limit.2p --algo dcfr --iterations 200 --out leduc.strategy
  solver eval leduc.strategy --game leduc.limit.2p
"""


class UsageError(Exception):
    """A command-line request that cannot be carried out (one sentence)."""


def build_parser() -> argparse.ArgumentParser:
    parser, sub = command_line("solver", "Solve small poker games with the CFR family or MCCFR and measure exploitability.")
    solve = add_command(
        sub, "solve", "run a solver, print the exploitability curve, save the strategy", SOLVE_DESCRIPTION, SOLVE_EPILOG
    )
    solve.add_argument("--game", required=True, help="bundled game name (e.g. leduc.limit.2p) or .game file")
    solve.add_argument(
        "--algo", choices=ALGORITHMS, default="dcfr",
        help="cfr, cfr+, linear, dcfr (full width, 2 players), mccfr, or cfr-jr / cfr-s (coarse correlated equilibria)",
    )
    # Required, but checked after --game: a wrong game is the first thing to hear about.
    solve.add_argument("--iterations", type=int, help="iterations to run (required)")
    solve.add_argument(
        "--abstraction", default=None,
        help=f"no-limit bet sizes as pot fractions, e.g. '0.5,1/1;allin;cap=3' (default {DEFAULT_ABSTRACTION!r})",
    )
    solve.add_argument("--evaluations", type=int, default=10, help="points on the exploitability curve (default 10)")
    solve.add_argument("--seed", type=int, default=0, help="random seed of mccfr (default 0)")
    solve.add_argument(
        "--schedule", choices=("plain", "pluribus"), default="plain", help="mccfr: plain, or Pluribus's discounting and pruning"
    )
    solve.add_argument(
        "--checkpoint", type=Path, default=None,
        help="mccfr: save progress here at every evaluation and resume from it if present",
    )
    solve.add_argument(
        "--variant", choices=CCE_VARIANTS, default=None,
        help="cfr-jr/cfr-s: regret matching+ with linear averaging, or the paper's vanilla CFR (default plus)",
    )
    solve.add_argument(
        "--out", type=Path, default=None,
        help="output file (default artifacts/solver/GAME-ALGO-ITERATIONS.strategy, or .cce for cfr-jr/cfr-s)",
    )
    evaluate = add_command(sub, "eval", "exploitability of a saved strategy", EVAL_DESCRIPTION, EVAL_EPILOG)
    evaluate.add_argument("strategy", type=Path, help="a strategy file written by 'solver solve'")
    evaluate.add_argument("--game", required=True, help="the game it was solved for")
    add_parsers(sub)
    add_spot_parser(sub)
    return parser


def _checkpoints(total: int, count: int) -> list[int]:
    """Roughly log-spaced iteration counts ending at ``total``."""
    import numpy as np

    points = np.unique(np.geomspace(1, total, num=max(count, 1)).round().astype(int)) if total > 0 else []
    return [int(p) for p in points if p > 0] or [total]


def _row(iterations: int, seconds: float, result: Exploitability) -> str:
    return (
        f"{iterations:>12,d} {seconds:>9.2f} {result.nash_conv:>14.6g} {result.exploitability:>14.6g} "
        f"{result.exploitability_mbb:>12.2f}"
    )


HEADER = (
    "chips: nash_conv = sum of best-response gains, exploitability = nash_conv / players;\n"
    "mbb/hand = exploitability in milli-big-blinds per hand\n"
    f"{'iterations':>12} {'seconds':>9} {'nash_conv':>14} {'exploitability':>14} {'mbb/hand':>12}"
)


def _abstraction(args: argparse.Namespace, nolimit: bool) -> ActionAbstraction | None:
    from solver.bets import parse_abstraction

    if not nolimit:
        if args.abstraction:
            raise UsageError("--abstraction applies to no-limit games only")
        return None
    return parse_abstraction(args.abstraction or DEFAULT_ABSTRACTION)


def _check_writable(path: Path | None, option: str) -> None:
    """Refuse, before solving, a file to be written under a path where a file stands in for a folder."""
    if path is None:
        return
    folder = next((f for f in (path.parent, *path.parent.parents) if f.exists()), None)
    if folder is not None and not folder.is_dir():
        raise UsageError(f"{option} {path} cannot be written: {folder} is a file, not a folder")


def _solve(args: argparse.Namespace) -> int:
    game = load_game(args.game)
    if args.iterations is None:
        raise UsageError("give --iterations, the number of iterations to run")
    if args.iterations < 1:
        raise UsageError(f"--iterations must be at least 1, not {args.iterations}")
    if args.evaluations < 1:
        raise UsageError(f"--evaluations must be at least 1, not {args.evaluations}")
    if args.seed < 0:
        raise UsageError(f"--seed must be 0 or more, not {args.seed}")
    _check_writable(args.checkpoint, "--checkpoint")
    _check_writable(args.out, "--out")
    if args.algo in CCE_ALGORITHMS:
        return _solve_cce(args, game)
    if args.variant:
        raise UsageError("--variant applies to --algo cfr-jr and cfr-s only")
    if args.algo != "mccfr" and game.num_players != 2:
        raise UsageError(
            f"--algo {args.algo} solves two-player games; {args.game} has {game.num_players} players (use --algo mccfr)"
        )
    if args.checkpoint and args.algo != "mccfr":
        raise UsageError("--checkpoint applies to --algo mccfr only")
    from solver.bestresponse import exploitability
    from solver.cfr.fullwidth import PRESETS, CFRSolver
    from solver.ranges import tabular_game
    from solver.strategies import save_strategy

    tg = tabular_game(game, _abstraction(args, game.is_nolimit))
    print(f"{args.game}: {tg.tree.n_nodes:,} betting nodes, {tg.layout.size:,} strategy entries, algorithm {args.algo}")
    print(HEADER)
    started = time.perf_counter()
    if args.algo == "mccfr":
        strategy, lay, iterations = _run_mccfr(args, tg, started)
    else:
        solver = CFRSolver(tg, PRESETS[args.algo])
        for point in _checkpoints(args.iterations, args.evaluations):
            solver.run(point - solver.iterations)
            strategy = solver.average_strategy()
            print(_row(point, time.perf_counter() - started, exploitability(tg, strategy)), flush=True)
        lay, iterations = tg.layout, solver.iterations
    name = Path(args.game).name.removesuffix(".game")
    out = args.out or Path("artifacts") / "solver" / f"{name}-{args.algo}-{args.iterations}.strategy"
    save_strategy(out, tg.tree, lay, strategy, algorithm=args.algo, iterations=iterations, seed=args.seed)
    print(f"saved the strategy to {out}")
    return 0


def _run_mccfr(args: argparse.Namespace, tg: TabularGame, started: float) -> tuple[np.ndarray, Layout, int]:
    from protocol.cards import deck
    from solver.bestresponse import exploitability
    from solver.cfr.mccfr import PLAIN, MCCFRSolver, identity_abstraction, pluribus_schedule

    # Exploitability needs the average strategy on every round, so keep it on all.
    schedule = pluribus_schedule(args.iterations, average_rounds=tg.game.num_rounds) if args.schedule == "pluribus" else PLAIN
    solver = MCCFRSolver(tg.tree, deck(tg.game), identity_abstraction(tg.space), schedule, seed=args.seed)
    if args.checkpoint and args.checkpoint.exists():
        solver.resume(args.checkpoint)
        print(f"resumed {args.checkpoint} at iteration {solver.iterations:,}")
    for point in _checkpoints(args.iterations, args.evaluations):
        if point <= solver.iterations:
            continue
        solver.run(point - solver.iterations)
        if args.checkpoint:
            solver.save(args.checkpoint)
        print(_row(point, time.perf_counter() - started, exploitability(tg, solver.strategy())), flush=True)
    return solver.strategy(), solver.layout, solver.iterations


CCE_HEADER = (
    "chips: epsilon = largest gain of one player deviating from the joint distribution; alpha = epsilon / payoff range\n"
    f"{'iterations':>12} {'seconds':>9} {'epsilon':>14} {'alpha':>12} {'plain-CFR alpha':>16}"
)


def _solve_cce(args: argparse.Namespace, game: GameDef) -> int:
    """CFR-Jr / CFR-S: print the CCE gap curve, save the joint distribution."""
    if args.checkpoint:
        raise UsageError("--checkpoint applies to --algo mccfr only")
    from solver.cce.cfr_jr import CCESolver
    from solver.cce.game import full_game

    args.variant = args.variant or "plus"
    fg = full_game(game, _abstraction(args, game.is_nolimit))
    solver = CCESolver(fg, args.algo, args.variant, seed=args.seed)
    print(
        f"{args.game}: {fg.tree.n_nodes:,} betting nodes, {len(fg.hands):,} deals, |Z| = {fg.n_terminals:,} terminals, "
        f"infosets per player {[f.n_infosets for f in fg.forms]}, payoff range {fg.payoff_range:g} chips, "
        f"algorithm {args.algo} ({args.variant})"
    )
    print(CCE_HEADER)
    started = time.perf_counter()
    for point in _checkpoints(args.iterations, args.evaluations):
        solver.run(point - solver.iterations)
        seconds = time.perf_counter() - started
        result = solver.gap()
        plain = solver.cfr_product_gap().alpha
        print(f"{point:>12,d} {seconds:>9.2f} {result.epsilon:>14.6g} {result.alpha:>12.6g} {plain:>16.6g}", flush=True)
    for p, (value, gain) in enumerate(zip(result.values, result.gains)):
        print(f"player {p + 1}: value {value:+.6f} chips, best deviation gains {gain:.6f} chips")
    sizes = solver.joint.sizes()
    print(
        f"joint distribution: {sizes['terms']:,} terms, distinct plans per player {sizes['plans']}, "
        f"{sizes['bytes']:,} bytes; at most {solver.max_plans} plans per player in one iteration (bound |Z| = {fg.n_terminals:,})"
    )
    print(f"CCE gap: epsilon = {result.epsilon:.6g} chips, alpha = {result.alpha:.6g}")
    name = Path(args.game).name.removesuffix(".game")
    out = args.out or Path("artifacts") / "solver" / f"{name}-{args.algo}-{args.iterations}.cce"
    solver.save(out, result)
    print(f"saved the joint distribution to {out}")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from solver.bestresponse import exploitability
    from solver.ranges import tabular_game
    from solver.strategies import load_strategy

    game = load_game(args.game)
    saved = load_strategy(args.strategy, game)
    tg = tabular_game(game, saved.tree.abstraction)
    if saved.params.get("card_abstraction") != "identity":
        raise UsageError(
            f"{args.strategy} uses card abstraction {saved.params.get('card_abstraction')!r}; "
            "only tabular strategies can be evaluated here"
        )
    result = exploitability(tg, saved.strategy)
    print(HEADER)
    print(_row(int(saved.params.get("iterations", 0)), 0.0, result))
    for p, (value, gain) in enumerate(zip(result.values, result.gains)):
        print(f"player {p + 1}: value {value:+.6f} chips, best-response gain {gain:.6f} chips")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``solver`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)  # --help and usage errors end here, before any solver loads
    from solver.artifacts import ArtifactError

    handler = getattr(args, "handler", _solve if args.command == "solve" else _evaluate)
    # The solvers' own errors are ValueErrors.
    errors = (UsageError, CommandError, SpotUsageError, ProtocolError, ArtifactError, ValueError)
    return run_command(lambda: handler(args), "solver", errors, file_errors=True, error_label="solver: error")


if __name__ == "__main__":
    sys.exit(main())
