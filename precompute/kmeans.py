"""k-means with k-means++ seeding, exact nearest centers pruned by a one-dimensional bound.

Two metrics:

* ``"emd"``: earth mover's distance between histograms over equal-width bins, which
  in one dimension is the L1 distance between their cumulative histograms (CDFs).
  Points are passed as CDFs; a center is the mean CDF (the CDF of the mean
  histogram), as in the equity-distribution abstractions of the poker literature.
* ``"l2"``: Euclidean distance (OCHS vectors).

Pruning: both distances are bounded below by the gap between the points' coordinate
sums (|Σ(a−b)| ≤ Σ|a−b|, and ≤ √d·‖a−b‖₂), so with the centers sorted by their sums
the search for a point's nearest center walks outwards from its own sum and stops
once the gap exceeds the best distance found.  The answer is the exact nearest center.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit, prange

METRICS = ("emd", "l2")


class KMeansResult(NamedTuple):
    """centers: float32 (k, d); labels: int32 (N,); inertia: mean distance to the center."""

    centers: np.ndarray
    labels: np.ndarray
    inertia: float
    iterations: int


# Inlined into callers compiled with _FAST: reassociation lets the sums vectorise.  No
# other fast-math flag: the callers compare against inf.
_FAST = {"reassoc", "contract"}


@njit(cache=True, inline="always")
def _distance(a: np.ndarray, b: np.ndarray, l1: bool) -> float:
    """L1 distance, or the squared L2 distance, between two float32 vectors."""
    total = np.float32(0.0)
    if l1:
        for j in range(len(a)):
            total += abs(a[j] - b[j])
    else:
        for j in range(len(a)):
            diff = a[j] - b[j]
            total += diff * diff
    return total


@njit(cache=True)
def _sort_keys(x: np.ndarray, l1: bool) -> np.ndarray:
    """Each row's coordinate sum, scaled so that key gaps bound the (L1 or L2) distance."""
    scale = 1.0 if l1 else 1.0 / np.sqrt(x.shape[1])
    keys = np.empty(x.shape[0], np.float64)
    for i in range(x.shape[0]):
        keys[i] = x[i].sum() * scale
    return keys


@njit(cache=True, fastmath=_FAST, parallel=True)
def nearest_centers(points: np.ndarray, centers: np.ndarray, l1: bool, labels: np.ndarray, dists: np.ndarray) -> None:
    """Exact nearest center of every point (the points split between the threads).

    Args:
        points: float32 (N, d); centers: float32 (k, d); read.
        labels: int32 (N,), dists: float64 (N,): written (dists is L1, or squared L2).
    """
    center_keys = _sort_keys(centers, l1)
    order = np.argsort(center_keys)
    sorted_keys = center_keys[order]
    point_keys = _sort_keys(points, l1)
    k = len(order)
    for i in prange(points.shape[0]):
        key = point_keys[i]
        right = np.searchsorted(sorted_keys, key)
        left = right - 1
        best = np.inf
        best_c = -1
        while left >= 0 or right < k:
            # Visit whichever side's next center has the closer key.
            gap_l = key - sorted_keys[left] if left >= 0 else np.inf
            gap_r = sorted_keys[right] - key if right < k else np.inf
            gap = min(gap_l, gap_r)
            if (gap if l1 else gap * gap) >= best:
                break
            if gap_l <= gap_r:
                c = order[left]
                left -= 1
            else:
                c = order[right]
                right += 1
            d = _distance(points[i], centers[c], l1)
            if d < best:
                best = d
                best_c = c
        labels[i] = best_c
        dists[i] = best


@njit(cache=True, fastmath=_FAST)
def _plus_plus(points: np.ndarray, k: int, l1: bool, uniforms: np.ndarray, chosen: np.ndarray) -> None:
    """k-means++ seeding: each next center drawn with probability ∝ D(x)².

    ``uniforms`` float64 (k,) are the random draws (read); ``chosen`` int64 (k,) gets the
    indices of the chosen points (written).  Points at distance 0 from a chosen center
    are never drawn.
    """
    n = points.shape[0]
    best = np.full(n, np.inf)
    chosen[0] = min(int(uniforms[0] * n), n - 1)
    for c in range(1, k + 1):
        total = 0.0
        for i in range(n):
            d = _distance(points[i], points[chosen[c - 1]], l1)
            if not l1:
                d = np.sqrt(d)
            if d < best[i]:
                best[i] = d
            total += best[i] * best[i]
        if c == k:
            break
        chosen[c] = d2_pick(best, total, uniforms[c], c)


