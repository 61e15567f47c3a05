"""Equity features of hold'em hands, for every hole pair of a board at once.

* River: a hand's equity against a uniformly random opponent hand (win + tie / 2),
  exact, for all 1,326 hole pairs in one sweep: the pairs are sorted by strength
  and, walking up, running counts of weaker hands (in total and per card) give
  each hand's wins minus the opponent hands its own cards block.  Splitting the
  counts by a cluster label gives opponent-cluster hand strength (OCHS): the
  equity against each cluster of opponent hands.
* Flop and turn: the distribution of that river equity over the run-outs (all,
  or a seeded sample), as a histogram, and its mean, which is the exact all-in
  equity when every run-out is used.
* :func:`equity_vs_random` for one hand, exact from the flop on, sampled preflop.
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS, EvalTables, eval_tables, range_ranks

_PAIR_BITS = 11  # a hole-pair index (< 1326) fits below the rank in a sort key
NO_OPPONENT = 0.5  # OCHS against a cluster the board leaves empty: no information


@njit(cache=True)
def cluster_equities(
    t: EvalTables,
    board: np.ndarray,
    pair_cluster: np.ndarray,
    n_clusters: int,
    ranks: np.ndarray,
    keys: np.ndarray,
    out: np.ndarray,
) -> None:
    """Equity of every hole pair against the opponent hands of each cluster, on a river.

    Args:
        board: int (5,) river board, read.
        pair_cluster: int64 (1326,), cluster of each opponent hole pair (0..n_clusters-1).
        ranks: int32 (1326,), keys: int64 (1326,): scratch, overwritten.
        out: float64 (1326, n_clusters), written: ``out[p, c]`` is pair p's equity
            against a random pair of cluster c not sharing its or the board's cards
            (0.5 if there is none); rows of pairs that meet the board are left as they were.
    """
    range_ranks(t, board, 5, ranks)
    n = 0
    for p in range(NUM_HOLE_PAIRS):
        if ranks[p] > 0:
            keys[n] = (np.int64(ranks[p]) << _PAIR_BITS) | p
            n += 1
    live = np.sort(keys[:n])
    # Hands in total and holding each card, per cluster; the same over weaker hands.
    all_total = np.zeros(n_clusters, np.int64)
    all_card = np.zeros((52, n_clusters), np.int64)
    below_total = np.zeros(n_clusters, np.int64)
    below_card = np.zeros((52, n_clusters), np.int64)
    tie_total = np.zeros(n_clusters, np.int64)
    tie_card = np.zeros((52, n_clusters), np.int64)
    for i in range(n):
        p = live[i] & ((1 << _PAIR_BITS) - 1)
        c = pair_cluster[p]
        all_total[c] += 1
        all_card[HOLE_PAIRS[p, 0], c] += 1
        all_card[HOLE_PAIRS[p, 1], c] += 1
    start = 0
    while start < n:
        stop = start
        rank = live[start] >> _PAIR_BITS
        while stop < n and live[stop] >> _PAIR_BITS == rank:
            p = live[stop] & ((1 << _PAIR_BITS) - 1)
            c = pair_cluster[p]
            tie_total[c] += 1
            tie_card[HOLE_PAIRS[p, 0], c] += 1
            tie_card[HOLE_PAIRS[p, 1], c] += 1
            stop += 1
        for i in range(start, stop):
            p = live[i] & ((1 << _PAIR_BITS) - 1)
            a, b = HOLE_PAIRS[p, 0], HOLE_PAIRS[p, 1]
            for c in range(n_clusters):
                # Inclusion-exclusion over the two cards; the pair itself is the only
                # hand holding both, and it ties (it is not below itself).
                me = 1 if pair_cluster[p] == c else 0
                opponents = all_total[c] - all_card[a, c] - all_card[b, c] + me
                if opponents == 0:
                    out[p, c] = NO_OPPONENT
                    continue
                wins = below_total[c] - below_card[a, c] - below_card[b, c]
                ties = tie_total[c] - tie_card[a, c] - tie_card[b, c] + me
                out[p, c] = (wins + 0.5 * ties) / opponents
        for i in range(start, stop):
            p = live[i] & ((1 << _PAIR_BITS) - 1)
            c = pair_cluster[p]
            below_total[c] += 1
            below_card[HOLE_PAIRS[p, 0], c] += 1
            below_card[HOLE_PAIRS[p, 1], c] += 1
            tie_total[c] = 0
            tie_card[HOLE_PAIRS[p, 0], c] = 0
            tie_card[HOLE_PAIRS[p, 1], c] = 0
        start = stop


@njit(cache=True)
def runout_histograms(
    t: EvalTables, board: np.ndarray, runouts: np.ndarray, bins: int, hist: np.ndarray, total: np.ndarray
) -> None:
    """Histogram over run-outs of each hole pair's river equity against a random hand.

    Args:
        board: int (n,) the known board (n = 3 or 4), read.
        runouts: int (R, 5 - n) the cards completing the board, read; a run-out that
            meets the board is skipped, one that meets a hole pair is skipped for it.
        hist: (1326, bins) counts, added to (any integer or float dtype).
        total: float64 (1326,), the sum of the equities, added to (divide by the row sums
            of ``hist`` for the mean).
    """
    zero_cluster = np.zeros(NUM_HOLE_PAIRS, np.int64)
    ranks = np.empty(NUM_HOLE_PAIRS, np.int32)
    keys = np.empty(NUM_HOLE_PAIRS, np.int64)
    eq = np.empty((NUM_HOLE_PAIRS, 1), np.float64)
    river = np.empty(5, np.int64)
    n = len(board)
    for i in range(n):
        river[i] = board[i]
    for r in range(runouts.shape[0]):
        clash = False
        for j in range(5 - n):
            river[n + j] = runouts[r, j]
            for i in range(n + j):
                clash |= river[i] == river[n + j]
        if clash:
            continue
        cluster_equities(t, river, zero_cluster, 1, ranks, keys, eq)
        for p in range(NUM_HOLE_PAIRS):
            if ranks[p] > 0:
                e = eq[p, 0]
                hist[p, min(int(e * bins), bins - 1)] += 1
                total[p] += e


def all_runouts(board: np.ndarray | list[int], dead: np.ndarray | list[int] = ()) -> np.ndarray:
    """Every set of cards completing ``board`` to five, avoiding ``dead``: int64 (R, 5 - len(board))."""
    taken = {int(x) for x in board} | {int(x) for x in dead}
    rest = [c for c in range(52) if c not in taken]
    return np.array(list(itertools.combinations(rest, 5 - len(board))), np.int64).reshape(-1, 5 - len(board))


def river_equities(board: np.ndarray | list[int], tables: EvalTables | None = None) -> np.ndarray:
    """Exact equity (float64 (1326,), NaN where blocked) of every hole pair on a river board.

    Raises:
        ValueError: if ``board`` is not five distinct cards.
    """
    board = _board(board, (5,))
    ranks = np.empty(NUM_HOLE_PAIRS, np.int32)
    keys = np.empty(NUM_HOLE_PAIRS, np.int64)
    out = np.full((NUM_HOLE_PAIRS, 1), np.nan)
    cluster_equities(tables or eval_tables(), board, np.zeros(NUM_HOLE_PAIRS, np.int64), 1, ranks, keys, out)
    return out[:, 0]


def equity_vs_random(
    hole: list[int] | np.ndarray,
    board: list[int] | np.ndarray = (),
    *,
    samples: int = 20_000,
    seed: int = 0,
) -> float:
    """All-in equity of ``hole`` against a uniformly random opponent hand.

    Exact from the flop on (every run-out); preflop, the mean over ``samples`` random
    five-card boards (each board scores the hand against every opponent exactly).

    Raises:
        ValueError: on a malformed hand or board.
    """
    hole = np.asarray(hole, np.int64)
    if hole.shape != (2,):
        raise ValueError(f"a hold'em hand has 2 hole cards, got {hole.size}")
    board = _board(board, (0, 3, 4, 5), known=hole)
    t = eval_tables()
    pair = int(np.flatnonzero((HOLE_PAIRS[:, 0] == hole.min()) & (HOLE_PAIRS[:, 1] == hole.max()))[0])
    if len(board) == 5:
        return float(river_equities(board, t)[pair])
    if len(board):
        runouts = all_runouts(board, hole)
    else:
        rest = np.setdiff1d(np.arange(52), hole)
        rng = np.random.default_rng(seed)
        runouts = rest[np.argsort(rng.random((samples, len(rest))), axis=1)[:, :5]]
    hist = np.zeros((NUM_HOLE_PAIRS, 1), np.int64)
    total = np.zeros(NUM_HOLE_PAIRS)
    runout_histograms(t, board, runouts, 1, hist, total)
    return float(total[pair] / hist[pair, 0])


def _board(board: np.ndarray | list[int], sizes: tuple[int, ...], known: np.ndarray | None = None) -> np.ndarray:
    board = np.asarray(board, np.int64).reshape(-1)
    if len(board) not in sizes:
        raise ValueError(f"a board here has {' or '.join(map(str, sizes))} cards, got {len(board)}")
    cards = np.concatenate([board, known if known is not None else []]).astype(np.int64)
    if cards.size and (cards.min() < 0 or cards.max() > 51):
        raise ValueError("cards must be integers 0..51")
    if len(np.unique(cards)) != len(cards):
        raise ValueError("the same card appears twice in the hand and board")
    return board
