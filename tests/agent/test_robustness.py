"""The loop survives a bad dealer: malformed lines are skipped, a lost connection ends cleanly."""

from __future__ import annotations

import socket

from agent.loop import play
from agent.player import Agent
from agent.timing import TimeLimits, TimeManager
from protocol.gamedef import load_game
from tests.agent.fakes import replies, scripted_connection
from tests.agent.placeholder import StrengthStrategist

GAME = load_game("holdem.nolimit.2p")


def make_agent():
    return Agent(GAME, StrengthStrategist(GAME), TimeManager(TimeLimits()))


def test_malformed_lines_are_skipped():
    lines = [
        "# a comment",
        "MATCHSTATE:1:0::|AsKd",          # our turn (small blind acts first)
        "garbage that is no state",
        "MATCHSTATE:1:0:r300x:|AsKd",      # unknown action letter
        "MATCHSTATE:7:0::|AsKd",           # no such position
        "MATCHSTATE:1:0:r99999999c:|AsKd",  # an illegal raise
        "MATCHSTATE:1:0:cc/:|AsKd/2c7h",  # too few board cards
        "\xff\xfe\x00",
        "MATCHSTATE:1:0:r300f:|AsKd",      # the hand ends
    ]
    conn, dealer = scripted_connection(GAME, lines)
    with conn:
        summary = play(conn, make_agent())
    assert summary.clean and summary.decisions == 1 and summary.hands == 1
    assert [r.rsplit(":", 1)[0] for r in replies(dealer)] == ["MATCHSTATE:1:0::|AsKd"]


def test_connection_lost_mid_hand():
    conn, _ = scripted_connection(GAME, ["MATCHSTATE:0:0:r300:AsKd|"])
    with conn:
        summary = play(conn, make_agent())
    assert summary.ended == "connection lost" and summary.decisions == 1


def test_reply_to_a_closed_socket_ends_cleanly():
    conn, dealer = scripted_connection(GAME, ["MATCHSTATE:0:0:r300:AsKd|"], close=False)
    dealer.close()
    with conn:
        summary = play(conn, make_agent())
    assert summary.ended == "connection lost"


def test_dealer_reset_ends_cleanly():
    dealer, seat = socket.socketpair()
    from protocol.client import Connection

    dealer.sendall(b"MATCHSTATE:0:0::AsKd|\r\n")
    dealer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    dealer.close()
    with Connection(seat, GAME) as conn:
        summary = play(conn, make_agent())
    assert summary.ended == "connection lost" and summary.decisions == 0
