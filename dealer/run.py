"""``dealer run``: a whole local match in one command.

Starts the dealer (``dealer serve``) and every seat as processes over loopback,
shows progress, keeps all logs in one folder, and prints each seat's result.  A
seat is a baseline bot kind, ``agent`` (our competition agent, started as the
command ``agent connect HOST PORT``: the dealer never imports it), ``agent-blueprint``
(the same agent playing its blueprint only, never solving), or any command;
a command gets HOST and PORT appended, so the reference example player or another
team's bot plug in as is.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from dealer.bots import POLICIES, game_problem
from dealer.lifetime import FolderLock, describe_exit, start_member, stop_group
from dealer.provenance import code_version, describe
from protocol.arguments import add_command
from protocol.errors import GameDefError
from protocol.gamedef import GameDef, bundled_game_names, load_game
from protocol.progress import Progress

# The dealer (numpy) and the decision-log reader load when a run starts, not for `dealer run --help`.

DESCRIPTION = """\
Starts the dealer (dealer serve) and every seat as processes over loopback, shows
progress, keeps all logs in one folder, and prints each seat's result.  A seat is a
baseline bot kind, agent (our competition agent, started as the command
'agent connect HOST PORT': the dealer never imports it), agent-blueprint (the same
agent playing its blueprint only, never solving), or any command; a command gets HOST
and PORT appended, so the reference example player or another team's bot plug in as
is.  The dealer and seats stop with this command, however it is stopped."""

EPILOG = """examples:
  dealer run                                   # agent vs call, heads-up no-limit, 200 hands
  dealer run agent random --hands 1000 --duplicate
  dealer run random raise --hands 5000 --duplicate --out matches/demo
  dealer run --resume matches/demo             # finish a run that was stopped (Ctrl-C, kill, a crash)
  dealer run agent-flop equity --duplicate --agent-args "--new-round-alternatives blueprint"
  dealer run call "dealer bot random --game {game}" --game holdem.limit.2p   # a command seat
  dealer run random call fold --game holdem.nolimit.3p --duplicate

