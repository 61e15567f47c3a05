"""A seat's parsers refuse every line no dealer sends it (issue 28); the dealer's reading of
replies keeps the reference's leniency but takes only ASCII digits."""

from __future__ import annotations

import pytest

from protocol.errors import WireFormatError
from protocol.gamedef import load_game
from protocol.rules import raise_to
from protocol.wire import MatchStateReader, parse_matchstate, read_action, read_matchstate
from tests.protocol.replies import split_reply

NL = load_game("holdem.nolimit.2p")  # position 1 is the small blind and acts first preflop
LIMIT3 = load_game("holdem.limit.3p")  # position 2 acts first preflop
LEDUC = load_game("leduc.nolimit.2p")  # a deck of Q K A of hearts and spades

#: (line, why it is refused): the lines that crashed `agent connect`, then those it answered.
BAD_LINES = [
    ("MATCHSTATE:1:1::|AsAs", "card As appears twice"),
    ("MATCHSTATE:1:6::|", "position 1 is to act but the line gives it no hole cards"),
    ("MATCHSTATE:1:7::AsKd|", "position 0's hole cards are shown before a showdown"),
    ("MATCHSTATE:0:2:r300c/:|AsKd/AsQh2c", "card As appears twice"),
    ("MATCHSTATE:0:3:r\u0663\u0660\u0660:AsKd|", "outside ASCII"),  # r٣٠٠: Arabic-Indic digits
    ("MATCHSTATE:\uff11:4::|AsKd", "outside ASCII"),  # a fullwidth 1
    ("MATCHSTATE:0:5:r\u2003300:AsKd|", "outside ASCII"),  # an em space
    ("MATCHSTATE:0:7:cc/:AsKd|/AsKd2c", "card As appears twice"),  # its hole cards on the board
    ("MATCHSTATE:0:8:cc/:AsKd|/2c2c7h", "card 2c appears twice"),  # a duplicated board card
    ("MATCHSTATE:1:9::|askd", "not spelled as a dealer spells them"),
    ("MATCHSTATE:1:9::|AsKD", "not spelled as a dealer spells them"),
    ("MATCHSTATE:0:9:cc/:AsKd|/2c7hks", "not spelled as a dealer spells them"),
    ("MATCHSTATE:0:10:r300:AsKd|QhQc", "position 1's hole cards are shown before a showdown"),
    ("MATCHSTATE:0:11:r300r20000c///:AsKd|QhQc/2c7hKs/9d", "round 4 needs 1 board cards"),  # a river card short
    ("MATCHSTATE:2:12::|AsKd", "position 2 does not exist"),
]


@pytest.mark.parametrize("line, problem", BAD_LINES, ids=[repr(line) for line, _ in BAD_LINES])
def test_lines_no_dealer_sends_are_refused_by_both_seat_parsers(line, problem):
    with pytest.raises(WireFormatError, match=problem):
        parse_matchstate(line, NL)
    with pytest.raises(WireFormatError, match=problem):
        MatchStateReader(NL).parse(line)


@pytest.mark.parametrize(
    "line",
    [
        "MATCHSTATE:1:0::|AsKd",
        "MATCHSTATE:0:0:r300:AsKd|",
        "MATCHSTATE:1:0:r300c/r600:|AsKd/2c7hKs",  # not its turn: a raise it faces is not its
        "MATCHSTATE:1:0:r300f:|AsKd",  # the hand is over; the folder's cards are never shown
        "MATCHSTATE:0:0:r300c/cc/cc/cc:AsKd|QhQc/2c7hKs/9d/3h",  # a showdown shows both
        "MATCHSTATE:0:0:r20000c///:AsKd|QhQc/2c7hKs/9d/3h",  # all in preflop: the whole board at once
        "MATCHSTATE:0:0:r 300:AsKd|",  # an ASCII space before a size, as sscanf reads it
    ],
)
def test_views_a_dealer_sends_are_read(line):
    assert parse_matchstate(line, NL) == MatchStateReader(NL).parse(line)


def test_a_showdown_in_three_handed_play_shows_no_folded_hand():
    # Position 2 folds first; 0 and 1 check it down and show.
    assert parse_matchstate("MATCHSTATE:0:3:fcc/cc/cc/cc:AsKd|QhQc|/2c7hKs/9d/3h", LIMIT3).state.is_showdown
    assert parse_matchstate("MATCHSTATE:2:3:fcc/cc/cc/cc:AsKd|QhQc|JcJd/2c7hKs/9d/3h", LIMIT3).my_cards
    with pytest.raises(WireFormatError, match="position 2's hole cards are shown though it folded"):
        parse_matchstate("MATCHSTATE:0:3:fcc/cc/cc/cc:AsKd|QhQc|JcJd/2c7hKs/9d/3h", LIMIT3)


def test_cards_outside_the_games_deck_are_refused():
    assert parse_matchstate("MATCHSTATE:0:0::Ks|", LEDUC).my_cards
    with pytest.raises(WireFormatError, match="card 2c is not in this game's deck"):
        parse_matchstate("MATCHSTATE:0:0::2c|", LEDUC)
    with pytest.raises(WireFormatError, match="not in this game's deck"):
        MatchStateReader(LEDUC).parse("MATCHSTATE:0:0:cc/:Ks|/Qd")


def test_a_refused_line_leaves_the_readers_state_as_it_was():
    reader = MatchStateReader(NL)
    lines = ["MATCHSTATE:0:1:r300:AsKd|", "MATCHSTATE:0:1:r300c/:AsKd|/AsKd2c", "MATCHSTATE:0:1:r300c/:AsKd|/2c3c4c"]
    assert reader.parse(lines[0]) == parse_matchstate(lines[0], NL)
    with pytest.raises(WireFormatError):
        reader.parse(lines[1])
    assert reader.parse(lines[2]) == parse_matchstate(lines[2], NL)
    # The same cards text in the same round, now on its turn without its cards: refused
    # although the cards were read (and cached) before.
    reader.parse("MATCHSTATE:0:2:r300:AsKd|")
    with pytest.raises(WireFormatError, match="shown before a showdown"):
        reader.parse("MATCHSTATE:1:2:r300:AsKd|")


def test_the_dealer_reads_only_ascii_digits_in_replies():
    for text in ("r\u0663\u0660\u0660", "r\u2003300", "r\uff13\uff10\uff10"):
        with pytest.raises(WireFormatError, match="no integer size"):
            read_action(text, NL)
    assert read_action("r 300", NL)[0] == raise_to(300)  # sscanf skips ASCII white space
    with pytest.raises(WireFormatError):
        read_matchstate("MATCHSTATE:\uff11:0::|AsKd:c", NL)
    # The echo in a reply stays as lenient as the reference's: its cards in any case.
    match, action = split_reply("MATCHSTATE:1:0::|askd:c", NL)
    assert match.my_cards and action == "c"
