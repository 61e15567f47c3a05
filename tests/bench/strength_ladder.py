"""How strong is the agent?  One command, one table: the agent against a ladder of opponents.

    nice -n 10 .venv/bin/python tests/bench/strength_ladder.py --hands 3000 --lbr --out matches/ladder
    .venv/bin/python tests/bench/strength_ladder.py --quick                      # 20 hands a rung, no LBR
    .venv/bin/python tests/bench/strength_ladder.py --rungs call,equity --hands 200
    .venv/bin/python tests/bench/strength_ladder.py --rungs equity --agent-options "--solve-from turn" --out matches/ladder-turn

Rungs (``--rungs``, in this order by default):

``call`` ``raise`` ``random`` ``allin`` ``fold`` ``equity``
    ``dealer run agent KIND --duplicate`` against a bot kind (``equity``: the heuristic
    player of :mod:`dealer.equitybot`, the only one whose play depends on its cards).
``blueprint``
    against its own blueprint-only mode (``agent-blueprint``): what subgame solving adds.
``frozen``
    against a frozen copy of the agent: the agent of commit :data:`FROZEN_COMMIT`, checked
    out once as a git worktree under ``$ACPC_CACHE_DIR/frozen-COMMIT`` and seated as a
    command that logs its decisions like the ``agent`` seat (so AIVAT corrects both).
``compare``
    ``dealer compare`` of the agent against the frozen copy, each facing ``equity`` on the
    same deals (the ``equity`` rung's matches and a frozen-vs-equity run with the same
    seed): the paired difference, what this week's changes are worth against a fixed opponent.
``lbr-fc`` ``lbr-fcpa`` (``--lbr``)
    ``agent lbr --setting fc|fcpa``: local best response's winnings against the agent (a
    lower bound on its exploitability; slow: seconds a hand), shown as the agent's result.

Every ``dealer run`` rung plays ``--hands`` hands per side of a duplicate match with
``--seed``, in ``OUT/RUNG`` (the run's own folder: logs, decision logs, report.json).
Each row: AIVAT + duplicate mbb/hand for the agent, its 95% CI and the one-tailed p that
the agent wins (``compare``: that it beats the frozen copy; LBR rows: normal
approximation of the showdown-expectation estimate), the hands played, the seconds per
hand of the run (wall clock of the matches, startup included) and the 1-minute load
average sampled during it (the machine may be shared).  The table is printed as
markdown and written to ``OUT/ladder.md``.

``--agent-options`` plays another mode of the agent on every rung (the options of ``agent
connect``, e.g. ``--solve-from turn --later-gadget resolve``; LBR rungs get them too):
the agent seat is then this checkout's ``agent connect`` with those options, still named
``agent``.  Two modes on the same deals: run the ``equity`` rung of each with the same
``--seed`` into two folders, then ``dealer compare A/equity/match.*.log --baseline
B/equity/match.*.log``.

Resume-friendly: a rung that finished keeps its result in ``OUT/RUNG/rung.json`` and is
not replayed; an interrupted ``dealer run`` rung is finished with ``dealer run --resume``,
an interrupted LBR rung by ``agent lbr`` itself.  ``--blueprint-value`` also re-evaluates
the ``blueprint`` rung with ``dealer report --value blueprint`` (less spread between two
agents; about 0.12 s of CPU a hand).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from frozen import CheckoutError, frozen_worktree, git
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
#: Today's agent before this week's changes: the ``frozen`` rung's opponent.
FROZEN_COMMIT = "7e72964"
BASELINES = ("call", "raise", "random", "allin", "fold", "equity")
RUNGS = (*BASELINES, "blueprint", "frozen", "compare")
LBR_RUNGS = ("lbr-fc", "lbr-fcpa")
#: The frozen-vs-equity run the ``compare`` rung pairs with the ``equity`` rung.
FROZEN_EQUITY = "frozen-equity"
ESTIMATOR = "aivat+duplicate"
RUNG_FILE = "rung.json"
QUICK_HANDS, DEFAULT_HANDS, DEFAULT_LBR_HANDS = 20, 3000, 1000
_TIMING = re.compile(r"dealer run: (\d+) hands in ([\d.]+) s")


class LadderError(Exception):
    """A rung could not be played or read; the message says which and why."""


@dataclass(frozen=True)
class Settings:
    """What a rung's result depends on: a rung played with others is not reused."""

    hands: int
    seed: int
    t_per_hand: int
    frozen_commit: str
    agent_options: str = ""


