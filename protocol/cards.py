"""Cards as integers ``rank * 4 + suit``, the numbering of the reference dealer.

Ranks 2..A are 0..12 and suits c d h s are 0..3.  Small decks use the highest ranks
and the last suits (a 3-rank, 2-suit deck is Q K A of hearts and spades).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba import njit

from protocol.errors import WireFormatError
from protocol.gamedef import MAX_RANKS, MAX_SUITS, GameDef

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
NUM_CARDS = MAX_RANKS * MAX_SUITS


def make_card(rank: int, suit: int) -> int:
    return rank * MAX_SUITS + suit


def card_rank(card: int) -> int:
    return card // MAX_SUITS


def card_suit(card: int) -> int:
    return card % MAX_SUITS


def card_str(card: int) -> str:
    """``make_card(8, 1)`` → ``'Td'``."""
    return RANK_CHARS[card // MAX_SUITS] + SUIT_CHARS[card % MAX_SUITS]


def cards_str(cards: Iterable[int]) -> str:
    return "".join(card_str(c) for c in cards)


# Rank and suit letters are read case-insensitively, as the reference reader does.
_CARD_OF = {
    r + s: make_card(RANK_CHARS.index(r.upper()), SUIT_CHARS.index(s.lower()))
    for r in RANK_CHARS + RANK_CHARS.lower()
    for s in SUIT_CHARS + SUIT_CHARS.upper()
}


def parse_card(text: str) -> int:
    """Parse one two-character card such as ``'Td'``.

    Raises:
        WireFormatError: if ``text`` is not a card.
    """
    card = _CARD_OF.get(text)
    if card is None:
        raise WireFormatError(f"{text!r} is not a card (expected rank 23456789TJQKA and suit cdhs, e.g. 'Td')")
    return card


def parse_cards(text: str) -> tuple[int, ...]:
    """Parse a run of cards such as ``'AsKd9h'``."""
    if len(text) % 2:
        raise WireFormatError(f"{text!r} is not a run of two-character cards")
    return tuple(parse_card(text[i : i + 2]) for i in range(0, len(text), 2))


def deck(game: GameDef) -> list[int]:
    """The game's deck in the reference dealer's order (suit-major, low to high)."""
    return [
        make_card(r, s)
        for s in range(MAX_SUITS - game.num_suits, MAX_SUITS)
        for r in range(MAX_RANKS - game.num_ranks, MAX_RANKS)
    ]


@njit(cache=True)
def next_combination(index: np.ndarray, n: int) -> bool:
    """Advance ``index``, a strictly increasing k-subset of 0..n-1, to the next one in
    lexicographic order, in place.  Returns False (leaving ``index`` as is) after the last.

    Usable from other kernels to walk every board or hand of a deck without storing them.
    """
    k = len(index)
    i = k - 1
    while i >= 0 and index[i] == n - k + i:  # the last position that can still move
        i -= 1
    if i < 0:
        return False
    index[i] += 1
    for j in range(i + 1, k):
        index[j] = index[j - 1] + 1
    return True
