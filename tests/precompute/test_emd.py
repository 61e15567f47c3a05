"""Greedy EMD against the exact EMD on one-dimensional cases, and k-means under it."""

from __future__ import annotations

import numpy as np
import pytest

from precompute.emd import center_ground, greedy_emd, ground_order, kmeans_emd, nearest_emd

K = 12


def line_ground(positions: np.ndarray) -> np.ndarray:
    """Bins at points of a line: ground distance |x_i - x_j|."""
    return np.abs(positions[:, None] - positions[None, :])


def exact_1d(p: np.ndarray, q: np.ndarray, positions: np.ndarray) -> float:
    """Exact EMD on a line: the L1 distance between the CDFs, weighted by the gaps between bins."""
    order = np.argsort(positions)
    gaps = np.diff(positions[order])
    return float(np.abs(np.cumsum(p[order] - q[order])[:-1]) @ gaps)


def greedy(p: np.ndarray, q: np.ndarray, ground: np.ndarray) -> float:
    bins = np.flatnonzero(p > 0).astype(np.int64)
    mass = p[bins].astype(np.float64)
    scratch = np.empty(len(ground))
    return greedy_emd(bins, mass, len(bins), q.astype(np.float32), ground, ground_order(ground), np.inf,
                      scratch, np.empty(len(ground)))  # fmt: skip


def random_histogram(rng: np.random.Generator, nonzero: int, k: int = K) -> np.ndarray:
    h = np.zeros(k)
    h[rng.choice(k, nonzero, replace=False)] = rng.random(nonzero)
    return (h / h.sum()).astype(np.float32).astype(np.float64)


def test_a_point_mass_is_moved_exactly():
    """All of a point's mass in one bin: every plan is the greedy one, so greedy = exact."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        positions = np.sort(rng.random(K))
        ground = line_ground(positions)
        p = np.zeros(K)
        p[rng.integers(K)] = 1.0
        q = random_histogram(rng, K)
        assert greedy(p, q, ground) == pytest.approx(exact_1d(p, q, positions), abs=1e-6)


def test_greedy_is_a_feasible_plan_whose_error_is_small_on_the_line():
    """Never below the exact EMD (it is a transport plan); measured error on sparse
    points (a hand's next-round histogram) against dense means (a cluster's): see
    docs/precompute.md for the figures."""
    rng = np.random.default_rng(1)
    ratios = []
    for _ in range(2000):
        positions = np.sort(rng.random(K))
        ground = line_ground(positions)
        p = random_histogram(rng, int(rng.integers(1, 6)))
        q = random_histogram(rng, K)
        exact, approx = exact_1d(p, q, positions), greedy(p, q, ground)
        assert approx >= exact - 1e-6
        ratios.append(approx / exact)
    ratios = np.array(ratios)
    assert ratios.mean() < 1.10 and np.median(ratios) < 1.05, (ratios.mean(), np.median(ratios), ratios.max())


def test_identical_histograms_are_at_distance_zero_and_ground_is_symmetric():
    rng = np.random.default_rng(2)
    positions = rng.random(K)
    ground = line_ground(positions)
    h = random_histogram(rng, 5)
    assert greedy(h, h, ground) == pytest.approx(0.0, abs=1e-7)
    centers = np.stack([random_histogram(rng, K) for _ in range(6)]).astype(np.float32)
    between = center_ground(centers, ground)
    np.testing.assert_array_equal(between, between.T)
    assert (np.diag(between) == 0).all() and (between[~np.eye(6, dtype=bool)] > 0).all()


def test_pruned_nearest_equals_the_exhaustive_search():
    rng = np.random.default_rng(3)
    embed = rng.random((K, 3))
    ground = np.sqrt(((embed[:, None] - embed[None]) ** 2).sum(axis=2))
    points = np.stack([random_histogram(rng, int(rng.integers(1, 7))) for _ in range(300)]).astype(np.float32)
    centers = np.stack([random_histogram(rng, K) for _ in range(9)]).astype(np.float32)
    labels, dists = np.empty(300, np.int32), np.empty(300)
    nearest_emd(points, centers, ground, ground_order(ground), embed, labels, dists)
    every = np.array([[greedy(p.astype(np.float64), c, ground) for c in centers] for p in points])
    np.testing.assert_array_equal(labels, every.argmin(axis=1))
    np.testing.assert_allclose(dists, every.min(axis=1), rtol=1e-12)


def test_kmeans_separates_two_groups_and_is_reproducible():
    rng = np.random.default_rng(4)
    positions = np.arange(K, dtype=np.float64)
    ground = line_ground(positions)
    low = np.zeros((50, K))
    high = np.zeros((50, K))
    low[np.arange(50), rng.integers(0, 3, 50)] = 1
    high[np.arange(50), rng.integers(9, 12, 50)] = 1
    points = np.concatenate([low, high]).astype(np.float32)
    a = kmeans_emd(points, 2, ground, positions[:, None], seed=5)
    b = kmeans_emd(points, 2, ground, positions[:, None], seed=5)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert len(set(a.labels[:50])) == 1 and len(set(a.labels[50:])) == 1 and a.labels[0] != a.labels[-1]
    with pytest.raises(ValueError, match="ground distance"):
        kmeans_emd(points, 2, ground + 1, positions[:, None], seed=5)
