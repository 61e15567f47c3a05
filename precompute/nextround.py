"""Kernels of the potential-aware features: each hand's histogram over the next round's buckets.

* turn: for every hand of a turn board, the river bucket (:mod:`precompute.riverochs`)
  on each river card, counted into a histogram over the K river buckets;
* flop: for every hand of a flop board, the turn bucket (looked up in the turn map) on
  each turn card, counted into a histogram over the turn buckets.

Rows are normalised to sum to 1 (the next cards that miss the hand's own cards).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from precompute.blocks import block_span, n_blocks
from precompute.bucketing import hands_of_board
from precompute.equity import cluster_equities
from precompute.isomorphism import WORK_SIZE, IndexerTables, index_hand
from precompute.riverochs import ochs_bucket
from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS, EvalTables


@njit(cache=True)
def _normalise(row: np.ndarray) -> None:
    total = row.sum()
    for k in range(row.shape[0]):
        row[k] /= total


@njit(cache=True, parallel=True)
def turn_histograms(
    t: EvalTables,
    it: IndexerTables,
    boards: np.ndarray,
    rivers: np.ndarray,
    centers: np.ndarray,
    pair_cluster: np.ndarray,
    out_idx: np.ndarray,
    out_hist: np.ndarray,
) -> None:
    """Histograms over river buckets of every hand of each turn board (boards split
    between the threads).

    Args:
        boards: int64 (B, 4), read.  rivers: int64 (B, m), the river cards used per
            board (none on its board; each hand skips those it holds), read.
        centers, pair_cluster: the :class:`~precompute.riverochs.RiverOCHS` arrays, read.
        out_idx: int64 (B * P,), out_hist: float32 (B * P, K): written, P = C(48, 2),
            board-major, one row per hole pair that misses the board.
    """
    n_pairs = out_idx.shape[0] // boards.shape[0]
    n_clusters = centers.shape[1]
    m = rivers.shape[1]
    blocks = n_blocks(boards.shape[0])
    for block in prange(blocks):
        start, stop = block_span(boards.shape[0], blocks, block)
        bucket = np.empty((m, NUM_HOLE_PAIRS), np.int64)
        eq = np.empty((NUM_HOLE_PAIRS, n_clusters), np.float64)
        ranks = np.empty(NUM_HOLE_PAIRS, np.int32)
        keys = np.empty(NUM_HOLE_PAIRS, np.int64)
        pairs = np.empty(NUM_HOLE_PAIRS, np.int64)
        river = np.empty(5, np.int64)
        for b in range(start, stop):
            river[:4] = boards[b]
            for r in range(m):
                river[4] = rivers[b, r]
                cluster_equities(t, river, pair_cluster, n_clusters, ranks, keys, eq)
                for p in range(NUM_HOLE_PAIRS):
                    bucket[r, p] = ochs_bucket(eq[p], centers) if ranks[p] > 0 else -1
            n = hands_of_board(it, boards[b], out_idx[b * n_pairs : (b + 1) * n_pairs], pairs)
            for i in range(n):
                row = out_hist[b * n_pairs + i]
                row[:] = 0
                for r in range(m):
                    k = bucket[r, pairs[i]]
                    if k >= 0:  # -1: the river card is one of the hand's own
                        row[k] += 1
                _normalise(row)


@njit(cache=True, parallel=True)
def flop_histograms(
    it_flop: IndexerTables,
    it_turn: IndexerTables,
    turn_map: np.ndarray,
    boards: np.ndarray,
    turns: np.ndarray,
    out_idx: np.ndarray,
    out_hist: np.ndarray,
) -> None:
    """Histograms over turn buckets of every hand of each flop board (boards split
    between the threads).

    Args:
        turn_map: the turn's bucket of every canonical turn hand (``it_turn``), read.
        boards: int64 (B, 3), turns: int64 (B, m): the turn cards used per board, read.
        out_idx: int64 (B * P,), out_hist: float32 (B * P, K_turn): written, P = C(49, 2).
    """
    n_pairs = out_idx.shape[0] // boards.shape[0]
    blocks = n_blocks(boards.shape[0])
    for block in prange(blocks):
        start, stop = block_span(boards.shape[0], blocks, block)
        pairs = np.empty(NUM_HOLE_PAIRS, np.int64)
        hand = np.empty(6, np.int64)
        work = np.empty(WORK_SIZE, np.int64)
        for b in range(start, stop):
            n = hands_of_board(it_flop, boards[b], out_idx[b * n_pairs : (b + 1) * n_pairs], pairs)
            hand[2:5] = boards[b]
            for i in range(n):
                row = out_hist[b * n_pairs + i]
                row[:] = 0
                hand[0], hand[1] = HOLE_PAIRS[pairs[i], 0], HOLE_PAIRS[pairs[i], 1]
                for r in range(turns.shape[1]):
                    card = turns[b, r]
                    if card == hand[0] or card == hand[1]:
                        continue
                    hand[5] = card
                    row[turn_map[index_hand(it_turn, hand, work)]] += 1
                _normalise(row)
