"""The ``agent`` command: play a match against an ACPC dealer (``agent connect HOST PORT``),
or measure the agent against local best response (``agent lbr``)."""

from __future__ import annotations

import argparse
import functools
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.arguments import add_command, command_line, port, run_command
from protocol.errors import GameDefError
from protocol.gamedef import load_game

if TYPE_CHECKING:
    from agent.lbr_policy import AgentRangePolicy
    from agent.solving import SolveSettings

#: solver.action_floor.ACTION_FLOOR, solver.subgame.gadgets.UNSAFE_WEIGHT, agent.solving.SAFE_ITERATIONS,
#: agent.solving.SUBGAME_ABSTRACTION, RIVER_RERAISE_SIZES and TURN_SEARCHES, solver.subgame.alternatives.SAFE_GADGETS
#: and agent.strategist.ALL_IN_RULES, copied so that --help loads
#: neither the agent nor numpy (tests/test_help.py checks they agree).
ACTION_FLOOR = 0.05
UNSAFE_WEIGHT = 0.01
SAFE_ITERATIONS = 300
SUBGAME_ABSTRACTION = "0.5,1,2;allin;cap=2"
RIVER_RERAISE_SIZES = "0.5,1,2;raise=1;allin;cap=3"
SAFE_GADGETS = ("maxmargin-unsafe", "maxmargin", "resolve")
TURN_SEARCHES = ("auto", "full", "depth-limited")
ALL_IN_RULES = ("solve", "equity")
ALL_IN_HELP = ("facing an all-in with nothing left to decide: solve solves the spot safe on the turn and river "
               "(the blueprint before), equity calls when the equity against the modelled range pays the price "
               "(default solve)")

CONNECT_DESCRIPTION = """\
Connects to an ACPC dealer's seat port (protocol 2.0.0) and plays heads-up no-limit
hold'em until the match ends: the blueprint strategy for the early rounds, subgame
solving in real time from --solve-from on, within the dealer's time limits.  With
--decision-log it logs every decision with its strategy for every hand it could hold,
which lets AIVAT remove the luck of the cards from a report."""

EPILOG = """examples:
  dealer serve m1 holdem.nolimit.2p 100 42 agent caller -p 18001,18002 -q &   # a dealer to connect to
  dealer bot call 127.0.0.1 18002 --game holdem.nolimit.2p &
  agent connect 127.0.0.1 18001 --seed 7 --decision-log agent.dlog
  agent connect 127.0.0.1 18001 --time-budget 7 --action-limit 60 --blueprint-only

Plays until the dealer closes the connection, then prints one line: hands played,
decisions, mean and slowest decision time.  Quiet by default (warnings and errors
only, on stderr); -v adds an event per hand.  'dealer run agent call' does all of
the above in one command."""

LBR_DESCRIPTION = """\
How exploitable is the agent?  Local best response (Lisy and Bowling, 2017) plays
against it in this process, knowing the agent's exact range at every decision from its
full-range strategy, and picks each action greedily with one of a few fixed bet sets.
LBR's winnings are a lower bound on what a best response would win."""


def _fraction(text: str) -> float:
    """An argparse type: a probability in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability, got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 0 and below 1, got {value}")
    return value



def configure_logging(verbose: bool) -> None:
    """structlog to stderr: warnings only unless verbose; JSON when stderr is not a terminal."""
    import structlog

    renderer = structlog.dev.ConsoleRenderer() if sys.stderr.isatty() else structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso"), renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO if verbose else logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )


LBR_EPILOG = """examples:
  agent lbr --setting fc --hands 3000 --out runs/lbr-fc
  agent lbr --setting fcpa --hands 3000 --out runs/lbr-fcpa --target 0.5
  agent lbr --setting fcpa --hands 3000 --solve-from turn --out runs/lbr-fcpa-turn
  agent lbr --setting fcpa --hands 3000 --jobs 2 --out runs/lbr-fcpa-2cores
  agent lbr --setting fc --hands 200 --blueprint-only --out runs/lbr-fc-bp
  agent lbr --quick --blueprint-only

