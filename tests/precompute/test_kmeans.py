"""k-means: exact pruned nearest-center search, seeding, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from precompute.kmeans import kmeans, nearest_centers


def _cdfs(rng: np.random.Generator, n: int, bins: int) -> np.ndarray:
    return np.cumsum(rng.dirichlet(np.full(bins, 0.3), n), axis=1).astype(np.float32)


@pytest.mark.parametrize("metric", ["emd", "l2"])
def test_pruned_search_finds_the_true_nearest_center(metric):
    rng = np.random.default_rng(2)
    points = _cdfs(rng, 3000, 20) if metric == "emd" else rng.random((3000, 8), np.float32)
    noise = rng.normal(0, 0.01, (40, points.shape[1])).astype(np.float32)
    centers = points[rng.choice(3000, 40, replace=False)] + noise
    labels = np.empty(3000, np.int32)
    dists = np.empty(3000)
    nearest_centers(points, centers, metric == "emd", labels, dists)
    diff = points[:, None, :] - centers[None, :, :]
    brute = np.abs(diff).sum(-1) if metric == "emd" else (diff**2).sum(-1)
    assert np.allclose(dists, brute.min(axis=1), rtol=1e-5, atol=1e-6)
    # Ties aside, the label is the argmin.
    assert (brute[np.arange(3000), labels] <= brute.min(axis=1) + 1e-5).all()


def test_separated_blobs_are_recovered_and_runs_repeat():
    rng = np.random.default_rng(4)
    means = np.array([[0, 0, 0], [5, 5, 5], [0, 5, 10], [10, 0, 5]], np.float32)
    truth = np.repeat(np.arange(4), 500)
    points = means[truth] + rng.normal(0, 0.3, (2000, 3)).astype(np.float32)
    first = kmeans(points, 4, metric="l2", seed=9)
    again = kmeans(points, 4, metric="l2", seed=9)
    assert np.array_equal(first.labels, again.labels) and np.array_equal(first.centers, again.centers)
    # Each true blob maps onto exactly one cluster.
    pairs = set(zip(truth.tolist(), first.labels.tolist(), strict=True))
    assert len(pairs) == 4 and len({c for _, c in pairs}) == 4
    assert first.inertia < 1.0


def test_emd_centers_are_mean_cdfs():
    rng = np.random.default_rng(1)
    points = _cdfs(rng, 500, 10)
    result = kmeans(points, 5, metric="emd", seed=0, max_iter=50, tol=0)
    for c in range(5):
        members = points[result.labels == c]
        assert len(members) > 0
        assert np.allclose(result.centers[c], members.mean(axis=0), atol=1e-5)
    assert (np.diff(result.centers, axis=1) >= -1e-6).all()  # still cumulative histograms


def test_k_equal_to_n_gives_each_point_its_own_cluster():
    points = np.random.default_rng(0).random((30, 4), np.float32)
    result = kmeans(points, 30, metric="l2", seed=3)
    assert sorted(result.labels.tolist()) == list(range(30))
    assert result.inertia == 0


def test_bad_arguments_are_refused():
    points = np.zeros((5, 2), np.float32)
    with pytest.raises(ValueError, match="metric"):
        kmeans(points, 2, metric="cosine", seed=0)
    with pytest.raises(ValueError, match="k <= number of points"):
        kmeans(points, 6, metric="l2", seed=0)
    with pytest.raises(ValueError, match="finite"):
        kmeans(np.full((5, 2), np.nan, np.float32), 2, metric="l2", seed=0)