@dataclass
class Row:
    """One line of the table (``mbb``: the agent's result, or its edge over the frozen copy)."""

    rung: str
    against: str
    hands: int
    mbb: float
    ci_low: float
    ci_high: float
    p: float | None
    seconds_per_hand: float | None
    load: float | None
    estimator: str = ESTIMATOR


# --- processes ------------------------------------------------------------------------------


def _run(cmd: Sequence[str], what: str) -> tuple[str, float, float]:
    """Run ``cmd`` from the repository; its stderr, the mean 1-minute load average while it
    ran (sampled every 5 s) and its wall seconds.  Raises LadderError."""
    started = time.monotonic()
    loads = [os.getloadavg()[0]]
    with subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            while True:
                try:
                    out, err = proc.communicate(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    loads.append(os.getloadavg()[0])
        except KeyboardInterrupt:
            proc.terminate()  # dealer run keeps what it played; the next ladder run resumes it
            proc.wait()
            raise
    if proc.returncode != 0:
        raise LadderError(f"{what} failed ({shlex.join(cmd)}):\n{(err or out)[-2000:]}")
    return err, sum(loads) / len(loads), time.monotonic() - started


def frozen_seat(commit: str) -> str:
    """The ``dealer run`` command seat of the agent at ``commit``: ``agent connect`` of that
    checkout, with the options ``dealer run`` gives its ``agent`` seat (see its placeholders)."""
    tree = frozen_worktree(commit)
    blueprint = tree / "precompute" / "data" / "holdem.nolimit.2p.blueprint.xz"
    # PYTHONSAFEPATH: the working folder (this checkout) must not shadow the frozen one.
    words = [
        "env", "PYTHONSAFEPATH=1", f"PYTHONPATH={tree}", sys.executable, "-m", "agent.cli", "connect",
        "--game", "{game}", "--seed", "{seed}", "--name", "{name}", "--match", "{match}", "--decision-log", "{decision_log}",
        "--action-limit", "{action_limit}", "--time-budget", "{time_budget}", "--blueprint", str(blueprint),
    ]  # fmt: skip
    return shlex.join(words)


def agent_seat(options: str) -> str:
    """The ``dealer run`` seat of this checkout's agent: the built-in ``agent`` kind, or with
    ``options`` (``agent connect`` options) the same command with them added."""
    if not options.strip():
        return "agent"
    words = [
        sys.executable, "-m", "agent.cli", "connect", "--game", "{game}", "--seed", "{seed}", "--name", "{name}",
        "--match", "{match}", "--decision-log", "{decision_log}", "--action-limit", "{action_limit}",
        "--time-budget", "{time_budget}", *shlex.split(options),
    ]  # fmt: skip
    return shlex.join(words)


# --- rungs ------------------------------------------------------------------------------------


def _lineup(rung: str, settings: Settings) -> tuple[list[str], list[str]]:
    """Seats and names of a ``dealer run`` rung (or of the frozen-vs-equity run)."""
    agent = agent_seat(settings.agent_options)
    if rung in BASELINES:
        return [agent, rung], ["agent", rung]
    if rung == "blueprint":
        return [agent, "agent-blueprint"], ["agent", "blueprint-only"]
    if rung == "frozen":
        return [agent, frozen_seat(settings.frozen_commit)], ["agent", "frozen"]
    if rung == FROZEN_EQUITY:
        return [frozen_seat(settings.frozen_commit), "equity"], ["frozen", "equity"]
    raise LadderError(f"unknown rung {rung!r}")


def _saved(folder: Path, settings: Settings) -> Row | None:
    """The row a finished rung left in ``folder``, if it was played with ``settings``."""
    try:
        saved = json.loads((folder / RUNG_FILE).read_text())
    except (OSError, ValueError):
        return None
    found = saved.get("settings") or {}
    found.setdefault("agent_options", "")  # rungs saved before --agent-options existed
    return Row(**saved["row"]) if found == asdict(settings) else None


def _save(folder: Path, settings: Settings, row: Row) -> Row:
    (folder / RUNG_FILE).write_text(json.dumps({"settings": asdict(settings), "row": asdict(row)}, indent=1) + "\n")
    return row


def play_match(rung: str, out: Path, settings: Settings) -> tuple[dict, float | None, float | None]:
    """Play (or finish) a duplicate ``dealer run`` rung in ``out/rung``; its report.json,
    seconds per hand and load average (None for a run found finished)."""
    folder = out / rung
    seats, names = _lineup(rung, settings)
    run_file = folder / "run.json"
    if run_file.exists():
        found = json.loads(run_file.read_text())
        wanted = {"seats": seats, "hands": settings.hands, "seed": settings.seed, "t_per_hand": settings.t_per_hand}
        if any(found.get(k) != v for k, v in wanted.items()):
            raise LadderError(f"{folder} holds a run with other settings; give another --out or remove it")
        cmd = [sys.executable, "-m", "dealer.cli", "run", "--resume", str(folder), "--quiet"]
    else:
        cmd = [sys.executable, "-m", "dealer.cli", "run", *seats, "--duplicate", "--hands", str(settings.hands),
               "--seed", str(settings.seed), "--names", ",".join(names), "--out", str(folder), "--quiet",
               "--t_per_hand", str(settings.t_per_hand)]  # fmt: skip
    err, load, _ = _run(cmd, f"rung {rung}")
    timing = _TIMING.findall(err)
    played, seconds = (int(timing[-1][0]), float(timing[-1][1])) if timing else (0, 0.0)
    return json.loads((folder / "report.json").read_text()), (seconds / played if played else None), load


def _result(report: dict, seat: str) -> dict:
    """The ``seat``'s AIVAT + duplicate figures in a report (or comparison) JSON."""
    results = report["lineups"][0]["results"][seat]
    if ESTIMATOR not in results:
        raise LadderError(f"the report has no {ESTIMATOR} figure for {seat} (not a duplicate match?)")
    return results[ESTIMATOR]


def _finite(x: float | None) -> float:
    return x if x is not None else math.nan


def match_row(rung: str, out: Path, settings: Settings) -> Row:
    """Play a ``dealer run`` rung (or reuse it) and read the agent's figures."""
    folder = out / rung
    if (row := _saved(folder, settings)) is not None:
        return row
    report, per_hand, load = play_match(rung, out, settings)
    r = _result(report, "agent")
    against = _lineup(rung, settings)[1][1]
    hands = sum(log["hands"] for log in report["logs"])
    row = Row(rung, against, hands, r["mbb_per_hand"], _finite(r["mbb_ci_low"]), _finite(r["mbb_ci_high"]), r["p_value"],
              per_hand, load)  # fmt: skip
    return _save(folder, settings, row)


def blueprint_value_row(out: Path, settings: Settings) -> Row:
    """The ``blueprint`` rung evaluated again with ``dealer report --value blueprint``."""
    base = match_row("blueprint", out, settings)
    folder = out / "blueprint"
    json_path = folder / "report-blueprint-value.json"
    saved = folder / "rung-blueprint-value.json"
    if saved.exists() and json_path.exists() and json.loads(saved.read_text()).get("settings") == asdict(settings):
        return Row(**json.loads(saved.read_text())["row"])
    logs = [str(p) for p in sorted(folder.glob("match.*.log"))]
    cmd = [sys.executable, "-m", "dealer.cli", "report", *logs, "--value", "blueprint", "--json", str(json_path), "--jobs", "2"]
    _, load, _ = _run(cmd, "dealer report --value blueprint")
    r = _result(json.loads(json_path.read_text()), "agent")
    row = Row("blueprint (ṽ blueprint)", base.against, base.hands, r["mbb_per_hand"], _finite(r["mbb_ci_low"]),
              _finite(r["mbb_ci_high"]), r["p_value"], None, load, "aivat+duplicate, blueprint ṽ")  # fmt: skip
    saved.write_text(json.dumps({"settings": asdict(settings), "row": asdict(row)}, indent=1) + "\n")
    return row


def compare_row(out: Path, settings: Settings) -> Row:
    """``dealer compare`` of the agent against the frozen copy, both facing ``equity`` on the same deals."""
    folder = out / "compare"
    if (row := _saved(folder, settings)) is not None:
        return row
    match_row("equity", out, settings)
    _, per_hand, load = play_match(FROZEN_EQUITY, out, settings)
    folder.mkdir(parents=True, exist_ok=True)
    json_path = folder / "compare.json"
    cmd = [sys.executable, "-m", "dealer.cli", "compare", *map(str, sorted((out / "equity").glob("match.*.log"))),
           "--baseline", *map(str, sorted((out / FROZEN_EQUITY).glob("match.*.log"))), "--json", str(json_path)]  # fmt: skip
    _run(cmd, "dealer compare")
    d = json.loads(json_path.read_text())["results"][ESTIMATOR]["difference"]
    row = Row("compare", "agent − frozen, both vs equity", 2 * d["hands"], d["mbb_per_hand"], _finite(d["mbb_ci_low"]),
              _finite(d["mbb_ci_high"]), d["p_value"], per_hand, load, "aivat+duplicate, paired difference")  # fmt: skip
    return _save(folder, settings, row)


def lbr_row(rung: str, out: Path, settings: Settings, hands: int) -> Row:
    """``agent lbr`` (resumed by itself when interrupted): the agent's result is minus LBR's winnings."""
    setting = rung.removeprefix("lbr-")
    folder = out / rung
    lbr_settings = Settings(hands, settings.seed, settings.t_per_hand, settings.frozen_commit, settings.agent_options)
    if (row := _saved(folder, lbr_settings)) is not None:
        return row
    cmd = [sys.executable, "-m", "agent.cli", "lbr", "--setting", setting, "--hands", str(hands), "--seed", str(settings.seed),
           "--time-budget", str(settings.t_per_hand / 1000), "--out", str(folder),
           *shlex.split(settings.agent_options)]  # fmt: skip
    _, load, _ = _run(cmd, f"rung {rung}")
    result = json.loads((folder / "result.json").read_text())
    estimate = result["showdown_expectation"]
    if estimate is None:
        raise LadderError(f"rung {rung}: too few hands for an estimate (--lbr-hands)")
    mbb, half = -estimate["mbb_per_hand"], estimate["ci95"]
    # One-tailed p that the agent wins (LBR's winnings below 0), normal approximation.
    p = float(stats.norm.sf(mbb / (half / 1.96))) if half > 0 else None
    per_hand = result["wall_seconds"] / result["hands"] if result["hands"] else None
    row = Row(rung, f"LBR {setting}", result["hands"], mbb, mbb - half, mbb + half, p, per_hand, load,
              "showdown expectation")  # fmt: skip
    return _save(folder, lbr_settings, row)


# --- the table ------------------------------------------------------------------------------------


def _number(x: float | None, digits: int = 1) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:,.{digits}f}"


