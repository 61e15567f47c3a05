"""River hand strength: a hand's share of showdowns against a uniformly random opponent.

On the river nothing is left to come, so a hand's value against an unknown hand is
its hand strength ``HS = (wins + ties / 2) / opponents`` over every opponent pair
that shares no card with the board or the hand (990 of them in hold'em).  Blueprints
bucket river hands by HS percentile instead of shipping the 123M-entry river map:
``bucket = min(floor(HS * n), n - 1)``.

Cost: one :func:`protocol.fasteval.range_ranks` per board (1,326 lookups, a few
microseconds) and a pass over the 1,326 pairs per hand; :func:`range_strength` gives
all hands of a board at once from one sort of the ranks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS, EvalTables, eval_tables, range_ranks


@njit(cache=True, inline="always")
def pair_index(a: int, b: int) -> int:
    """Index in :data:`protocol.fasteval.HOLE_PAIRS` of the pair of cards ``a != b``."""
    if a > b:
        a, b = b, a
    return b * (b - 1) // 2 + a


@njit(cache=True)
def hand_strength(ranks: np.ndarray, a: int, b: int) -> float:
    """HS of hole cards ``a, b`` given ``ranks`` (int32 (1326,), from ``range_ranks`` on
    the board: 0 marks pairs blocked by the board).  Reads only; 0.5 if no opponent.

    One branch-free pass over the pairs (win/tie tests are coin flips to a branch
    predictor); for every hand of a board at once :func:`range_strength` is faster.
    """
    mine = ranks[pair_index(a, b)]
    mask = (1 << a) | (1 << b)
    twice_wins = 0
    count = 0
    i = 0
    for hi in range(52):
        hi_ok = 1 - ((mask >> hi) & 1)
        for lo in range(hi):
            r = ranks[i]
            i += 1
            ok = hi_ok * (1 - ((mask >> lo) & 1)) * (r != 0)
            count += ok
            twice_wins += ok * ((r < mine) * 2 + (r == mine))
    return twice_wins / (2.0 * count) if count else 0.5


@njit(cache=True)
def strength_bucket(strength: float, n_buckets: int) -> int:
    """Bucket of a hand strength in [0, 1]: equal-width percentiles, the top one closed."""
    return min(int(strength * n_buckets), n_buckets - 1)


@njit(cache=True)
def strength_buckets(strength: np.ndarray, n_buckets: int, out: np.ndarray) -> None:
    """:func:`strength_bucket` of each entry of ``strength`` (float64) into ``out`` (int64),
    -1 where the strength is negative (a blocked pair)."""
    for i in range(strength.shape[0]):
        out[i] = strength_bucket(strength[i], n_buckets) if strength[i] >= 0 else -1


@njit(cache=True)
def _range_strength(t: EvalTables, board: np.ndarray, out: np.ndarray) -> None:
    """HS of every hole pair with the 5-card ``board`` into ``out`` (float64 (1326,));
    -1 where the pair shares a card with the board.

    Pairs are visited by increasing rank, a group of equal ranks at a time; ``below``
    and ``level`` count the pairs under and at the group's rank, in all and per card,
    so card removal is inclusion-exclusion: the opponents that share a card with
    (a, b) are those holding a plus those holding b, the hand itself counted twice.
    """
    ranks = np.empty(NUM_HOLE_PAIRS, np.int32)
    range_ranks(t, board, board.shape[0], ranks)
    order = np.argsort(ranks, kind="mergesort")
    below_card = np.zeros(52, np.int64)
    level_card = np.zeros(52, np.int64)
    below = 0
    n_free = 0
    for i in range(NUM_HOLE_PAIRS):
        n_free += ranks[i] != 0
    # Opponents of a hand: free pairs minus those sharing one of its two cards.
    n_cards = 52 - board.shape[0]
    opponents = n_free - 2 * (n_cards - 1) + 1
    out[:] = -1.0
    start = 0
    while start < NUM_HOLE_PAIRS:
        end = start
        while end < NUM_HOLE_PAIRS and ranks[order[end]] == ranks[order[start]]:
            end += 1
        if ranks[order[start]] != 0:
            for j in range(start, end):
                p = order[j]
                level_card[HOLE_PAIRS[p, 0]] += 1
                level_card[HOLE_PAIRS[p, 1]] += 1
            level = end - start
            for j in range(start, end):
                p = order[j]
                a, b = HOLE_PAIRS[p, 0], HOLE_PAIRS[p, 1]
                wins = below - below_card[a] - below_card[b]
                ties = level - level_card[a] - level_card[b] + 1
                out[p] = (wins + 0.5 * ties) / opponents if opponents > 0 else 0.5
            for j in range(start, end):
                p = order[j]
                below_card[HOLE_PAIRS[p, 0]] += 1
                below_card[HOLE_PAIRS[p, 1]] += 1
                level_card[HOLE_PAIRS[p, 0]] = 0
                level_card[HOLE_PAIRS[p, 1]] = 0
            below += level
        start = end


def range_strength(board: list[int] | np.ndarray, tables: EvalTables | None = None) -> np.ndarray:
    """River HS (float64 (1326,)) of every ``HOLE_PAIRS`` hand; -1 for pairs the board blocks.

    Raises:
        ValueError: if ``board`` is not 5 distinct cards 0..51.
    """
    board = np.asarray(board, np.int64).reshape(-1)
    if board.size != 5 or board.min() < 0 or board.max() > 51 or len(set(board.tolist())) != 5:
        raise ValueError(f"a river board is 5 distinct cards 0..51, got {board.tolist()}")
    out = np.empty(NUM_HOLE_PAIRS)
    _range_strength(tables or eval_tables(), board, out)
    return out
