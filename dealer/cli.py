"""The ``dealer`` command: ``run`` a local match, ``serve`` a reference-compatible
dealer, play a baseline ``bot``, ``report`` on match logs, or ``compare`` two bots."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from protocol.arguments import add_command, command_line, nonnegative, port, run_command
from protocol.errors import GameDefError
from protocol.gamedef import load_game

EPILOG_SERVE = """examples:
  dealer serve m1 holdem.nolimit.2p 1000 42 Alice Bob
  dealer serve m1 ./my.game 3000 7 Alice Bob -p 18001,18002 --t_per_hand 7000
  dealer serve m1 holdem.nolimit.2p 1000 42 Alice Bob -a     # resume a killed match

Prints the ports (one per seat, seat order) as the first line of stdout and
SCORE:<totals>:<names> as the last.  Writes MATCH.log (and MATCH.tlog, the
transaction log that -a resumes from) in --out-dir."""

EPILOG_BOT = """examples:
  dealer bot random 127.0.0.1 18001 --game holdem.nolimit.2p --seed 3
  dealer bot call 127.0.0.1 18002 --game leduc.limit.2p --decision-log call.dlog

kinds: random (the reference example player), call, raise (minimum raise),
allin, fold (fold when facing a bet), equity (a heuristic heads-up hold'em player:
equity against the opponent's narrowed range, pot odds; dealer.equitybot)."""


def _int_list(text: str) -> list[int]:
    try:
        return [int(p) for p in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated port numbers, got {text!r}") from None


def _add_serve(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "serve", "run a reference-compatible dealer for one match",
        "A dealer that behaves like the ACPC reference dealer (protocol 2.0.0).", EPILOG_SERVE,
    )  # fmt: skip
    p.add_argument("match", metavar="MATCH", help="match name; the log is MATCH.log")
    p.add_argument("game", metavar="GAME", help="a .game file or a bundled game's short name")
    p.add_argument("hands", metavar="HANDS", type=int, help="number of hands")
    p.add_argument("seed", metavar="SEED", type=int, help="seed of the card stream (same seed, same cards)")
    p.add_argument("names", metavar="NAME", nargs="+", help="one name per seat")
    p.add_argument("-f", dest="fixed_seats", action="store_true", help="fixed seats (no rotation)")
    p.add_argument("-p", dest="ports", type=_int_list, help="fixed ports p1,p2,... (default: from the seed)")
    p.add_argument("-q", dest="quiet", action="store_true", help="quiet: no TO/FROM transcript on stderr")
    p.add_argument("-l", dest="log", action="store_false", help="no log file")
    p.add_argument("-L", dest="log", action="store_true", help="write the log file (default)")
    p.add_argument("-t", dest="tlog", action="store_false", help="no transaction log (then -a cannot resume)")
    p.add_argument("-T", dest="tlog", action="store_true", help="write the transaction log (default)")
    p.add_argument("-a", dest="append", action="store_true", help="resume the match from its transaction log")
    p.add_argument("--t_response", type=int, default=600000, help="ms per action (default 600000)")
    p.add_argument("--t_hand", type=int, default=600000, help="ms per hand (default 600000)")
    p.add_argument("--t_per_hand", type=int, default=7000, help="average ms per hand over the match (default 7000)")
    p.add_argument("--start_timeout", type=int, default=None, help="ms for seats to connect (default: no limit)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--out-dir", type=Path, default=Path("."), help="folder for the logs (default: here)")
    p.set_defaults(func=_serve, log=True, tlog=True)


def _serve(args: argparse.Namespace) -> int:
    from dealer.server import MatchServer, ServeOptions

    game = load_game(args.game)
    opts = ServeOptions(
        match=args.match,
        game=game,
        game_label=args.game,
        hands=args.hands,
        seed=args.seed,
        names=args.names,
        fixed_seats=args.fixed_seats,
        ports=args.ports,
        quiet=args.quiet,
        log=args.log,
        transaction_log=args.tlog,
        append=args.append,
        t_response=args.t_response,
        t_hand=args.t_hand,
        t_per_hand=args.t_per_hand,
        start_timeout=args.start_timeout,
        host=args.host,
        out_dir=args.out_dir,
    )
    try:
        server = MatchServer(opts)
    except ValueError as exc:
        raise SystemExit(f"dealer serve: {exc}") from None
    return server.run()


def _add_bot(sub: argparse._SubParsersAction) -> None:
    from dealer.bots import POLICIES

    p = add_command(
        sub, "bot", "play a baseline bot against a dealer",
        "Connects to a dealer's seat port and plays one of the baseline bots until the match ends; "
        "with --decision-log it logs the exact distribution of every decision, which lets AIVAT remove "
        "that seat's luck from a report.",
        EPILOG_BOT,
    )  # fmt: skip
    p.add_argument("kind", choices=sorted(POLICIES), help="which baseline bot")
    p.add_argument("host", help="dealer host")
    p.add_argument("port", type=port, help="this seat's port")
    p.add_argument("--game", required=True, help="the match's game (.game file or bundled short name)")
    p.add_argument("--seed", type=nonnegative, default=0, help="seed of the bot's own randomness (default 0)")
    p.add_argument("--name", help="seat name written in the decision log")
    p.add_argument("--match", default="", help="match name written in the decision log")
    p.add_argument("--decision-log", type=Path, help="write every decision's probabilities here (for AIVAT)")
    p.set_defaults(func=_bot)


def _bot(args: argparse.Namespace) -> int:
    from dealer.botclient import BotFailed, play

    game = load_game(args.game)
    try:
        play(args.kind, args.host, args.port, game, seed=args.seed, name=args.name, match=args.match,
             decision_log=args.decision_log)  # fmt: skip
    except BotFailed as exc:
        raise SystemExit(f"dealer bot: {exc}") from None
    return 0


def _add_evaluation_command(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """``dealer NAME``: its arguments come from :mod:`dealer.evaluation.arguments` (argparse
    only); ``dealer.evaluation.NAME`` (numpy, scipy) loads when the command runs."""
    from dealer.evaluation import arguments

    p = sub.add_parser(name, help=help)
    getattr(arguments, f"add_{name}_arguments")(p)

    def run(args: argparse.Namespace) -> int:
        problem = arguments.missing_log(args)
        if problem is not None:  # said at once, not after seconds of imports
            print(f"dealer {name}: {problem}", file=sys.stderr)
            return 1
        module = importlib.import_module(f"dealer.evaluation.{name}")
        return getattr(module, f"run_{name}")(args)

    p.set_defaults(func=run)


def build_parser() -> argparse.ArgumentParser:
    parser, sub = command_line("dealer", "Local ACPC matches: a reference-compatible dealer, baseline bots, and reports.")
    from dealer.run import add_run_parser

    add_run_parser(sub)
    from dealer.tournament import add_tournament_parser

    add_tournament_parser(sub)
    _add_serve(sub)
    _add_bot(sub)
    _add_evaluation_command(sub, "report", "significance report for match logs (raw, duplicate and AIVAT)")
    _add_evaluation_command(sub, "compare", "did bot X win more than bot Y against the same opponents? (paired by deal)")
    _add_evaluation_command(sub, "hands", "print chosen hands with every decision and where its row came from")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_command(lambda: args.func(args), parser_prog(args), (GameDefError,))


def parser_prog(args: argparse.Namespace) -> str:
    return f"dealer {args.command}"


if __name__ == "__main__":
    sys.exit(main())
