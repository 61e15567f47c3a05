"""On-the-fly OCHS river buckets: MCCFR batches, single hands and whole ranges against a slow reference."""

from __future__ import annotations

import numpy as np
import pytest

from precompute.cardbuckets import BlueprintCards
from precompute.equity import cluster_equities
from precompute.riverochs import RiverOCHS, ochs_bucket, range_river_buckets
from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS, eval_tables
from protocol.handrank import rank_hand
from solver.cfr.mccfr import SampledDeals

C, K = 5, 9
BOARDS = [[0, 4, 8, 12, 16], [1, 2, 3, 20, 21], [5, 18, 27, 33, 44], [51, 47, 43, 39, 2]]
MAPS = (np.zeros(169, np.uint8), np.zeros(1_286_792, np.uint8), np.zeros(13_960_050, np.uint8))


@pytest.fixture(scope="module")
def river() -> RiverOCHS:
    rng = np.random.default_rng(0)
    return RiverOCHS.checked(rng.random((K, C)), rng.integers(0, C, NUM_HOLE_PAIRS))


def slow_buckets(river: RiverOCHS, board: list[int]) -> np.ndarray:
    """Each hand's equity against each cluster, one hand ranking per pair, then the nearest center."""
    ranks = np.array([rank_hand([int(a), int(b), *board]) if not {int(a), int(b)} & set(board) else -1
                      for a, b in HOLE_PAIRS])  # fmt: skip
    out = np.full(NUM_HOLE_PAIRS, -1)
    for p, (a, b) in enumerate(HOLE_PAIRS):
        if ranks[p] < 0:
            continue
        live = (ranks >= 0) & ~np.isin(HOLE_PAIRS, [a, b]).any(axis=1)
        score = np.where(ranks[p] > ranks, 1.0, np.where(ranks[p] == ranks, 0.5, 0.0))
        ochs = np.array([score[live & (river.pair_cluster == c)].mean() if (live & (river.pair_cluster == c)).any()
                         else 0.5 for c in range(C)])  # fmt: skip
        out[p] = int(np.argmin(((ochs[None, :] - river.centers.astype(np.float64)) ** 2).sum(axis=1)))
    return out


@pytest.mark.parametrize("board", BOARDS)
def test_range_single_and_batch_buckets_match_a_slow_reference(river, board):
    expected = slow_buckets(river, board)
    cards = BlueprintCards(MAPS, K, river)
    np.testing.assert_array_equal(cards.range_buckets(3, board), expected)
    np.testing.assert_array_equal(range_river_buckets(river, board), expected)
    rng = np.random.default_rng(board[0])
    free = np.flatnonzero(expected >= 0)
    deals = []
    for _ in range(20):
        p, q = rng.choice(free, 2, replace=False)
        if len({*HOLE_PAIRS[p], *HOLE_PAIRS[q]}) == 4:
            deals.append([*HOLE_PAIRS[p], *HOLE_PAIRS[q], *board])
            assert cards.bucket(3, HOLE_PAIRS[p], board) == expected[p]
    deals = np.array(deals, np.int64)
    got = cards.abstraction("test").buckets(SampledDeals(deals, np.zeros((len(deals), 2)), np.zeros((len(deals), 4))))
    index = {(int(a), int(b)): p for p, (a, b) in enumerate(HOLE_PAIRS)}
    pairs = [[index[tuple(sorted(int(c) for c in d[2 * i : 2 * i + 2]))] for i in (0, 1)] for d in deals]
    np.testing.assert_array_equal(got[:, :, 3], expected[np.array(pairs)])
    assert (got[:, :, :3] == 0).all()  # the maps' buckets are still looked up


def test_the_builds_whole_board_vectors_give_the_same_buckets(river):
    """The abstraction build buckets a river's hands from cluster_equities: the same answer."""
    t = eval_tables()
    for board in BOARDS:
        eq = np.empty((NUM_HOLE_PAIRS, C))
        ranks, keys = np.empty(NUM_HOLE_PAIRS, np.int32), np.empty(NUM_HOLE_PAIRS, np.int64)
        cluster_equities(t, np.array(board, np.int64), river.pair_cluster, C, ranks, keys, eq)
        whole = [ochs_bucket(eq[p], river.centers) if ranks[p] > 0 else -1 for p in range(NUM_HOLE_PAIRS)]
        np.testing.assert_array_equal(whole, range_river_buckets(river, board))


def test_bad_river_data_is_refused(river):
    with pytest.raises(ValueError, match=r"pair clusters must be 0\.\.4"):
        RiverOCHS.checked(river.centers, river.pair_cluster + 1)
    with pytest.raises(ValueError, match="5 distinct cards"):
        range_river_buckets(river, [1, 2, 3, 4, 4])
    with pytest.raises(Exception, match="OCHS centers, not 8 buckets"):
        BlueprintCards(MAPS, 8, river)
