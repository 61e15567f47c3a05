"""HandViews prints exactly format_view's lines for every state of a hand."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.wire import HandViews, format_view
from tests.protocol.test_properties import GAMES, random_hand


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1))
def test_hand_views_equal_format_view(name, seed):
    path = random_hand(GAMES[name], random.Random(seed))
    views = HandViews(path[0])
    for state in path:
        for position in range(state.game.num_players):
            assert views.line(state, position) == format_view(state, position)
