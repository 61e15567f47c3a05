"""Table-driven hand ranking for the full 52-card deck: the fast path of :mod:`protocol.handrank`.

It returns exactly the integers of :func:`protocol.handrank.rank_cards` (the tables
are filled by that kernel), for 1 to 7 cards, built so that a hand costs a few
additions and two small-table lookups:

* every card has a 64-bit key ``5**rank << 16 | 1 << 4*suit``, so the sum of a hand's
  keys holds its rank multiset in base 5 (a rank occurs at most four times) above
  four suit counters of four bits each;
* the base-5 number (one of 76,154 multisets) goes through a displacement perfect
  hash (a multiplicative hash picks a row and a slot, the row's displacement makes
  slots unique) into ``ranks`` (131,072 entries): the rank ignoring suits;
* a second accumulator ORs each card's bit ``1 << (16*suit + rank)``; a suit counter
  reaching 5 picks that suit's 13-bit rank mask, whose best hand is read from
  ``flush`` (8,192 entries, 0 for fewer than five ranks).  With at most seven cards a
  flush excludes full houses and quads, so when there is a flush it outranks the
  suitless rank and the answer is simply the larger of the two lookups.

No branch depends on the cards, which lets the batch loops run several hands at once
(a data-dependent flush branch made them five times slower).  All tables fit in L2.
:func:`rank_batch` splits batches of :data:`PARALLEL_MIN_HANDS` hands or more over
numba's threads (one part per thread, same results); smaller batches run on the
calling thread, so they never wait for threads to wake.

Tables are built by :func:`build_tables` (a second or two), cached on disk under
``$ACPC_CACHE_DIR`` (default ``~/.cache/acpc-agent``) with a checksum, and rebuilt
when the file is missing or corrupt.  Kernels take an :class:`EvalTables` argument,
so other numba kernels can call :func:`fast_rank` and friends directly.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import get_num_threads, njit, prange

from protocol.handrank import rank_cards

NUM_CARDS = 52
#: Hole-card pairs (c0 < c1) in the order ranges use: ``HOLE_PAIRS[i]``; 1,326 rows.
HOLE_PAIRS = np.array([(a, b) for b in range(NUM_CARDS) for a in range(b)], dtype=np.int64)
NUM_HOLE_PAIRS = len(HOLE_PAIRS)
#: :func:`rank_batch` uses every numba thread from this many hands on (about a
#: millisecond of work, far more than waking the threads costs).
PARALLEL_MIN_HANDS = 1 << 16

_ROW_BITS = 13
_SLOT_BITS = 17
_SUIT_BITS = 16
# Adding 3 to a 4-bit suit counter sets its top bit exactly when the count is >= 5.
_FLUSH_PROBE = 0x3333
_FLUSH_BITS = 0x8888
# Card tables have 64 rows so a batch can index them with ``card & 63`` without a
# clamp; rows 52..63 add nothing to the key and set the sign bit of ``bits``.
_CARD_ROWS = 64
_BAD_CARD_BIT = -(1 << 63)
_CACHE_FORMAT = 2
_CACHE_NAME = f"fasteval-v{_CACHE_FORMAT}.npz"


class EvalTables(NamedTuple):
    """The evaluator's tables (read-only after the build).

    card_key: int64[64], a card's additive key (see the module docstring); 0 for 52..63.
    card_bit: int64[64], a card's bit ``1 << (16*suit + rank)``; the sign bit for 52..63.
    suit_shift: int64[16], for a 4-bit set of flush suits, 16 times its lowest suit.
    hash_mult: uint64[1], the multiplier of the perfect hash.
    disp: int64[2**13], per-row displacement of the perfect hash.
    ranks: int32[2**17], rank of each non-flush rank multiset (0 in unused slots).
    flush: int32[8192], rank of the best hand within one suit's rank mask (0 if < 5 cards).
    """

    card_key: np.ndarray
    card_bit: np.ndarray
    suit_shift: np.ndarray
    hash_mult: np.ndarray
    disp: np.ndarray
    ranks: np.ndarray
    flush: np.ndarray


class EvalTableError(Exception):
    """The evaluator tables could not be built (no perfect hash was found)."""


# ---------------------------------------------------------------- kernels (lookup)


@njit(cache=True, inline="always")
def _slot(hash_mult: np.ndarray, disp: np.ndarray, quinary: int) -> int:
    """Perfect-hash slot of a base-5 rank multiset."""
    h = np.uint64(quinary) * hash_mult[0]
    row = np.int64(h >> np.uint64(64 - _ROW_BITS))
    low = np.int64((h >> np.uint64(64 - _ROW_BITS - _SLOT_BITS)) & np.uint64((1 << _SLOT_BITS) - 1))
    return (low + disp[row]) & ((1 << _SLOT_BITS) - 1)


@njit(cache=True, inline="always")
def rank_of_multiset(t: EvalTables, quinary: int) -> int:
    """Rank of a hand without a flush from its rank multiset ``Σ 5**rank`` over its cards.

    With a flush, the hand's rank is the larger of this and ``t.flush`` of the flush
    suit's 13-bit rank mask.
    """
    return t.ranks[_slot(t.hash_mult, t.disp, quinary)]


@njit(cache=True, inline="always")
def rank_of_sums(t: EvalTables, key: int, bits: int) -> int:
    """Rank of a hand from the sum of its cards' ``card_key`` and the OR of their ``card_bit``."""
    probe = ((key + _FLUSH_PROBE) & _FLUSH_BITS) >> 3
    flush_suits = (probe | (probe >> 3) | (probe >> 6) | (probe >> 9)) & 0xF
    flush = t.flush[(bits >> t.suit_shift[flush_suits]) & 0x1FFF]
    return max(flush, rank_of_multiset(t, key >> _SUIT_BITS))


