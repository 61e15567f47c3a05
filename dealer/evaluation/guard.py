"""A guard against AIVAT corrections that add spread: per seat and hand, raw chips or AIVAT,
chosen from the log's earlier hands only.

A value function that is wrong for the opponent at hand can make AIVAT noisier than the
raw chips: against a bot that folds whenever it can, the raw result barely varies, while
the check-down value's deal correction (the opponent's cards, ±margin × the blinds) is
never cancelled, because the opponent's fold gets no correction (its strategy is
unknown).  The guard keeps AIVAT's value for a seat's hand ``i`` when, over the same
log's hands before ``i``, the AIVAT values of that seat had no larger sample variance
than its raw chips, and uses the raw chips otherwise; the first :data:`WARMUP` hands
keep AIVAT.

Why it stays unbiased: each hand's AIVAT corrections have expectation zero given
everything before that hand (the deal and the chance cards are fresh, and the seat's
strategy in the hand may depend on the past only).  The choice for hand ``i`` is a
function of the hands before it, so the value kept is ``raw_i + keep_i · corrections_i``
with ``keep_i`` known before hand ``i`` is dealt, whose expectation given the past is
that of ``raw_i``: a predictable choice between two unbiased estimators is unbiased
(the martingale argument behind AIVAT itself).  A choice made from the whole log, or
per hand from the hand's own values, would not be: it looks at the luck it then
keeps or drops.  Only the same log's hands count as the past: a mirrored log deals the
same cards, so its hand ``i`` is not independent of this log's hand ``i``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dealer.evaluation.aivat import MatchAivat

#: Hands at the start of a log that keep AIVAT's values before the choice has data.
WARMUP = 10


def keep_aivat(raw: np.ndarray, aivat: np.ndarray, warmup: int = WARMUP) -> np.ndarray:
    """bool ``(H, S)``: whether hand ``i`` of seat ``s`` keeps its AIVAT value.

    raw, aivat: ``float64[H, S]`` per hand in log order.  Hand ``i >= warmup`` keeps it
    when the sample variance of ``aivat[:i, s]`` is at most that of ``raw[:i, s]``.
    """
    if raw.shape != aivat.shape or raw.ndim != 2:
        raise ValueError(f"raw {raw.shape} and aivat {aivat.shape} must be the same (hands, seats) shape")
    keep = _past_spread(aivat) <= _past_spread(raw)
    keep[:warmup] = True
    return keep


def _past_spread(x: np.ndarray) -> np.ndarray:
    """``float64[H, S]``: Σ_{j<i} (x_j − mean_{j<i})², per column (0 for i = 0)."""
    # Centred on the first hand so that the running sums do not cancel catastrophically.
    centred = x - x[:1]
    zero = np.zeros((1, x.shape[1]))
    s1 = np.concatenate([zero, np.cumsum(centred, axis=0)[:-1]])
    s2 = np.concatenate([zero, np.cumsum(centred**2, axis=0)[:-1]])
    count = np.maximum(np.arange(x.shape[0]), 1)[:, None]
    return s2 - s1**2 / count


def guarded(result: MatchAivat, warmup: int = WARMUP) -> MatchAivat:
    """``result`` with the corrections of the hands the guard gives raw chips set to 0,
    and :attr:`MatchAivat.raw_hands` counting them per seat."""
    keep = keep_aivat(result.raw, result.aivat, warmup)
    corrections = result.corrections * keep[:, None, :]
    dropped = {seat: int((~keep[:, s]).sum()) for s, seat in enumerate(result.seats)}
    return replace(result, corrections=corrections, raw_hands=dropped)
