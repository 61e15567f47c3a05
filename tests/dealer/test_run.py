"""``dealer run`` end to end: real processes over loopback."""

from __future__ import annotations

import subprocess
import sys
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
    result = dealer_run("call", "/no/such/program", "--hands", "5", "--out", str(tmp_path))
    assert result.returncode == 1
    assert "could not start" in result.stderr and "Traceback" not in result.stderr
    result = dealer_run("call", "--hands", "5", "--out", str(tmp_path))
    assert result.returncode == 2 and "2 seats needed" in result.stderr
