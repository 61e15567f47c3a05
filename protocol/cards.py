"""Cards as integers ``rank * 4 + suit``, the numbering of the reference dealer.

Ranks 2..A are 0..12 and suits c d h s are 0..3.  Small decks use the highest ranks
and the last suits (a 3-rank, 2-suit deck is Q K A of hearts and spades).
"""

from __future__ import annotations

from collections.abc import Iterable

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


def __getattr__(name: str) -> object:
    # The numba kernel lives in protocol.combinations so that reading and printing cards
    # (every bot and client) never imports numba; it is still importable from here.
    if name == "next_combination":
        from protocol.combinations import next_combination

        return next_combination
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
