"""The ``agent`` command: play a match against an ACPC dealer (``agent connect HOST PORT``)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

import structlog

from protocol.errors import GameDefError
from protocol.gamedef import load_game

EPILOG = """examples:
  agent connect 127.0.0.1 18001
  agent connect 127.0.0.1 18001 --game holdem.nolimit.2p --seed 7 --decision-log agent.dlog
  agent connect 127.0.0.1 18001 --time-budget 7 --action-limit 60 --blueprint-only

Plays until the dealer closes the connection, then prints one line: hands played,
decisions, mean and slowest decision time.  Quiet by default (warnings and errors
only, on stderr); -v adds an event per hand."""


def configure_logging(verbose: bool) -> None:
    """structlog to stderr: warnings only unless verbose; JSON when stderr is not a terminal."""
    renderer = structlog.dev.ConsoleRenderer() if sys.stderr.isatty() else structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso"), renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO if verbose else logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent", description="The heads-up no-limit competition agent (ACPC protocol 2.0.0)."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser(
        "connect",
        help="connect to a dealer and play until the match ends",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("host", help="dealer host")
    p.add_argument("port", type=int, help="this seat's port")
    p.add_argument("--game", default="holdem.nolimit.2p", help="bundled game name or .game file (default holdem.nolimit.2p)")
    p.add_argument("--blueprint", type=Path, default=None, help="blueprint artifact (default: the one shipped with the package)")
    p.add_argument("--blueprint-only", action="store_true", help="never solve subgames: blueprint and translation only")
    p.add_argument("--time-budget", type=float, default=7.0, help="the dealer's average seconds per hand (default 7)")
    p.add_argument("--action-limit", type=float, default=60.0, help="the dealer's seconds per action (default 60)")
    p.add_argument("--target", type=float, default=None, help="average seconds per hand to aim at (default budget / 4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the agent's randomness (default 0)")
    p.add_argument("--decision-log", type=Path, help="log every decision with the strategy of every hand (for AIVAT)")
    p.add_argument("--name", default="agent", help="seat name written in the decision log (default agent)")
    p.add_argument("--match", default="", help="match name written in the decision log")
    p.add_argument("-v", "--verbose", action="store_true", help="log an event per hand (structlog, stderr)")
    p.set_defaults(func=connect)
    return parser


def connect(args: argparse.Namespace) -> int:
    from agent.loop import play
    from agent.pipeline import PipelineError, build_strategist
    from agent.policy import Agent
    from agent.timing import TimeLimits, TimeManager
    from protocol.client import Connection
    from protocol.decisions import CARD_DEPENDENT, DecisionLogWriter

    game = load_game(args.game)
    for option, value in (("--time-budget", args.time_budget), ("--action-limit", args.action_limit), ("--target", args.target)):
        if value is not None and not value > 0:
            print(f"agent connect: {option} must be a positive number of seconds, got {value}", file=sys.stderr)
            return 2
    try:
        limits = TimeLimits(per_hand=args.time_budget, per_action=args.action_limit, target=args.target).validated()
        strategist = build_strategist(game, args.blueprint, blueprint_only=args.blueprint_only, seed=args.seed)
    except (ValueError, PipelineError) as exc:
        print(f"agent connect: {exc}", file=sys.stderr)
        return 2
    agent = Agent(game, strategist, TimeManager(limits), seed=args.seed)
    try:
        conn = Connection.open(args.host, args.port, game)
    except OSError as exc:
        print(f"agent connect: cannot reach the dealer at {args.host}:{args.port} ({exc.strerror or exc})", file=sys.stderr)
        return 1
    writer = (
        DecisionLogWriter(args.decision_log, seat=args.name, match=args.match, game=game, strategy=CARD_DEPENDENT)
        if args.decision_log is not None
        else None
    )
    try:
        with conn:
            summary = play(conn, agent, writer)
    finally:
        if writer is not None:
            writer.close()
    times = sorted(summary.action_seconds)
    timing = f"mean {sum(times) / len(times):.3f} s, max {times[-1]:.3f} s per decision" if times else "no decisions"
    if summary.sources:
        timing += "; " + ", ".join(f"{source} {count}" for source, count in sorted(summary.sources.items()))
    if summary.clean:
        print(f"agent: match over after {summary.hands} hands, {summary.decisions} decisions ({timing})", file=sys.stderr)
        return 0
    print(f"agent: the connection to the dealer was lost during hand {summary.hands} ({timing})", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(getattr(args, "verbose", False))
    try:
        return int(args.func(args) or 0)
    except GameDefError as exc:
        print(f"agent {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"agent {args.command}: interrupted", file=sys.stderr)
        return 130


def entry() -> None:
    """The console script: :func:`main`, then an immediate exit.

    Every log is closed and flushed by then, so the interpreter's teardown (a second or
    more of garbage collection after a long match, far longer on a loaded machine) is
    skipped: the dealer sees the agent leave at once, as the competition requires
    (within 10 s of the match's end).
    """
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
