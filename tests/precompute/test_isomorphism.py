"""Hand isomorphism: golden canonical counts, and bijectivity checked as far as CI affords."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

from precompute.isomorphism import WORK_SIZE, HandIndexer, IndexerTables, index_hand, unindex_hand

PERMUTATIONS = np.array(list(itertools.permutations(range(4))), np.int64)


@pytest.mark.parametrize(
    "rounds, size",
    [
        ((2,), 169),
        ((2, 3), 1_286_792),
        ((2, 4), 13_960_050),
        ((2, 5), 123_156_254),
        ((2, 3, 1), 55_190_538),
        ((2, 3, 1, 1), 2_428_287_420),
        ((3,), 1_755),
        ((5,), 134_459),
    ],
)
def test_canonical_counts(rounds, size):
    assert HandIndexer(rounds).size == size


@njit(cache=True)
def _round_masks(cards: np.ndarray, rounds: np.ndarray, perm: np.ndarray, out: np.ndarray) -> None:
    """Per-round card bitmasks of ``cards`` with suits renamed by ``perm``, into ``out``."""
    pos = 0
    for r in range(len(rounds)):
        out[r] = 0
        for _ in range(rounds[r]):
            out[r] |= 1 << ((cards[pos] >> 2) * 4 + perm[cards[pos] & 3])
            pos += 1


@njit(cache=True)
def _flop_preimage_counts(t: IndexerTables) -> np.ndarray:
    """How many of the 25,989,600 (hole, flop) deals land on each index (-1 hits go to the end)."""
    counts = np.zeros(t.offsets[-1] + 1, np.int64)
    hand = np.empty(5, np.int64)
    work = np.empty(WORK_SIZE, np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            hand[0], hand[1] = a, b
            for c in range(52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        if a in (c, d, e) or b in (c, d, e):
                            continue
                        hand[2], hand[3], hand[4] = c, d, e
                        i = index_hand(t, hand, work)
                        counts[i if i >= 0 else len(counts) - 1] += 1
    return counts


@njit(cache=True)
def _orbit_check(t: IndexerTables, perms: np.ndarray) -> tuple[int, np.ndarray]:
    """For every index: does each suit renaming of its canonical hand index back to it?

    Returns (number of failures, orbit size of each index's canonical hand).
    """
    size = t.offsets[-1]
    n_cards = t.rounds.sum()
    orbit = np.zeros(size, np.int64)
    hand = np.empty(n_cards, np.int64)
    moved = np.empty(n_cards, np.int64)
    work = np.empty(WORK_SIZE, np.int64)
    base = np.empty(len(t.rounds), np.int64)
    masks = np.empty(len(t.rounds), np.int64)
    bad = 0
    for i in range(size):
        unindex_hand(t, i, hand, work)
        _round_masks(hand, t.rounds, perms[0], base)
        stabilizer = 0
        for p in range(len(perms)):
            for j in range(n_cards):
                moved[j] = (hand[j] >> 2) * 4 + perms[p, hand[j] & 3]
            if index_hand(t, moved, work) != i:
                bad += 1
            _round_masks(hand, t.rounds, perms[p], masks)
            if (masks == base).all():
                stabilizer += 1
        orbit[i] = len(perms) // stabilizer
    return bad, orbit


@pytest.mark.parametrize("rounds", [(2,), (2, 3)])
def test_bijection_on_every_deal(rounds):
    """Every deal lands on an index, each index's preimage is exactly one suit orbit.

    Renaming suits never changes the index, and each index is hit by exactly as many
    deals as its canonical hand's orbit holds, so preimages are whole single orbits.
    """
    indexer = HandIndexer(rounds)
    t = indexer.tables
    bad, orbit = _orbit_check(t, PERMUTATIONS)
    assert bad == 0
    if rounds == (2,):
        hands = np.array([(a, b) for a in range(52) for b in range(a + 1, 52)])
        counts = np.bincount(indexer.index(hands), minlength=indexer.size)
    else:
        counts = _flop_preimage_counts(t)
        assert counts[-1] == 0
        counts = counts[:-1]
    assert (counts == orbit).all()


def test_turn_index_inverts_unindex_everywhere():
    indexer = HandIndexer((2, 4))
    indices = np.arange(indexer.size, dtype=np.int64)
    assert (indexer.index(indexer.unindex(indices)) == indices).all()


@pytest.mark.parametrize("rounds", [(2, 5), (2, 3, 1), (2, 3, 1, 1)])
def test_random_round_trips(rounds):
    indexer = HandIndexer(rounds)
    rng = np.random.default_rng(11)
    indices = rng.integers(0, indexer.size, 100_000)
    hands = indexer.unindex(indices)
    assert (indexer.index(hands) == indices).all()
    # Random deals: a suit renaming keeps the index, the canonical hand is in the orbit.
    deals = np.argsort(rng.random((100_000, 52)), axis=1)[:, : indexer.num_cards]
    index = indexer.index(deals)
    assert ((index >= 0) & (index < indexer.size)).all()
    perm = PERMUTATIONS[rng.integers(0, 24, len(deals))]
    renamed = (deals >> 2) * 4 + np.take_along_axis(perm, deals & 3, axis=1)
    assert (indexer.index(renamed) == index).all()
    assert (indexer.index(indexer.unindex(index)) == index).all()


def test_distinct_rounds_are_not_merged():
    # The same five cards split differently between hole and board are different hands.
    flop = HandIndexer((2, 3))
    assert flop.index([48, 49, 0, 4, 8]) != flop.index([0, 4, 48, 49, 8])
    # With the turn apart, which board card came last matters; as a set it does not.
    apart, joint = HandIndexer((2, 3, 1)), HandIndexer((2, 4))
    a, b = [48, 49, 0, 4, 8, 12], [48, 49, 0, 4, 12, 8]
    assert apart.index(a) != apart.index(b)
    assert joint.index(a) == joint.index(b)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="1 to 7 cards"):
        HandIndexer((2, 5, 1))
    with pytest.raises(ValueError, match="1 to 7 cards"):
        HandIndexer(())
    flop = HandIndexer((2, 3))
    with pytest.raises(ValueError, match="has 5 cards"):
        flop.index([0, 1, 2, 3])
    with pytest.raises(ValueError, match="same card twice"):
        flop.index([0, 1, 2, 3, 3])
    with pytest.raises(ValueError, match=r"0\.\.51"):
        flop.index([0, 1, 2, 3, 52])
    with pytest.raises(ValueError, match=r"0\.\.1286791"):
        flop.unindex(flop.size)