@njit(cache=True)
def fast_rank(t: EvalTables, cards: np.ndarray, n: int) -> int:
    """Rank of the first ``n`` (1..7) distinct cards of the int array ``cards``; reads only."""
    key = 0
    bits = 0
    for i in range(n):
        key += t.card_key[cards[i]]
        bits |= t.card_bit[cards[i]]
    return rank_of_sums(t, key, bits)


@njit(cache=True, inline="always")
def _row_sums(t: EvalTables, hands: np.ndarray, h: int, n: int) -> tuple[int, int, int]:
    """(key sum, bit OR, flag) of row ``h`` of ``hands``' first ``n`` cards; the flag is
    nonzero if a card is outside 0..51 or repeated.

    The check rides along without a branch: a card is read as ``card & 63``, flagged if
    that changed it, and rows 52..63 of the tables set the sign bit of the OR; a
    repeated card makes the sum of the cards' distinct bits differ from their OR.
    """
    key = 0
    bits = 0
    bit_sum = 0
    bad = 0
    for i in range(n):
        c = np.int64(hands[h, i])
        row = c & (_CARD_ROWS - 1)
        bad |= row ^ c
        key += t.card_key[row]
        bits |= t.card_bit[row]
        bit_sum += t.card_bit[row]
    return key, bits, bad | (bit_sum ^ bits) | (bits & _BAD_CARD_BIT)


@njit(cache=True)
def rank_rows(t: EvalTables, hands: np.ndarray, out: np.ndarray) -> bool:
    """Rank each row of ``hands`` (int (N, n)) into ``out`` (int32 (N,), mutated).

    Returns False if some row holds a card outside 0..51 or the same card twice (``out``
    is then meaningless); see :func:`_row_sums`.
    """
    n = hands.shape[1]
    bad = 0
    for h in range(hands.shape[0]):
        if n == 7:  # the usual case, with the card loop unrolled (about 20% faster)
            key, bits, flag = _row_sums(t, hands, h, 7)
        else:
            key, bits, flag = _row_sums(t, hands, h, n)
        bad |= flag
        out[h] = rank_of_sums(t, key, bits)
    return bad == 0


