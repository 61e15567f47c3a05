"""Earth mover's distance over a ground distance between bins, and k-means with it.

Potential-aware abstraction (Ganzfried & Sandholm, AAAI 2014) compares a hand's
histogram over the next round's buckets with a cluster's mean histogram; moving mass
between two buckets costs the distance between their centers, so the bins have no
order and EMD is a transport problem, not the L1 distance between CDFs.

Exact transport costs far too much for millions of hands, so :func:`greedy_emd` is the
paper's greedy approximation: each of the point's (few) nonzero bins sends its mass to
the mean's bins in order of ground distance, rank by rank (first every point bin to
its nearest mean bin, then to its second nearest, ...), taking what mass is left.  The
result is the cost of a feasible transport plan, so it never underestimates the exact
EMD; tests/precompute/test_emd.py measures how much it overestimates on one-dimensional
cases, where the exact EMD is the L1 distance between the CDFs.

Histograms are float32 rows summing to 1 (counts over the next round's cards divided
by their number); ``ground`` is float64 (K, K), symmetric, zero on the diagonal.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange

from precompute.blocks import block_span, n_blocks
from precompute.kmeans import KMeansResult, d2_pick, update_centers


def ground_order(ground: np.ndarray) -> np.ndarray:
    """For each bin, every bin by increasing ground distance (itself first): int64 (K, K)."""
    return np.argsort(ground, axis=1, kind="stable").astype(np.int64)


@njit(cache=True)
def _sparse(row: np.ndarray, bins: np.ndarray, mass: np.ndarray) -> int:
    """The nonzero entries of ``row`` into ``bins``/``mass`` (written); returns their count."""
    n = 0
    for j in range(row.shape[0]):
        if row[j] > 0:
            bins[n] = j
            mass[n] = row[j]
            n += 1
    return n


@njit(cache=True)
def greedy_emd(
    bins: np.ndarray,
    mass: np.ndarray,
    n: int,
    mean: np.ndarray,
    ground: np.ndarray,
    order: np.ndarray,
    bound: float,
    left: np.ndarray,
    need: np.ndarray,
) -> float:
    """Greedy EMD from a sparse histogram to a dense one (an upper bound on the exact EMD).

    Args:
        bins, mass: the point's ``n`` nonzero bins (int64) and their masses (float64), read.
        mean: float32 (K,), the dense histogram, read.
        ground, order: the ground distance and :func:`ground_order` of it, read.
        bound: stop and return as soon as the cost reaches it (the best distance so far).
        left: float64 (K,), need: float64 (n or more,): scratch, overwritten.
    """
    k = mean.shape[0]
    for j in range(k):
        left[j] = mean[j]
    for i in range(n):
        need[i] = mass[i]
    unplaced = n
    cost = 0.0
    for rank in range(k):
        for i in range(n):
            want = need[i]
            if want <= 0.0:
                continue
            src = bins[i]
            dst = order[src, rank]
            have = left[dst]
            if have <= 0.0:
                continue
            if have < want:
                cost += have * ground[src, dst]
                need[i] = want - have
                left[dst] = 0.0
            else:
                cost += want * ground[src, dst]
                left[dst] = have - want
                need[i] = 0.0
                unplaced -= 1
        if unplaced == 0 or cost >= bound:
            break
    return cost


@njit(cache=True, parallel=True)
def nearest_emd(
    points: np.ndarray,
    centers: np.ndarray,
    ground: np.ndarray,
    order: np.ndarray,
    embed: np.ndarray,
    labels: np.ndarray,
    dists: np.ndarray,
) -> None:
    """The center of least greedy EMD for every point (ties: the lowest index); the
    points are split between the threads (the answer does not depend on how many).

    Pruning: ``embed`` float64 (K, E) places the bins in a space where the ground
    distance is at least the Euclidean one, so the distance between a histogram's and
    a center's barycenters bounds their EMD from below (and the greedy EMD is above
    the exact one).  Centers are tried by increasing bound, and the search stops at
    the first whose bound exceeds the best distance: the answer is the one an
    exhaustive search gives.

    Args:
        points: float32 (N, K), centers: float32 (k, K), ground, order, embed: read.
        labels: int32 (N,), dists: float64 (N,): written.
    """
    center_bary = centers.astype(np.float64) @ embed
    n_points = points.shape[0]
    blocks = n_blocks(n_points)
    for block in prange(blocks):
        start, stop = block_span(n_points, blocks, block)
        _nearest_emd_span(points, start, stop, centers, center_bary, ground, order, embed, labels, dists)


@njit(cache=True)
def _nearest_emd_span(points: np.ndarray, start: int, stop: int, centers: np.ndarray, center_bary: np.ndarray,
                      ground: np.ndarray, order: np.ndarray, embed: np.ndarray, labels: np.ndarray,
                      dists: np.ndarray) -> None:  # fmt: skip
    """:func:`nearest_emd` for the points ``[start, stop)`` (``center_bary``: the centers'
    barycenters), with scratch of its own."""
    k = ground.shape[0]
    n_centers = centers.shape[0]
    bins = np.empty(k, np.int64)
    mass = np.empty(k, np.float64)
    left = np.empty(k, np.float64)
    need = np.empty(k, np.float64)
    bary = np.empty(embed.shape[1], np.float64)
    bound = np.empty(n_centers, np.float64)
    for i in range(start, stop):
        n = _sparse(points[i], bins, mass)
        bary[:] = 0.0
        for j in range(n):
            bary += mass[j] * embed[bins[j]]
        for c in range(n_centers):
            bound[c] = np.sqrt(((center_bary[c] - bary) ** 2).sum())
        best = np.inf
        best_c = n_centers
        for c in np.argsort(bound):
            # The bound is in float64, the costs add float32 masses: allow for rounding.
            if bound[c] * (1.0 - 1e-6) - 1e-9 > best:
                break
            if c < best_c:  # a tie goes to the lower index, as in index order
                d = greedy_emd(bins, mass, n, centers[c], ground, order, np.nextafter(best, np.inf), left, need)
                if d <= best:
                    best, best_c = d, c
            else:
                d = greedy_emd(bins, mass, n, centers[c], ground, order, best, left, need)
                if d < best:
                    best, best_c = d, c
        labels[i] = best_c
        dists[i] = best


@njit(cache=True)
def _plus_plus(
    points: np.ndarray, k: int, ground: np.ndarray, order: np.ndarray, uniforms: np.ndarray, chosen: np.ndarray
) -> None:
    """k-means++ seeding under greedy EMD (see :func:`precompute.kmeans._plus_plus`).

    ``uniforms`` float64 (k,) read; ``chosen`` int64 (k,) written.
    """
    n_points, dim = points.shape
    bins = np.empty(dim, np.int64)
    mass = np.empty(dim, np.float64)
    left = np.empty(dim, np.float64)
    need = np.empty(dim, np.float64)
    best = np.full(n_points, np.inf)
    chosen[0] = min(int(uniforms[0] * n_points), n_points - 1)
    for c in range(1, k + 1):
        total = 0.0
        center = points[chosen[c - 1]]
        for i in range(n_points):
            n = _sparse(points[i], bins, mass)
            d = greedy_emd(bins, mass, n, center, ground, order, best[i], left, need)
            if d < best[i]:
                best[i] = d
            total += best[i] * best[i]
        if c == k:
            break
        chosen[c] = d2_pick(best, total, uniforms[c], c)


def check_ground(ground: np.ndarray) -> np.ndarray:
    """``ground`` as float64 (K, K), checked.

    Raises:
        ValueError: if it is not square, symmetric, non-negative and zero on the diagonal.
    """
    ground = np.ascontiguousarray(ground, np.float64)
    if ground.ndim != 2 or ground.shape[0] != ground.shape[1]:
        raise ValueError(f"a ground distance is a square matrix, got shape {ground.shape}")
    if (ground < 0).any() or np.diag(ground).any() or not np.allclose(ground, ground.T):
        raise ValueError("a ground distance must be non-negative, symmetric and zero on its diagonal")
    return ground


def kmeans_emd(
    points: np.ndarray,
    k: int,
    ground: np.ndarray,
    embed: np.ndarray,
    *,
    seed: int,
    max_iter: int = 30,
    tol: float = 1e-3,
    on_iteration: Callable[[int, float, float], None] | None = None,
) -> KMeansResult:
    """Cluster histograms (float32 (N, K), rows summing to 1) under greedy EMD over ``ground``
    (``embed``: the bins' places for pruning, see :func:`nearest_emd`).

    Centers are the mean histograms of their points.  Deterministic for a given
    ``seed``; stops after ``max_iter`` Lloyd iterations or when fewer than ``tol`` of
    the points change cluster; ``on_iteration(i, mean_distance, changed_fraction)``.

    Raises:
        ValueError: on k outside 1..N, a histogram of another width than ``ground``, or a bad ``ground``.
    """
    ground = check_ground(ground)
    points = np.ascontiguousarray(points, np.float32)
    if points.ndim != 2 or points.shape[1] != ground.shape[0]:
        raise ValueError(f"histograms of {ground.shape[0]} bins expected, got shape {points.shape}")
    if not 1 <= k <= len(points):
        raise ValueError(f"need 1 <= k <= number of points, got k={k} for {len(points)} points")
    order = ground_order(ground)
    embed = np.ascontiguousarray(embed, np.float64)
    if embed.ndim != 2 or embed.shape[0] != ground.shape[0]:
        raise ValueError(f"the bins' embedding must have {ground.shape[0]} rows, got shape {embed.shape}")
    rng = np.random.default_rng(seed)
    chosen = np.empty(k, np.int64)
    _plus_plus(points, k, ground, order, rng.random(k), chosen)
    centers = points[chosen].copy()
    labels = np.full(len(points), -1, np.int32)
    new_labels = np.empty(len(points), np.int32)
    dists = np.empty(len(points), np.float64)
    iteration = 0
    for iteration in range(1, max_iter + 1):
        nearest_emd(points, centers, ground, order, embed, new_labels, dists)
        changed = float(np.mean(new_labels != labels))
        labels, new_labels = new_labels, labels
        if on_iteration is not None:
            on_iteration(iteration, float(dists.mean()), changed)
        if changed < tol or iteration == max_iter:
            break
        update_centers(points, labels, dists, centers)
    return KMeansResult(centers, labels, float(dists.mean()), iteration)


def center_ground(centers: np.ndarray, ground: np.ndarray) -> np.ndarray:
    """Ground distance between clusters of histograms: the greedy EMD between their centers,
    the smaller of the two directions (both are feasible plans): float64 (k, k)."""
    ground = check_ground(ground)
    order = ground_order(ground)
    centers = np.ascontiguousarray(centers, np.float32)
    k, dim = centers.shape
    bins = np.empty(dim, np.int64)
    mass = np.empty(dim, np.float64)
    left = np.empty(dim, np.float64)
    need = np.empty(dim, np.float64)
    out = np.zeros((k, k))
    for a in range(k):
        n = _sparse(centers[a], bins, mass)
        for b in range(k):
            if a != b:
                out[a, b] = greedy_emd(bins, mass, n, centers[b], ground, order, np.inf, left, need)
    return np.minimum(out, out.T)
