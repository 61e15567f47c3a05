"""Play one match of the agent against a seat on ``dealer serve`` and measure it.

Shared by ``check_deploy.py`` (the ACPC validation check of an entry) and
``bench_agent.py`` (decision times and memory).  The agent is any command taking
``HOST PORT`` (``deploy/startme.sh`` or ``agent connect``); its peak resident memory
is read from ``/proc/PID/status`` (VmHWM) while it plays.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from protocol.decisions import read_decision_log

ROOT = Path(__file__).resolve().parents[2]
#: The ACPC validation limits (ms): 7 s per hand on average, 10 minutes per action.
COMPETITION_LIMITS = ("--t_per_hand", "7000", "--t_response", "600000", "--t_hand", "21000000")
_PROBLEM = re.compile(r"WARNING|ERROR|\"level\": \"(warning|error|critical)\"|\[(warning|error)")


@dataclass
class MatchRun:
    """What one measured match gave."""

    hands: int
    score: str
    problems: list[str]
    agent_exit: int | None
    exit_seconds: float | None
    peak_rss_bytes: int
    wall_seconds: float
    action_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    hand_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sources: dict[str, int] = field(default_factory=dict)
    out: Path = Path()


def _peak_rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def play(
    agent_cmd: list[str], *, opponent: str, hands: int, seed: int, out: Path, env: dict[str, str] | None = None,
    agent_first: bool = True,
) -> MatchRun:  # fmt: skip
    """Serve one match with the competition limits: ``agent_cmd + [HOST, PORT]`` against
    the baseline ``opponent`` (a ``dealer bot`` kind).  Logs go to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    names = ["agent", opponent] if agent_first else [opponent, "agent"]
    dealer_err = out / "dealer.err"
    started = time.monotonic()
    with open(dealer_err, "w") as err:
        dealer = subprocess.Popen(
            [sys.executable, "-m", "dealer.cli", "serve", "match", "holdem.nolimit.2p", str(hands), str(seed), *names,
             "-q", "--out-dir", str(out), *COMPETITION_LIMITS],
            stdout=subprocess.PIPE, stderr=err, text=True, cwd=ROOT,
        )  # fmt: skip
    assert dealer.stdout is not None
    ports = dealer.stdout.readline().split()
    seat = names.index("agent")
    with open(out / "agent.err", "w") as agent_err:
        agent = subprocess.Popen([*agent_cmd, "127.0.0.1", ports[seat]], stdout=agent_err, stderr=subprocess.STDOUT,
                                 env={**os.environ, **(env or {})})  # fmt: skip
    with open(out / "opponent.err", "w") as opp_err:
        bot = subprocess.Popen(
            [sys.executable, "-m", "dealer.cli", "bot", opponent, "127.0.0.1", ports[1 - seat], "--game",
             "holdem.nolimit.2p", "--seed", str(seed), "--name", opponent, "--match", "match",
             "--decision-log", str(out / f"match.{opponent}.dlog")],
            stdout=opp_err, stderr=subprocess.STDOUT, cwd=ROOT,
        )  # fmt: skip
    peak = 0
    while dealer.poll() is None:
        peak = max(peak, _peak_rss(agent.pid))
        time.sleep(0.5)
    score = dealer.stdout.read().strip()
    ended = time.monotonic()
    try:
        code = agent.wait(30)
        exit_seconds = time.monotonic() - ended
    except subprocess.TimeoutExpired:
        agent.kill()
        code, exit_seconds = None, None
    bot.wait(30)
    problems = [
        f"{name}: {line}"
        for name in ("dealer.err", "agent.err", "opponent.err")
        for line in (out / name).read_text(errors="replace").splitlines()
        if _PROBLEM.search(line)
    ]
    run = MatchRun(hands, score, problems, code, exit_seconds, peak, ended - started, out=out)
    _decision_times(run, out / "agent.dlog")
    return run


def _decision_times(run: MatchRun, dlog: Path) -> None:
    if not dlog.exists():
        return
    _, decisions = read_decision_log(dlog)
    per_hand: dict[int, float] = {}
    actions = []
    for d in decisions:
        seconds = d.seconds or 0.0
        actions.append(seconds)
        per_hand[d.hand] = per_hand.get(d.hand, 0.0) + seconds
    run.action_seconds = np.array(actions)
    # Hands where the agent never acted (the opponent folded first) took it no time.
    run.hand_seconds = np.concatenate([list(per_hand.values()), np.zeros(max(run.hands - len(per_hand), 0))])


def describe(run: MatchRun) -> str:
    """The figures of ``run`` as printable lines."""

    def stats(values: np.ndarray) -> str:
        if not len(values):
            return "none"
        return f"mean {values.mean():.3f} s, p99 {np.percentile(values, 99):.3f} s, max {values.max():.3f} s"

    agent_said = [line for line in (run.out / "agent.err").read_text(errors="replace").splitlines() if line.startswith("agent")]
    lines = [
        f"hands {run.hands}, wall {run.wall_seconds:.0f} s, {run.score}",
        *agent_said[-1:],
        f"decision time per action ({len(run.action_seconds)} actions): {stats(run.action_seconds)}",
        f"decision time per hand ({run.hands} hands): {stats(run.hand_seconds)}",
        f"peak resident memory of the agent: {run.peak_rss_bytes / 2**20:.0f} MiB",
        f"agent exit code {run.agent_exit}, {run.exit_seconds:.1f} s after the match"
        if run.exit_seconds is not None
        else "agent did not exit within 30 s of the match",
        f"WARNING/ERROR lines: {len(run.problems)}",
        *[f"  {p}" for p in run.problems[:20]],
    ]
    return "\n".join(lines)
