"""Terminal values of the range-vector walk (:mod:`solver.ranges`): folds and showdowns
in O(hands) with card removal.

Every terminal payoff against an opponent range is a combination of three linear maps
of an opponent weight vector, per hand ``h`` (hands sharing a card with ``h`` never
count, by inclusion-exclusion over per-card sums):

- ``C(z)[h]``: the weight of the hands compatible with ``h``;
- ``W(x)[h]``: the weight of the compatible hands ``h`` beats (strictly weaker);
- ``S(y)[h]``: the weight of the compatible hands that beat ``h``.

A fold paying ``P`` is ``P * C(r)``; a showdown paying ``win``/``tie``/``lose`` is
``(win - tie) W(r) + (lose - tie) S(r) + tie C(r)`` since the ties are ``C - W - S``.
Being linear, the terminals below one node share one call: a traverser's terminal
children (same opponent reach) are scalar multiples of the same three vectors, and an
opponent's terminal children sum into one call on the combined weights.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Per-card sums are indexed by card; a one-card hand's second "card" is a slot of its
#: own (``CARD_SLOTS + hand``), so one two-card formula serves one- and two-card hands.
CARD_SLOTS = 64


def card_pairs(hands: np.ndarray) -> np.ndarray:
    """(n_hands, 2) int32 card slots of hands of one or two cards (see ``CARD_SLOTS``)."""
    n_h, k = hands.shape
    if k == 2:
        return hands.astype(np.int32)
    return np.stack([hands[:, 0], CARD_SLOTS + np.arange(n_h)], axis=1).astype(np.int32)


@njit(cache=True)
def compatible_weight(z: np.ndarray, pairs: np.ndarray, n_slots: int, mask: np.ndarray, out: np.ndarray) -> None:
    """``out[h] = C(z)[h] * mask[h]`` (float64 (n_hands,) each; ``pairs`` (n_hands, 2)
    int32 card slots below ``n_slots``)."""
    n_h = pairs.shape[0]
    per_card = np.zeros(n_slots)
    total = 0.0
    for h in range(n_h):
        v = z[h]
        total += v
        per_card[pairs[h, 0]] += v
        per_card[pairs[h, 1]] += v
    for h in range(n_h):
        # The one hand holding both cards (this one) was subtracted twice.
        out[h] = (total + z[h] - per_card[pairs[h, 0]] - per_card[pairs[h, 1]]) * mask[h]


@njit(cache=True)
def ranked_weights(
    x: np.ndarray, y: np.ndarray, order: np.ndarray, pairs: np.ndarray, group_end: np.ndarray, n_slots: int,
    mask: np.ndarray, out_w: np.ndarray, out_s: np.ndarray,
) -> None:
    """``out_w = W(x) * mask`` and ``out_s = S(y) * mask`` on one final board.

    ``order`` (n_hands,) int64 lists the hands weakest first, ``pairs`` (n_hands, 2)
    int32 their card slots in that order and ``group_end`` (n_hands,) int32 where each
    one's run of equal rank ends (the run's id).
    """
    n_h = pairs.shape[0]
    _sweep(x, order, pairs, group_end, n_slots, mask, out_w, 0, n_h, 1)
    _sweep(y, order, pairs, group_end, n_slots, mask, out_s, n_h - 1, -1, -1)


@njit(cache=True)
def _sweep(
    x: np.ndarray, order: np.ndarray, pairs: np.ndarray, run: np.ndarray, n_slots: int, mask: np.ndarray,
    out: np.ndarray, first: int, stop: int, step: int,
) -> None:
    """Per hand, the weight of ``x`` on the compatible hands in earlier runs of the sweep.

    One pass without branches on run boundaries (they are unpredictable): running
    sums over every hand passed so far, less what the current run has added, kept
    per card in ``in_run`` and valid where ``stamp`` holds the current run's id.  A
    hand holding both of a hand's cards is that hand, not in an earlier run, so no
    same-hand correction is needed; sums start from zero, so a hand with nothing
    before it gets exactly 0.
    """
    total = 0.0
    at_run_start = 0.0
    per_card = np.zeros(n_slots)
    in_run = np.zeros(n_slots)
    stamp = np.full(n_slots, -1, np.int32)
    current = np.int32(-1)
    for m in range(first, stop, step):
        r = run[m]
        at_run_start = total if r != current else at_run_start
        current = r
        c1, c2 = pairs[m, 0], pairs[m, 1]
        run1 = in_run[c1] if stamp[c1] == r else 0.0
        run2 = in_run[c2] if stamp[c2] == r else 0.0
        h = order[m]
        out[h] = (at_run_start - (per_card[c1] - run1) - (per_card[c2] - run2)) * mask[h]
        v = x[h]
        total += v
        per_card[c1] += v
        per_card[c2] += v
        in_run[c1] = run1 + v
        in_run[c2] = run2 + v
        stamp[c1] = r
        stamp[c2] = r
