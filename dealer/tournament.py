"""``dealer tournament``: an ACPC-style round robin in one command.

Every lineup of the bots (each pair for a heads-up game; each combination of three
for a 3-player game) plays ``--seeds`` match sets; with ``--duplicate`` a set is every
seat order of the lineup on the same seed, so each position gets the same cards.
Each match is a ``dealer run`` match (the same seat launching, ports and logs) in
its own folder ``OUT/<lineup>/<match>/``; the tournament's settings are kept in
``OUT/tournament.json``, so running the command again on the same folder plays only
what is missing and finishes interrupted matches from their transaction logs.  The
rankings (crosstable, Total Bankroll, Bankroll Instant Run-off) come last, from
:mod:`dealer.evaluation.rankings`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shlex
import shutil
import sys
import time
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dealer.bots import POLICIES
from dealer.matchtask import MatchTask
from dealer.run import RunFailed, command_problem, match_plan, seat_names
from protocol.arguments import add_command
from protocol.errors import GameDefError
from protocol.gamedef import bundled_game_names, load_game

DESCRIPTION = """\
Every lineup of the bots (each pair for a heads-up game; each combination of three
for a 3-player game) plays --seeds match sets; with --duplicate a set is every seat
order of the lineup on the same seed, so each position gets the same cards.  Each
match is a 'dealer run' match (the same seat launching, ports and logs) in its own
folder OUT/<lineup>/<match>/; the tournament's settings are kept in
OUT/tournament.json, so --resume OUT plays only what is missing and finishes
interrupted matches from their transaction logs.  The rankings (crosstable, Total
Bankroll, Bankroll Instant Run-off) come last.  The matches stop with this command,
however it is stopped."""

EPILOG = """examples:
  dealer tournament random call raise allin fold --hands 1000 --seeds 2 --duplicate --out tourney
  dealer tournament --resume tourney                   # play only what is missing
  printf '[[bots]]\\nname = "caller"\\nseat = "call"\\n[[bots]]\\nname = "raiser"\\nseat = "raise"\\n' > bots.toml
  dealer tournament --lineup bots.toml --game holdem.limit.2p --hands 3000 --seeds 10 --duplicate --workers 2
  dealer tournament mine="dealer bot equity --game {game}" random call --duplicate
  dealer tournament random call fold allin --game holdem.nolimit.3p --hands 500 --duplicate
  dealer tournament --lineup bots.toml --ray 10.0.0.5:6379 --hands 3000 --seeds 10 --duplicate