@njit(cache=True, parallel=True)
def _rank_batch_parallel(t: EvalTables, hands: np.ndarray, out: np.ndarray, parts: int) -> bool:
    """:func:`rank_rows` over ``parts`` contiguous slices of ``hands`` in parallel (same
    arguments, same result)."""
    n_hands = hands.shape[0]
    ok = np.empty(parts, np.bool_)
    for k in prange(parts):
        lo = n_hands * k // parts
        hi = n_hands * (k + 1) // parts
        ok[k] = rank_rows(t, hands[lo:hi], out[lo:hi])
    return ok.all()


@njit(cache=True)
def range_ranks(t: EvalTables, board: np.ndarray, n_board: int, out: np.ndarray) -> None:
    """Rank every hole pair of :data:`HOLE_PAIRS` with ``board[:n_board]`` (0..5 cards).

    ``out`` (int32 (1326,), mutated) gets each pair's rank, or 0 where the pair shares
    a card with the board.  ``board`` is read only.
    """
    used = 0
    board_key = 0
    board_bits = 0
    for i in range(n_board):
        board_key += t.card_key[board[i]]
        board_bits |= t.card_bit[board[i]]
        used |= 1 << board[i]
    i = 0
    for b in range(NUM_CARDS):
        for a in range(b):
            if (used >> a) & 1 or (used >> b) & 1:
                out[i] = 0
            else:
                key = board_key + t.card_key[a] + t.card_key[b]
                out[i] = rank_of_sums(t, key, board_bits | t.card_bit[a] | t.card_bit[b])
            i += 1


# ---------------------------------------------------------------- public wrappers