Local best response (Lisy & Bowling 2017) plays the agent in-process, tracking the
agent's exact range from its full-range strategy; settings: fc (fold/call on every
round), fcpa (check/call preflop and flop, then fold/call/pot/all-in), 56 (check/call,
then 56 pot fractions and all-in on turn and river).  Prints LBR's winnings in
mbb/hand with a 95% CI (positive: the agent is exploitable).  With --out, every hand
is written as it ends and running the same command again resumes the run.  With
--jobs N, N processes play the hands (one agent each: N times the memory, N times
the hands per second on N free cores); only LBR's preflop and flop equity samples
depend on the split."""


def _add_strategist_options(p: argparse.ArgumentParser) -> None:
    """The options of the agent's strategist (:func:`agent.strategist.build_strategist`),
    the same for a real match and an LBR run."""
    p.add_argument("--game", default="holdem.nolimit.2p", help="bundled game name or .game file (default holdem.nolimit.2p)")
    p.add_argument("--blueprint", type=Path, default=None, help="blueprint artifact (default: the one shipped with the package)")
    p.add_argument("--blueprint-only", action="store_true", help="never solve subgames: blueprint and translation only")
    p.add_argument("--action-floor", type=_fraction, default=ACTION_FLOOR,
                   help=f"drop blueprint actions below this probability (default {ACTION_FLOOR}; 0 keeps them all)")
    p.add_argument("--all-in", choices=ALL_IN_RULES, default=ALL_IN_RULES[0], help=ALL_IN_HELP)
    p.add_argument(
        "--solve-from", choices=("river", "turn", "flop"), default="river",
        help="the first round solved in real time (default river; turn: one bet size there, seconds per solve; "
             "flop: also depth-limited flop search, unsafe, seconds per solve)",
    )  # fmt: skip
    p.add_argument("--turn-search", choices=TURN_SEARCHES, default=TURN_SEARCHES[0],
                   help="a turn solve (--solve-from turn or flop): full-depth where the time allows and depth-limited "
                        "where it does not (auto, the default), full-depth or the blueprint (full), or always "
                        "depth-limited, ending with the turn")
    p.add_argument("--unsafe-weight", type=float, default=UNSAFE_WEIGHT,
                   help=f"weight of the modelled range beside the safety margins in solves (default {UNSAFE_WEIGHT})")
    p.add_argument("--open-unsafe-weight", type=float, default=None, metavar="W",
                   help="the unsafe weight of solves where the agent faces no bet (it opens the round's betting); "
                        "default: --unsafe-weight")
    p.add_argument("--gadget", choices=SAFE_GADGETS, default=SAFE_GADGETS[0],
                   help=f"the root gadget of a hand's first safe solve (default {SAFE_GADGETS[0]})")
    p.add_argument("--later-gadget", choices=SAFE_GADGETS, default=None,
                   help="the root gadget of the hand's later solves (a new round, or an opponent bet off the last "
                        "solve's tree), whose alternatives are the last solve's estimates (default: --gadget)")
    p.add_argument("--solve-root", choices=("decision", "round"), default="decision",
                   help="where a round's first solve is rooted when the opponent opened the round: at the agent's "
                        "decision after the opponent's bet (default) or at the start of the round, the bet solved too")
    p.add_argument("--new-round-alternatives", choices=("estimated", "blueprint"), default="estimated",
                   help="a solve on a new round after an earlier solve of the hand (the river after a turn solve) is "
                        "safe against the last solve's estimates (default) or the blueprint's values, as a hand's "
                        "first solve")
    p.add_argument("--river-sizes", default=SUBGAME_ABSTRACTION, metavar="SPEC",
                   help=f"bet sizes of a river subgame as pot fractions (default {SUBGAME_ABSTRACTION!r}: two raises a "
                        f"round, so a river solve's raise is never re-raised in its model; {RIVER_RERAISE_SIZES!r} "
                        "adds the re-raise)")
    p.add_argument("--solve-iterations", type=int, default=SAFE_ITERATIONS,
                   help=f"a safe solve stops after this many iterations or at its deadline (default {SAFE_ITERATIONS})")


def _solve_settings(args: argparse.Namespace) -> SolveSettings:
    """The safe solves' settings from the options (ValueError naming a bad one)."""
    from agent.solving import SolveSettings

    return SolveSettings(
        args.gadget, args.unsafe_weight, args.solve_iterations, args.later_gadget, args.solve_root, args.new_round_alternatives,
        args.river_sizes, args.open_unsafe_weight, args.turn_search,
    ).validated()


