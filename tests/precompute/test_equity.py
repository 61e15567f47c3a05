"""Equity features against brute force over opponent hands and run-outs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from precompute.equity import all_runouts, cluster_equities, equity_vs_random, river_equities, runout_histograms
from protocol.cards import parse_cards
from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS, eval_tables, rank_batch


def _brute_equity(hole, board, opponent_ok=lambda pair: True) -> float:
    """Equity of ``hole`` on a river ``board`` against every allowed opponent pair."""
    rest = [c for c in range(52) if c not in hole and c not in board]
    opponents = [pair for pair in itertools.combinations(rest, 2) if opponent_ok(pair)]
    if not opponents:
        return 0.5
    hands = np.array([[*hole, *board]] + [[*pair, *board] for pair in opponents])
    ranks = rank_batch(hands)
    return float(((ranks[1:] < ranks[0]).sum() + 0.5 * (ranks[1:] == ranks[0]).sum()) / len(opponents))


def test_river_equities_match_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(3):
        board = rng.permutation(52)[:5]
        eq = river_equities(board)
        blocked = np.isin(HOLE_PAIRS, board).any(axis=1)
        assert np.isnan(eq[blocked]).all() and not np.isnan(eq[~blocked]).any()
        for p in rng.choice(np.flatnonzero(~blocked), 25, replace=False):
            assert eq[p] == pytest.approx(_brute_equity(list(HOLE_PAIRS[p]), list(board)), abs=1e-12)


def test_cluster_equities_match_brute_force():
    rng = np.random.default_rng(8)
    board = rng.permutation(52)[:5]
    labels = rng.integers(0, 3, NUM_HOLE_PAIRS)
    pair_of = {tuple(pair): i for i, pair in enumerate(HOLE_PAIRS.tolist())}
    out = np.zeros((NUM_HOLE_PAIRS, 3))
    cluster_equities(
        eval_tables(), board, labels, 3, np.empty(NUM_HOLE_PAIRS, np.int32), np.empty(NUM_HOLE_PAIRS, np.int64), out
    )
    live = np.flatnonzero(~np.isin(HOLE_PAIRS, board).any(axis=1))
    for p in rng.choice(live, 15, replace=False):
        for c in range(3):
            expected = _brute_equity(list(HOLE_PAIRS[p]), list(board), lambda pair, c=c: labels[pair_of[pair]] == c)
            assert out[p, c] == pytest.approx(expected, abs=1e-12)


def test_turn_histogram_mean_is_the_exact_equity():
    board = np.array(parse_cards("Kh7c2d9s"))
    hist = np.zeros((NUM_HOLE_PAIRS, 10), np.int64)
    total = np.zeros(NUM_HOLE_PAIRS)
    runout_histograms(eval_tables(), board, all_runouts(board), 10, hist, total)
    hole = parse_cards("AsAd")
    p = int(np.flatnonzero((HOLE_PAIRS[:, 0] == min(hole)) & (HOLE_PAIRS[:, 1] == max(hole)))[0])
    assert hist[p].sum() == 46  # rivers that miss the board and the hand
    rivers = [c for c in range(52) if c not in board and c not in hole]
    brute = np.mean([_brute_equity(list(hole), [*board, r]) for r in rivers])
    assert total[p] / hist[p].sum() == pytest.approx(brute, abs=1e-12)
    assert equity_vs_random(hole, board) == pytest.approx(brute, abs=1e-12)
    # Each river's equity lands in the bin it belongs to.
    bins = np.minimum((np.array([_brute_equity(list(hole), [*board, r]) for r in rivers]) * 10).astype(int), 9)
    assert (np.bincount(bins, minlength=10) == hist[p]).all()


def test_preflop_equity_is_well_sampled():
    # Aces win 85.2% all-in against a random hand; 2-7 offsuit about 34.6%.
    assert equity_vs_random(parse_cards("AsAd"), samples=20_000) == pytest.approx(0.852, abs=0.003)
    assert equity_vs_random(parse_cards("7h2c"), samples=20_000) == pytest.approx(0.346, abs=0.004)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="2 hole cards"):
        equity_vs_random([0, 1, 2])
    with pytest.raises(ValueError, match="0 or 3 or 4 or 5 cards"):
        equity_vs_random([0, 1], [2, 3])
    with pytest.raises(ValueError, match="twice"):
        equity_vs_random([0, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="5 cards"):
        river_equities([0, 1, 2, 3])
