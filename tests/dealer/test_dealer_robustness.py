"""Bad peers, slow peers, dead peers and a killed dealer."""

from __future__ import annotations

import signal
import time

from protocol.gamedef import load_game
from protocol.wire import parse_matchstate, parse_state_line
from tests.dealer.driver import ScriptedSeat, call_station, start_dealer

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
    # The hand goes on: check it down.
    game = load_game(NL)
    while True:
        lines = [a.recv(), b.recv()]
        states = [parse_matchstate(line, game) for line in lines]
        if states[0].state.finished:
            break
        for seat, line, match in zip((a, b), lines, states):
            if match.is_my_turn:
                seat.send(line + ":c")
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
    states = [l for l in (tmp_path / "dc.log").read_text().splitlines() if l.startswith("STATE:")]
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
    kept = [parse_state_line(l, game) for l in log.read_text().splitlines() if l.startswith("STATE:")]
    assert len(kept) >= 15  # every finished hand survived the kill

    dealer = start_dealer(run_dir, "m", NL, 40, 9, ["A", "B"], "-q", "-a")
    threads = [call_station(p, NL) for p in dealer.ports]
    code, score, err = dealer.finish()
    assert code == 0, err
    assert score == expected_score
    assert log.read_text() == expected
