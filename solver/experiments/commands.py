"""``solver experiment subgames|nested`` and ``solver export``: parsers and handlers."""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.arguments import add_command
from protocol.gamedef import GameDef, load_game
from solver.experiments import GAMES_DIR, TABLE1, TABLE1_QUICK, CommandError
from solver.experiments.depth_limited_command import add_parser as add_depth_limited_parser

if TYPE_CHECKING:  # the solvers load when a command runs, not for --help
    from solver.bets import ActionAbstraction

EXPERIMENT_DESCRIPTION = """\
Reproduces the subgame-solving tables of Libratus (Brown and Sandholm, 2017) on small
games that ship with the project: 'subgames' is Table 1 (a blueprint against unsafe
and safe subgame solving, in mbb/hand of exploitability), 'nested' is Table 2 (action
translation against nested subgame solving when the opponent bets sizes the blueprint
lacks).  --quick runs a tiny game in seconds; the full tables take minutes."""

EXPERIMENT_EPILOG = """examples:
  solver experiment subgames --quick
  solver experiment subgames --games small2,large2 --save runs/table1
  solver experiment nested --quick
  solver experiment nested --real '1/0.25,0.5,1,2,4;allin;cap=2'
"""

EXPORT_DESCRIPTION = """\
Writes a tabular strategy (from 'solver solve' or 'solver experiment subgames --save')
as one JSON file: for every seat, hole cards, board and betting sequence, the
probability of each action.  Other programs can play or inspect it without this
project."""

EXPORT_EPILOG = """examples:
  solver solve --game leduc.nolimit.2p --iterations 100 --out leduc.strategy
  solver export leduc.strategy --game leduc.nolimit.2p --out leduc.json
  solver experiment subgames --quick --save runs/quick
  solver export runs/quick/quick2-unsafe.strategy --game quick2 --out quick2.json
"""


def load_any_game(name: str) -> GameDef:
    """A bundled game, an experiment game by short name (``small2``), or a ``.game`` path."""
    own = GAMES_DIR / f"{name}.game"
    return load_game(own if own.is_file() else name)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``experiment`` and ``export`` to the ``solver`` command's subparsers."""
    experiment = add_command(sub, "experiment", "reproduce the Libratus subgame-solving tables on small games",
                             EXPERIMENT_DESCRIPTION, EXPERIMENT_EPILOG)
    which = experiment.add_subparsers(dest="experiment", required=True)
    subgames = add_command(which, "subgames", "Table 1: blueprint vs unsafe and safe subgame solving",
                           EXPERIMENT_DESCRIPTION, EXPERIMENT_EPILOG)
    subgames.add_argument("--quick", action="store_true", help="the cheap setting the tests run (small game, few iterations)")
    keys = ",".join(s.key for s in TABLE1)
    subgames.add_argument("--games", default=None, help=f"comma-separated games to run (default all: {keys})")
    subgames.add_argument("--save", type=Path, default=None, help="save every combined strategy as DIR/GAME-METHOD.strategy")
    subgames.set_defaults(handler=run_subgames)
    nested = add_command(which, "nested", "Table 2: action translation vs nested unsafe and safe subgame solving",
                         EXPERIMENT_DESCRIPTION, EXPERIMENT_EPILOG)
    nested.add_argument("--quick", action="store_true", help="the cheap setting the tests run (tiny game, few iterations)")
    nested.add_argument("--real", default=None,
                        help="the real game's sizes, an abstraction spec (default '1/0.5,1,2;allin;cap=2'); "
                             "it must offer the blueprint's sizes, e.g. '1/0.25,0.5,1,2,4;allin;cap=2'")
    nested.set_defaults(handler=run_nested_table)
    add_depth_limited_parser(which)
    export = add_command(sub, "export", "write a strategy as a JSON policy keyed by seat, hole, board and betting",
                         EXPORT_DESCRIPTION, EXPORT_EPILOG)
    export.add_argument("strategy", type=Path, help="a strategy artifact (from 'solver solve' or 'experiment --save')")
    export.add_argument("--game", required=True, help="its game: bundled name, experiment game (small2) or .game file")
    export.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    export.set_defaults(handler=run_export)


def run_subgames(args: argparse.Namespace) -> int:
    from solver.experiments.subgames import format_table, run_game
    from solver.strategies import save_strategy

    specs = TABLE1_QUICK if args.quick else TABLE1
    if args.games:
        wanted = [g.strip() for g in args.games.split(",") if g.strip()]
        unknown = [g for g in wanted if g not in {s.key for s in specs}]
        if unknown:
            raise CommandError(f"unknown experiment game {unknown[0]!r} (expected one of {', '.join(s.key for s in specs)})")
        specs = tuple(s for s in specs if s.key in wanted)
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    started = time.perf_counter()
    blueprints, floors, results = [], [], []
    for spec in specs:
        tg, base, floor, res = run_game(spec, log=lambda line: print(line, flush=True))
        blueprints.append(base)
        floors.append(floor)
        results.append(res)
        if args.save:
            for r in res:
                save_strategy(args.save / f"{spec.key}-{r.method}.strategy", tg.tree, tg.layout, r.strategy, method=r.method)
    print(format_table(specs, blueprints, floors, results))
    print(f"total {time.perf_counter() - started:.1f} s; load average after: {os.getloadavg()[0]:.2f} (machine shared)")
    return 0


def run_nested_table(args: argparse.Namespace) -> int:
    from solver.bets import parse_abstraction
    from solver.experiments.nested import NESTED, NESTED_QUICK, format_nested, run_nested

    spec = NESTED_QUICK if args.quick else NESTED
    if args.real is not None:
        real, blueprint = parse_abstraction(args.real), parse_abstraction(spec.blueprint)
        rounds = range(load_any_game(spec.key).num_rounds)
        if any(not set(_fractions(blueprint, r)) <= set(_fractions(real, r)) for r in rounds) or (
            blueprint.all_in and not real.all_in
        ):
            raise CommandError(f"--real {args.real!r} must offer every size of the blueprint's {spec.blueprint!r}")
        spec = replace(spec, real=args.real)
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    started = time.perf_counter()
    mbb, own, smallest = run_nested(spec, log=lambda line: print(line, flush=True))
    print(format_nested(spec, mbb, own, smallest))
    print(f"total {time.perf_counter() - started:.1f} s; load average after: {os.getloadavg()[0]:.2f} (machine shared)")
    return 0


def _fractions(abstraction: ActionAbstraction, round_: int) -> tuple[float, ...]:
    """The pot fractions ``abstraction`` bets on ``round_``."""
    table = abstraction.pot_fractions
    return table[min(round_, len(table) - 1)]


def run_export(args: argparse.Namespace) -> int:
    from solver.export import export_policy
    from solver.ranges import tabular_game
    from solver.strategies import load_strategy

    if args.out.is_dir():  # before loading anything: a folder cannot become the JSON file
        raise CommandError(f"--out {args.out} is a folder; give the JSON file to write, e.g. {args.out / 'policy.json'}")
    game = load_any_game(args.game)
    saved = load_strategy(args.strategy, game)
    if saved.params.get("card_abstraction", "identity") != "identity":
        raise CommandError(f"{args.strategy} is stored by card bucket; only tabular strategies can be exported")
    tg = tabular_game(game, saved.tree.abstraction)
    count = export_policy(args.out, tg, saved.strategy)
    print(f"wrote {count:,} entries to {args.out}")
    return 0
