"""Thresholding: the actions a strategy row keeps once those below a floor are dropped.

A strategy trained by sampling keeps a little probability on actions it has not yet
learnt to avoid (an open-shove with 6-2 at 0.5%); played, each of them costs chips in
every hand it is drawn.  Removing them ("thresholding", Ganzfried, Sandholm and Waugh,
AAMAS 2012) is what competition agents did with their abstract strategies.  The agent
plays its blueprint's and its solves' rows thresholded (``agent --action-floor``), and
``precompute health --floor`` reports on a blueprint's rows as the agent plays them:
both use :func:`kept_actions`, the one rule.
"""

from __future__ import annotations

import numpy as np

#: The agent's default: actions below this probability are not played.
ACTION_FLOOR = 0.05


def kept_actions(weights: np.ndarray, floor: float) -> np.ndarray:
    """Which entries of each row (non-negative weights, normalised or not: a blueprint's
    quantized counts) survive the floor: those whose probability in their row is at least
    ``floor``; a row whose every action is below it keeps its largest (the first of equals).
    A row of zeros keeps nothing.  Bool, ``weights``' shape."""
    w = np.asarray(weights, np.float64)
    totals = w.sum(axis=-1, keepdims=True)
    probs = np.divide(w, totals, out=np.zeros_like(w), where=totals > 0)
    keep = probs >= floor
    empty = ~keep.any(axis=-1) & (totals[..., 0] > 0)
    if empty.any():
        rows = np.flatnonzero(empty.reshape(-1))
        flat = keep.reshape(-1, w.shape[-1])
        flat[rows, probs.reshape(-1, w.shape[-1])[rows].argmax(axis=1)] = True
    return keep


def threshold(probs: np.ndarray, floor: float) -> np.ndarray:
    """Rows of ``probs`` (float64) without the actions below ``floor``, renormalised (a row
    whose every action is below it keeps its largest; a row of zeros stays zeros)."""
    probs = np.asarray(probs, np.float64)
    kept = np.where(kept_actions(probs, floor), probs, 0.0)
    sums = kept.sum(axis=-1, keepdims=True)
    return np.divide(kept, sums, out=np.zeros_like(kept), where=sums > 0)
