"""Numbers no protocol field can hold are bad lines, never crashes (Python refuses to
convert integers of more than 4,300 digits, and msgpack stores at most 64 bits)."""

from __future__ import annotations

import socket
import threading

import pytest

from dealer.botclient import play
from protocol.decisions import DecisionLogWriter, read_decision_log, truncate_decision_log
from protocol.errors import WireFormatError
from protocol.gamedef import load_game
from protocol.wire import MAX_INT_DIGITS, MatchStateReader, parse_matchstate, parse_state_line, read_action

NL = load_game("holdem.nolimit.2p")
HUGE = "9" * 5000
TWO_TO_64 = str(2**64)


@pytest.mark.parametrize(
    "line",
    [
        f"MATCHSTATE:0:{HUGE}::AhKd|",
        f"MATCHSTATE:{HUGE}:0::AhKd|",
        f"MATCHSTATE:0:0:r{HUGE}:AhKd|",
        f"MATCHSTATE:0:{TWO_TO_64}::AhKd|",
    ],
)
def test_a_matchstate_with_a_huge_number_is_a_bad_line(line):
    with pytest.raises(WireFormatError, match="digits"):
        parse_matchstate(line, NL)
    with pytest.raises(WireFormatError, match="digits"):
        MatchStateReader(NL).parse(line)


def test_huge_raise_sizes_and_hand_numbers_are_refused_but_18_digits_read():
    with pytest.raises(WireFormatError, match="raise size has 5000 digits"):
        read_action(f"r{HUGE}", NL)
    with pytest.raises(WireFormatError, match="raise size has 5001 digits"):
        read_action(f"r-{HUGE}1", NL)
    assert read_action("r" + "9" * MAX_INT_DIGITS, NL)[0].size == 10**MAX_INT_DIGITS - 1
    with pytest.raises(WireFormatError, match="hand number has 5000 digits"):
        parse_state_line(f"STATE:{HUGE}:cc/cc/cc/cc:AhKd|2c2d/3c4c5c/6d/7h:0|0:A|B", NL)


def test_the_decision_log_refuses_numbers_msgpack_cannot_store(tmp_path):
    with DecisionLogWriter(tmp_path / "d.dlog", seat="s", match="m", game=NL) as log:
        with pytest.raises(ValueError, match="hand 18446744073709551616 is not between 0 and 2\\*\\*64 - 1"):
            log.record(hand=2**64, position=0, state="MATCHSTATE:0:0::AhKd|", probs=[("c", 1.0)], taken="c")
        log.record(hand=2**64 - 1, position=0, state="MATCHSTATE:0:0::AhKd|", probs=[("c", 1.0)], taken="c")
    assert [d.hand for d in read_decision_log(tmp_path / "d.dlog")[1]] == [2**64 - 1]


def test_truncating_a_decision_log_keeps_earlier_hands(tmp_path):
    path = tmp_path / "d.dlog"
    with DecisionLogWriter(path, seat="s", match="m", game=NL, policy="call") as log:
        for hand in range(5):
            log.record(hand=hand, position=0, state=f"MATCHSTATE:0:{hand}::AhKd|", probs=[("c", 1.0)], taken="c")
    with open(path, "ab") as f:
        f.write(b"\x8a\xa4type")  # a record cut off mid-write
    truncate_decision_log(path, 3)
    header, decisions = read_decision_log(path)
    assert header["policy"] == "call" and [d.hand for d in decisions] == [0, 1, 2]
    truncate_decision_log(path, 0)
    assert list(read_decision_log(path)[1]) == []


def test_dealer_bot_skips_lines_with_huge_numbers_and_plays_on(tmp_path):
    """The bot's turn in hand 2**64 and in a 5,000-digit hand: skipped; the next line is answered."""
    server = socket.create_server(("127.0.0.1", 0))
    replies: list[bytes] = []

    def dealer() -> None:
        conn, _ = server.accept()
        reader = conn.makefile("rb")
        replies.append(reader.readline())
        for hand in (TWO_TO_64, HUGE, "7"):
            conn.sendall(f"MATCHSTATE:1:{hand}::|AhKd\r\n".encode())
        replies.append(reader.readline())
        conn.close()
        server.close()

    thread = threading.Thread(target=dealer, daemon=True)
    thread.start()
    dlog = tmp_path / "bot.dlog"
    decisions = play("call", "127.0.0.1", server.getsockname()[1], NL, decision_log=dlog)
    thread.join(5)
    assert decisions == 1
    assert replies == [b"VERSION:2.0.0\r\n", b"MATCHSTATE:1:7::|AhKd:c\r\n"]
    assert [d.hand for d in read_decision_log(dlog)[1]] == [7]
