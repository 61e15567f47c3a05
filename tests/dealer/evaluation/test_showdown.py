"""Showdown outcome counts by board class equal those of enumerating every completion."""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations

import numpy as np
import pytest
from numba import njit

from dealer.evaluation.showdown import outcome_counts, supported
from protocol.cards import cards_str, deck, next_combination, parse_cards
from protocol.fasteval import EvalTables, eval_tables, rank_of_sums
from protocol.gamedef import load_game


def enumerate_patterns(holes: np.ndarray, board: np.ndarray, rest: np.ndarray, k: int) -> np.ndarray:
    """The slow reference, by brute force: rank every player on every ``k``-card completion
    of ``board`` from ``rest``, one by one, and read each completion's pattern off the
    sorted distinct ranks (a formulation of the pattern independent of showdown's own).
    The ranks come from ``rank_of_sums``, which tests/protocol/test_fasteval.py checks
    against the general evaluator on every 5-, 6- and 7-card hand."""
    return _enumerate_patterns(eval_tables(), holes, board, rest, _combinations(rest.shape[0], k))


@lru_cache(maxsize=16)
def _combinations(n: int, r: int) -> np.ndarray:
    return _combinations_kernel(n, r, math.comb(n, r))


@njit(cache=True)
def _combinations_kernel(n: int, r: int, count: int) -> np.ndarray:
    """Every r-subset of 0..n-1 in lexicographic order: ``uint8[count, r]``."""
    out = np.empty((count, r), np.uint8)
    index = np.arange(r)
    for row in range(count):
        for j in range(r):
            out[row, j] = index[j]
        if not next_combination(index, n):
            break
    return out


@njit(cache=True)
def _enumerate_patterns(
    tables: EvalTables, holes: np.ndarray, board: np.ndarray, rest: np.ndarray, combos: np.ndarray
) -> np.ndarray:
    """Count showdown patterns over every completion (``combos``: ``uint8[M, r]`` indices into ``rest``)."""
    n_players, n_hole = holes.shape
    n_combos, n_more = combos.shape
    counts = np.zeros(n_players**n_players, np.int64)
    ranks = np.empty(n_players, np.int64)
    hole_key = np.zeros(n_players, np.int64)
    hole_bits = np.zeros(n_players, np.int64)
    for p in range(n_players):
        for j in range(n_hole):
            hole_key[p] += tables.card_key[holes[p, j]]
            hole_bits[p] |= tables.card_bit[holes[p, j]]
    dealt_key = 0
    dealt_bits = 0
    for c in board:
        dealt_key += tables.card_key[c]
        dealt_bits |= tables.card_bit[c]
    for i in range(n_combos):
        key = dealt_key
        bits = dealt_bits
        for j in range(n_more):
            c = rest[combos[i, j]]
            key += tables.card_key[c]
            bits |= tables.card_bit[c]
        for p in range(n_players):
            ranks[p] = rank_of_sums(tables, key + hole_key[p], bits | hole_bits[p])
        # level of p = how many distinct ranks beat p's: its place from the top among them.
        distinct = np.unique(ranks)
        code = 0
        for p in range(n_players):
            level = distinct.shape[0] - 1 - np.searchsorted(distinct, ranks[p])
            code += level * n_players**p
        counts[code] += 1
    return counts


def _check(game_name: str, holes: list[str], board: str) -> None:
    game = load_game(game_name)
    hole_cards = tuple(tuple(parse_cards(h)) for h in holes)
    board_cards = tuple(parse_cards(board)) if board else ()
    seen = set(board_cards).union(*hole_cards)
    rest = np.array([c for c in deck(game) if c not in seen], np.int64)
    k = game.total_board_cards - len(board_cards)
    expected = enumerate_patterns(np.array(hole_cards, np.int64), np.array(board_cards, np.int64), rest, k)
    found = outcome_counts(tuple(deck(game)), hole_cards, board_cards, game.total_board_cards)
    assert found.sum() == math.comb(len(rest), k)
    np.testing.assert_array_equal(found, expected)


# Flushes are where counting by class can go wrong: suited hands sharing a suit,
# monotone and two-tone boards, a flush already made, straight flushes, a board
# flush that plays for both.
@pytest.mark.parametrize(
    ("holes", "board"),
    [
        (["AsKs", "QsJs"], ""),
        (["AsKd", "QhJc"], ""),
        (["2s3s", "AhAd"], ""),
        (["9s8s", "7s6s"], "5s4sKd"),
        (["AhKh", "2c3d"], "QhJhTh"),
        (["Ah2c", "KhQh"], "3h4h9h"),
        (["AsAd", "KhKc"], "2h3h4h5h"),
        (["2c2d", "3c3d"], "AhKhQhJhTh"),
        (["AhKd", "7c7s"], "9h8h2h3h"),
        (["Tc9c", "Ac2d"], "8c7c2s"),
    ],
)
def test_flush_heavy_heads_up(holes, board):
    _check("holdem.nolimit.2p", holes, board)


def test_random_deals_every_street_two_and_three_players():
    rng = np.random.default_rng(16)
    for game_name, players in (("holdem.nolimit.2p", 2), ("holdem.limit.3p", 3)):
        cards = list(deck(load_game(game_name)))
        for board_size, trials in ((0, 3), (3, 12), (4, 20), (5, 20)):
            for _ in range(trials):
                dealt = rng.choice(cards, 2 * players + board_size, replace=False)
                holes = [_text(dealt[2 * p : 2 * p + 2]) for p in range(players)]
                _check(game_name, holes, _text(dealt[2 * players :]))


@pytest.mark.parametrize("game_name", ["leduc.limit.2p", "kuhn.limit.3p"])
def test_small_decks(game_name):
    game = load_game(game_name)
    cards = deck(game)
    for dealt in combinations(cards, game.num_players * game.num_hole_cards):
        holes = [_text(dealt[p * game.num_hole_cards : (p + 1) * game.num_hole_cards]) for p in range(game.num_players)]
        _check(game_name, holes, "")


def test_supported_games():
    assert supported(2, 5) and supported(1, 1) and supported(3, 3)
    # Three hole cards and four board cards: flushes in two suits could share a completion.
    assert not supported(3, 4)


def _text(cards) -> str:
    return cards_str(int(c) for c in cards)