def build_parser() -> argparse.ArgumentParser:
    parser, sub = command_line("agent", "The heads-up no-limit competition agent (ACPC protocol 2.0.0).")
    p = add_command(sub, "connect", "connect to a dealer and play until the match ends", CONNECT_DESCRIPTION, EPILOG)
    p.add_argument("host", help="dealer host")
    p.add_argument("port", type=port, help="this seat's port (1-65535)")
    _add_strategist_options(p)
    p.add_argument("--time-budget", type=float, default=7.0, help="the dealer's average seconds per hand (default 7)")
    p.add_argument("--action-limit", type=float, default=60.0, help="the dealer's seconds per action (default 60)")
    p.add_argument("--target", type=float, default=None, help="average seconds per hand to aim at (default budget / 4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the agent's randomness (default 0)")
    p.add_argument("--decision-log", type=Path, help="log every decision with the strategy of every hand (for AIVAT)")
    p.add_argument("--name", default="agent", help="seat name written in the decision log (default agent)")
    p.add_argument("--match", default="", help="match name written in the decision log")
    p.add_argument("-v", "--verbose", action="store_true", help="log an event per hand (structlog, stderr)")
    p.set_defaults(func=connect)
    q = add_command(sub, "lbr", "measure the agent against local best response (in-process)", LBR_DESCRIPTION, LBR_EPILOG)
    q.add_argument("--setting", choices=("fc", "fcpa", "56"), default="fc", help="LBR's action set (default fc)")
    q.add_argument("--hands", type=int, default=3000, help="hands in the run, resumed ones included (default 3000)")
    q.add_argument("--seed", type=int, default=0, help="seeds the deals, LBR's equity sampling and the agent (default 0)")
    _add_strategist_options(q)
    q.add_argument("--time-budget", type=float, default=7.0, help="the agent's seconds per hand, as a dealer's (default 7)")
    q.add_argument("--target", type=float, default=None, help="average seconds per hand the agent aims at (default budget / 4)")
    q.add_argument("--equity-samples", type=int, default=200, help="LBR's equity samples preflop and on the flop (default 200)")
    q.add_argument("--out", type=Path, default=None, help="folder for hands.jsonl and result.json; resumes a run found there")
    q.add_argument("--jobs", type=int, default=1, help="processes playing the run's hands at once (default 1)")
    q.add_argument("--quick", action="store_true", help="a smoke test: 6 hands, 50 equity samples")
    q.add_argument("-v", "--verbose", action="store_true", help="log the agent's events (structlog, stderr)")
    q.set_defaults(func=lbr)
    return parser


def connect(args: argparse.Namespace) -> int:
    from agent.loop import play
    from agent.player import Agent
    from agent.strategist import StrategistError, build_strategist
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
        strategist = build_strategist(
            game, args.blueprint, blueprint_only=args.blueprint_only, seed=args.seed, solve_from=args.solve_from,
            action_floor=args.action_floor,
            solve=_solve_settings(args), all_in=args.all_in,
        )
    except (ValueError, StrategistError) as exc:
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


def lbr_policy(args: argparse.Namespace) -> AgentRangePolicy:
    """The agent ``agent lbr`` plays, built from its options (in this process or a worker's).

    Raises:
        ValueError, StrategistError: for a bad option or blueprint.
    """
    from agent.lbr_policy import AgentRangePolicy
    from agent.player import Agent
    from agent.strategist import build_strategist
    from agent.timing import TimeLimits, TimeManager

    game = load_game(args.game)
    limits = TimeLimits(per_hand=args.time_budget, target=args.target).validated()
    strategist = build_strategist(game, args.blueprint, blueprint_only=args.blueprint_only, seed=args.seed,
                                  solve_from=args.solve_from, action_floor=args.action_floor, all_in=args.all_in,
                                  solve=_solve_settings(args))  # fmt: skip
    return AgentRangePolicy(Agent(game, strategist, TimeManager(limits), seed=args.seed))


