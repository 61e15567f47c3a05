"""Pseudoharmonic action translation (Ganzfried & Sandholm, IJCAI 2013).

Maps an opponent bet that is not in our action abstraction onto the nearby sizes
that are, so we can answer from a strategy that only knows those sizes.

Units: a size is a *pot fraction*, the chips a bet or raise adds beyond calling
divided by the pot after calling (:func:`pot_fraction`).  For a first bet this is the
paper's convention (the pot before the bet scaled to 1, a pot-sized bet is 1); for a
raise it is the same rule applied after the call, which is how
:class:`solver.bets.ActionAbstraction` states its sizes, so a translated index
picks the abstraction's action directly.  The check (or call, when facing a bet) is
size 0 and must be the smallest size A0: never translating small bets down to a
check is a known exploit.

For a bet ``x`` between neighbouring sizes ``A <= x <= B`` the randomized mapping
picks ``A`` with probability ``f(x) = (B - x)(1 + A) / ((B - A)(1 + x))``; the
deterministic one picks ``A`` iff ``x < (A + B + 2AB) / (A + B + 2)``.  A bet equal to
a size maps to it; a bet above the largest size (normally all-in) maps to the largest.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from protocol.rules import State


class TranslationError(ValueError):
    """The sizes or the bet given to action translation are malformed."""


def pseudoharmonic(a: float, b: float, x: float) -> float:
    """Probability of mapping bet ``x`` to the smaller size ``a`` (pot fractions, a <= x <= b).

    Raises:
        TranslationError: if the sizes are negative or ``x`` lies outside [a, b].
    """
    if a < 0 or b < a:
        raise TranslationError(f"sizes must satisfy 0 <= a <= b, got a={a}, b={b}")
    if not a <= x <= b:
        raise TranslationError(f"bet {x} is outside the interval [{a}, {b}] it is translated within")
    if b == a:
        return 1.0
    return (b - x) * (1 + a) / ((b - a) * (1 + x))


def threshold(a: float, b: float) -> float:
    """The bet above which deterministic translation picks ``b``: (a + b + 2ab) / (a + b + 2)."""
    return (a + b + 2 * a * b) / (a + b + 2)


def translate(x: float, sizes: Sequence[float], rng: np.random.Generator | None = None) -> int:
    """Index into ``sizes`` (ascending pot fractions, ``sizes[0] == 0``) that bet ``x`` maps to.

    Deterministic threshold when ``rng`` is None, else randomized pseudoharmonic with
    one draw from ``rng``.

    Raises:
        TranslationError: if ``sizes`` is empty, unsorted, repeats a size, does not
            start with the check (0), or ``x`` is negative.
    """
    s = [float(v) for v in sizes]
    if not s or s[0] != 0:
        raise TranslationError("translation sizes must start with the check (0) as the smallest size")
    if any(later <= earlier for earlier, later in pairwise(s)):
        raise TranslationError(f"translation sizes must be strictly ascending, got {s}")
    if not x >= 0:  # also rejects NaN
        raise TranslationError(f"a bet's pot fraction must be a non-negative number, got {x}")
    if x >= s[-1]:
        return len(s) - 1
    upper = next(i for i, v in enumerate(s) if v >= x)
    if s[upper] == x:
        return upper
    a, b = s[upper - 1], s[upper]
    if rng is None:
        return upper - 1 if x < threshold(a, b) else upper
    return upper - 1 if rng.random() < pseudoharmonic(a, b, x) else upper


def pot_fraction(state: State, raise_to: int) -> float:
    """Size of a raise to ``raise_to`` chips in ``state`` as a pot fraction (see the module docstring)."""
    after_call = state.pot + state.amount_to_call()
    return (raise_to - state.max_spent) / after_call
