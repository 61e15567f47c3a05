"""River hand strength and the blueprint's on-the-fly river buckets against a slow reference."""

from __future__ import annotations

import numpy as np
import pytest

from precompute.bucketing import AbstractionError
from precompute.cardbuckets import BlueprintCards
from precompute.handstrength import hand_strength, range_strength, strength_bucket
from protocol.fasteval import HOLE_PAIRS, rank_range
from protocol.handrank import rank_hand


def _slow_strength(a: int, b: int, board: list[int]) -> float:
    """Showdowns of (a, b) against every opponent pair, one hand ranking at a time."""
    mine = rank_hand([a, b, *board])
    wins = count = 0.0
    for c, d in HOLE_PAIRS:
        if len({a, b, int(c), int(d), *board}) < 4 + len(board):
            continue
        other = rank_hand([int(c), int(d), *board])
        count += 1
        wins += 1.0 if mine > other else 0.5 if mine == other else 0.0
    return wins / count


BOARDS = [
    [0, 4, 8, 12, 16],  # 2c 3c 4c 5c 6c: a straight flush on board, everyone ties or beats it
    [51, 47, 43, 39, 2],  # four aces-to-jacks of spades broadway-ish
    [5, 18, 27, 33, 44],
    [1, 2, 3, 20, 21],  # trips of deuces on board
]


@pytest.mark.parametrize("board", BOARDS)
def test_strength_matches_a_slow_reference(board):
    fast = range_strength(board)
    ranks = rank_range(board)
    rng = np.random.default_rng(len(board) + board[0])
    for p in rng.choice(len(HOLE_PAIRS), 25, replace=False):
        a, b = (int(x) for x in HOLE_PAIRS[p])
        if {a, b} & set(board):
            assert fast[p] == -1 and ranks[p] == 0
            continue
        expected = _slow_strength(a, b, board)
        assert fast[p] == pytest.approx(expected, abs=1e-12)
        assert hand_strength(ranks, a, b) == pytest.approx(expected, abs=1e-12)


def test_range_strength_agrees_with_the_single_hand_kernel_everywhere():
    board = [7, 19, 23, 40, 50]
    fast, ranks = range_strength(board), rank_range(board)
    free = ranks > 0
    single = np.array([hand_strength(ranks, int(a), int(b)) for a, b in HOLE_PAIRS[free]])
    np.testing.assert_allclose(fast[free], single, atol=1e-12)
    assert (fast[~free] == -1).all()
    assert fast[free].min() >= 0 and fast[free].max() <= 1


def test_strength_buckets_are_equal_width_and_cover_the_top():
    assert [strength_bucket(x, 4) for x in (0.0, 0.2499, 0.25, 0.99, 1.0)] == [0, 0, 1, 3, 3]


def test_river_buckets_single_and_range_agree():
    maps = (np.zeros(169, np.uint8), np.zeros(1_286_792, np.uint8), np.zeros(13_960_050, np.uint8))
    cards = BlueprintCards(maps, n_river=10)
    board = BOARDS[2]
    buckets = cards.range_buckets(3, board)
    for p in (0, 400, 900, 1300):
        a, b = (int(x) for x in HOLE_PAIRS[p])
        if buckets[p] >= 0:
            assert buckets[p] == cards.bucket(3, [a, b], board) == strength_bucket(_slow_strength(a, b, board), 10)
    with pytest.raises(AbstractionError, match="river needs 5 board cards"):
        cards.bucket(3, [0, 1], board[:4])


def test_bad_boards_are_refused():
    with pytest.raises(ValueError, match="5 distinct cards"):
        range_strength([1, 2, 3, 4, 4])