def _p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "-"
    return "<0.001" if p < 0.001 else ">0.999" if p > 0.999 else f"{p:.3f}"


def table(rows: Sequence[Row]) -> str:
    """The rows as a markdown table."""
    lines = [
        "| rung | agent vs | hands | mbb/hand | 95% CI | p(agent wins) | s/hand | load | estimator |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r.rung} | {r.against} | {r.hands:,} | {_number(r.mbb)} | [{_number(r.ci_low)}, {_number(r.ci_high)}] "
            f"| {_p(r.p)} | {_number(r.seconds_per_hand, 2)} | {_number(r.load)} | {r.estimator} |"
        )
    return "\n".join(lines)


def _header(settings: Settings) -> str:
    head = git("rev-parse", "--short", "HEAD")
    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "--untracked-files=no") else ""
    return (
        f"Strength ladder of the agent at {head}{dirty}, {time.strftime('%Y-%m-%d %H:%M')}: {settings.hands:,} hands per "
        f"side of each duplicate match, seed {settings.seed}, {settings.t_per_hand} ms per hand, frozen copy "
        f"{settings.frozen_commit}; {os.cpu_count()} cores"
        f"{'; agent options ' + settings.agent_options if settings.agent_options else ''}.\n\n"
        f"    {shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]])}\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_HANDS} hands per rung (unless --hands) and no LBR")
    parser.add_argument("--hands", type=int, help=f"hands per side of each duplicate match (default {DEFAULT_HANDS})")
    parser.add_argument("--seed", type=int, default=12, help="card seed of every match (default 12)")
    parser.add_argument(
        "--rungs", help=f"comma-separated rungs (default {','.join(RUNGS)}; with --lbr also {','.join(LBR_RUNGS)})"
    )
    parser.add_argument("--out", type=Path, help="folder of the rungs (default matches/ladder-<date-time>)")
    parser.add_argument("--lbr", action="store_true", help="add the LBR rungs (slow: seconds a hand)")
    parser.add_argument(
        "--lbr-hands", type=int, default=DEFAULT_LBR_HANDS, help=f"hands of each LBR rung (default {DEFAULT_LBR_HANDS})"
    )
    parser.add_argument("--t-per-hand", type=int, default=7000, help="the dealer's ms per hand (the agent aims at a quarter)")
    parser.add_argument("--frozen-commit", default=FROZEN_COMMIT, help=f"the frozen copy's commit (default {FROZEN_COMMIT})")
    parser.add_argument(
        "--agent-options", default="", metavar="OPTIONS",
        help="agent connect options for the agent on every rung, e.g. \"--solve-from turn\" (default: none)",
    )
    parser.add_argument(
        "--blueprint-value", action="store_true",
        help="also evaluate the blueprint rung with dealer report --value blueprint",
    )  # fmt: skip
    args = parser.parse_args(argv)
    hands = args.hands or (QUICK_HANDS if args.quick else DEFAULT_HANDS)
    default = [*RUNGS, *(LBR_RUNGS if args.lbr and not args.quick else ())]
    rungs = [r for r in args.rungs.split(",") if r] if args.rungs else default
    unknown = [r for r in rungs if r not in (*RUNGS, *LBR_RUNGS)]
    if unknown or hands < 1:
        parser.error(f"unknown rung {unknown[0]!r}" if unknown else "--hands must be at least 1")
    out = args.out or ROOT / "matches" / time.strftime("ladder-%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    try:
        shlex.split(args.agent_options)
    except ValueError as exc:
        parser.error(f"--agent-options: {exc}")
    settings = Settings(hands, args.seed, args.t_per_hand, args.frozen_commit, args.agent_options)
    rows: list[Row] = []
    try:
        for rung in rungs:
            started = time.monotonic()
            print(f"strength_ladder: {rung} ...", file=sys.stderr, flush=True)
            if rung in LBR_RUNGS:
                rows.append(lbr_row(rung, out, settings, args.lbr_hands))
            elif rung == "compare":
                rows.append(compare_row(out, settings))
            else:
                rows.append(match_row(rung, out, settings))
                if rung == "blueprint" and args.blueprint_value:
                    rows.append(blueprint_value_row(out, settings))
            print(f"strength_ladder: {rung} done in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    except (LadderError, CheckoutError) as exc:
        print(f"strength_ladder: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"strength_ladder: interrupted; run the same command to resume in {out}", file=sys.stderr)
        return 130
    text = _header(settings) + "\n" + table(rows) + "\n"
    (out / "ladder.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
