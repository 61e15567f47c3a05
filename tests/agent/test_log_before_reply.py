"""A seat logs each decision before it sends it: killed in between, a hand the dealer
then finishes still has every decision of the seat in its decision log (resume relies on it)."""

from __future__ import annotations

import pytest

from agent.loop import play
from agent.player import Agent
from agent.timing import TimeLimits, TimeManager
from dealer import botclient
from protocol.client import Connection
from protocol.decisions import DecisionLogWriter, read_decision_log
from protocol.gamedef import load_game
from tests.agent.fakes import scripted_connection
from tests.agent.placeholder import StrengthStrategist

GAME = load_game("holdem.nolimit.2p")
LINE = "MATCHSTATE:1:0::|AsKd"  # the small blind acts first preflop


class Killed(BaseException):
    """A signal arriving while the reply is on its way (as Ctrl-C's KeyboardInterrupt would)."""


def _dies_on_send(conn: Connection) -> Connection:
    def act(match, action):
        raise Killed

    conn.act = act  # type: ignore[method-assign]
    return conn


def _logged(path) -> list[str]:
    return [d.state for d in read_decision_log(path)[1]]


def test_the_agent_logs_a_decision_it_dies_sending(tmp_path):
    conn, _dealer = scripted_connection(GAME, [LINE])
    agent = Agent(GAME, StrengthStrategist(GAME), TimeManager(TimeLimits()), seed=0)
    with DecisionLogWriter(tmp_path / "a.dlog", seat="agent", match="m", game=GAME) as writer, pytest.raises(Killed):
        play(_dies_on_send(conn), agent, writer)
    assert _logged(tmp_path / "a.dlog") == [LINE]


def test_a_baseline_bot_logs_a_decision_it_dies_sending(tmp_path, monkeypatch):
    conn, _dealer = scripted_connection(GAME, [LINE])
    monkeypatch.setattr(Connection, "open", classmethod(lambda cls, *a, **k: _dies_on_send(conn)))
    with pytest.raises(Killed):
        botclient.play("random", "127.0.0.1", 1, GAME, decision_log=tmp_path / "b.dlog", match="m")
    assert _logged(tmp_path / "b.dlog") == [LINE]
