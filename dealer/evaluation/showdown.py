"""How often each showdown outcome occurs over every completion of a board.

For known hole cards and a partly dealt board, :func:`outcome_counts` counts, over
every way to deal the remaining board cards from the unseen ones, each *pattern*
of the players' hand ranks (who beats whom, ties included).  The default AIVAT
value function (:mod:`dealer.evaluation.values`) turns the counts into expected
showdown winnings.

Completions are counted by class, not one by one (there are 1,712,304 of them
before the flop of heads-up hold'em, and a hand of a reference log needs them):

* without a flush, a hand's rank depends only on its rank multiset, so every
  completion is first counted by the rank multiset of its new cards (6,188 classes
  for five cards), weighted by how many unseen-card choices give it
  (``Π_rank C(unseen of that rank, times it appears)``), at the ranks ignoring suits;
* then, for each suit s, the completions that can give someone a flush in s (at
  least ``5 - max_p(cards of s player p holds, board included)`` new cards of s)
  are enumerated with their cards of s explicit and the rest again by rank multiset,
  and each moves its weight from the pattern ignoring suits to the true pattern.

These flush sets are disjoint when ``2·hole cards + board cards < 10`` (two suits
would need more new cards than are dealt; checked by :func:`supported`), so every
completion is counted once at its true pattern.  The counts are exactly those of
enumerating every completion, about a hundred times faster before the flop.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from protocol.cards import next_combination
from protocol.fasteval import EvalTables, eval_tables, rank_of_multiset

#: A flush is five cards of one suit.
FLUSH = 5
_RANKS = 13
_SUITS = 4
_POW5 = np.array([5**r for r in range(_RANKS)], np.int64)


def supported(num_hole_cards: int, total_board_cards: int) -> bool:
    """Whether completions giving flushes in two different suits cannot overlap (see module doc)."""
    return 2 * num_hole_cards + total_board_cards < 2 * FLUSH


# Every node of a hand asks for the counts of the same cards: a small cache serves them
# (a big one would only grow with the log, and recounting is cheap).
@lru_cache(maxsize=1 << 10)
def outcome_counts(
    full_deck: tuple[int, ...], holes: tuple[tuple[int, ...], ...], board: tuple[int, ...], total_board: int
) -> np.ndarray:
    """How often each showdown pattern occurs over all completions of ``board``.

    Args:
        full_deck: the game's cards; holes: every position's hole cards (folded hands
            included: they are dead cards); board: the board dealt so far;
            total_board: board cards once all are dealt.

    Returns ``int64[N**N]``: a pattern is ``Σ_p level_p · N**p`` where ``level_p`` is
    the number of distinct hand ranks above position p's.
    """
    seen = set(board).union(*holes)
    rest = np.array([c for c in full_deck if c not in seen], dtype=np.int64)
    return _count_patterns(
        eval_tables(), np.array(holes, dtype=np.int64), np.array(board, dtype=np.int64), rest, total_board - len(board)
    )


@njit(cache=True)
def _binomial(n: int, k: int) -> int:
    if k < 0 or k > n:
        return 0
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


@njit(cache=True)
def _multisets(available: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every multiset of ``k`` ranks drawable from ``available`` (``int64[13]`` cards per rank).

    Returns (quinary ``int64[M]``: ``Σ 5**rank`` over the multiset, weight ``int64[M]``:
    the number of card sets giving it).
    """
    # Nondecreasing rank sequences, as an odometer; at most C(12 + k, k) of them.
    capacity = _binomial(_RANKS - 1 + k, k)
    quinary = np.empty(capacity, np.int64)
    weight = np.empty(capacity, np.int64)
    index = np.zeros(k, np.int64)
    m = 0
    while True:
        q = 0
        w = 1
        run = 0
        for i in range(k):
            q += _POW5[index[i]]
            run = run + 1 if i > 0 and index[i] == index[i - 1] else 1
            if i == k - 1 or index[i + 1] != index[i]:
                w *= _binomial(available[index[i]], run)
        if w > 0:
            quinary[m] = q
            weight[m] = w
            m += 1
        i = k - 1
        while i >= 0 and index[i] == _RANKS - 1:
            i -= 1
        if i < 0:
            break
        index[i] += 1
        for j in range(i + 1, k):
            index[j] = index[i]
    return quinary[:m], weight[:m]


