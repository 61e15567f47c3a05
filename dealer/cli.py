"""The ``dealer`` command: ``run`` a local match, ``serve`` a reference-compatible
dealer, play a baseline ``bot``, ``report`` on match logs, or ``compare`` two bots."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path

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


def _nonnegative(text: str) -> int:
    """An argparse type: an integer >= 0 (seeds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _port(text: str) -> int:
    """An argparse type: a TCP port, 1..65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is between 1 and 65535, got {value}")
    return value


def _int_list(text: str) -> list[int]:
    try:
        return [int(p) for p in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated port numbers, got {text!r}") from None


def _add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run a reference-compatible dealer for one match",
        description="A dealer that behaves like the ACPC reference dealer (protocol 2.0.0).",
        epilog=EPILOG_SERVE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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

    p = sub.add_parser(
        "bot",
        help="play a baseline bot against a dealer",
        epilog=EPILOG_BOT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("kind", choices=sorted(POLICIES), help="which baseline bot")
    p.add_argument("host", help="dealer host")
    p.add_argument("port", type=_port, help="this seat's port")
    p.add_argument("--game", required=True, help="the match's game (.game file or bundled short name)")
    p.add_argument("--seed", type=_nonnegative, default=0, help="seed of the bot's own randomness (default 0)")
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


EPILOG_REPORT = """examples:
  dealer report matches/20261121-120000/match.log
  dealer report matches/run1/*.log --decisions matches/run1/decisions --json r.json --plot r.png
  dealer report tests/data/reference/logs/nolimit2p_s11.log   # a reference dealer log

Mirrored logs of a duplicate run (same seed and game, seats rotated) are paired
hand by hand; decision logs add AIVAT's variance-reduced estimates."""


def _add_evaluation_command(sub: argparse._SubParsersAction, name: str, help: str, epilog: str | None = None) -> None:
    """``dealer NAME``, whose arguments and runner (``add_NAME_arguments``, ``run_NAME``)
    live in ``dealer.evaluation.NAME``, imported only when that command is used."""

    def populate(p: argparse.ArgumentParser) -> None:
        module = importlib.import_module(f"dealer.evaluation.{name}")
        getattr(module, f"add_{name}_arguments")(p)
        p.set_defaults(func=getattr(module, f"run_{name}"))

    sub.add_parser(name, help=help, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter, populate=populate)


class _LazyParser(argparse.ArgumentParser):
    """A command's parser that may add its arguments only when that command is used.

    ``populate(parser)`` runs before the first parse or help text, so a command whose
    arguments live in a heavy module (the report imports scipy) costs the others
    nothing: ``dealer bot`` must start fast.
    """

    def __init__(self, *args, populate: Callable[[argparse.ArgumentParser], None] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._populate = populate

    def _fill(self) -> None:
        if self._populate is not None:
            populate, self._populate = self._populate, None
            populate(self)

    def parse_known_args(self, args=None, namespace=None):
        self._fill()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._fill()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dealer",
        description="Local ACPC matches: a reference-compatible dealer, baseline bots, and reports.",
        epilog="Run 'dealer COMMAND --help' for each command's options and examples.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_LazyParser)
    from dealer.run import add_run_parser

    add_run_parser(sub)
    from dealer.tournament import add_tournament_parser

    add_tournament_parser(sub)
    _add_serve(sub)
    _add_bot(sub)
    _add_evaluation_command(sub, "report", "significance report for match logs (raw, duplicate and AIVAT)", EPILOG_REPORT)
    _add_evaluation_command(sub, "compare", "did bot X win more than bot Y against the same opponents? (paired by deal)")
    from dealer.evaluation.hands import EPILOG as hands_epilog

    _add_evaluation_command(sub, "hands", "print chosen hands with every decision and where its row came from", hands_epilog)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except GameDefError as exc:
        print(f"{parser_prog(args)}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{parser_prog(args)}: interrupted", file=sys.stderr)
        return 130


def parser_prog(args: argparse.Namespace) -> str:
    return f"dealer {args.command}"


if __name__ == "__main__":
    sys.exit(main())
