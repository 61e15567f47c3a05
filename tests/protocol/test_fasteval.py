"""The table-driven evaluator returns exactly the general kernel's ranks (exhaustive checks)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from protocol import fasteval
from protocol.cards import next_combination, parse_cards
from protocol.fasteval import (
    HOLE_PAIRS,
    EvalTables,
    eval_tables,
    fast_rank,
    fast_rank_hand,
    rank_batch,
    rank_of_sums,
    rank_range,
)
from protocol.handrank import rank_cards, rank_hand

# Category counts over all 133,784,560 seven-card hands, high card first.
SEVEN_CARD_CATEGORIES = [
    23_294_460,
    58_627_800,
    31_433_400,
    6_461_620,
    6_180_020,
    4_047_644,
    3_473_184,
    224_848,
    41_584,
]


@njit(cache=True)
def _all_hands_compared(t: EvalTables, n: int) -> tuple[int, int, np.ndarray]:
    """Rank every n-card hand (n = 5 or 6) both ways: (hands, mismatches, sorted distinct ranks)."""
    hand = np.empty(n, np.int64)
    seen = np.zeros(10 << 20, np.bool_)
    total = 0
    bad = 0
    idx = np.arange(n)
    while True:
        for i in range(n):
            hand[i] = idx[i]
        r = fast_rank(t, hand, n)
        if r != rank_cards(hand, n):
            bad += 1
        seen[r] = True
        total += 1
        if not next_combination(idx, 52):
            break
    return total, bad, np.nonzero(seen)[0]


@njit(cache=True)
def _seven_card_census(t: EvalTables) -> tuple[np.ndarray, int]:
    """Category counts over all 7-card hands and the number of distinct ranks.

    Keys and bits are summed incrementally down the nested loops, so the innermost
    loop costs one addition and two lookups per hand.
    """
    counts = np.zeros(9, np.int64)
    seen = np.zeros(10 << 20, np.bool_)
    ck = t.card_key
    cb = t.card_bit
    for a in range(52):
        ka, ba = ck[a], cb[a]
        for b in range(a + 1, 52):
            kb, bb = ka + ck[b], ba | cb[b]
            for c in range(b + 1, 52):
                kc, bc = kb + ck[c], bb | cb[c]
                for d in range(c + 1, 52):
                    kd, bd = kc + ck[d], bc | cb[d]
                    for e in range(d + 1, 52):
                        ke, be = kd + ck[e], bd | cb[e]
                        for f in range(e + 1, 52):
                            kf, bf = ke + ck[f], be | cb[f]
                            for g in range(f + 1, 52):
                                r = rank_of_sums(t, kf + ck[g], bf | cb[g])
                                counts[(r >> 20) - 1] += 1
                                seen[r] = True
    return counts, int(seen.sum())


def test_five_card_hands_exhaustive():
    total, bad, distinct = _all_hands_compared(eval_tables(), 5)
    assert total == 2_598_960 and bad == 0
    assert len(distinct) == 7_462


def test_six_card_hands_exhaustive():
    total, bad, _ = _all_hands_compared(eval_tables(), 6)
    assert total == 20_358_520 and bad == 0


def test_seven_card_census():
    counts, distinct = _seven_card_census(eval_tables())
    assert counts.tolist() == SEVEN_CARD_CATEGORIES
    assert counts.sum() == 133_784_560
    assert distinct == 4_824  # distinct 7-card hand values in poker


def test_random_hands_match_general_kernel():
    rng = np.random.default_rng(7)
    for n in range(1, 8):
        hands = np.argsort(rng.random((20_000, 52)), axis=1)[:, :n]
        general = np.array([rank_cards(h, n) for h in hands])
        assert (rank_batch(hands) == general).all()
        assert (rank_batch(hands.astype(np.uint8)) == general).all()


def test_named_hands():
    for text in ["AsKsQsJsTs2c3d", "5s4s3s2sAsAhAd", "KhKdKc9s9c9d2h", "2c3c4c5c7c9h9d", "AcAd9h9s4c4d3h"]:
        cards = parse_cards(text)
        assert fast_rank_hand(cards) == rank_hand(cards)


def test_range_ranks_every_hole_pair():
    rng = np.random.default_rng(3)
    for n_board in (0, 3, 4, 5):
        board = rng.permutation(52)[:n_board]
        ranks = rank_range(board)
        for i in rng.choice(len(HOLE_PAIRS), 200, replace=False):
            a, b = HOLE_PAIRS[i]
            if a in board or b in board:
                assert ranks[i] == 0
            else:
                assert ranks[i] == rank_hand([a, b, *board])
        assert (ranks == 0).sum() == len(HOLE_PAIRS) - (52 - n_board) * (51 - n_board) // 2


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="same card twice"):
        fast_rank_hand([0, 0, 5, 9, 13])
    with pytest.raises(ValueError, match=r"0\.\.51"):
        rank_batch(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(ValueError, match="1 <= n <= 7"):
        rank_batch(np.zeros((3, 8), np.int64))


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint8, np.int32])
def test_batch_check_finds_any_bad_row(dtype):
    """The checks fused into the ranking pass catch every kind of bad card, in any row."""
    hands = np.argsort(np.random.default_rng(5).random((5000, 52)), axis=1)[:, :7].astype(dtype)
    rank_batch(hands)
    bad_values = [52, 127] + ([-1, -128] if np.issubdtype(dtype, np.signedinteger) else [255])
    for value in bad_values:
        broken = hands.copy()
        broken[4321, 3] = value
        with pytest.raises(ValueError, match=r"0\.\.51 \(row 4321\)"):
            rank_batch(broken)
    repeated = hands.copy()
    repeated[4999, 6] = repeated[4999, 0]
    with pytest.raises(ValueError, match=r"same card twice \(row 4999\)"):
        rank_batch(repeated)
    with pytest.raises(ValueError, match="at most 5"):
        rank_range(list(range(6)))


def test_large_batches_split_over_threads_give_the_same_ranks_and_errors():
    """From PARALLEL_MIN_HANDS rows on, rank_batch runs in parallel parts: every row still
    gets the general kernel's rank, and a bad row in any part is found and named."""
    n = fasteval.PARALLEL_MIN_HANDS + 12_345  # parts of unequal size
    hands = np.argsort(np.random.default_rng(11).random((n, 52)), axis=1)[:, :7].astype(np.uint8)
    general = np.array([rank_cards(h.astype(np.int64), 7) for h in hands])
    assert (rank_batch(hands) == general).all()
    out = np.zeros(n, np.int32)
    assert rank_batch(hands, out=out) is out and (out == general).all()
    with pytest.raises(ValueError, match="out must be a contiguous int32 array"):
        rank_batch(hands, out=np.zeros(n, np.int64))
    for row in (0, n // 2, n - 1):
        broken = hands.copy()
        broken[row, 2] = 60
        with pytest.raises(ValueError, match=rf"0\.\.51 \(row {row}\)"):
            rank_batch(broken)
        repeated = hands.copy()
        repeated[row, 1] = repeated[row, 5]
        with pytest.raises(ValueError, match=rf"same card twice \(row {row}\)"):
            rank_batch(repeated)


def test_tables_cached_and_rebuilt_when_missing_or_corrupt(tmp_path, monkeypatch):
    # Tables are kept in memory per cache folder: each step points at a folder of its own,
    # so each reads (or rebuilds) its disk cache through eval_tables() alone.
    def tables_in(name: str, contents: bytes | None) -> tuple[fasteval.EvalTables, Path, bool]:
        """The tables with ``contents`` as the folder's cache file (None: no file), the
        file, and whether it was left as it was (read back rather than rebuilt)."""
        folder = tmp_path / name
        folder.mkdir()
        monkeypatch.setenv("ACPC_CACHE_DIR", str(folder))
        path = fasteval.cache_path()
        assert path.parent == folder
        if contents is not None:
            path.write_bytes(contents)
            os.utime(path, ns=(0, 0))  # a rewrite would show as a new modification time
        tables = eval_tables()
        return tables, path, contents is not None and path.stat().st_mtime_ns == 0

    built, path, _ = tables_in("first", None)
    assert path.exists()
    first = path.read_bytes()

    def rebuilt_and_rewritten(tables: fasteval.EvalTables, path: Path, kept: bool) -> bool:
        fresh = all(np.array_equal(x, y) for x, y in zip(built, tables, strict=True)) and not kept
        return fresh and tables_in(f"{path.parent.name}-again", path.read_bytes())[2]  # the new file reads back

    assert tables_in("copy", first)[2]  # the cache is read back as written, not rebuilt
    # Flip one byte inside the ranks table: the checksum catches it and the build repeats.
    data = bytearray(first)
    data[len(data) // 2] ^= 0xFF
    assert rebuilt_and_rewritten(*tables_in("flipped", bytes(data)))
    assert rebuilt_and_rewritten(*tables_in("garbage", b"not an npz file"))
