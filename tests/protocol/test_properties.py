"""Property tests over random hands of every bundled game (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import deck
from protocol.gamedef import bundled_game_names, load_game
from protocol.rules import Action, ActionType, initial_state, with_cards
from protocol.wire import (
    HandViews,
    format_matchstate,
    format_view,
    parse_matchstate,
    view_for,
)

GAMES = {name: load_game(name) for name in bundled_game_names()}


def random_hand(game, rng: random.Random):
    """Deal and play one hand with uniformly chosen legal actions and raise sizes."""
    cards = deck(game)
    rng.shuffle(cards)
    k = game.num_hole_cards
    holes = tuple(tuple(cards[p * k : (p + 1) * k]) for p in range(game.num_players))
    board = tuple(cards[game.num_players * k : game.num_players * k + game.total_board_cards])
    state = with_cards(initial_state(game, rng.randrange(10**6)), holes, board)
    path = [state]
    while not state.finished:
        kind = rng.choice(state.legal_action_types())
        if kind == ActionType.RAISE and game.is_nolimit:
            low, high = state.raise_bounds()
            size = rng.choice([low, high, rng.randint(low, high)])
            action = Action(kind, size)
        else:
            action = Action(kind)
        state = state.apply(action)
        path.append(state)
    return path


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1))
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


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1))
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


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1))
def test_fast_view_formatters_equal_the_view(name, seed):
    """format_view, and HandViews (the dealer's: card text built once per hand), print the view."""
    path = random_hand(GAMES[name], random.Random(seed))
    views = HandViews(path[0])
    for state in path:
        for position in range(state.game.num_players):
            expected = format_matchstate(view_for(state, position))
            assert format_view(state, position) == expected
            assert views.line(state, position) == expected
