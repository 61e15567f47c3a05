"""Seed-compatible dealing: the same cards as the reference dealer for the same seed.

The reference seeds one MT19937 with ``init_genrand(seed)`` per match and deals
every hand from that stream: position 0's hole cards, position 1's, ..., then the
board round by round, each card drawn as ``deck[next_uint32() % remaining]`` with
the last card moved into the hole.  numpy's MT19937 with legacy seeding is exactly
``init_genrand``; ``random_raw`` yields its 32-bit outputs.
"""

from __future__ import annotations

import numpy as np

from protocol.cards import deck
from protocol.gamedef import GameDef

_BLOCK = 4096


class Dealer:
    """Deals hand after hand from one seeded MT19937 stream."""

    def __init__(self, game: GameDef, seed: int) -> None:
        self.game = game
        self._deck = deck(game)
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(seed & 0xFFFFFFFF)
        self._buffer: list[int] = []
        self._next = 0

    def _uint32(self) -> int:
        if self._next == len(self._buffer):
            self._buffer = self._bits.random_raw(_BLOCK).tolist()
            self._next = 0
        value = self._buffer[self._next]
        self._next += 1
        return value

    def deal(self) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
        """The next hand's hole cards (by position) and full board (all rounds)."""
        g = self.game
        cards = list(self._deck)
        remaining = len(cards)
        drawn = []
        for _ in range(g.num_players * g.num_hole_cards + g.total_board_cards):
            i = self._uint32() % remaining
            drawn.append(cards[i])
            cards[i] = cards[remaining - 1]
            remaining -= 1
        k = g.num_hole_cards
        holes = tuple(tuple(drawn[p * k : (p + 1) * k]) for p in range(g.num_players))
        return holes, tuple(drawn[g.num_players * k :])