A seat is a bot kind (random, call, raise, allin, fold, equity: a heuristic heads-up
hold'em player), agent (our agent; heads-up no-limit games), agent-blueprint (our agent
without subgame solving: dealer run agent agent-blueprint --duplicate measures what
solving adds), agent-turn and agent-flop (solving from the turn, or searching from the
flop; --agent-args adds agent connect options to every agent seat), or a command that
gets HOST and PORT appended; in a command, {game}, {seed}, {name}, {match},
{decision_log}, {time_budget} and {action_limit} (seconds) are filled in per match, so a
command can log its decisions for AIVAT where dealer run reads them (e.g.
"agent-v1/run.sh --decision-log {decision_log} --name {name}").  --hands defaults to 200
when an agent plays (about 1 s a hand), else 1000.  Logs go to --out (default
matches/<time>): MATCH.log per match in the reference format, decision logs in
decisions/, each seat's output in MATCH.<seat>.out; the run's settings in run.json,
which --resume reads."""

DEFAULT_SEATS = ("random", "call", "raise")
#: The default lineup of heads-up no-limit games: our agent against a baseline.
DEFAULT_AGENT_SEATS = ("agent", "call")
AGENT = "agent"
#: Our agent's seat kinds and the options each adds to ``agent connect``.
AGENTS: dict[str, tuple[str, ...]] = {
    AGENT: (), "agent-blueprint": ("--blueprint-only",), "agent-turn": ("--solve-from", "turn"),
    "agent-flop": ("--solve-from", "flop"),
}  # fmt: skip
DEFAULT_HANDS, DEFAULT_AGENT_HANDS = 1000, 200
MAX_SEAT_OUTPUT_LINES = 5
#: The run's settings, saved in its folder for ``--resume``.
RUN_FILE = "run.json"
#: The options that define a run, with their defaults: ``--resume`` takes them from RUN_FILE.
RUN_DEFAULTS = {
    "game": "holdem.nolimit.2p", "hands": None, "seed": None, "duplicate": False, "names": None,
    "t_response": 60000, "t_per_hand": 7000, "start_timeout": 600000, "agent_args": "",
}  # fmt: skip
#: ``agent connect`` options that ``dealer run`` sets per match itself: ``--agent-args`` may not give them.
DEALER_SET_OPTIONS = (
    "--game", "--seed", "--name", "--match", "--decision-log", "--action-limit", "--time-budget",
)  # fmt: skip


@dataclass(frozen=True)
class Seat:
    """One player of the run: a display name and how to start it."""

    name: str
    spec: str
    #: Extra ``agent connect`` options of an agent seat (``--agent-args``), after its kind's own.
    options: tuple[str, ...] = ()

    @property
    def is_bot(self) -> bool:
        return self.spec in POLICIES

    @property
    def is_agent(self) -> bool:
        return self.spec in AGENTS


class RunFailed(Exception):
    """A match of the run could not finish; the message names the seat and the cause."""


def add_run_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "run", "play a whole local match (dealer + seats) and print the result", DESCRIPTION, EPILOG)
    p.add_argument(
        "seats", metavar="SEAT", nargs="*",
        help="bot kind, agent, or command, one per player (default: agent call in heads-up no-limit, else random call ...)",
    )  # fmt: skip
    p.add_argument("--game", help="bundled game name or .game file (default holdem.nolimit.2p)")
    p.add_argument("--hands", type=int, help="hands per match (default 200 with an agent seat, else 1000)")
    p.add_argument("--seed", type=int, help="card seed (default: from the clock; printed)")
    p.add_argument("--duplicate", action="store_true", help="also play the mirrored match(es): same cards, seats swapped")
    p.add_argument("--out", type=Path, help="folder for logs (default matches/<date-time>)")
    p.add_argument("--names", help="comma-separated seat names (default: from the kinds/commands)")
    p.add_argument("--t_response", type=int, help="ms a seat may take per action (default 60000)")
    p.add_argument("--t_per_hand", type=int, help="average ms per hand per seat (default 7000)")
    p.add_argument("--start_timeout", type=int, help="ms for seats to connect (default 600000)")
    p.add_argument(
        "--agent-args", metavar="OPTIONS",
        help="extra 'agent connect' options for every agent seat, e.g. \"--solve-from flop --new-round-alternatives "
        "blueprint\" (one word starting with '-': --agent-args=--blueprint-only)",
    )  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--resume", metavar="DIR", type=Path, help="finish the interrupted run whose logs are in DIR")
    p.set_defaults(func=run_command, **RUN_DEFAULTS)


def seat_names(specs: list[str], given: str | None) -> list[str]:
    """Unique, log-safe names: the bot kind or the command's program name."""
    if given:
        names = [n.strip() for n in given.split(",")]
        if len(names) != len(specs) or len(set(names)) != len(names) or not all(names):
            raise RunFailed(f"--names needs {len(specs)} different names")
    else:
        names = [spec if spec in POLICIES or spec in AGENTS else Path(shlex.split(spec)[0]).name for spec in specs]
    from dealer.server import NAME_FORBIDDEN

    bad = [n for n in names if any(ch in n for ch in NAME_FORBIDDEN + " \t/\\") or not n.isprintable()]
    if bad:
        raise RunFailed(f"seat name {bad[0]!r} may not contain '|', ':', '/', '\\' or spaces (use --names)")
    if len(set(names)) < len(names):
        counts: dict[str, int] = {}
        unique = []
        for n in names:
            counts[n] = counts.get(n, 0) + 1
            unique.append(f"{n}-{counts[n]}")
        names = unique
    return names


def match_plan(seats: list[Seat], duplicate: bool) -> list[list[Seat]]:
    """Seat orders to play: as given, plus every other order for a duplicate run."""
    if not duplicate:
        return [seats]
    if len(seats) == 2:
        return [seats, seats[::-1]]
    return [list(order) for order in itertools.permutations(seats)]


