"""Random hands of every bundled game for the property tests (hypothesis)."""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import deck
from protocol.gamedef import GameDef, bundled_game_names, load_game
from protocol.rules import Action, ActionType, State, initial_state, with_cards

GAMES = {name: load_game(name) for name in bundled_game_names()}


def any_game_and_seed(max_examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Run a property test ``max_examples`` times with hypothesis's ``name`` (of a bundled
    game, a key of :data:`GAMES`) and ``seed`` (for :func:`random_hand`'s ``rng``)."""
    draw = given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1))
    return lambda test: settings(max_examples=max_examples, deadline=None)(draw(test))


def random_hand(game: GameDef, rng: random.Random) -> list[State]:
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
