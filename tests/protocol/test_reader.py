"""MatchStateReader equals parse_matchstate on any stream, not only a dealer's orderly one."""

from __future__ import annotations

import random

import pytest

from protocol.errors import WireFormatError
from protocol.wire import MatchStateReader, format_view, parse_matchstate
from tests.protocol.hands import GAMES, any_game_and_seed, random_hand


def _noisy_stream(game, rng: random.Random) -> list[str]:
    """Lines of two hands seen from random positions, repeated, skipped, rewound, some broken."""
    lines = [format_view(state, rng.randrange(game.num_players)) for _ in range(2) for state in random_hand(game, rng)]
    stream = []
    for _ in range(3 * len(lines)):
        line = rng.choice(lines) if rng.random() < 0.3 else lines[min(len(stream) % len(lines), len(lines) - 1)]
        if rng.random() < 0.1:
            cut = rng.randrange(len(line))
            line = line[:cut] + rng.choice(["", "x", "/", ":", "r", "|"]) + line[cut + 1 :]
        stream.append(line)
    return stream


@any_game_and_seed(200)
def test_reader_matches_a_full_parse_on_noisy_streams(name, seed):
    game = GAMES[name]
    reader = MatchStateReader(game)
    for line in _noisy_stream(game, random.Random(seed)):
        try:
            expected = parse_matchstate(line, game)
        except WireFormatError:
            with pytest.raises(WireFormatError):
                reader.parse(line)
            continue
        assert reader.parse(line) == expected


@any_game_and_seed(100)
def test_reader_matches_a_full_parse_on_a_dealers_stream(name, seed):
    game = GAMES[name]
    reader = MatchStateReader(game)
    rng = random.Random(seed)
    for _ in range(3):  # several hands through one reader, as a client sees them
        for state in random_hand(game, rng):
            line = format_view(state, 0)
            assert reader.parse(line) == parse_matchstate(line, game)
