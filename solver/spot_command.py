"""``solver spot``: the range solver as a command (parser and handler).

The parser imports nothing numerical, so ``solver spot --help`` stays fast; the
handler loads :mod:`solver.spot_solution` and :mod:`solver.spot_report` when it runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from protocol.arguments import add_command

DESCRIPTION = """\
Solves one postflop spot with the range solver (DCFR over both players' ranges): the
board (3, 4 or 5 cards: a flop, turn or river spot), the pot, the effective stack, each
player's range in the usual notation (AA,KK,AKs,QJo:0.5,22+,A2s+,T9s-65s,AhKh,random),
bet and raise sizes in % of the pot per street and player, an all-in threshold, and
when to stop (accuracy in % of the pot, a time limit, an iteration cap).  Progress goes
to stderr.  Prints the tree's size, the solve's time, iterations, exploitability and
memory, then the strategy at the root (or at --line) by hand class, weighted by the
range's combos, and the range's overall action frequencies.  --out saves the whole
strategy as a JSON policy (the format of 'solver export', with the spot and ranges);
--load reopens one and prints the same report, at any node, without solving.  A --spot
file (TOML or JSON, e.g. tests/bench/spots/river.toml) holds the same fields; flags
override it."""

EPILOG = """examples:
  solver spot --spot tests/bench/spots/river.toml --ip-range 'AA-99,AK,AQs,KQs,QJs,JTs:0.5' --accuracy 0.2 --out river.json
  solver spot --load river.json --line check,bet67 --hand AQs
  solver spot --board QsJh2h8d3c --pot 100 --stack 400 --bet-sizes both,river,bet,50,100 --bet-sizes both,river,allin
  solver spot --spot tests/bench/spots/turn.toml --oop-range '22+,A2s+,KTs+,QTs+,JTs,AJo+' \\
      --ip-range '88+,ATs+,KQs,AQo+' --threads 2 --accuracy 1 --time-limit 120

line: the actions after the root, comma separated, as the tables name them (check,
call, fold, bet50, raise150, allin) or in ACPC (c, f, r150); a dealt card where the
tree deals one (check,check,Kd,bet50).  Ranges: comma-separated hands, pairs (AA, 22+,
TT-77), suited/offsuit/both (AKs, AKo, AK, A2s+, KTo+, T9s-65s, A9s-A6s), combos (AhKh),
each with an optional :WEIGHT in [0, 1]; random or all for every hand.  A combo named
twice must get one weight.  Sizes: SEAT,STREET,KIND[,SIZE...] with SEAT oop, ip or
both, STREET flop, turn or river, KIND bet, raise (% of the pot after calling) or allin.
"""

#: Flags that describe the spot (a --load reuses the saved spot, so it refuses them).
SPOT_FLAGS = (
    ("spot", "--spot"), ("board", "--board"), ("pot", "--pot"), ("effective_stack", "--stack"),
    ("oop_range", "--oop-range"), ("ip_range", "--ip-range"), ("allin_threshold", "--allin-threshold"),
    ("raise_cap", "--raise-cap"), ("accuracy", "--accuracy"), ("check_every", "--check-every"), ("threads", "--threads"),
    ("time_limit", "--time-limit"), ("max_iterations", "--max-iterations"), ("out", "--out"),
)  # fmt: skip


class SpotUsageError(Exception):
    """A ``solver spot`` request that cannot be carried out (one sentence)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``spot`` to the ``solver`` command's subparsers."""
    parser = add_command(sub, "spot", "solve a postflop spot over two ranges; print, save and reopen its strategy",
                         DESCRIPTION, EPILOG)  # fmt: skip
    spot = parser.add_argument_group("the spot (flags override --spot FILE)")
    spot.add_argument("--spot", type=Path, metavar="FILE", help="a spot file, .toml or .json (e.g. tests/bench/spots/river.toml)")
    spot.add_argument("--board", metavar="CARDS", help="3, 4 or 5 cards, e.g. QsJh2h8d3c (flop, turn or river spot)")
    spot.add_argument("--pot", type=int, metavar="CHIPS", help="chips in the pot at the root (even)")
    spot.add_argument("--stack", type=int, dest="effective_stack", metavar="CHIPS", help="effective stack behind, chips")
    spot.add_argument("--oop-range", metavar="RANGE", help="the first player's range, e.g. 'AA,KK,AKs,QJo:0.5' (default random)")
    spot.add_argument("--ip-range", metavar="RANGE", help="the second player's range (default random)")
    spot.add_argument(
        "--bet-sizes", action="append", default=[], metavar="SEAT,STREET,KIND[,SIZE...]",
        help="e.g. both,river,bet,50,100 / oop,turn,raise,100 / ip,river,allin (repeat; %% of the pot)",
    )  # fmt: skip
    spot.add_argument(
        "--allin-threshold", type=float, metavar="F", help="a bet adding more than this fraction of the chips behind is all-in"
    )
    spot.add_argument(
        "--raise-cap", type=int, metavar="N", help="bets and raises per street, the first bet counted (default none)"
    )
    solve = parser.add_argument_group("the solve")
    solve.add_argument("--accuracy", type=float, metavar="PCT", help="stop at this exploitability, %% of the pot (default 0.5)")
    solve.add_argument("--time-limit", type=float, metavar="SECONDS", help="stop after this long (default none)")
    solve.add_argument("--max-iterations", type=int, metavar="N", help="stop after this many iterations (default 1000)")
    solve.add_argument(
        "--check-every", type=int, metavar="N", help="measure the exploitability every N iterations (default: as predicted)"
    )
    solve.add_argument("--threads", type=int, metavar="N", help="numba threads (default 1)")
    solve.add_argument(
        "--out", type=Path, metavar="FILE", help="save the strategy, spot and ranges as JSON (.json, or .json.gz compressed)"
    )
    show = parser.add_argument_group("what to show")
    show.add_argument("--load", type=Path, metavar="FILE", help="reopen a file saved with --out instead of solving")
    show.add_argument(
        "--line", default="", metavar="ACTIONS", help="show the node after these actions (e.g. check,bet50) instead of the root"
    )
    show.add_argument(
        "--hand", metavar="RANGE", help="also show these hands' probabilities, one row per combo (e.g. AhKh, or AQs)"
    )
    show.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    parser.set_defaults(handler=run_spot)


def run_spot(args: argparse.Namespace) -> int:
    """Solve (or load) the spot and print the report; raises SpotUsageError or SpotError (ValueError)."""
    from solver.range_notation import RangeError, parse_range
    from solver.spot import apply_size_flags, read_spot_file, spot_from_mapping
    from solver.spot_report import node_lines, node_of_line, solve_lines
    from solver.spot_solution import build_spot, load_solution, save_solution, solve_spot

    if args.hand is not None:
        try:
            parse_range(args.hand)
        except RangeError as error:
            raise SpotUsageError(f"--hand: {error}") from None
    if args.load is not None:
        given = [flag for key, flag in SPOT_FLAGS if getattr(args, key) is not None] + (["--bet-sizes"] if args.bet_sizes else [])
        if given:
            raise SpotUsageError(
                f"--load reopens a saved solve as it was; drop {', '.join(given)} (or solve again without --load)"
            )
        solution = load_solution(args.load)
        node, board = node_of_line(solution.spot, solution.subgame, args.line)
        loaded_from = str(args.load)
    else:
        if args.spot is None and args.board is None:
            raise SpotUsageError("give a spot: --board, --pot, --stack and --bet-sizes, or --spot FILE (see solver spot --help)")
        data = read_spot_file(args.spot) if args.spot is not None else {}
        overrides = {key: getattr(args, key) for key, _ in SPOT_FLAGS if key not in ("spot", "out")}
        spot = spot_from_mapping(apply_size_flags(data, args.bet_sizes), overrides)
        if not spot.sizes or not any(s.bet or s.raise_ or s.allin for seats in spot.sizes.values() for s in seats.values()):
            raise SpotUsageError(
                "the spot has no bet sizes, so both players could only check: give some, e.g. --bet-sizes both,river,bet,50,100"
            )
        if args.out is not None and args.out.is_dir():
            raise SpotUsageError(f"--out {args.out} is a folder; give the JSON file to write")
        built = build_spot(spot)
        node, board = node_of_line(spot, built.subgame, args.line)  # a bad --line is refused before the solve
        solution = solve_spot(spot, built, progress=not args.quiet)
        loaded_from = None
    lines = solve_lines(solution, loaded_from)
    if args.out is not None and args.load is None:
        count = save_solution(args.out, solution)
        lines.append(f"saved {count:,} policy entries to {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")
    print("\n".join([*lines, "", *node_lines(solution, node, board, args.hand)]))
    return 0