def _seat_command(
    seat: Seat, order_index: int, game_arg: str, port: int, match: str, seed: int, out: Path, limits: tuple[int, int]
) -> list[str]:
    """How to start ``seat``; ``limits``: the dealer's (t_response, t_per_hand) in ms."""
    logged = [
        "--game", game_arg, "--seed", str(seed * 100 + order_index), "--name", seat.name,
        "--match", match, "--decision-log", str(out / "decisions" / f"{match}.{seat.name}.dlog"),
    ]  # fmt: skip
    t_response, t_per_hand = limits
    if seat.is_bot:
        return [sys.executable, "-m", "dealer.cli", "bot", seat.spec, "127.0.0.1", str(port), *logged]
    if seat.is_agent:
        return [
            sys.executable, "-m", "agent.cli", "connect", "127.0.0.1", str(port), *logged, *AGENTS[seat.spec],
            "--action-limit", str(t_response / 1000), "--time-budget", str(t_per_hand / 1000), *seat.options,
        ]  # fmt: skip
    # A command's placeholders get what those options give our own seats.
    fields = {option[2:].replace("-", "_"): value for option, value in zip(logged[::2], logged[1::2])}
    fields.update(time_budget=str(t_per_hand / 1000), action_limit=str(t_response / 1000))
    return [_filled(word, fields) for word in shlex.split(seat.spec)] + ["127.0.0.1", str(port)]


def _filled(word: str, fields: dict[str, str]) -> str:
    """``word`` with each ``{field}`` replaced; other braces stay (a command may hold shell code)."""
    for key, value in fields.items():
        word = word.replace("{" + key + "}", value)
    return word


def count_logged_hands(log: Path, state: dict[str, int]) -> int:
    """Finished hands in a growing log, reading only what was appended."""
    try:
        with open(log, "rb") as f:
            f.seek(state.get("offset", 0))
            data = f.read()
    except FileNotFoundError:
        return 0
    complete = data.rfind(b"\n") + 1
    state["offset"] = state.get("offset", 0) + complete
    state["hands"] = state.get("hands", 0) + data[:complete].count(b"\nSTATE:") + data[:complete].startswith(b"STATE:")
    return state["hands"]


def _seat_exits(procs: list[tuple[Seat, subprocess.Popen, Path]], dealer_running: bool) -> str:
    """How each seat that ended early ended, with its last output lines."""
    text = ""
    for index, (seat, proc, seat_out) in enumerate(procs):
        try:
            code = proc.wait(1)
        except subprocess.TimeoutExpired:
            continue
        if code != 0 or dealer_running:  # a seat that left cleanly while the dealer still played quit early too
            text += f"\nseat {index + 1} ({seat.name}) {describe_exit(code)}"
            output = tail_lines(seat_out, MAX_SEAT_OUTPUT_LINES)
            if output:
                text += f"; its last output:\n{output}"
    return text


def tail_lines(path: Path, lines: int, start: int = 0) -> str:
    """The last ``lines`` lines of ``path`` after byte ``start`` ('' if none)."""
    try:
        with open(path, "rb") as f:
            f.seek(start)
            text = f.read().decode(errors="replace").strip().splitlines()
    except FileNotFoundError:
        return ""
    return "\n".join(text[-lines:])


def _stopped(done: int, log: Path) -> str:
    if done == 0:
        return "the match stopped before its first hand ended"
    return f"the match stopped after {done} finished hands (kept in {log})"


#: What a run waits for before the first hand when our agent plays (``--quiet`` hides it).
AGENT_START = "waiting for the agent: loading the blueprint, compiling kernels (first run only, about a minute)"