def lbr(args: argparse.Namespace) -> int:
    from agent.lbr_jobs import play_parallel
    from agent.lbr_lines import format_lines, line_table
    from agent.lbr_run import RunConfig, RunError, RunLog, check_game, describe, load_records, play, result_of, session_of
    from agent.strategist import StrategistError
    from agent.timing import TimeLimits
    from protocol.progress import Progress

    hands, samples = (min(args.hands, 6), 50) if args.quick else (args.hands, args.equity_samples)
    for option, value, least in (("--hands", hands, 2), ("--equity-samples", samples, 2), ("--jobs", args.jobs, 1)):
        if value < least:
            print(f"agent lbr: {option} must be at least {least}, got {value}", file=sys.stderr)
            return 2
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        print(f"agent lbr: --out {args.out} is a file, not a folder", file=sys.stderr)
        return 2
    game = load_game(args.game)
    config = RunConfig(args.game, args.setting, args.seed, str(args.blueprint) if args.blueprint else None, args.blueprint_only,
                       args.time_budget, args.target, samples, args.action_floor, args.all_in, args.solve_from,
                       args.gadget, args.later_gadget, args.unsafe_weight, args.solve_iterations, args.solve_root,
                       args.new_round_alternatives, args.river_sizes, args.open_unsafe_weight,
                       args.turn_search)  # fmt: skip
    policy = None
    try:
        check_game(game)
        records = load_records(args.out, config) if args.out is not None else []
        if args.jobs == 1:
            policy = lbr_policy(args)
        else:  # each worker builds its own agent; the options are checked here, before any starts
            TimeLimits(per_hand=args.time_budget, target=args.target).validated()
            _solve_settings(args)
    except (ValueError, StrategistError, RunError) as exc:
        print(f"agent lbr: {exc}", file=sys.stderr)
        return 2
    log = RunLog(args.out, config, records) if args.out is not None else None
    bar = Progress(f"LBR {args.setting}", hands, done=len(records))

    def progress(done: list) -> None:
        wall = sum(r.wall for r in done)
        mbb = 1000 * sum(r.expected for r in done) / len(done) / game.big_blind
        bar.status = f"{len(done) / wall * args.jobs:.2f} hands/s, {mbb:+,.0f} mbb/hand"
        bar.advance()

    code = 0
    session = None
    try:
        with bar:
            if policy is not None:
                play(config, game, policy, records, hands, log, progress)
            else:
                session = play_parallel(config, game, functools.partial(lbr_policy, args), records, hands, log, progress,
                                        args.jobs)  # fmt: skip
    except KeyboardInterrupt:
        print(f"agent lbr: interrupted after {len(records)} hands", file=sys.stderr)
        code = 130
    except RunError as exc:
        print(f"agent lbr: {exc}", file=sys.stderr)
        code = 2
    finally:
        if policy is not None:
            session = session_of(policy)
        if log is not None:
            log.write_result(result_of(config, records, game.big_blind, session))
            log.close()
    print(describe(records, game.big_blind, args.setting))
    if any(r.line for r in records):
        rows, unread = line_table(((r.line, r.expected) for r in records), game)
        print(format_lines(rows, unread))
    if records:
        wall, cpu = sum(r.wall for r in records), sum(r.cpu for r in records)
        sources = ", ".join(f"{k} {v}" for k, v in sorted((session or {}).get("agent_sources", {}).items())) or "none"
        print(f"{len(records) / wall * args.jobs:.2f} hands/s on {args.jobs} process(es) ({wall / len(records):.2f} s wall, "
              f"{cpu / len(records):.2f} s CPU per hand); "
              f"agent {sum(r.agent for r in records) / len(records):.2f} s per hand on its real decisions; "
              f"agent decisions this session: {sources}")  # fmt: skip
    return code


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # --help and usage errors end here, before the agent loads
    configure_logging(getattr(args, "verbose", False))
    return run_command(lambda: args.func(args), f"agent {args.command}", (GameDefError,))


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