@njit(cache=True)
def d2_pick(best: np.ndarray, total: float, uniform: float, c: int) -> int:
    """k-means++'s draw of center ``c``: the point whose running sum of D² (``best``
    squared, ``total`` their sum) first passes ``uniform * total``.

    The last point with D > 0 up to the draw; if every point sits on a chosen center
    (duplicates), any point will do (``c`` modulo the points): its cluster empties and
    is reseeded.
    """
    n = best.shape[0]
    pick = c % n
    target = uniform * total
    acc = 0.0
    for i in range(n):
        if best[i] > 0:
            pick = i
            acc += best[i] * best[i]
            if acc > target:
                break
    return pick


@njit(cache=True)
def update_centers(points: np.ndarray, labels: np.ndarray, dists: np.ndarray, centers: np.ndarray) -> int:
    """Move each center to the mean of its points; reseed empty ones at the farthest points.

    ``centers`` float32 (k, d) is written; ``dists`` is read.  Returns the number reseeded.
    """
    k, d = centers.shape
    sums = np.zeros((k, d), np.float64)
    counts = np.zeros(k, np.int64)
    for i in range(points.shape[0]):
        counts[labels[i]] += 1
        for j in range(d):
            sums[labels[i], j] += points[i, j]
    empty = 0
    far = np.argsort(-dists)
    for c in range(k):
        if counts[c] == 0:
            # The worst-served points make the most useful new centers.
            centers[c] = points[far[empty]]
            empty += 1
        else:
            for j in range(d):
                centers[c, j] = sums[c, j] / counts[c]
    return empty


def kmeans(
    points: np.ndarray,
    k: int,
    *,
    metric: str,
    seed: int,
    max_iter: int = 30,
    tol: float = 1e-3,
    on_iteration: Callable[[int, float, float], None] | None = None,
) -> KMeansResult:
    """Cluster ``points`` (float32 (N, d); CDFs for ``"emd"``) into ``k`` clusters.

    Deterministic for a given ``seed``.  Stops after ``max_iter`` Lloyd iterations or
    when fewer than ``tol`` of the points change cluster.  ``on_iteration(i, inertia,
    changed_fraction)`` is called after each iteration.

    Raises:
        ValueError: on an unknown metric, k outside 1..N, or non-finite points.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}")
    points = np.ascontiguousarray(points, np.float32)
    if points.ndim != 2 or not 1 <= k <= len(points):
        raise ValueError(f"need 1 <= k <= number of points, got k={k} for {len(points)} points")
    if not np.isfinite(points).all():
        raise ValueError("points must be finite")
    l1 = metric == "emd"
    rng = np.random.default_rng(seed)
    chosen = np.empty(k, np.int64)
    _plus_plus(points, k, l1, rng.random(k), chosen)
    centers = points[chosen].copy()
    labels = np.full(len(points), -1, np.int32)
    new_labels = np.empty(len(points), np.int32)
    dists = np.empty(len(points), np.float64)
    iteration = 0
    for iteration in range(1, max_iter + 1):
        nearest_centers(points, centers, l1, new_labels, dists)
        changed = float(np.mean(new_labels != labels))
        labels, new_labels = new_labels, labels
        if on_iteration is not None:
            on_iteration(iteration, float(_inertia(dists, l1)), changed)
        if changed < tol or iteration == max_iter:
            break  # the centers stay those the labels were computed from
        update_centers(points, labels, dists, centers)
    return KMeansResult(centers, labels, float(_inertia(dists, l1)), iteration)


def _inertia(dists: np.ndarray, l1: bool) -> float:
    return float(dists.mean() if l1 else np.sqrt(dists).mean())
