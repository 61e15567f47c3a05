"""Full-width CFR over private-hand ranges: vanilla CFR, CFR+, Linear CFR and DCFR.

One configuration covers the family (Brown & Sandholm's DCFR(α, β, γ)): on iteration
``t`` the positive regrets accumulated so far are multiplied by
``(t-1)^α / ((t-1)^α + 1)``, the negative ones by the same with β, and the average
strategy by ``((t-1)/t)^γ``; α = +inf keeps regrets, β = -inf drops negative regrets
(CFR+'s floor at zero), γ = 0 averages uniformly.  Updates alternate: player 0's
regrets, then player 1's against player 0's updated strategy.

Two-player games whose cards can be enumerated (:mod:`solver.deals`); for more
players or bigger games use :mod:`solver.cfr.mccfr`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from solver.ranges import (
    UPDATE,
    CardArrays,
    TabularGame,
    TreeArrays,
    discounts,
    kernel_arrays,
    normalized,
    root_values,
)


class CFRConfig(NamedTuple):
    """DCFR(α, β, γ) discounting; see the module docstring and the presets below."""

    alpha: float = math.inf
    beta: float = math.inf
    gamma: float = 0.0


VANILLA = CFRConfig()
CFR_PLUS = CFRConfig(beta=-math.inf, gamma=1.0)
LINEAR = CFRConfig(alpha=1.0, beta=1.0, gamma=1.0)
DCFR = CFRConfig(alpha=1.5, beta=0.0, gamma=2.0)
PRESETS = {"cfr": VANILLA, "cfr+": CFR_PLUS, "linear": LINEAR, "dcfr": DCFR}


@njit(cache=True)
def _iterate(
    tree: TreeArrays, cards: CardArrays, regret: np.ndarray, avg: np.ndarray,
    first: int, count: int, alpha: float, beta: float, gamma: float,
) -> None:
    """Run iterations ``first .. first + count - 1`` (1-based); mutates ``regret`` and ``avg``."""
    unused = np.zeros(0)
    for t in range(first, first + count):
        d_pos, d_neg, d_avg = discounts(t, alpha, beta, gamma)
        for trav in range(2):
            root_values(trav, UPDATE, tree, cards, regret, avg, unused, d_pos, d_neg, d_avg)


class CFRSolver:
    """Runs a CFR variant on a two-player :class:`TabularGame`.

    Regrets and average-strategy sums are float64 arrays in ``game.layout``; the
    solver owns them and hands out normalized copies.
    """

    def __init__(self, game: TabularGame, config: CFRConfig = CFR_PLUS) -> None:
        self.game = game
        self.config = CFRConfig(*(float(x) for x in config))
        self._tree, self._cards = kernel_arrays(game)
        self.regret = np.zeros(game.layout.size)
        self.avg = np.zeros(game.layout.size)
        self.iterations = 0

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations.

        Raises:
            ValueError: if ``iterations`` is negative.
        """
        if iterations < 0:
            raise ValueError(f"the number of iterations must not be negative, got {iterations}")
        _iterate(self._tree, self._cards, self.regret, self.avg, self.iterations + 1, iterations, *self.config)
        self.iterations += iterations

    def average_strategy(self) -> np.ndarray:
        """The average strategy (tabular layout; uniform where never reached)."""
        return normalized(self.game.layout, self.game.tree, self.avg)

    def current_strategy(self) -> np.ndarray:
        """The regret-matching strategy of the next iteration (tabular layout)."""
        return normalized(self.game.layout, self.game.tree, self.regret, positive_part=True)
