"""The CCE gap of a distribution over joint normal-form plans.

A distribution x is an ε-coarse correlated equilibrium when no player i gains more
than ε by committing, before seeing its recommendation, to a fixed plan:
``max over plans p of u_i(p, x_-i) - u_i(x) <= ε`` with x_-i the marginal of x over
the others.  Here x is a weighted sum of *terms*, each a product of one mixture of
plans per player (a CFR-Jr iteration; a CFR-S iteration is a term of pure plans).
What a term contributes depends only on each player's realization plan (reach of
each sequence), so :class:`GapAccumulator` keeps, per player and terminal, the
weighted sum over terms of the *others'* reach; a best response to it is one
bottom-up sweep over the player's sequences.  Exact, O(players x |Z|) per term.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.cce.game import FullGame


class CCEGap(NamedTuple):
    """Each player's value under x and best-deviation value, in chips, and Δ."""

    values: tuple[float, ...]
    deviations: tuple[float, ...]
    payoff_range: float

    @property
    def gains(self) -> tuple[float, ...]:
        return tuple(b - v for b, v in zip(self.deviations, self.values))

    @property
    def epsilon(self) -> float:
        """ε: the largest gain of any player, in chips (never below 0: every plan it
        is recommended is itself a deviation)."""
        return max(0.0, *self.gains)

    @property
    def alpha(self) -> float:
        """α = ε / Δ, the accuracy the paper reports."""
        return self.epsilon / self.payoff_range


@njit(cache=True)
def accumulate(
    reach: np.ndarray, term_seq: np.ndarray, payoff: np.ndarray, chance: float, weight: float,
    others: np.ndarray, values: np.ndarray,
) -> None:
    """Add one product term with ``weight`` to the accumulators.

    Args:
        reach: (players, S_max) float64 each player's realization plan in the term.
        term_seq: (players, deals, T) int64 each player's last sequence (-1: none).
        payoff: (deals, T, players) float64.
        others: (players, deals, T) float64, mutated: += weight x chance x others' reach.
        values: (players,) float64, mutated: += weight x expected payoff of the term.
    """
    n_players, n_deals, n_term = term_seq.shape
    r = np.empty(n_players)
    for d in range(n_deals):
        for t in range(n_term):
            everyone = weight * chance
            for j in range(n_players):
                s = term_seq[j, d, t]
                r[j] = 1.0 if s < 0 else reach[j, s]
                everyone *= r[j]
            if everyone == 0.0 and n_players > 1:
                zeros = 0
                for j in range(n_players):
                    zeros += r[j] == 0.0
                if zeros > 1:
                    continue  # every player's others' reach is 0 too
            for i in range(n_players):
                rest = weight * chance
                for j in range(n_players):
                    if j != i:
                        rest *= r[j]
                others[i, d, t] += rest
                values[i] += everyone * payoff[d, t, i]


@njit(cache=True)
def best_response_value(
    others: np.ndarray, term_seq: np.ndarray, payoff: np.ndarray, n_actions: np.ndarray, seq_start: np.ndarray,
    parent_seq: np.ndarray,
) -> float:
    """Best value one player gets with a pure plan against per-terminal weights.

    Args:
        others: (deals, T) float64 chance x the others' accumulated reach.
        term_seq: (deals, T) int64 the player's last sequence at each terminal.
        payoff: (deals, T) float64 the player's chips.
    """
    below = np.zeros(seq_start[-1])  # value collected under each sequence
    top = 0.0
    for d in range(others.shape[0]):
        for t in range(others.shape[1]):
            v = others[d, t] * payoff[d, t]
            if term_seq[d, t] < 0:
                top += v
            else:
                below[term_seq[d, t]] += v
    for i in range(n_actions.shape[0] - 1, -1, -1):
        best = below[seq_start[i]]
        for a in range(1, n_actions[i]):
            best = max(best, below[seq_start[i] + a])
        if parent_seq[i] < 0:
            top += best
        else:
            below[parent_seq[i]] += best
    return top


class GapAccumulator:
    """Sums terms of a joint distribution and reports its CCE gap at any time."""

    def __init__(self, fg: FullGame) -> None:
        self.fg = fg
        n_deals, n_term = fg.payoff.shape[:2]
        self.others = np.zeros((fg.n_players, n_deals, n_term))
        self.values = np.zeros(fg.n_players)
        self.weight = 0.0
        self._width = max(f.n_sequences for f in fg.forms)

    def add(self, reaches: list[np.ndarray], weight: float) -> None:
        """Add a product term: one realization plan per player, with ``weight``."""
        stacked = np.zeros((len(reaches), self._width))
        for j, r in enumerate(reaches):
            stacked[j, : len(r)] = r
        accumulate(stacked, self.fg.term_seq, self.fg.payoff, self.fg.chance, float(weight), self.others, self.values)
        self.weight += weight

    def gap(self) -> CCEGap:
        """The CCE gap of the normalized sum of the terms so far.

        Raises:
            ValueError: if nothing has been added.
        """
        if self.weight <= 0:
            raise ValueError("the joint distribution is empty: add at least one term")
        fg = self.fg
        deviations = []
        for i, form in enumerate(fg.forms):
            payoff = np.ascontiguousarray(fg.payoff[:, :, i])
            br = best_response_value(self.others[i], fg.term_seq[i], payoff, form.n_actions, form.seq_start, form.parent_seq)
            deviations.append(br / self.weight)
        values = tuple(float(v / self.weight) for v in self.values)
        return CCEGap(values, tuple(deviations), fg.payoff_range)


def product_gap(fg: FullGame, reaches: list[np.ndarray]) -> CCEGap:
    """CCE gap of the product of independent strategies given by their realization plans
    (for CFR's average behavioural strategies this is the best-response gain per player)."""
    acc = GapAccumulator(fg)
    acc.add(reaches, 1.0)
    return acc.gap()
