"""``.game`` parsing and formatting, bundled games, and the strict error messages."""

from __future__ import annotations

import pytest

from protocol.errors import GameDefError
from protocol.gamedef import (
    REFERENCE_GAME_FILES,
    UNLIMITED_RAISES,
    UNLIMITED_STACK,
    bundled_game_names,
    bundled_game_path,
    format_gamedef,
    load_game,
    parse_gamedef,
)
from tests.reference import GAMES


@pytest.mark.parametrize("path", sorted(GAMES.glob("*.game")), ids=lambda p: p.name)
def test_every_reference_game_parses_and_round_trips(path):
    game = parse_gamedef(path.read_text(), source=str(path))
    text = format_gamedef(game)
    assert parse_gamedef(text) == game
    assert format_gamedef(parse_gamedef(text)) == text


def test_reference_values_are_read():
    nl = load_game(GAMES / "holdem.nolimit.2p.reverse_blinds.game")
    assert nl.is_nolimit and nl.num_players == 2 and nl.stack == (20000, 20000)
    assert nl.blind == (100, 50) and nl.first_player == (1, 0, 0, 0)
    assert nl.num_board_cards == (0, 3, 1, 1) and nl.max_raises == (UNLIMITED_RAISES,) * 4
    kuhn = load_game(GAMES / "kuhn.limit.3p.game")  # the reference file has no stack line
    assert kuhn.stack == (UNLIMITED_STACK,) * 3 and kuhn.raise_size == (1,) and kuhn.max_raises == (1,)


EXPECTED_BUNDLED = {
    "holdem.nolimit.2p": dict(betting="nolimit", num_players=2, stack=(20000,) * 2, blind=(100, 50), first_player=(1, 0, 0, 0)),
    "holdem.limit.2p": dict(
        betting="limit", blind=(10, 5), raise_size=(10, 10, 20, 20), max_raises=(3, 4, 4, 4), first_player=(1, 0, 0, 0),
    ),
    "holdem.nolimit.3p": dict(
        betting="nolimit", num_players=3, blind=(50, 100, 0), stack=(20000,) * 3, first_player=(2, 0, 0, 0),
    ),
    "holdem.limit.3p": dict(betting="limit", num_players=3, blind=(5, 10, 0), first_player=(2, 0, 0, 0), max_raises=(3, 4, 4, 4)),
    "kuhn.limit.2p": dict(
        num_players=2, num_rounds=1, blind=(1, 1), raise_size=(1,), max_raises=(1,), num_suits=1, num_ranks=3, num_hole_cards=1,
    ),
    "kuhn.limit.3p": dict(num_players=3, num_rounds=1, blind=(1, 1, 1), num_suits=1, num_ranks=4, num_hole_cards=1),
    "leduc.limit.2p": dict(
        num_rounds=2, blind=(1, 1), raise_size=(2, 4), max_raises=(2, 2), num_suits=2, num_ranks=3, num_board_cards=(0, 1),
    ),
    "leduc.nolimit.2p": dict(
        betting="nolimit", stack=(1200, 1200), blind=(100, 100), num_suits=2, num_ranks=3, num_board_cards=(0, 1),
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_BUNDLED))
def test_bundled_games_have_the_standard_values(name):
    assert name in bundled_game_names()
    game = load_game(name)
    for key, value in EXPECTED_BUNDLED[name].items():
        assert getattr(game, key) == value, key
    # The shipped file is exactly our own formatting of the game.
    assert bundled_game_path(name).read_text() == format_gamedef(game)


def test_bundled_holdem_matches_reference_files():
    assert load_game("holdem.nolimit.2p") == load_game(GAMES / "holdem.nolimit.2p.reverse_blinds.game")
    assert load_game("holdem.limit.3p") == load_game(GAMES / "holdem.limit.3p.game")
    assert load_game("leduc.limit.2p") == load_game(GAMES / "leduc.limit.2p.game")


