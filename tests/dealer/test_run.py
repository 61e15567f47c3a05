"""``dealer run`` end to end: real processes over loopback."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from dealer.evaluation.matchlog import read_match_log
from protocol.decisions import read_decision_log

SCRIPTS = Path(__file__).with_name("seat_scripts.py")


def dealer_run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dealer.cli", "run", "--quiet", *args],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def test_heads_up_baselines_with_report_and_decision_logs(tmp_path):
    # (The default lineup, our agent against call, is played in tests/agent/test_match.py.)
    result = dealer_run("random", "call", "--hands", "150", "--seed", "11", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    log = read_match_log(tmp_path / "match.log")
    assert len(log.hands) == 150
    assert sorted(log.seats) == ["call", "random"]
    # Every seat's decision log covers its decisions in this match.
    dlogs = sorted((tmp_path / "decisions").glob("*.dlog"))
    assert [p.name for p in dlogs] == ["match.call.dlog", "match.random.dlog"]
    for path in dlogs:
        header, decisions = read_decision_log(path)
        assert header["match"] == "match" and sum(1 for _ in decisions) > 100
    # The report names both seats with mbb/hand and a confidence interval.
    assert "mbb/hand" in result.stdout and "95% CI" in result.stdout
    assert "random" in result.stdout and "call" in result.stdout
    # A second run in the same folder is refused: it would rewrite these logs.
    again = dealer_run("call", "random", "--hands", "5", "--out", str(tmp_path))
    assert again.returncode == 2 and "holds an earlier run (run.json)" in again.stderr
    assert len(read_match_log(tmp_path / "match.log").hands) == 150


def test_three_player_duplicate_plays_all_six_orders(tmp_path):
    result = dealer_run("random", "call", "raise", "--game", "holdem.nolimit.3p", "--hands", "12",
                        "--seed", "5", "--duplicate", "--out", str(tmp_path))  # fmt: skip
    assert result.returncode == 0, result.stderr
    logs = [read_match_log(tmp_path / f"match.{i}.log") for i in range(1, 7)]
    orders = {tuple(log.seats) for log in logs}
    assert len(orders) == 6
    # Same seed: position p holds the same cards in hand h of every match.
    for h in range(12):
        holes = {log.hands[h].state.hole_cards for log in logs}
        assert len(holes) == 1


def test_a_crashing_seat_is_named_and_finished_hands_are_kept(tmp_path):
    crash = f"{sys.executable} {SCRIPTS} quit-after 6"
    result = dealer_run("call", crash, "--names", "caller,crasher", "--hands", "100", "--out", str(tmp_path))
    assert result.returncode == 1
    assert "seat 2 (crasher)" in result.stderr
    assert "quitting at hand 6" in result.stderr  # the seat's own last words are shown
    assert len(read_match_log(tmp_path / "match.log").hands) == 6


def test_a_hanging_seat_is_named(tmp_path):
    hang = f"{sys.executable} {SCRIPTS} hang"
    result = dealer_run(hang, "call", "--names", "sleeper,caller", "--hands", "50", "--t_response", "700",
                        "--out", str(tmp_path), timeout=60)  # fmt: skip
    assert result.returncode == 1
    assert "sleeper" in result.stderr and "timed out" in result.stderr


def test_bad_seat_command_and_wrong_seat_count_are_one_sentence(tmp_path):
    result = dealer_run("call", "/no/such/program", "--hands", "5", "--out", str(tmp_path / "r"))
    assert result.returncode == 2  # refused before anything starts, and nothing is left behind
    assert "seat 2: '/no/such/program' is not a bot kind" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "r").exists()
    result = dealer_run("call", "--hands", "5", "--out", str(tmp_path))
    assert result.returncode == 2 and "2 seats needed" in result.stderr


def _decisions(path: Path) -> list[tuple[int, str, str]]:
    return [(d.hand, d.state, d.taken) for d in read_decision_log(path)[1]]


def test_an_interrupted_run_resumes_to_the_log_of_an_uninterrupted_one(tmp_path):
    args = ["random", "raise", "--hands", "1000", "--seed", "4", "--quiet"]
    whole = dealer_run(*args, "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    cut = tmp_path / "cut"
    # A job started in the background by a non-interactive shell inherits SIGINT ignored
    # (POSIX), and so would this run: give it the default disposition, as a terminal does.
    proc = subprocess.Popen(
        [sys.executable, "-m", "dealer.cli", "run", *args, "--out", str(cut)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    log = cut / "match.log"
    deadline = time.monotonic() + 120
    while not (log.exists() and log.read_text().count("\nSTATE:") >= 50) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole process group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert f"Resume with: dealer run --resume {cut}" in err
    assert f"interrupted; {log.read_text().count(chr(10) + 'STATE:')} finished hands are kept in {cut}" in err
    kept = log.read_text().count("\nSTATE:")
    assert 50 <= kept < 1000 and "SCORE:" not in log.read_text()

    resumed = dealer_run("--resume", str(cut))
    assert resumed.returncode == 0, resumed.stderr
    assert "resumed" in resumed.stderr
    assert log.read_text() == (tmp_path / "whole" / "match.log").read_text()
    for seat in ("random", "raise"):  # every decision once, as in the uninterrupted run
        name = f"match.{seat}.dlog"
        assert _decisions(cut / "decisions" / name) == _decisions(tmp_path / "whole" / "decisions" / name)
    # A finished run has nothing left to resume: the logs stay as they are.
    again = dealer_run("--resume", str(cut))
    assert again.returncode == 0 and log.read_text() == (tmp_path / "whole" / "match.log").read_text()


def test_a_folder_another_run_plays_in_is_refused(tmp_path):
    import fcntl

    (tmp_path / "run.json").write_text("{}\n")  # a playing run has written its settings
    with open(tmp_path / "run.lock", "w") as lock:  # as a running `dealer run` holds it
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = dealer_run("--hands", "5", "--out", str(tmp_path))
    assert result.returncode == 2
    assert f"another dealer run is playing in {tmp_path}" in result.stderr
    assert not (tmp_path / "match.log").exists()


def test_resume_takes_the_settings_from_the_run_folder(tmp_path):
    result = dealer_run("--resume", str(tmp_path), "--hands", "10")
    assert result.returncode == 2 and "leave out --hands" in result.stderr


def test_a_seat_draws_the_same_numbers_in_a_hand_whatever_came_before(tmp_path):
    # Per-hand random streams (protocol.seeding): against `fold` most hands end at once,
    # against `call` they run on, yet `random` opens every hand it acts first in alike.
    logs = []
    for opponent in ("call", "fold"):
        result = dealer_run("random", opponent, "--hands", "80", "--seed", "3", "--out", str(tmp_path / opponent))
        assert result.returncode == 0, result.stderr
        logs.append(read_match_log(tmp_path / opponent / "match.log"))
    opened = [
        (re.match(r"f|c|r\d+", a.state.betting).group(), re.match(r"f|c|r\d+", b.state.betting).group())
        for a, b in zip(*(log.hands for log in logs))
        if a.names[1] == b.names[1] == "random"  # position 1 acts first preflop
    ]
    assert len(opened) == 40
    assert all(x == y for x, y in opened), opened
    assert len(set(opened)) > 3  # real draws: folds, calls and raises of several sizes


def test_agent_args_are_refused_in_one_sentence_before_anything_starts(tmp_path):
    cases = {
        ("call", "raise", "--agent-args=--blueprint-only"): "--agent-args is for agent seats",
        ("agent", "call", "--agent-args", "--seed 3"): "--agent-args may not give --seed: dealer run sets it",
        ("agent", "call", "--agent-args=--time-budget=2"): "--agent-args may not give --time-budget",
        ("agent", "call", "--agent-args", "--river-sizes 'allin"): "cannot read --agent-args",
    }
    for args, message in cases.items():
        result = dealer_run(*args, "--hands", "5", "--out", str(tmp_path / "r"))
        assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr, args
        assert not (tmp_path / "r").exists()


def test_agent_args_reach_the_agent_seats_only_and_old_runs_resume(tmp_path):
    from dealer.run import Seat, _seat_command, run_seats

    settings = {"seats": ["agent-flop", "equity"], "agent_args": "--new-round-alternatives blueprint"}
    flop, equity = run_seats(["flop", "equity"], settings)
    command = _seat_command(flop, 0, "holdem.nolimit.2p", 5000, "match.1", 7, tmp_path, (60000, 7000))
    assert command[command.index("--solve-from") :][:2] == ["--solve-from", "flop"]  # the kind's own options first
    assert command[-2:] == ["--new-round-alternatives", "blueprint"]
    assert equity.options == () and "blueprint" not in _seat_command(
        equity, 1, "holdem.nolimit.2p", 5000, "match.1", 7, tmp_path, (60000, 7000)
    )
    assert _seat_command(Seat("a", "agent"), 0, "holdem.nolimit.2p", 5000, "m", 7, tmp_path, (60000, 7000))[-1] == "7.0"
    # A run saved before --agent-args existed has no such setting: it still resumes.
    out = tmp_path / "old"
    assert dealer_run("random", "raise", "--hands", "20", "--seed", "3", "--out", str(out)).returncode == 0
    settings = json.loads((out / "run.json").read_text())
    assert settings.pop("agent_args") == ""
    (out / "run.json").write_text(json.dumps(settings))
    resumed = dealer_run("--resume", str(out))
    assert resumed.returncode == 0, resumed.stderr
    assert "resumes with" not in resumed.stderr  # the same code: no note


def test_run_json_says_which_code_played_and_a_resume_by_other_code_is_noted(tmp_path):
    from dealer.provenance import code_version

    out = tmp_path / "run"
    assert dealer_run("random", "raise", "--hands", "20", "--seed", "3", "--out", str(out)).returncode == 0
    settings = json.loads((out / "run.json").read_text())
    assert settings["code"] == code_version()
    if settings["code"] is not None:  # a git checkout (CI's clean clone is one)
        assert re.fullmatch(r"[0-9a-f]{40}", settings["code"]["commit"]) and isinstance(settings["code"]["modified"], bool)
    (out / "run.json").write_text(json.dumps({**settings, "code": {"commit": "0" * 40, "modified": True}}))
    other = dealer_run("--resume", str(out))
    assert other.returncode == 0, other.stderr
    assert "this run started with 0000000 + changes and resumes with " in other.stderr


def test_code_version_outside_a_checkout_is_none(tmp_path):
    from dealer.provenance import code_version, describe

    assert code_version(tmp_path) is None
    assert describe(None) == "unknown code" and describe({"commit": "ab" * 20, "modified": False}) == "abababa"