@njit(cache=True)
def _pattern(ranks: np.ndarray) -> int:
    """The pattern code of ``ranks`` (``int64[N]``, larger wins): see :func:`outcome_counts`."""
    n = ranks.shape[0]
    code = 0
    scale = 1
    for p in range(n):
        level = 0
        for q in range(n):
            if ranks[q] > ranks[p]:
                # Count each distinct better rank once.
                first = True
                for q2 in range(q):
                    if ranks[q2] == ranks[q]:
                        first = False
                if first:
                    level += 1
        code += level * scale
        scale *= n
    return code


@njit(cache=True)
def _count_patterns(tables: EvalTables, holes: np.ndarray, board: np.ndarray, rest: np.ndarray, k: int) -> np.ndarray:
    """Count showdown patterns over every ``k``-card completion of the board from ``rest``.

    holes: ``int64[N, H]`` hole cards by position; board: ``int64[B]``; rest:
    ``int64[R]`` unseen cards (``rank * 4 + suit``).  Returns ``int64[N**N]``.
    """
    n = holes.shape[0]
    counts = np.zeros(n**n, np.int64)
    # Each player's rank multiset and per-suit rank masks, hole and board together.
    base = np.zeros(n, np.int64)
    masks = np.zeros((n, _SUITS), np.int64)
    held = np.zeros((n, _SUITS), np.int64)
    for p in range(n):
        for c in np.concatenate((holes[p], board)):
            base[p] += _POW5[c >> 2]
            masks[p, c & 3] |= 1 << (c >> 2)
            held[p, c & 3] += 1
    available = np.zeros(_RANKS, np.int64)
    unseen = np.zeros(_SUITS, np.int64)  # 13-bit rank mask of the unseen cards of each suit
    for c in rest:
        available[c >> 2] += 1
        unseen[c & 3] |= 1 << (c >> 2)
    ranks = np.empty(n, np.int64)
    plain = np.empty(n, np.int64)

    # Every completion at its ranks ignoring suits.
    quinary, weight = _multisets(available, k)
    for i in range(quinary.shape[0]):
        for p in range(n):
            ranks[p] = rank_of_multiset(tables, base[p] + quinary[i])
        counts[_pattern(ranks)] += weight[i]

    # Completions that can flush in suit s: move them to their true pattern.
    suited = np.empty(_RANKS, np.int64)
    for s in range(_SUITS):
        most = held[:, s].max()
        u = 0
        for r in range(_RANKS):
            if (unseen[s] >> r) & 1:
                suited[u] = r
                u += 1
        other = available.copy()
        for r in range(u):
            other[suited[r]] -= 1
        for j in range(max(FLUSH - most, 0), min(u, k) + 1):
            other_q, other_w = _multisets(other, k - j)
            pick = np.arange(j)
            while True:
                new_mask = 0
                new_q = 0
                for i in range(j):
                    new_mask |= 1 << suited[pick[i]]
                    new_q += _POW5[suited[pick[i]]]
                for i in range(other_q.shape[0]):
                    for p in range(n):
                        plain[p] = rank_of_multiset(tables, base[p] + new_q + other_q[i])
                        ranks[p] = max(plain[p], tables.flush[masks[p, s] | new_mask])
                    true_code = _pattern(ranks)
                    plain_code = _pattern(plain)
                    if true_code != plain_code:
                        counts[true_code] += other_w[i]
                        counts[plain_code] -= other_w[i]
                if not next_combination(pick, u):
                    break
    return counts