def play_match(
    order: list[Seat], *, match: str, game_arg: str, hands: int, seed: int, out: Path,
    t_response: int, t_per_hand: int, start_timeout: int, progress: bool, resume: bool = False,
    lock: FolderLock | None = None,
) -> Path:  # fmt: skip
    """Play one match (with ``resume``, the rest of it); returns its log path.

    The dealer and the seats die with this process (:mod:`dealer.lifetime`), in one
    process group that ``lock`` records while they live.

    Raises:
        RunFailed: naming the culprit.
    """
    names = [s.name for s in order]
    dealer_cmd = [
        sys.executable, "-m", "dealer.cli", "serve", match, game_arg, str(hands), str(seed), *names,
        "-q", "--out-dir", str(out), "--t_response", str(t_response), "--t_per_hand", str(t_per_hand),
        "--t_hand", str(max(600000, t_response)), "--start_timeout", str(start_timeout),
    ] + (["-a"] if resume else [])  # fmt: skip
    mode = "a" if resume else "w"
    dealer_err = out / f"{match}.dealer.err"
    with open(dealer_err, mode) as err_file:
        err_start = err_file.tell()  # a resumed match's file holds the earlier attempts' words too
        try:
            dealer = start_member(dealer_cmd, None, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err_file, text=True)
        except OSError as exc:
            raise RunFailed(f"the dealer could not start: {exc.strerror or exc}") from None
    group = dealer.pid  # the dealer leads the match's process group; the seats join it
    if lock is not None:
        lock.add(group)
    procs: list[tuple[Seat, subprocess.Popen, Path]] = []
    log = out / f"{match}.log"
    try:
        assert dealer.stdout is not None
        ports_line = dealer.stdout.readline().split()
        if len(ports_line) != len(order):
            dealer.wait(10)
            raise RunFailed(f"the dealer did not start: {tail_lines(dealer_err, 3, start=err_start) or 'no output'}")
        for index, (seat, port) in enumerate(zip(order, ports_line)):
            seat_out = out / f"{match}.{seat.name}.out"
            cmd = _seat_command(seat, index, game_arg, int(port), match, seed, out, (t_response, t_per_hand))
            with open(seat_out, mode) as f:
                try:
                    proc = start_member(cmd, group, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                except OSError as exc:
                    raise RunFailed(f"seat {index + 1} ({seat.name}) could not start: {exc.strerror}: {cmd[0]}") from None
            procs.append((seat, proc, seat_out))
        counter: dict[str, int] = {}
        bar = Progress(match, hands, done=count_logged_hands(log, counter) if resume else 0, enabled=progress, unit="hands")
        # Our agent spends its first hand loading: say so rather than show a bar stuck at 0.
        waiting = "(waiting for the agent)" if any(seat.is_agent for seat in order) and bar.done == 0 else ""
        if waiting and progress:
            print(f"dealer run: {AGENT_START}", file=sys.stderr)
        bar.status = waiting
        while dealer.poll() is None:
            codes = [proc.poll() for _, proc, _ in procs]
            if any(code is not None for code in codes):
                # Give the dealer a moment: seats exit as soon as the last hand ends, and
                # on a busy machine the dealer may need seconds more to exit after them.
                crashed = any(code not in (None, 0) for code in codes)
                try:
                    dealer.wait(2 if crashed else 60)
                except subprocess.TimeoutExpired:
                    done = count_logged_hands(log, counter)
                    raise RunFailed(
                        f"{_stopped(done, log)} because a seat left it:" + _seat_exits(procs, dealer_running=True)
                    ) from None
            done = count_logged_hands(log, counter)
            if waiting and done > bar.done:
                bar.status = waiting = ""
            bar.update(done)
            time.sleep(0.05)
        bar.update(count_logged_hands(log, counter))
        bar.close()
        score = dealer.stdout.read()
        if dealer.returncode != 0:
            done = count_logged_hands(log, counter)
            from dealer.server import RESUME_HINT  # the dealer's own way to resume is not this command's

            reason = tail_lines(dealer_err, 4, start=err_start).replace(RESUME_HINT, "")
            reason = reason or f"the dealer {describe_exit(dealer.returncode)}"
            raise RunFailed(f"{_stopped(done, log)}:\n{reason}" + _seat_exits(procs, dealer_running=False))
        if "SCORE:" not in score:
            raise RunFailed(f"the dealer finished without a SCORE line; see {dealer_err}")
        return log
    finally:
        stop_group(group, [dealer] + [p for _, p, _ in procs])
        if lock is not None:
            lock.remove(group)


#: The type of each setting in RUN_FILE (``--resume`` trusts no file it did not check).
SETTING_TYPES: dict[str, tuple[type, ...]] = {
    "game": (str,), "hands": (int,), "seed": (int,), "duplicate": (bool,), "names": (str, type(None)),
    "t_response": (int,), "t_per_hand": (int,), "start_timeout": (int,), "agent_args": (str,),
}  # fmt: skip


def _check_types(settings: dict, source: Path) -> None:
    """Every setting of a saved run of the right type.  Raises RunFailed naming the file and the setting."""
    wrong = next((key for key, kinds in SETTING_TYPES.items() if not _is_a(settings[key], kinds)), None)
    seats = settings["seats"]
    if wrong is None and not (isinstance(seats, list) and seats and all(isinstance(spec, str) for spec in seats)):
        wrong = "seats"
    if wrong is not None:
        expected = {"seats": "a list of seats", "duplicate": "true or false", "game": "a game name",
                    "names": "comma-separated names or null"}  # fmt: skip
        raise RunFailed(
            f"cannot resume: {source} gives {wrong!r} as {json.dumps(settings[wrong])}, "
            f"not {expected.get(wrong, 'a whole number')}"
        )


def _is_a(value: object, kinds: tuple[type, ...]) -> bool:
    # bool is an int to Python, but `"hands": true` is no number of hands.
    return isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)


