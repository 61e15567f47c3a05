"""The agent skips, never crashes (issue 28): each line that crashed `agent connect` is
skipped and the next answered, and whatever a decision raises costs a check/call."""

from __future__ import annotations

import numpy as np
import pytest
from structlog.testing import capture_logs

from agent.loop import play
from agent.player import Agent
from agent.timing import TimeLimits, TimeManager
from protocol.decisions import CARD_DEPENDENT, ROW_TOTAL, DecisionLogWriter, read_decision_log
from protocol.gamedef import load_game
from tests.agent.fakes import replies, scripted_connection
from tests.agent.placeholder import StrengthStrategist
from tests.protocol.test_seat_lines import BAD_LINES

GAME = load_game("holdem.nolimit.2p")  # position 1 is the small blind and acts first preflop


def make_agent(cls: type[Agent] = Agent) -> Agent:
    return cls(GAME, StrengthStrategist(GAME), TimeManager(TimeLimits()))


#: A line the agent must answer after each bad one: its turn in hand 99.
GOOD = "MATCHSTATE:1:99::|AsKd"


@pytest.mark.parametrize("bad, problem", BAD_LINES, ids=[repr(line) for line, _ in BAD_LINES])
def test_each_line_that_crashed_the_agent_is_skipped_and_the_match_goes_on(bad, problem):
    conn, dealer = scripted_connection(GAME, [bad, GOOD, "MATCHSTATE:1:99:f:|AsKd"])
    with capture_logs() as logs, conn:
        summary = play(conn, make_agent())
    sent = replies(dealer)
    assert [reply.rsplit(":", 1)[0] for reply in sent] == [GOOD]
    assert summary.clean and summary.decisions == 1 and "fallback" not in summary.sources
    skipped = [entry for entry in logs if entry["event"] == "bad line from dealer skipped"]
    assert len(skipped) == 1 and problem in skipped[0]["problem"]


class RaisingAgent(Agent):
    """The agent, failing after its strategy is made (where a strategist's failure cannot reach)."""

    def take(self, match, strategy, counts):
        raise IndexError("index 3 is out of bounds for axis 1 with size 3")


class FollowFailingAgent(Agent):
    """The agent, failing to follow the hand on lines that are not its turn."""

    def observe(self, match):
        if not match.is_my_turn:
            raise KeyError(match.hand_number)
        return super().observe(match)


def test_a_decision_that_raises_is_answered_with_a_call_and_logged_with_its_line(tmp_path):
    lines = ["MATCHSTATE:1:0::|AsKd", "MATCHSTATE:1:0:r300r900:|AsKd", "MATCHSTATE:1:0:r300r900c/:|AsKd/2c7hKs"]
    conn, dealer = scripted_connection(GAME, lines)
    path = tmp_path / "agent.dlog"
    with capture_logs() as logs, conn, DecisionLogWriter(path, seat="a", match="m", game=GAME, strategy=CARD_DEPENDENT) as writer:
        summary = play(conn, make_agent(RaisingAgent), writer)
    assert replies(dealer) == [f"{lines[0]}:c", f"{lines[1]}:c"]
    assert summary.decisions == 2 and summary.sources == {"fallback": 2}
    failed = [entry for entry in logs if entry["event"] == "decision failed; checking/calling"]
    assert [entry["line"] for entry in failed] == lines[:2]
    assert all(entry["log_level"] == "error" and "IndexError" in entry["error"] for entry in failed)
    # The decision log has both calls, each with the range of calling with every hand.
    decisions = list(read_decision_log(path)[1])
    assert [(d.state, d.taken, d.probs) for d in decisions] == [(line, "c", (("c", 1.0),)) for line in lines[:2]]
    assert all(d.detail["source"] == "fallback" for d in decisions)
    counts = decisions[0].range.counts()
    assert counts.shape == (1326, 1) and np.all(counts == ROW_TOTAL)


def test_a_failure_to_follow_the_hand_is_logged_and_play_goes_on():
    lines = [f"MATCHSTATE:1:0:{betting}:|AsKd" for betting in ("", "r300", "r300r900", "r300r900f")]
    conn, dealer = scripted_connection(GAME, lines)
    with capture_logs() as logs, conn:
        summary = play(conn, make_agent(FollowFailingAgent))
    assert [reply.rsplit(":", 1)[0] for reply in replies(dealer)] == [lines[0], lines[2]]
    assert summary.clean and "fallback" not in summary.sources
    assert [entry["line"] for entry in logs if entry["event"] == "following the hand failed"] == [lines[1], lines[3]]
