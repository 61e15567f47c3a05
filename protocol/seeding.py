"""Per-hand random streams for the seats that draw random numbers (baseline bots, the agent).

A seat seeded once per match draws from one long stream: what it draws in hand 500
depends on how many numbers hands 1-499 took.  Seeded per hand instead, from (seed,
hand number, position), a seat draws the same numbers in a hand whatever came before.
Two matches on the same deals that differ in one seat then play every hand alike until
that seat first acts differently, so their difference per hand is measured with common
random numbers (`dealer compare`): hands the difference never reached cancel exactly.
"""

from __future__ import annotations

import numpy as np

#: What the numbers are for, so one seat's streams never overlap.
ACTIONS, TRANSLATION, SIZES = 0, 1, 2


def reseed(gen: np.random.Generator, seed: int, hand: int, position: int, purpose: int = ACTIONS) -> None:
    """Restart ``gen`` (a PCG64 generator, as ``np.random.default_rng`` makes) on the stream
    of ``hand`` played from ``position``; in place, so holders of ``gen`` see the change."""
    key = np.random.SeedSequence([seed, purpose, hand, position])
    gen.bit_generator.state = np.random.PCG64(key).state