def command_problem(spec: str, kinds: str) -> str | None:
    """What is wrong with a command seat ``spec`` (None: it names a program that exists);
    ``kinds`` lists the seat kinds the caller also accepts, for the message."""
    try:
        words = shlex.split(spec)
    except ValueError as exc:
        return f"cannot read its command {spec!r} ({exc})"
    if not words:
        return f"it is empty; give {kinds} or a command"
    if shutil.which(words[0]) is None:
        return f"{words[0]!r} is not {kinds}, or a program on PATH or at that path"
    return None


def _check_commands(specs: list[str]) -> None:
    """Each command seat names a program that exists.  Raises RunFailed naming the seat."""
    kinds = f"a bot kind ({', '.join(POLICIES)}), an agent ({', '.join(AGENTS)})"
    for index, spec in enumerate(specs):
        if spec not in POLICIES and spec not in AGENTS and (problem := command_problem(spec, kinds)):
            raise RunFailed(f"seat {index + 1}: {problem}")


def _check_settings(settings: dict) -> list[str]:
    """Validate a run's settings; returns the seat names.  Raises RunFailed."""
    from dealer.server import MAX_SEED

    try:
        game = load_game(settings["game"])
    except GameDefError as exc:
        raise RunFailed(str(exc)) from None
    specs = settings["seats"]
    if len(specs) != game.num_players:
        raise RunFailed(f"{game.num_players} seats needed for {settings['game']}, got {len(specs)}")
    if any(spec in AGENTS for spec in specs) and not _heads_up_nolimit(game):
        raise RunFailed(f"the agent plays heads-up no-limit games only, not {settings['game']}")
    for spec in dict.fromkeys(s for s in specs if s in POLICIES):
        if (problem := game_problem(spec, game)) is not None:
            raise RunFailed(f"{problem}, not {settings['game']}")
    if settings["hands"] < 1:
        raise RunFailed("--hands must be at least 1")
    if not 0 <= settings["seed"] <= MAX_SEED:
        raise RunFailed(f"--seed must be between 0 and {MAX_SEED}, got {settings['seed']}")
    for option in ("t_response", "t_per_hand", "start_timeout"):
        if settings[option] <= 0:
            raise RunFailed(f"--{option} must be a positive number of milliseconds, got {settings[option]}")
    names = seat_names(specs, settings["names"])
    _check_commands(specs)
    agent_options(settings)
    return names


def agent_options(settings: dict) -> tuple[str, ...]:
    """The words of ``--agent-args`` for the agent seats.  Raises RunFailed (one sentence)."""
    text = settings["agent_args"]
    if not text:
        return ()
    try:
        words = tuple(shlex.split(text))
    except ValueError as exc:
        raise RunFailed(f"cannot read --agent-args {text!r} ({exc})") from None
    if not any(spec in AGENTS for spec in settings["seats"]):
        raise RunFailed(f"--agent-args is for agent seats ({', '.join(AGENTS)}), and no seat is one")
    taken = next((w for w in words if w.split("=", 1)[0] in DEALER_SET_OPTIONS), None)
    if taken is not None:
        raise RunFailed(f"--agent-args may not give {taken.split('=', 1)[0]}: dealer run sets it for every match")
    return words


