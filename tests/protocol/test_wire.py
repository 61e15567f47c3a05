"""Actions, replies and value formatting on the wire."""

from __future__ import annotations

import pytest

from protocol.errors import WireFormatError
from protocol.gamedef import load_game
from protocol.rules import CALL, FOLD, LIMIT_RAISE, raise_to
from protocol.wire import format_value, parse_action, parse_matchstate, read_action
from tests.protocol.replies import split_reply

NL = load_game("holdem.nolimit.2p")
LIMIT = load_game("holdem.limit.2p")


@pytest.mark.parametrize(
    "text, action",
    [("c", CALL), ("k", CALL), ("K", CALL), ("C", CALL), ("f", FOLD), ("F", FOLD),
     ("r250", raise_to(250)), ("R299", raise_to(299)), ("b50000", raise_to(50000)), ("B7", raise_to(7))],
)
def test_action_letters_and_aliases(text, action):
    assert parse_action(text, NL) == action


def test_no_limit_raise_needs_a_size_and_limit_ignores_it():
    with pytest.raises(WireFormatError, match="no integer size"):
        read_action("r", NL)
    assert read_action("r123", LIMIT) == (LIMIT_RAISE, 1)  # only the letter counts in limit
    assert read_action("x", NL) == (None, 1)  # unknown letter: the dealer's "invalid action"
    assert read_action("", NL) == (None, 1)


def test_split_reply():
    match, action = split_reply("MATCHSTATE:0:0:cc/:7d3d|/5sKs7s:r7644", NL)
    assert str(match) == "MATCHSTATE:0:0:cc/:7d3d|/5sKs7s" and action == "r7644"
    with pytest.raises(WireFormatError):
        split_reply("c", NL)
    with pytest.raises(WireFormatError):
        split_reply("MATCHSTATE:0:0:cc/:7d3d|/5sKs7s", NL)


@pytest.mark.parametrize(
    "line",
    [
        "MATCHSTATE:2:0::7d3d|",  # no position 2 heads-up
        "MATCHSTATE:0:0:cc:7d3d|",  # betting says flop but no flop cards
        "MATCHSTATE:0:0:cf/:7d3d|/5sKs7s",  # fold when checking is free
        "MATCHSTATE:0:0:cc/:7d3|/5sKs7s",  # half a hand
        "MATCHSTATE:0:0:r100:7d3d|",  # raise below the minimum
        "STATE:0:cc:7d3d|",
    ],
)
def test_malformed_states_are_refused(line):
    with pytest.raises(WireFormatError):
        parse_matchstate(line, NL)


@pytest.mark.parametrize(
    "value, text", [(0.0, "0"), (100.0, "100"), (-2.5, "-2.5"), (1 / 3, "0.333333"), (-1810590.5, "-1810590.5")]
)
def test_values_print_like_the_reference(value, text):
    assert format_value(value) == text
