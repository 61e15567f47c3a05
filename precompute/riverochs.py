"""River buckets by opponent-cluster hand strength (OCHS), computed on the fly.

A river hand's OCHS vector is its equity against each of C clusters of opponent
preflop hands (Johanson et al. 2013; the clusters are k-means on the 169 hands'
equity histograms, :func:`precompute.bucketing.build_abstraction`); its bucket is the
nearest (L2) of K river centers, k-means on the OCHS vectors of sampled river hands.
Nothing of the river's 123M hands is stored: :class:`RiverOCHS` is the K x C centers
and the cluster of each opponent pair.

:func:`river_buckets` is the one kernel that gives buckets: MCCFR batches (two hands
per board) and the agent's whole ranges (1,326 hands of one board) both call it.  The
abstraction build's turn features bucket every hand of a river at once from
:func:`precompute.equity.cluster_equities`, which gives the same vectors (tested), and
:func:`ochs_bucket`, the one nearest-center rule.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from precompute.equity import NO_OPPONENT
from precompute.handstrength import pair_index
from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS, EvalTables, eval_tables, range_ranks


class RiverOCHS(NamedTuple):
    """centers: float32 (K, C) OCHS centers; pair_cluster: int64 (1326,), the cluster of
    each ``HOLE_PAIRS`` opponent hand."""

    centers: np.ndarray
    pair_cluster: np.ndarray

    @classmethod
    def checked(cls, centers: np.ndarray, pair_cluster: np.ndarray) -> RiverOCHS:
        """The pair, validated and made contiguous.

        Raises:
            ValueError: if the shapes disagree or a label is not a cluster of ``centers``.
        """
        centers = np.ascontiguousarray(centers, np.float32)
        pair_cluster = np.ascontiguousarray(pair_cluster, np.int64)
        if centers.ndim != 2 or min(centers.shape) < 1:
            raise ValueError(f"river centers must be a (K, C) array, got shape {centers.shape}")
        if pair_cluster.shape != (NUM_HOLE_PAIRS,):
            raise ValueError(f"pair clusters must have shape ({NUM_HOLE_PAIRS},), got {pair_cluster.shape}")
        if pair_cluster.min() < 0 or pair_cluster.max() >= centers.shape[1]:
            raise ValueError(f"pair clusters must be 0..{centers.shape[1] - 1}, the river centers' width")
        return cls(centers, pair_cluster)


@njit(cache=True)
def ochs_bucket(ochs: np.ndarray, centers: np.ndarray) -> int:
    """Index of the center nearest (squared L2, float64; ties: the lowest index) to one
    OCHS vector (float64 (C,)); ``centers`` float32 (K, C).  Reads only."""
    best = np.inf
    best_k = 0
    for k in range(centers.shape[0]):
        d = 0.0
        for c in range(centers.shape[1]):
            diff = ochs[c] - centers[k, c]
            d += diff * diff
        if d < best:
            best = d
            best_k = k
    return best_k


@njit(cache=True, nogil=True)
def hand_ochs(ranks: np.ndarray, pair_mask: np.ndarray, starts: np.ndarray, mine: int, mask: int, out: np.ndarray) -> None:
    """OCHS of one hand into ``out`` (float64 (C,)).

    Equity against cluster c: (wins + ties / 2) / opponents over the cluster's pairs
    that share no card with the board or the hand; 0.5 if there is none.

    Args:
        ranks: int32 (1326,), the opponent pairs' ranks on the board (0: blocked by it)
            in cluster order: cluster c's pairs are ``starts[c]:starts[c + 1]``.
        pair_mask: int64 (1326,), the card bits of each of those pairs.
        mine, mask: the hand's rank and card bits.
    """
    for c in range(out.shape[0]):
        # Branch-free over a contiguous run: win/tie tests are coin flips to a predictor.
        count = 0
        twice_wins = 0
        for j in range(starts[c], starts[c + 1]):
            r = ranks[j]
            ok = (r != 0) & ((pair_mask[j] & mask) == 0)
            count += ok
            twice_wins += ok * ((r < mine) * 2 + (r == mine))
        out[c] = twice_wins / (2.0 * count) if count else NO_OPPONENT


@njit(cache=True, nogil=True)
def river_buckets(
    t: EvalTables,
    centers: np.ndarray,
    pair_cluster: np.ndarray,
    boards: np.ndarray,
    hands: np.ndarray,
    out: np.ndarray,
) -> None:
    """River bucket of hands on boards.

    Args:
        boards: int64 (N, 5), hands: int64 (N, M, 2): the hole cards of M hands per
            board; a hand that shares a card with its board (or a negative card) gets -1.
        centers, pair_cluster: the :class:`RiverOCHS` arrays, read.
        out: int64 (N, M), written.
    """
    n_clusters = centers.shape[1]
    order = np.argsort(pair_cluster, kind="mergesort")
    starts = np.zeros(n_clusters + 1, np.int64)
    pair_mask = np.empty(NUM_HOLE_PAIRS, np.int64)
    for j in range(NUM_HOLE_PAIRS):
        p = order[j]
        starts[pair_cluster[p] + 1] += 1
        pair_mask[j] = (np.int64(1) << HOLE_PAIRS[p, 0]) | (np.int64(1) << HOLE_PAIRS[p, 1])
    for c in range(n_clusters):
        starts[c + 1] += starts[c]
    ranks = np.empty(NUM_HOLE_PAIRS, np.int32)
    grouped = np.empty(NUM_HOLE_PAIRS, np.int32)
    ochs = np.empty(n_clusters, np.float64)
    for i in range(boards.shape[0]):
        range_ranks(t, boards[i], 5, ranks)
        for j in range(NUM_HOLE_PAIRS):
            grouped[j] = ranks[order[j]]
        used = np.int64(0)
        for j in range(5):
            used |= np.int64(1) << boards[i, j]
        for m in range(hands.shape[1]):
            a, b = hands[i, m, 0], hands[i, m, 1]
            if a < 0 or b < 0 or a == b or (used >> a) & 1 or (used >> b) & 1:
                out[i, m] = -1
                continue
            mask = (np.int64(1) << a) | (np.int64(1) << b)
            hand_ochs(grouped, pair_mask, starts, ranks[pair_index(a, b)], mask, ochs)
            out[i, m] = ochs_bucket(ochs, centers)


def range_river_buckets(river: RiverOCHS, board: np.ndarray | list[int], tables: EvalTables | None = None) -> np.ndarray:
    """River bucket (int64 (1326,)) of every ``HOLE_PAIRS`` hand; -1 where the board blocks it.

    Raises:
        ValueError: if ``board`` is not 5 distinct cards 0..51.
    """
    board = np.asarray(board, np.int64).reshape(-1)
    if board.size != 5 or board.min() < 0 or board.max() > 51 or len(set(board.tolist())) != 5:
        raise ValueError(f"a river board is 5 distinct cards 0..51, got {board.tolist()}")
    out = np.empty((1, NUM_HOLE_PAIRS), np.int64)
    river_buckets(tables or eval_tables(), river.centers, river.pair_cluster, board[None, :], HOLE_PAIRS[None], out)
    return out[0]