GOOD = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 2
stack = 1200 1200
blind = 100 100
firstPlayer = 1 1
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""


def test_keys_are_case_insensitive_and_equals_optional():
    text = GOOD.replace("numPlayers = 2", "NUMPLAYERS 2").replace("stack = ", "Stack=")
    assert parse_gamedef(text) == parse_gamedef(GOOD)


@pytest.mark.parametrize(
    "old, new, line, words",
    [
        ("numRanks = 3", "numRankz = 3", 9, "unknown key"),
        ("stack = 1200 1200", "stack = 1200", 5, "needs 2 values"),
        ("blind = 100 100", "blind = 100 1300", 6, "greater than its stack"),
        ("numRanks = 3", "numRanks = 1", 9, "deck has only"),
        ("firstPlayer = 1 1", "firstPlayer = 1 3", 7, "firstPlayer"),
        ("numBoardCards = 0 1", "numBoardCards = 0 1 1", 11, "needs 2 values"),
        ("numSuits = 2", "numSuits = two", 8, "whole numbers"),
        ("numHoleCards = 1", "numHoleCards = 1 1", 10, "takes one value"),
        ("numHoleCards = 1", "numHoleCards = 1\nnumHoleCards = 1", 11, "given twice"),
    ],
)
def test_bad_files_name_the_file_line_and_problem(old, new, line, words):
    with pytest.raises(GameDefError) as err:
        parse_gamedef(GOOD.replace(old, new), source="my.game")
    message = str(err.value)
    assert message.startswith(f"my.game:{line}: "), message
    assert words in message


def test_missing_pieces_are_errors():
    with pytest.raises(GameDefError, match="END GAMEDEF"):
        parse_gamedef(GOOD.replace("END GAMEDEF\n", ""), source="cut.game")
    with pytest.raises(GameDefError, match="'numRanks' is missing"):
        parse_gamedef(GOOD.replace("numRanks = 3\n", ""))
    with pytest.raises(GameDefError, match="betting type missing"):
        parse_gamedef(GOOD.replace("nolimit\n", ""))
    with pytest.raises(GameDefError, match="raiseSize"):
        parse_gamedef(GOOD.replace("nolimit", "limit"))


def test_unknown_game_name_lists_bundled_games(tmp_path):
    with pytest.raises(GameDefError, match=r"holdem\.nolimit\.2p"):
        load_game("no.such.game")
    bad = tmp_path / "bad.game"
    bad.write_text(GOOD.replace("numRanks = 3", "colour = red"))
    with pytest.raises(GameDefError, match=r"bad.game:9: unknown key 'colour'"):
        load_game(bad)


@pytest.mark.parametrize("file_name", sorted(REFERENCE_GAME_FILES))
def test_reference_dealer_game_names_resolve_to_the_same_bundled_game(file_name, tmp_path, monkeypatch):
    """Every game file the reference dealer ships loads by name, with no file at hand,
    as the bundled game with the same rules (compared against the reference's files)."""
    monkeypatch.chdir(tmp_path)
    reference = parse_gamedef((GAMES / file_name).read_text(), source=file_name)
    assert load_game(file_name) == reference
    assert load_game(f"some/missing/folder/{file_name}") == reference
    assert load_game(REFERENCE_GAME_FILES[file_name]) == reference


def test_bundled_file_names_resolve_and_files_win(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_game("leduc.limit.2p.game") == load_game("leduc.limit.2p")
    # A user's own file of a reference name is read as written.
    own = format_gamedef(load_game("holdem.limit.3p")).replace("blind = 5 10 0", "blind = 5 10 1")
    (tmp_path / "holdem.limit.3p.game").write_text(own)
    assert load_game("holdem.limit.3p.game").blind == (5, 10, 1)
    with pytest.raises(GameDefError, match="reference dealer's game file names work too"):
        load_game("holdem.nolimit.9p.game")
