"""What a seat or a closed pipe can do to the operator of `dealer serve` (issue 28): control
bytes are escaped on stderr, replies take only ASCII digits, comment lines spend the
seat's time, one stray connection is dropped, and SCORE reaches the log without stdout."""

from __future__ import annotations

import socket
import threading
import time

from dealer.server import leading_int, printable
from protocol.gamedef import load_game
from protocol.wire import parse_state_line
from tests.dealer.driver import ScriptedSeat, call_station, check_down, start_dealer

NL = "holdem.nolimit.2p"
GAME = load_game(NL)


def test_printable_escapes_control_characters_and_keeps_the_rest():
    assert printable("MATCHSTATE:0:0::AsKd|:r300") == "MATCHSTATE:0:0::AsKd|:r300"
    assert printable("\x1b]0;owned\x07") == "\\x1b]0;owned\\x07"
    assert printable("a\x9b2Jb\u202e\u2003") == "a\\x9b2Jb\\u202e\\u2003"
    assert printable("r\u0663\u0660\u0660") == "r\u0663\u0660\u0660"  # printable, shown as sent


def test_version_numbers_take_only_ascii_digits():
    assert leading_int(" 2x") == 2
    assert leading_int("\uff12") is None and leading_int("\u0662") is None and leading_int("\u20032") is None


def test_control_bytes_are_escaped_and_replies_with_other_digits_are_calls(tmp_path):
    dealer = start_dealer(tmp_path, "esc", NL, 1, 5, ["A", "B"])  # not -q: the transcript is on stderr
    a, b = ScriptedSeat(dealer.ports[0]), ScriptedSeat(dealer.ports[1])
    a.recv()
    first_b = b.recv()  # seat 2 acts first
    b.send("\x1b]0;owned\x07\x1b[2J")
    b.send(f"{first_b}:r\u0663\u0660\u0660")  # r٣٠٠: a call, not a raise to 300
    line_a, _ = a.recv(), b.recv()
    assert line_a.split(":")[3] == "c"  # the betting so far: seat 2 called
    a.send(f"{line_a}:r\u2003300")  # an em space before the size: a check, not a raise
    check_down(a, b, GAME)
    code, out, err = dealer.finish()
    assert code == 0, err
    assert "\x1b" not in err and "\x07" not in err
    assert "FROM 2 at " in err and "\\x1b]0;owned\\x07\\x1b[2J" in err
    assert err.count("WARNING: bad action format in response, changed to call") == 2
    assert "\\u2003300" in err
    state_line = next(line for line in (tmp_path / "esc.log").read_text().splitlines() if line.startswith("STATE:"))
    assert parse_state_line(state_line, GAME).state.betting.startswith("cc/")
    assert out.startswith("SCORE:")


def test_comment_lines_spend_the_seats_time(tmp_path):
    dealer = start_dealer(tmp_path, "talk", NL, 5, 5, ["A", "B"], "-q", "--t_response", "600")
    a, b = ScriptedSeat(dealer.ports[0]), ScriptedSeat(dealer.ports[1])
    a.recv(), b.recv()
    stop = threading.Event()

    def chatter() -> None:  # a comment every 0.1 s, each well inside --t_response
        try:
            while not stop.wait(0.1):
                b.send("# still thinking")
        except OSError:
            pass  # the dealer has gone

    thread = threading.Thread(target=chatter, daemon=True)
    started = time.monotonic()
    thread.start()
    code, out, err = dealer.finish(timeout=20)
    stop.set()
    thread.join(5)
    assert code == 1 and "SCORE" not in out
    assert time.monotonic() - started < 4  # not held past --t_response by the comments
    assert "ERROR: could not get action from seat 2" in err
    assert "seat 2 (B) timed out in hand 0" in err


def _stray(port: int) -> None:
    """Connect to ``port`` and hang up without a word (a port probe)."""
    socket.create_connection(("127.0.0.1", port), timeout=5).close()


def test_one_stray_connection_before_a_seat_is_dropped(tmp_path):
    dealer = start_dealer(tmp_path, "stray", NL, 3, 5, ["A", "B"], "-q")
    _stray(dealer.ports[0])
    threads = [call_station(port, NL) for port in dealer.ports]
    code, out, err = dealer.finish()
    for thread in threads:
        thread.join(5)
    assert code == 0, err
    assert out.startswith("SCORE:")
    assert "a connection to seat 1's port closed before its version line; dropped" in err


def test_a_second_stray_connection_is_fatal_as_in_the_reference(tmp_path):
    dealer = start_dealer(tmp_path, "strays", NL, 3, 5, ["A", "B"], "-q")
    _stray(dealer.ports[0])
    _stray(dealer.ports[0])
    b = ScriptedSeat(dealer.ports[1])
    code, out, err = dealer.finish()
    b.close()
    assert code == 1 and "SCORE" not in out
    assert "ERROR: could not read version string from seat 1" in err
    assert "seat 1 (A) sent no version line" in err


def test_score_reaches_the_log_when_stdout_is_closed(tmp_path):
    """`dealer serve ... | head -1`: the reader takes the ports line and goes."""
    dealer = start_dealer(tmp_path, "m", NL, 20, 4, ["A", "B"], "-q")
    dealer.proc.stdout.close()
    threads = [call_station(port, NL) for port in dealer.ports]
    code = dealer.proc.wait(timeout=30)
    err = dealer.proc.stderr.read()
    dealer.proc.stderr.close()
    for thread in threads:
        thread.join(5)
    assert code == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert err.startswith("SCORE:")  # stderr still gets it
    assert (tmp_path / "m.log").read_text().splitlines()[-1] == err.strip()