def run_seats(names: list[str], settings: dict) -> list[Seat]:
    """The run's seats; each agent seat gets ``--agent-args``' options, no other seat does."""
    options = agent_options(settings)
    return [Seat(n, spec, options if spec in AGENTS else ()) for n, spec in zip(names, settings["seats"])]


def _heads_up_nolimit(game: GameDef) -> bool:
    return game.num_players == 2 and game.is_nolimit


def _new_settings(args: argparse.Namespace) -> dict:
    """A new run's settings: the defaults are our agent against ``call`` in heads-up
    no-limit games (200 hands, about a second each), else baseline bots (1,000 hands)."""
    game = load_game(args.game)
    default_seats = DEFAULT_AGENT_SEATS if _heads_up_nolimit(game) else DEFAULT_SEATS[: game.num_players]
    seats = list(args.seats) or list(default_seats)
    return {
        **{key: getattr(args, key) for key in RUN_DEFAULTS},
        "seats": seats,
        "seed": args.seed if args.seed is not None else int(time.time()) % 1_000_000,
        "hands": args.hands if args.hands is not None else (DEFAULT_AGENT_HANDS if set(seats) & AGENTS.keys() else DEFAULT_HANDS),
    }


def _saved_settings(args: argparse.Namespace) -> dict:
    """The settings of the run in ``--resume DIR``.  Raises RunFailed."""
    given = [f"--{key}" if key != "agent_args" else "--agent-args"
             for key, default in RUN_DEFAULTS.items() if getattr(args, key) != default]  # fmt: skip
    if args.seats or args.out or given:
        extra = "SEATs" if args.seats else "--out" if args.out else given[0]
        raise RunFailed(f"--resume takes the run's settings from {args.resume / RUN_FILE}; leave out {extra}")
    path = args.resume / RUN_FILE
    try:
        settings = json.loads(path.read_text())
    except FileNotFoundError:
        raise RunFailed(f"cannot resume: {path} does not exist (is {args.resume} a dealer run's folder?)") from None
    except (OSError, ValueError) as exc:
        raise RunFailed(f"cannot resume: {path} is unreadable ({exc})") from None
    if not isinstance(settings, dict):
        raise RunFailed(f"cannot resume: {path} holds no settings (a JSON object is expected)")
    settings.setdefault("agent_args", "")  # runs saved before --agent-args existed
    missing = [key for key in ("seats", *RUN_DEFAULTS) if key not in settings]
    if missing:
        raise RunFailed(f"cannot resume: {path} lacks the setting {missing[0]!r}")
    _check_types(settings, path)
    return settings


#: The first line of a dealer's log: ``# name/game/hands/seed MATCH GAME HANDS SEED``.
HEADER_TAG = "# name/game/hands/seed "


def check_logs(out: Path, matches: list[str], plan: list[list[Seat]], settings: dict) -> None:
    """The logs already in ``out`` are those of the run ``settings`` describe.

    A log whose header, time limits or seats differ belongs to another run: resuming
    would finish (or count as finished) a match the settings never asked for.

    Raises:
        RunFailed: naming the log, what differs, and both values.
    """
    for match, order in zip(matches, plan):
        log = out / f"{match}.log"
        try:
            with open(log, "rb") as f:
                head = [f.readline().decode(errors="replace").rstrip("\n") for _ in range(5)]
        except FileNotFoundError:
            continue
        if not head[0]:
            continue  # cut off before its first line: rewound and played afresh
        fields = head[0].removeprefix(HEADER_TAG).rsplit(" ", 3)
        if not head[0].startswith(HEADER_TAG) or len(fields) != 4:
            raise RunFailed(f"cannot resume: {log} does not start with a dealer log header; give the run its own folder")
        found = dict(zip(("match", "game", "hands", "seed"), fields))
        found.update(line[3:].split(" ", 1) for line in head[1:4] if line.startswith("#--") and " " in line)
        states = next((line for line in head if line.startswith("STATE:")), None)
        expected = {"match": match, "game": settings["game"], "hands": str(settings["hands"]),
                    "seed": str(settings["seed"]), "t_response": str(settings["t_response"]),
                    "t_per_hand": str(settings["t_per_hand"])}  # fmt: skip
        for key, value in expected.items():
            if key in found and found[key] != value:
                raise RunFailed(
                    f"cannot resume: {log} is a match with {key} {found[key]}, but {out / RUN_FILE} says {value}; "
                    "give a new run its own folder"
                )
        if states is not None and sorted(states.rsplit(":", 1)[-1].split("|")) != sorted(s.name for s in order):
            raise RunFailed(
                f"cannot resume: {log} is a match of {states.rsplit(':', 1)[-1].replace('|', ', ')}, but "
                f"{out / RUN_FILE} names {', '.join(s.name for s in order)}; give a new run its own folder"
            )


