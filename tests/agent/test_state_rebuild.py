"""The agent rebuilds the state from every MATCHSTATE line of every shared trace, and
answers each of its turns with a legal action."""

from __future__ import annotations

import re

import numpy as np
import pytest

from agent.loop import play
from agent.player import Agent
from agent.timing import TimeLimits, TimeManager
from protocol.gamedef import load_game
from protocol.rules import initial_state
from protocol.wire import parse_action
from tests.agent.fakes import replies, scripted_connection
from tests.agent.placeholder import StrengthStrategist
from tests.protocol.replies import split_reply
from tests.reference import game_file_for, trace_files

_TO = re.compile(r"^TO (\d+) at [\d.]+ (MATCHSTATE:.*)$")


def rules_replay(line: str, game):
    """The state of ``line`` replayed action by action from the blinds with protocol.rules."""
    _, _, hand, betting, _ = line.split(":", 4)
    state = initial_state(game, int(hand))
    for token in re.findall(r"[fckbr]-?\d*", betting.replace("/", "")):
        state = state.apply(parse_action(token, game))
    return state


class RecordingAgent(Agent):
    """The agent, noting every match state its loop was handed."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.seen = []

    def observe(self, match):
        self.seen.append(match)
        return super().observe(match)


@pytest.mark.parametrize("path", trace_files(), ids=lambda p: p.name)
def test_agent_state_equals_rules_replay_on_every_trace_line(path):
    game = load_game(str(game_file_for(path)))
    by_seat: dict[int, list[str]] = {}
    for raw in path.read_text().splitlines():
        m = _TO.match(raw)
        if m:
            by_seat.setdefault(int(m.group(1)), []).append(m.group(2))
    assert len(by_seat) == game.num_players
    for seat, lines in by_seat.items():
        conn, dealer = scripted_connection(game, lines)
        agent = RecordingAgent(game, StrengthStrategist(game), TimeManager(TimeLimits()), seed=seat)
        with conn:
            summary = play(conn, agent)
        # The traces stop at the start of hand 31: a dealer gone mid-hand.
        assert summary.clean == rules_replay(lines[-1], game).finished
        # play() observes each state once, and decide() once more on the agent's turns.
        distinct = [m for i, m in enumerate(agent.seen) if i == 0 or m is not agent.seen[i - 1]]
        assert len(distinct) == len(lines)
        for line, match in zip(lines, distinct):
            replay = rules_replay(line, game)
            state = match.state
            assert (state.actions, state.actors, state.spent, state.folded, state.round, state.finished) == (
                replay.actions, replay.actors, replay.spent, replay.folded, replay.round, replay.finished
            ), line
            assert (state.current_player, state.min_raise_to, state.max_spent) == (
                replay.current_player, replay.min_raise_to, replay.max_spent
            ), line
            assert str(match) == line  # cards included
        sent = replies(dealer)
        assert len(sent) == summary.decisions == sum(1 for m in distinct if m.is_my_turn)
        for reply in sent:
            match, action_text = split_reply(reply, game)
            assert match.is_my_turn
            assert match.state.illegal_reason(parse_action(action_text, game)) is None, reply
        assert np.isfinite(agent.hand.reach).all()
