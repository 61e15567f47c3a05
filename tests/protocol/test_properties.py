"""Property tests over random hands of every bundled game (hypothesis)."""

from __future__ import annotations

import random

from protocol.wire import (
    HandViews,
    format_matchstate,
    format_view,
    parse_matchstate,
    view_for,
)
from tests.protocol.hands import GAMES, any_game_and_seed, random_hand


@any_game_and_seed(300)
def test_chips_are_conserved_and_states_stay_valid(name, seed):
    game = GAMES[name]
    path = random_hand(game, random.Random(seed))
    for state in path:
        assert all(0 <= s <= st_ for s, st_ in zip(state.spent, game.stack))
        assert state.max_spent == max(state.spent)
        if not state.finished:
            p = state.current_player
            assert not state.folded[p] and state.spent[p] < game.stack[p]
            assert state.num_folded + 1 < game.num_players
    final = path[-1]
    values = final.values()
    assert abs(sum(values)) < 1e-9
    # Nobody wins more than the others put in, nor loses more than it put in.
    for p, v in enumerate(values):
        assert -final.spent[p] - 1e-9 <= v <= sum(final.spent) - final.spent[p] + 1e-9


@any_game_and_seed(300)
def test_views_round_trip_and_hide_other_cards(name, seed):
    game = GAMES[name]
    for state in random_hand(game, random.Random(seed)):
        for position in range(game.num_players):
            view = view_for(state, position)
            line = format_matchstate(view)
            assert format_matchstate(parse_matchstate(line, game)) == line
            assert parse_matchstate(line, game) == view
            shown_board = game.board_cards_through(state.round)
            assert view.state.board == state.board[:shown_board]
            for other in range(game.num_players):
                visible = view.state.hole_cards[other]
                if other == position:
                    assert visible == state.hole_cards[other]
                elif visible:
                    # Only at a showdown, and never a folded hand.
                    assert state.is_showdown and not state.folded[other]


@any_game_and_seed(300)
def test_fast_view_formatters_equal_the_view(name, seed):
    """format_view, and HandViews (the dealer's: card text built once per hand), print the view."""
    path = random_hand(GAMES[name], random.Random(seed))
    views = HandViews(path[0])
    for state in path:
        for position in range(state.game.num_players):
            expected = format_matchstate(view_for(state, position))
            assert format_view(state, position) == expected
            assert views.line(state, position) == expected
