"""Every hand of the reference logs and every line of the reference traces, through our code."""

from __future__ import annotations

import re

import pytest

from protocol.gamedef import load_game
from protocol.rules import initial_state, with_cards
from protocol.wire import (
    format_matchstate,
    format_score_line,
    format_state_line,
    parse_action,
    parse_matchstate,
    parse_score_line,
    parse_state_line,
    view_for,
)
from tests.protocol.replies import split_reply
from tests.reference import game_file_for, log_files, trace_files

TRACE_LINE = re.compile(r"(TO|FROM) (\d+) at [\d.]+ (.*)$")


@pytest.mark.parametrize("path", log_files(), ids=lambda p: p.name)
def test_log_hands_replay_with_exact_values(path):
    game = load_game(game_file_for(path))
    hands = 0
    totals: dict[str, float] = {}
    for line in path.read_text().splitlines():
        if line.startswith("STATE:"):
            logged = parse_state_line(line, game)
            assert format_state_line(logged.state, logged.values, logged.names) == line
            assert logged.state.finished
            assert logged.state.values() == logged.values, line
            assert logged.state.hand_number == hands
            for name, value in zip(logged.names, logged.values):
                totals[name] = totals.get(name, 0.0) + value
            hands += 1
        elif line.startswith("SCORE:"):
            scores, names = parse_score_line(line, game.num_players)
            assert format_score_line(scores, names) == line
            assert scores == pytest.approx(tuple(totals[n] for n in names), abs=1e-6)
    assert hands == 1000


@pytest.mark.parametrize("path", trace_files(), ids=lambda p: p.name)
def test_trace_lines_round_trip_and_agree_with_rules(path):
    game = load_game(game_file_for(path))
    last_sent: dict[int, object] = {}
    checked = 0
    for raw in path.read_text().splitlines():
        found = TRACE_LINE.match(raw)
        if not found:
            continue
        direction, seat, body = found.group(1), int(found.group(2)), found.group(3)
        if direction == "TO":
            match = parse_matchstate(body, game)
            assert format_matchstate(match) == body
            last_sent[seat] = match
        else:
            match, action = split_reply(body, game)
            # The seat replies only when the last state it was sent says it is its turn.
            sent = last_sent[seat]
            assert sent.is_my_turn, body
            assert match == sent
            # The reference players only send legal actions.
            assert match.state.illegal_reason(parse_action(action, game)) is None
        checked += 1
    assert checked > 400


@pytest.mark.parametrize("path", trace_files(), ids=lambda p: p.name)
def test_trace_views_are_what_our_dealer_would_send(path):
    """Rebuild each hand's full state from the log and check every TO line is its view."""
    game = load_game(game_file_for(path))
    log = path.parent.parent / "logs" / path.name.replace(".first30hands.trace", ".log")
    full = {}
    for line in log.read_text().splitlines():
        if line.startswith("STATE:"):
            logged = parse_state_line(line, game)
            full[logged.state.hand_number] = logged.state
    for raw in path.read_text().splitlines():
        found = TRACE_LINE.match(raw)
        if not found or found.group(1) != "TO":
            continue
        sent = parse_matchstate(found.group(3), game)
        final = full[sent.hand_number]
        # Replay the logged hand up to the same betting, with the dealer's cards.
        state = with_cards(initial_state(game, sent.hand_number), final.hole_cards, final.board)
        for round_actions in sent.state.actions:
            for action in round_actions:
                state = state.apply(action)
        assert format_matchstate(view_for(state, sent.position)) == found.group(3)
