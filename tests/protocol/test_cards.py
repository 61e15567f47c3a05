"""Cards, the reference deck order, and showdown ranking (golden 5-card counts)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

from protocol.cards import card_str, cards_str, deck, parse_card, parse_cards
from protocol.errors import WireFormatError
from protocol.gamedef import load_game
from protocol.handrank import CATEGORY_NAMES, rank_cards, rank_hand


def test_card_numbering_matches_reference():
    assert parse_card("2c") == 0 and parse_card("As") == 51 and parse_card("Td") == 8 * 4 + 1
    assert card_str(parse_card("tD")) == "Td"  # rank and suit read case-insensitively
    assert cards_str(parse_cards("9s3s4d7h")) == "9s3s4d7h"
    with pytest.raises(WireFormatError):
        parse_card("1c")
    with pytest.raises(WireFormatError):
        parse_cards("AsK")


def test_small_decks_use_top_ranks_and_last_suits():
    assert cards_str(deck(load_game("kuhn.limit.3p"))) == "JsQsKsAs"
    assert cards_str(deck(load_game("leduc.limit.2p"))) == "QhKhAhQsKsAs"
    full = deck(load_game("holdem.nolimit.2p"))
    assert len(full) == 52 and cards_str(full[:3]) == "2c3c4c" and cards_str(full[13:14]) == "2d"


@pytest.mark.parametrize(
    "better, worse",
    [
        ("AsKsQsJsTs", "KsQsJsTs9s"),
        ("5s4s3s2sAs", "AhAdAcAsKd"),  # steel wheel beats quads
        ("2c2d2h2s3c", "AcAdAhKsKc"),
        ("3c3d3h2s2c", "AcKcQc9c7c"),
        ("2c3c4c5c7c", "AhKdQsJcTc"),
        ("6h5d4s3c2c", "5h4d3s2cAc"),  # wheel is the lowest straight
        ("2c2d2h5s4c", "AcAdKhKsQc"),
        ("AcAdKhKsQc", "AcAdKhKsJc"),
        ("KcKd3h3s2c", "QcQdJhJsAc"),
        ("2c2d5h4s3c", "AcKdQhJs9c"),
        ("AcKdQhJs9c", "AcKdQhJs8c"),
        ("Ks", "Qs"),  # Kuhn
        ("QhQs", "AsKh"),  # Leduc: a pair beats any high card
    ],
)
def test_ordering(better, worse):
    assert rank_hand(parse_cards(better)) > rank_hand(parse_cards(worse))


def test_best_five_of_seven():
    # Both make the same ace-high flush with the board: a split.
    board = parse_cards("AhKh9h5h2c")
    assert rank_hand(parse_cards("3h4d") + board) == rank_hand(parse_cards("3h4c") + board)
    # Two sets of trips make a full house with the higher as trips.
    assert CATEGORY_NAMES[category_of(rank_hand(parse_cards("KhKdKc9s9c9d2h")))] == "full house"
    assert rank_hand(parse_cards("KhKdKc9s9c9d2h")) == rank_hand(parse_cards("KhKdKc9s9c3d2h"))
    # With three pairs the best remaining card is the kicker, even from the third pair.
    assert rank_hand(parse_cards("AcAd9h9s4c4d3h")) == rank_hand(parse_cards("AcAd9h9s4c2d3h"))
    assert rank_hand(parse_cards("AcAd9h9s4c4d3h")) < rank_hand(parse_cards("AcAd9h9s2c2d5h"))


@njit(cache=True)
def _five_card_census():
    counts = np.zeros(9, np.int64)
    ranks = np.empty(2598960, np.int64)
    hand = np.empty(5, np.int64)
    i = 0
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        hand[0], hand[1], hand[2], hand[3], hand[4] = a, b, c, d, e
                        r = rank_cards(hand, 5)
                        counts[(r >> 20) - 1] += 1
                        ranks[i] = r
                        i += 1
    return counts, ranks


def test_all_five_card_hands_golden_counts():
    counts, ranks = _five_card_census()
    assert counts.tolist() == [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]
    assert len(np.unique(ranks)) == 7462


def test_rank_hand_rejects_bad_sizes():
    with pytest.raises(ValueError):
        rank_hand([])
    with pytest.raises(ValueError):
        rank_hand(list(range(8)))


def test_small_sets_match_pair_and_kicker_logic():
    # Every 2-card Leduc hand (hole + board): pairs above all high cards, then by ranks.
    leduc = deck(load_game("leduc.limit.2p"))
    ranked = sorted(itertools.permutations(leduc, 2), key=lambda h: rank_hand(h))
    pairs = [h for h in ranked if h[0] // 4 == h[1] // 4]
    assert ranked[-len(pairs):] == pairs


def category_of(rank: int) -> int:
    """Category index (see :data:`CATEGORY_NAMES`) of a rank from :func:`rank_hand`."""
    return (rank >> 20) - 1