def rank_batch(hands: np.ndarray, tables: EvalTables | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Ranks (int32 (N,)) of the rows of ``hands`` (ints, shape (N, n), 1 <= n <= 7).

    The cards are checked in the same pass that ranks them; only a batch with a bad
    row pays for finding which row it is.  From :data:`PARALLEL_MIN_HANDS` rows on, the
    batch is split over numba's threads (``numba.set_num_threads`` limits them).
    ``out`` (int32 (N,), contiguous), if given, receives the ranks and is returned:
    reusing one spares a large batch the page faults of a fresh array (about 10%).

    Raises:
        ValueError: if a shape or dtype is wrong or a row holds an invalid or repeated card.
    """
    hands = np.asarray(hands)
    if hands.ndim != 2 or not 1 <= hands.shape[1] <= 7 or not np.issubdtype(hands.dtype, np.integer):
        raise ValueError(f"hands must be integers of shape (N, n) with 1 <= n <= 7, got {hands.dtype} {hands.shape}")
    if out is None:
        out = np.empty(hands.shape[0], np.int32)
    elif out.dtype != np.int32 or out.shape != hands.shape[:1] or not out.flags.c_contiguous:
        raise ValueError(f"out must be a contiguous int32 array of shape ({len(hands)},), got {out.dtype} {out.shape}")
    t = tables or eval_tables()
    threads = get_num_threads()
    if len(hands) >= PARALLEL_MIN_HANDS and threads > 1:
        ok = _rank_batch_parallel(t, hands, out, threads)
    else:
        ok = rank_rows(t, hands, out)
    if not ok:
        _check_cards(hands)
    return out


def rank_range(board: list[int] | np.ndarray, tables: EvalTables | None = None) -> np.ndarray:
    """Ranks (int32 (1326,)) of every :data:`HOLE_PAIRS` hand with ``board``; 0 for blocked pairs.

    Raises:
        ValueError: if the board is not 0..5 distinct cards.
    """
    board = np.asarray(board, dtype=np.int64).reshape(-1)
    if board.size > 5:
        raise ValueError(f"a board has at most 5 cards, got {board.size}")
    _check_cards(board[None, :])
    out = np.empty(NUM_HOLE_PAIRS, np.int32)
    range_ranks(tables or eval_tables(), board, board.size, out)
    return out


def fast_rank_hand(cards: list[int] | tuple[int, ...]) -> int:
    """:func:`protocol.handrank.rank_hand` through the tables (1 to 7 distinct cards of 52)."""
    # Checked in plain Python: numpy's per-call overhead dominates for one hand.
    n = len(cards)
    if not 1 <= n <= 7:
        raise ValueError(f"can rank 1 to 7 cards, got {n}")
    if min(cards) < 0 or max(cards) >= NUM_CARDS:
        raise ValueError(f"cards must be integers 0..{NUM_CARDS - 1}")
    if len(set(cards)) != n:
        raise ValueError("a hand holds the same card twice")
    return int(fast_rank(eval_tables(), np.array(cards, dtype=np.int64), n))


@njit(cache=True)
def _first_bad_row(hands: np.ndarray) -> tuple[int, int]:
    """(row, problem) of the first row of ``hands`` (int (N, n)) with a card outside 0..51
    (problem 1) or a repeated card (problem 2); (-1, 0) if all are valid.  Reads only."""
    for h in range(hands.shape[0]):
        seen = 0
        for i in range(hands.shape[1]):
            c = hands[h, i]
            if c < 0 or c >= NUM_CARDS:
                return h, 1
            if (seen >> c) & 1:
                return h, 2
            seen |= 1 << c
    return -1, 0


def _check_cards(hands: np.ndarray) -> None:
    row, problem = _first_bad_row(hands)
    if problem == 1:
        raise ValueError(f"cards must be integers 0..{NUM_CARDS - 1} (row {row})")
    if problem == 2:
        raise ValueError(f"a hand holds the same card twice (row {row})")


# ---------------------------------------------------------------- build


@njit(cache=True)
def _rank_multisets() -> tuple[np.ndarray, np.ndarray]:
    """Every rank multiset of 1..7 cards (each rank at most 4 times) and its rank.

    Returns (quinary int64 (M,), rank int32 (M,)), M = 76,154.  Each multiset is ranked
    through a hand that spreads its cards over the suits in turn, so no suit gets five.
    """
    quinary = np.empty(80000, np.int64)
    ranks = np.empty(80000, np.int32)
    count = np.zeros(13, np.int64)
    hand = np.empty(7, np.int64)
    m = 0
    while True:
        # Odometer over count vectors: bump the lowest digit that stays valid.
        digit = 0
        while digit < 13:
            count[digit] += 1
            if count[digit] <= 4 and count.sum() <= 7:
                break
            count[digit] = 0
            digit += 1
        if digit == 13:
            break
        n = 0
        q = 0
        for r in range(12, -1, -1):
            q = q * 5 + count[r]
            for _ in range(count[r]):
                hand[n] = r * 4 + n % 4
                n += 1
        quinary[m] = q
        ranks[m] = rank_cards(hand, n)
        m += 1
    return quinary[:m], ranks[:m]


@njit(cache=True)
def _place(quinary: np.ndarray, hash_mult: np.ndarray, disp: np.ndarray, slot_of: np.ndarray) -> bool:
    """Find row displacements that give every key its own slot.

    Fills ``disp`` (int64 (2**13,)) and ``slot_of`` (int64 (M,)), both mutated; returns
    False when two keys of one row share a slot offset (then no displacement works).
    """
    n_rows = 1 << _ROW_BITS
    size = 1 << _SLOT_BITS
    rows = np.empty(len(quinary), np.int64)
    lows = np.empty(len(quinary), np.int64)
    for i in range(len(quinary)):
        h = np.uint64(quinary[i]) * hash_mult[0]
        rows[i] = np.int64(h >> np.uint64(64 - _ROW_BITS))
        lows[i] = np.int64((h >> np.uint64(64 - _ROW_BITS - _SLOT_BITS)) & np.uint64(size - 1))
    by_row = np.argsort(rows, kind="mergesort")
    start = np.searchsorted(rows[by_row], np.arange(n_rows + 1))
    # Fullest rows first: they are the hardest to fit.
    order = np.argsort(start[:-1] - start[1:], kind="mergesort")
    taken = np.zeros(size, np.bool_)
    for row in order:
        members = by_row[start[row] : start[row + 1]]
        if len(members) == 0:
            break
        d = 0
        while d < size:
            fits = True
            for j in members:
                if taken[(lows[j] + d) & (size - 1)]:
                    fits = False
                    break
            if fits:
                break
            d += 1
        if d == size:
            return False
        for j in members:
            slot = (lows[j] + d) & (size - 1)
            if taken[slot]:  # two members of this row collide with each other
                return False
            taken[slot] = True
            slot_of[j] = slot
        disp[row] = d
    return True


@njit(cache=True)
def _flush_ranks() -> np.ndarray:
    """Rank of the cards of one suit (clubs) for each 13-bit rank mask of 5..7 ranks."""
    out = np.zeros(1 << 13, np.int32)
    hand = np.empty(13, np.int64)
    for mask in range(1 << 13):
        n = 0
        for r in range(13):
            if (mask >> r) & 1:
                hand[n] = r * 4
                n += 1
        if 5 <= n <= 7:
            out[mask] = rank_cards(hand, n)
    return out


def build_tables() -> EvalTables:
    """Build the tables from :func:`protocol.handrank.rank_cards` (deterministic).

    Raises:
        EvalTableError: if no multiplier yields a perfect hash (does not happen for the
            fixed candidate sequence, but is checked rather than assumed).
    """
    card_key = np.zeros(_CARD_ROWS, np.int64)
    card_key[:NUM_CARDS] = [(5**r << _SUIT_BITS) | (1 << (4 * s)) for r in range(13) for s in range(4)]
    card_bit = np.full(_CARD_ROWS, _BAD_CARD_BIT, np.int64)
    card_bit[:NUM_CARDS] = [1 << (16 * s + r) for r in range(13) for s in range(4)]
    suit_shift = np.array([16 * ((c & -c).bit_length() - 1) if c else 0 for c in range(16)], np.int64)
    quinary, multiset_ranks = _rank_multisets()
    rng = np.random.default_rng(0x5EED)
    # The golden-ratio multiplier works; further odd candidates are tried only if not.
    candidates = [0x9E3779B97F4A7C15] + [int(x) | 1 for x in rng.integers(1 << 62, 1 << 63, 32, dtype=np.int64)]
    for mult in candidates:
        hash_mult = np.array([mult], np.uint64)
        disp = np.zeros(1 << _ROW_BITS, np.int64)
        slot_of = np.empty(len(quinary), np.int64)
        if _place(quinary, hash_mult, disp, slot_of):
            ranks = np.zeros(1 << _SLOT_BITS, np.int32)
            ranks[slot_of] = multiset_ranks
            return EvalTables(card_key, card_bit, suit_shift, hash_mult, disp, ranks, _flush_ranks())
    raise EvalTableError("no perfect hash found for the rank multisets")


def cache_path() -> Path:
    """The tables' cache file, in ``$ACPC_CACHE_DIR`` (default ``~/.cache/acpc-agent``)."""
    return Path(os.environ.get("ACPC_CACHE_DIR") or Path.home() / ".cache" / "acpc-agent") / _CACHE_NAME


def _checksum(tables: EvalTables) -> str:
    digest = hashlib.sha256()
    for array in tables:
        digest.update(str(array.dtype).encode() + repr(array.shape).encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def _load_cached(path: Path) -> EvalTables | None:
    """The tables in ``path``, or None if the file is missing, unreadable or fails its checksum."""
    try:
        with np.load(path, allow_pickle=False) as data:
            tables = EvalTables(*(np.array(data[name]) for name in EvalTables._fields))
            stored = str(data["checksum"])
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    return tables if stored == _checksum(tables) else None


def _save_cached(path: Path, tables: EvalTables) -> None:
    """Write atomically, so a concurrent reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "wb") as out:
        np.savez(out, checksum=np.array(_checksum(tables)), **tables._asdict())
    os.replace(tmp, path)


# Keyed by the cache-directory setting, so the hot path builds no Path.
_loaded: dict[str, EvalTables] = {}


def eval_tables() -> EvalTables:
    """The tables: from memory, else from the disk cache, else built and cached."""
    key = os.environ.get("ACPC_CACHE_DIR") or ""
    tables = _loaded.get(key)
    if tables is None:
        path = cache_path()
        tables = _load_cached(path)
        if tables is None:
            tables = build_tables()
            _save_cached(path, tables)
        _loaded[key] = tables
    return tables
