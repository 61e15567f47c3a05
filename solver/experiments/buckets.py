"""Hand-strength buckets for the experiments' card abstraction.

A hand's strength on a board is its probability of beating a uniformly random
opponent hand at showdown (ties count half), averaged over every completion of the
board; each round's (board, hand) rows are cut into equally populated buckets by
strength.  Buckets forget earlier rounds (imperfect recall), as real abstractions do.
"""

from __future__ import annotations

import numpy as np

from solver.deals import CardSpace


def hand_strength(space: CardSpace) -> list[np.ndarray]:
    """Per round, (boards, hands) expected strength against a random hand (NaN where the
    hand clashes with the board)."""
    hands = space.hands
    disjoint = ~(hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))
    rank = space.final_rank  # (final boards, hands), -1 on a clash
    valid = rank >= 0
    final = np.full(rank.shape, np.nan)
    for b in range(rank.shape[0]):
        opp = disjoint & valid[b][None, :]
        beats = (rank[b][:, None] > rank[b][None, :]) & opp
        ties = (rank[b][:, None] == rank[b][None, :]) & opp
        count = opp.sum(axis=1)
        ok = valid[b] & (count > 0)
        final[b, ok] = (beats.sum(axis=1)[ok] + 0.5 * ties.sum(axis=1)[ok]) / count[ok]
    last = len(space.n_boards) - 1
    out = []
    for r in range(last + 1):
        ext = space.extensions(r, last)
        grouped = final.reshape(space.n_boards[r], ext, space.n_hands)
        count = (~np.isnan(grouped)).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nansum(grouped, axis=1) / count  # NaN where no completion fits the hand
        mean[(space.compat[r] == 0) | (count == 0)] = np.nan
        out.append(mean)
    return out


def strength_buckets(space: CardSpace, buckets: tuple[int | None, ...]) -> list[np.ndarray | None]:
    """Per round a (boards, hands) int64 bucket table with ``buckets[r]`` equally populated
    strength buckets, or None where ``buckets[r]`` is None (no abstraction on that round).
    Rows clashing with the board go to bucket 0 (they are never reached)."""
    strength = hand_strength(space)
    out: list[np.ndarray | None] = []
    for r, k in enumerate(buckets):
        if k is None:
            out.append(None)
            continue
        s = strength[r]
        edges = np.nanquantile(s, np.linspace(0, 1, k + 1)[1:-1])
        table = np.searchsorted(edges, np.nan_to_num(s, nan=0.0), side="right").astype(np.int64)
        table[np.isnan(s)] = 0
        out.append(table)
    return out