def is_finished(log: Path) -> bool:
    """Whether a match log ends with its SCORE line."""
    try:
        with open(log, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
            tail = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    except FileNotFoundError:
        return False
    return tail.startswith(b"SCORE:")


def rewind_match(out: Path, match: str) -> int:
    """Cut a stopped match's files back to its finished hands; returns how many.

    The log is cut to whole lines, the transaction log and every decision log of the
    match to the hands the log finished: the dealer then replays them (``serve -a``)
    and the seats play the unfinished hand from its start, so each hand's decisions
    come from one bot process and no decision log holds a decision the dealer never
    took.  With no finished hand (or no transaction log to replay), every old file is
    removed and the match starts afresh (0 is returned).
    """
    from protocol.decisions import truncate_decision_log

    log, tlog = out / f"{match}.log", out / f"{match}.tlog"
    dlogs = sorted((out / "decisions").glob(f"{match}.*.dlog"))
    finished = 0
    if log.exists() and tlog.exists():
        data = log.read_bytes()
        data = data[: data.rfind(b"\n") + 1]
        log.write_bytes(data)
        finished = data.count(b"\nSTATE:") + data.startswith(b"STATE:")
    if finished == 0:
        for path in [log, tlog, *dlogs]:
            path.unlink(missing_ok=True)
        return 0
    kept = []
    for line in tlog.read_bytes().split(b"\n")[:-1]:  # the last piece has no line ending
        fields = line.split()
        if len(fields) >= 2 and fields[1].isdigit() and int(fields[1]) < finished:
            kept.append(line + b"\n")
    tlog.write_bytes(b"".join(kept))
    for path in dlogs:
        try:
            truncate_decision_log(path, finished)
        except ValueError:  # cut off inside its header: it holds no decision
            path.unlink()
    return finished


def _keep_game_file(game_arg: str, out: Path) -> None:
    """A copy of a game file beside the logs, where ``dealer report`` looks for the game
    their headers name (it reads no file outside a log's folder)."""
    source = Path(game_arg)
    if game_arg in bundled_game_names() or not source.is_file():
        return
    copy = out / source.name
    if not copy.exists():
        shutil.copyfile(source, copy)


class _Terminated(KeyboardInterrupt):
    """SIGTERM (a plain kill, a CI timeout): stop as Ctrl-C does, dealer and seats first."""


def _terminated(signum: int, frame: object) -> None:
    raise _Terminated


def _kept_hands(out: Path, matches: list[str]) -> int:
    return sum(count_logged_hands(out / f"{match}.log", {}) for match in matches)


def run_command(args: argparse.Namespace) -> int:
    try:
        settings = _saved_settings(args) if args.resume else _new_settings(args)
        names = _check_settings(settings)
    except RunFailed as exc:
        print(f"dealer run: {exc}", file=sys.stderr)
        return 2
    seats = run_seats(names, settings)
    seed, hands, game_arg = settings["seed"], settings["hands"], settings["game"]
    out = args.resume or args.out or Path("matches") / time.strftime("%Y%m%d-%H%M%S")
    plan = match_plan(seats, settings["duplicate"])
    matches = ["match"] if len(plan) == 1 else [f"match.{index + 1}" for index in range(len(plan))]
    if out.exists() and not out.is_dir():
        print(f"dealer run: --out {out} is a file, not a folder", file=sys.stderr)
        return 2
    created = not out.exists()  # a run that plays no hand removes the folder it made, and only that
    try:
        (out / "decisions").mkdir(parents=True, exist_ok=True)
        # Held until this process ends: a second run (or a --resume) in the folder
        # while this one plays would cut and rewrite the logs under it.
        lock = FolderLock(out / "run.lock")
    except BlockingIOError:
        print(f"dealer run: another dealer run is playing in {out}; wait for it or stop it first", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"dealer run: cannot write the logs in {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    # The lock died with a run that was killed; its dealer and seats die with it too, and
    # until the last of them has gone (or if one will not) no log here may be cut.
    survivors = lock.survivors()
    if survivors:
        pids = " ".join(map(str, survivors))
        print(
            f"dealer run: processes {pids} of a stopped run still write in {out}; stop them (kill {pids}) and try again",
            file=sys.stderr,
        )
        return 2
    try:
        if args.resume:
            check_logs(out, matches, plan, settings)
            now = code_version()
            if "code" in settings and settings["code"] != now:
                # Not refused (a fix may be why the run stopped), but its logs now mix two versions.
                print(f"dealer run: note: this run started with {describe(settings['code'])} and resumes with "
                      f"{describe(now)}", file=sys.stderr)  # fmt: skip
        elif (out / RUN_FILE).exists():
            # A second run here would rewrite the match logs and append to the decision logs.
            raise RunFailed(f"{out} holds an earlier run ({RUN_FILE}); finish it with dealer run --resume "
                            f"{shlex.quote(str(out))}, or give this run another --out")  # fmt: skip
        else:
            tmp = out / (RUN_FILE + ".tmp")  # whole or absent: a run killed now leaves no half a file
            tmp.write_text(json.dumps({**settings, "code": code_version()}, indent=1) + "\n")
            tmp.replace(out / RUN_FILE)
            _keep_game_file(game_arg, out)
    except RunFailed as exc:
        print(f"dealer run: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"dealer run: cannot write in {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(
        f"dealer run: {' vs '.join(names)} | {game_arg} | {hands} hands x {len(plan)} "
        f"match{'es' if len(plan) > 1 else ''} | seed {seed} | logs in {out}"
        + (f" | agent args {settings['agent_args']}" if settings["agent_args"] else "")
        + (" | resumed" if args.resume else ""),
        file=sys.stderr,
    )
    resume_hint = f"dealer run --resume {shlex.quote(str(out))}"
    logs: list[Path] = []
    played_before = _kept_hands(out, matches) if args.resume else 0
    started = time.monotonic()
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        for match, order in zip(matches, plan):
            log = out / f"{match}.log"
            if args.resume and is_finished(log):
                logs.append(log)
                continue
            resume = bool(args.resume) and rewind_match(out, match) > 0
            logs.append(
                play_match(
                    order, match=match, game_arg=game_arg, hands=hands, seed=seed, out=out,
                    t_response=settings["t_response"], t_per_hand=settings["t_per_hand"],
                    start_timeout=settings["start_timeout"], progress=not args.quiet, resume=resume, lock=lock,
                )
            )
    except RunFailed as exc:
        if created and _kept_hands(out, matches) == 0:
            lock.close()
            shutil.rmtree(out, ignore_errors=True)
            print(f"dealer run: {exc}\nNothing was played, so {out} was removed.", file=sys.stderr)
        else:
            print(f"dealer run: {exc}\nFix the cause, then resume with: {resume_hint}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        why = "stopped by SIGTERM" if isinstance(exc, _Terminated) else "interrupted"
        print(
            f"dealer run: {why}; {_kept_hands(out, matches)} finished hands are kept in {out}. Resume with: {resume_hint}",
            file=sys.stderr,
        )
        return 130 if not isinstance(exc, _Terminated) else 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)
    elapsed = time.monotonic() - started
    print(f"dealer run: {hands * len(plan) - played_before} hands in {elapsed:.1f} s", file=sys.stderr)
    from dealer.evaluation.report import report_match

    report_match(logs, out / "decisions", json_path=out / "report.json", game=load_game(game_arg))
    return 0
