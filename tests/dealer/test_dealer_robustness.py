"""Bad peers, slow peers, dead peers and a killed dealer."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from protocol.gamedef import load_game
from protocol.wire import parse_state_line
from tests.dealer.driver import ScriptedSeat, call_station, check_down, start_dealer

NL = "holdem.nolimit.2p"


def test_garbage_and_a_megabyte_line_are_warnings_not_crashes(tmp_path):
    dealer = start_dealer(tmp_path, "g", NL, 1, 5, ["A", "B"], "-q")
    a, b = ScriptedSeat(dealer.ports[0]), ScriptedSeat(dealer.ports[1])
    first_a, first_b = a.recv(), b.recv()
    assert first_a.startswith("MATCHSTATE:0:0::")
    assert first_b.startswith("MATCHSTATE:1:0::|")  # seat 2 is the button in hand 0 and acts first
    b.send(b"\x00\xff\xfe garbage \x80")
    b.send(b"x" * 1_000_000)
    b.send(first_b + ":c")
    check_down(a, b, load_game(NL))  # the hand goes on
    code, out, err = dealer.finish()
    assert code == 0, err
    assert err.count("WARNING: bad state format in response") == 2
    assert out.startswith("SCORE:")


def test_a_seat_too_slow_for_t_response_ends_the_match(tmp_path):
    dealer = start_dealer(tmp_path, "slow", NL, 10, 5, ["Fast", "Slow"], "-q", "--t_response", "300")
    a, b = ScriptedSeat(dealer.ports[0]), ScriptedSeat(dealer.ports[1])
    a.recv(), b.recv()
    started = time.monotonic()
    code, out, err = dealer.finish(timeout=20)
    assert code == 1 and "SCORE" not in out
    assert time.monotonic() - started < 5
    assert "ERROR: could not get action from seat 2" in err
    assert "seat 2 (Slow) timed out in hand 0" in err


def test_a_seat_that_disconnects_is_named(tmp_path):
    dealer = start_dealer(tmp_path, "dc", NL, 50, 5, ["Stays", "Leaves"], "-q")
    stays = call_station(dealer.ports[0], NL)
    call_station(dealer.ports[1], NL, hands_before_quit=7)
    code, _, err = dealer.finish()
    stays.join(5)
    assert code == 1
    assert "seat 2 (Leaves) disconnected in hand 7" in err
    assert "7 finished hands are in" in err
    states = [line for line in (tmp_path / "dc.log").read_text().splitlines() if line.startswith("STATE:")]
    assert len(states) == 7


def test_a_killed_dealer_resumes_with_a(tmp_path):
    game = load_game(NL)
    # The uninterrupted match, for comparison (call stations are deterministic).
    ref_dir = tmp_path / "ref"
    dealer = start_dealer(ref_dir, "m", NL, 40, 9, ["A", "B"], "-q")
    threads = [call_station(p, NL) for p in dealer.ports]
    code, expected_score, _ = dealer.finish()
    assert code == 0
    expected = (ref_dir / "m.log").read_text()

    run_dir = tmp_path / "run"
    dealer = start_dealer(run_dir, "m", NL, 40, 9, ["A", "B"], "-q")
    threads = [call_station(p, NL) for p in dealer.ports]
    log = run_dir / "m.log"
    while log.read_text().count("STATE:") < 15:
        time.sleep(0.01)
    dealer.proc.send_signal(signal.SIGKILL)
    dealer.proc.wait()
    for t in threads:
        t.join(5)
    kept = [parse_state_line(line, game) for line in log.read_text().splitlines() if line.startswith("STATE:")]
    assert len(kept) >= 15  # every finished hand survived the kill

    dealer = start_dealer(run_dir, "m", NL, 40, 9, ["A", "B"], "-q", "-a")
    threads = [call_station(p, NL) for p in dealer.ports]
    code, score, err = dealer.finish()
    assert code == 0, err
    assert score == expected_score
    assert log.read_text() == expected


HUGE = "9" * 5000


def test_huge_numbers_in_replies_are_warnings_not_crashes(tmp_path):
    """Raise size, hand number, position and a raise inside the echoed betting, 5,000 digits each."""
    dealer = start_dealer(tmp_path, "huge", NL, 1, 5, ["A", "B"], "-q")
    a, b = ScriptedSeat(dealer.ports[0]), ScriptedSeat(dealer.ports[1])
    a.recv()
    first_b = b.recv()  # MATCHSTATE:1:0::|<cards>, seat 2 acts first
    cards = first_b.split(":")[-1]
    b.send(f"MATCHSTATE:1:{HUGE}::{cards}:c")  # hand number: not the state asked about
    b.send(f"MATCHSTATE:{HUGE}:0::{cards}:c")  # position
    b.send(f"MATCHSTATE:1:0:r{HUGE}:{cards}:c")  # inside the echoed betting
    b.send(f"{first_b}:r{HUGE}")  # the raise size itself: changed to call
    game = load_game(NL)
    check_down(a, b, game)
    code, out, err = dealer.finish()
    assert code == 0, err
    assert "Traceback" not in err
    assert err.count("WARNING: bad state format in response") == 3
    assert err.count("WARNING: bad action format in response, changed to call") == 1
    assert parse_state_line((tmp_path / "huge.log").read_text().splitlines()[4], game).state.betting == "cc/cc/cc/cc"
    assert out.startswith("SCORE:")


def _play_calls(out_dir, match, hands, seed, *extra):
    dealer = start_dealer(out_dir, match, NL, hands, seed, ["A", "B"], "-q", *extra)
    threads = [call_station(p, NL) for p in dealer.ports]
    result = dealer.finish()
    for t in threads:
        t.join(5)
    return result


def test_resume_refuses_a_finished_match_another_match_and_a_missing_transaction_log(tmp_path):
    code, _, err = _play_calls(tmp_path, "m", 5, 9)
    assert code == 0, err
    log = (tmp_path / "m.log").read_text()
    tlog = (tmp_path / "m.tlog").read_bytes()
    refusals = {
        ("m", "5", "9"): "the match in {dir}/m.log is finished (it has its SCORE line)",
        ("m", "5", "10"): "{dir}/m.log is a match with seed '9' (given '10')",
        ("m", "6", "9"): "{dir}/m.log is a match with hands '5' (given '6')",
        ("other", "5", "9"): "there is no transaction log {dir}/other.tlog",
    }
    for (match, hands, seed), sentence in refusals.items():
        cmd = [sys.executable, "-m", "dealer.cli", "serve", match, NL, hands, seed, "A", "B", "-a", "--out-dir", str(tmp_path)]
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=30)  # refused before listening
        assert result.returncode == 1 and result.stdout == ""
        assert f"cannot resume: {sentence.format(dir=tmp_path)}" in result.stderr
        assert "Traceback" not in result.stderr
    # Nothing was touched: no second SCORE line.
    assert (tmp_path / "m.log").read_text() == log and (tmp_path / "m.tlog").read_bytes() == tlog
    result = subprocess.run(
        [sys.executable, "-m", "dealer.cli", "serve", "m", "leduc.limit.2p", "5", "9", "A", "B", "-a",
         "--out-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert "is a match with game 'holdem.nolimit.2p' (given 'leduc.limit.2p')" in result.stderr


@pytest.mark.parametrize("name", ["A|B", "A:B", ""])
def test_seat_names_the_log_cannot_hold_are_refused(tmp_path, name):
    cmd = [sys.executable, "-m", "dealer.cli", "serve", "m", NL, "5", "1", "ok", name, "--out-dir", str(tmp_path)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert result.returncode == 1 and result.stdout == ""
    assert f"dealer serve: seat name {name!r} holds" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "m.log").exists()