A SEAT is a bot kind (random, call, raise, allin, fold, equity), a command that gets
HOST and PORT appended, or NAME=KIND_OR_COMMAND.  A lineup file (TOML or JSON) lists
the same entries:  [[bots]] name = "mine"  seat = "python my_bot.py".
Matches go to OUT/<lineup>/<match>/ (logs, transaction logs, decision logs, each
seat's output); rankings to OUT/rankings.json and OUT/crosstable.png."""

#: Settings that define a tournament; a restart must give the same ones.
SETTINGS = ("game", "hands", "seeds", "seed", "duplicate", "bots", "t_response", "t_per_hand", "start_timeout")
_NAME = re.compile(r"^[A-Za-z0-9_+][A-Za-z0-9_.+-]*$")


class TournamentError(Exception):
    """Bad input or an unusable output folder; the message is one sentence."""


@dataclass(frozen=True)
class Bot:
    """A lineup entry: a name and a seat (bot kind or command)."""

    name: str
    seat: str


# --- the lineup ---------------------------------------------------------------------


def parse_entries(entries: list[str]) -> list[Bot]:
    """Bots from command-line SEATs (``KIND``, ``COMMAND`` or ``NAME=KIND_OR_COMMAND``)."""
    named = [e.split("=", 1) if re.match(r"^[A-Za-z0-9_.+-]+=", e) else [None, e] for e in entries]
    unnamed = [spec for name, spec in named if name is None]
    try:
        derived = iter(seat_names(unnamed, None)) if unnamed else iter(())
    except RunFailed as exc:
        raise TournamentError(str(exc)) from None
    return [Bot(name if name is not None else next(derived), spec) for name, spec in named]


def read_lineup(path: Path) -> list[Bot]:
    """Bots from a TOML or JSON lineup file: a list ``bots`` of ``{name, seat}`` tables.

    Raises:
        TournamentError: naming the file and the entry that is wrong.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TournamentError(f"cannot read the lineup file {path} ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise TournamentError(
            f"the lineup file {path} is not text (byte {exc.start} is not UTF-8); give a TOML or JSON file"
        ) from None
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TournamentError(f"{path} is not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {exc}") from None
    entries = data if isinstance(data, list) else data.get("bots") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise TournamentError(f"{path} must hold a non-empty list 'bots' of entries with a name and a seat")
    bots = []
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not isinstance(entry.get("seat"), str):
            raise TournamentError(f"{path}: bot entry {number} needs a string 'name' and a string 'seat' (kind or command)")
        bots.append(Bot(entry["name"], entry["seat"]))
    return bots


def check_lineup(bots: list[Bot], players: int) -> None:
    """Names unique and log-safe, commands present, enough bots for the game.

    Raises:
        TournamentError: one sentence naming the entry.
    """
    if len(bots) < players:
        raise TournamentError(f"a tournament of a {players}-player game needs at least {players} bots, got {len(bots)}")
    seen: set[str] = set()
    for bot in bots:
        if not _NAME.match(bot.name):
            raise TournamentError(f"bot name {bot.name!r} may hold only letters, digits and '_.+-'")
        if bot.name in seen:
            raise TournamentError(f"the name {bot.name!r} is used by two lineup entries; give each bot its own name")
        seen.add(bot.name)
        kinds = f"a bot kind ({', '.join(POLICIES)})"
        if bot.seat not in POLICIES and (problem := command_problem(bot.seat, kinds)):
            raise TournamentError(f"bot {bot.name}: {problem}")


# --- the plan -----------------------------------------------------------------------


def plan_matches(settings: dict[str, Any], players: int, game_arg: str) -> list[MatchTask]:
    """Every match of the tournament, lineup by lineup, seed by seed, seat order by seat order.

    Each lineup gets its own seeds (``seed + lineup index × seeds + k``), so lineups are
    independent samples, as the ranking's significance tests assume.
    """
    bots = [Bot(**b) for b in settings["bots"]]
    tasks = []
    for index, lineup in enumerate(itertools.combinations(bots, players)):
        lineup_name = "-".join(b.name for b in lineup)
        orders = match_plan(list(lineup), settings["duplicate"])
        for k in range(settings["seeds"]):
            seed = settings["seed"] + index * settings["seeds"] + k
            for o, order in enumerate(orders):
                match = f"{lineup_name}.{k + 1}" + (f".{o + 1}" if len(orders) > 1 else "")
                task = MatchTask(
                    lineup=lineup_name, match=match, order=tuple((b.name, b.seat) for b in order), game=game_arg,
                    hands=settings["hands"], seed=seed, group=k, t_response=settings["t_response"],
                    t_per_hand=settings["t_per_hand"], start_timeout=settings["start_timeout"],
                )  # fmt: skip
                tasks.append(task)
    names = [t.match for t in tasks]
    if len(set(names)) != len(names):
        clash = next(n for n in names if names.count(n) > 1)
        raise TournamentError(f"two lineups make the same match name {clash!r}; rename bots so no name joins others with '-'")
    return tasks


def prepare_output(out: Path, settings: dict[str, Any] | None) -> dict[str, Any]:
    """The settings of the tournament in ``out``: those already there (``settings`` None
    means resume whatever ``out`` holds), or ``settings`` for a new one, which
    :func:`create_output` writes once every other check has passed.

    Raises:
        TournamentError: if ``out`` is a file, holds another tournament, or nothing to resume.
    """
    saved_path = out / "tournament.json"
    if out.exists() and not out.is_dir():
        raise TournamentError(f"{'--resume' if settings is None else '--out'} {out} is a file, not a folder")
    if saved_path.exists():
        try:
            saved = json.loads(saved_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise TournamentError(f"{saved_path} is unreadable ({exc}); use another --out") from None
        if not isinstance(saved, dict) or any(key not in saved for key in SETTINGS):
            raise TournamentError(f"{saved_path} is not a tournament's settings; use another --out")
        if settings is None:
            return saved
        differ = [k for k in SETTINGS if saved.get(k) != settings.get(k)]
        if differ:
            raise TournamentError(
                f"{out} holds another tournament (its {differ[0]} is {saved.get(differ[0])!r}, not {settings.get(differ[0])!r}); "
                "use another --out or --resume it"
            )
        return saved
    if settings is None:
        raise TournamentError(f"nothing to resume: {saved_path} does not exist")
    if settings["game"] not in bundled_game_names():
        # Keep the game file with the tournament: every match folder gets a copy.
        settings = {**settings, "game_file": Path(settings["game"]).name}
    return settings


def create_output(out: Path, settings: dict[str, Any]) -> None:
    """Write a new tournament's folder: its settings and, for a game file, a copy of it.

    Raises:
        TournamentError: if the folder cannot be written.
    """
    saved_path = out / "tournament.json"
    if saved_path.exists():
        return
    try:
        out.mkdir(parents=True, exist_ok=True)
        if "game_file" in settings:
            shutil.copyfile(settings["game"], out / settings["game_file"])
        saved_path.write_text(json.dumps(settings, indent=2) + "\n")
    except OSError as exc:
        raise TournamentError(f"cannot write the tournament in {out}: {exc.strerror or exc}") from None


# --- the command --------------------------------------------------------------------


def add_tournament_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "tournament",
        "round robin of many bots (duplicate matches, rankings, crosstable), on this machine or a Ray cluster",
        DESCRIPTION, EPILOG,
    )  # fmt: skip
    p.add_argument("seats", metavar="SEAT", nargs="*", help="bot kind, command, or NAME=KIND_OR_COMMAND")
    p.add_argument("--lineup", type=Path, help="TOML or JSON file listing the bots (name and seat each)")
    p.add_argument("--game", default="holdem.nolimit.2p", help="bundled game name or .game file (default holdem.nolimit.2p)")
    p.add_argument("--hands", type=int, default=1000, help="hands per match (default 1000)")
    p.add_argument("--seeds", type=int, default=1, help="match sets per lineup, each on its own seed (default 1)")
    p.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    p.add_argument("--duplicate", action="store_true", help="play every seat order of each match set on the same cards")
    p.add_argument("--out", type=Path, help="tournament folder (default tournaments/<date-time>)")
    p.add_argument("--resume", type=Path, metavar="OUT", help="play what is missing in an earlier tournament's folder")
    p.add_argument("--workers", type=int, help="matches at once on this machine (default: cores minus one, at least 1)")
    p.add_argument("--ray", metavar="ADDRESS", help="run the matches as tasks on this Ray cluster ('auto', HOST:PORT)")
    p.add_argument(
        "--estimator", choices=("aivat", "raw"), default="aivat",
        help="rank by AIVAT (default; duplicate-paired when --duplicate) or by raw (duplicate) chips",
    )  # fmt: skip
    p.add_argument("--t_response", type=int, default=60000, help="ms a seat may take per action (default 60000)")
    p.add_argument("--t_per_hand", type=int, default=7000, help="average ms per hand per seat (default 7000)")
    p.add_argument("--start_timeout", type=int, default=600000, help="ms for seats to connect (default 600000)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=tournament_command)


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    game = load_game(args.game)  # raises GameDefError (one sentence) for an unknown game
    game_arg = args.game if args.game in bundled_game_names() else str(Path(args.game).resolve())
    if args.hands < 1 or args.seeds < 1:
        raise TournamentError("--hands and --seeds must be at least 1")
    if args.lineup and args.seats:
        raise TournamentError("give the bots either as SEATs or with --lineup, not both")
    if not args.lineup and not args.seats:
        raise TournamentError("no bots: give SEATs (e.g. 'random call raise') or --lineup FILE")
    bots = read_lineup(args.lineup) if args.lineup else parse_entries(args.seats)
    check_lineup(bots, game.num_players)
    return {
        "game": game_arg, "hands": args.hands, "seeds": args.seeds, "seed": args.seed, "duplicate": args.duplicate,
        "bots": [asdict(b) for b in bots], "t_response": args.t_response, "t_per_hand": args.t_per_hand,
        "start_timeout": args.start_timeout,
    }  # fmt: skip


def default_workers() -> int:
    return max(1, (os.cpu_count() or 2) - 1)


def tournament_command(args: argparse.Namespace) -> int:
    from dealer.backends import BackendError, LocalPool, RayBackend, run_matches
    from dealer.evaluation.rankings import rank_tournament

    # Everything is checked before anything is written: a refused tournament leaves no trace.
    try:
        if args.workers is not None and args.workers < 1:
            raise TournamentError("--workers must be at least 1")
        if args.resume is not None:
            out = args.resume
            settings = prepare_output(out, None)
        else:
            out = args.out or Path("tournaments") / time.strftime("%Y%m%d-%H%M%S")
            settings = prepare_output(out, _settings(args))
        try:
            game = load_game(settings["game"])
        except GameDefError as exc:
            raise TournamentError(str(exc)) from None
        game_arg = settings.get("game_file", settings["game"])
        tasks = plan_matches(settings, game.num_players, game_arg)
        backend = RayBackend(args.ray) if args.ray else LocalPool(args.workers or default_workers())
        create_output(out, settings)
    except (TournamentError, BackendError) as exc:
        print(f"dealer tournament: {exc}", file=sys.stderr)
        return 2
    names = [b["name"] for b in settings["bots"]]
    print(
        f"dealer tournament: {len(names)} bots ({', '.join(names)}) | {Path(settings['game']).name} | "
        f"{len(tasks)} matches x {settings['hands']} hands | {backend.describe()} | out {out}",
        file=sys.stderr,
    )
    resume_hint = f"dealer tournament --resume {shlex.quote(str(out))}"
    try:
        outcomes = run_matches(tasks, out, backend, progress=not args.quiet)
    except BackendError as exc:
        print(f"dealer tournament: {exc}. Resume with: {resume_hint}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"dealer tournament: interrupted; finished matches and hands are kept in {out}. Resume with: {resume_hint}",
              file=sys.stderr)  # fmt: skip
        return 130
    failed = [o for o in outcomes.values() if o.get("status") != "ok"]
    for o in failed:
        print(f"dealer tournament: match {o['match']} failed: {o.get('message', 'no outcome')}", file=sys.stderr)
    if failed:
        print(f"dealer tournament: fix the cause, then play the failed matches' rest with: {resume_hint}", file=sys.stderr)
    rank_tournament(out, tasks, outcomes, settings, estimator=args.estimator, workers=backend.local_workers)
    return 1 if failed else 0
