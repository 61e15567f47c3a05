"""Augmented (safe) subgames: the opponent's root choice in a re-solved subgame.

Brown & Sandholm (NIPS 2017) and Libratus (docs/algorithms.md, "Subgame solving").  We re-solve a subgame
S for the *re-solver*; the *opponent* enters S at one root infoset per private hand
``h``.  Every gadget is a rule for the opponent's reach at the root of S, updated each
CFR iteration from the opponent's counterfactual values of entering S:

* ``unsafe``: the opponent's reach is its blueprint reach (no gadget);
* ``resolve``: per hand, regret matching between a terminal *alternative* payoff
  ``alt(h)`` and entering S (reach = probability of entering);
* ``maxmargin`` (and its ``estimated-`` and ``reach-`` variants, which differ only in
  ``alt``): every payoff under ``h`` is shifted by ``-alt(h)`` and the opponent picks
  the hand to start in by regret matching over the shifted values, each hand's values
  normalized by its weight ``w(h)`` (chance and the re-solver's reach over the
  histories in ``h``), so the re-solver maximizes the minimum margin in chips;
* ``maxmargin-unsafe``, ``reach-maxmargin-unsafe`` (ours, not the paper's): the
  opponent's reach is Maxmargin's plus :data:`UNSAFE_WEIGHT` times its blueprint range
  (normalized to total weight 1), so once the minimum margin is as large as it can be
  the re-solver keeps lowering the opponent's mean value over its blueprint range.
  Plain Maxmargin stops there: a hand that loses its chips whatever the re-solver
  does (its CBV is already the value of folding) pins the minimum margin at 0, and
  every strategy keeping the other margins ≥ 0 is then equally good to it.

Units: ``alt`` and the values passed to :func:`gadget_update` are *counterfactual*
values (the opponent's expected chips weighted by chance and the re-solver's reach, as
:func:`solver.ranges.walk` returns them); ``weight`` is the same weighting of a payoff
of 1, so ``value / weight`` is in chips.  The margin of hand h is
``(alt(h) - CBV'(h)) / w(h)``, CBV' the opponent's best-response value against the
re-solved strategy; Resolve and Maxmargin guarantee every margin ≥ 0 (up to the
solver's convergence).

The kernels here are what a subgame solver's root hook calls each iteration:
:func:`gadget_reach` before the re-solver's update, :func:`gadget_update` with the
opponent's values after the opponent's update.  :class:`GadgetHook` is that hook for
:class:`solver.subgame.range_solver.SubgameSolver` (whose values weigh every hand pair 1: give it
alternatives in those units and weights from :func:`hand_weights`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from solver.cfr.fullwidth import DCFR, CFRConfig
from solver.ranges import discounts

UNSAFE, RESOLVE, MAXMARGIN, MIXED = 0, 1, 2, 3
#: Weight of the unsafe objective in the ``-unsafe`` gadgets (ours): the re-solver
#: minimizes (the worst hand's margin shortfall) + UNSAFE_WEIGHT x (the opponent's
#: mean best-response value over its blueprint range), both in chips.  Small, so the
#: margins come first (a penalty method: exact only while the weight is below every
#: margin's shadow price): the largest of 1, 0.1, 0.01 that raised no opponent CBV
#: above the blueprint's on the tests' poor Leduc blueprint (0.1 raised some by 64
#: chips there; on Table 1's small2, 1.0 cost 20 mbb/hand of safety, 0.1 and 0.01 none).
#: The default of :func:`make_gadget`; the agent's solves choose their own.
UNSAFE_WEIGHT = 0.01
#: Gadget names → (kernel kind, alternative: "none", "cbv", "estimate", plus "+gifts").
GADGETS: dict[str, tuple[int, str]] = {
    "unsafe": (UNSAFE, "none"),
    "resolve": (RESOLVE, "cbv"),
    "maxmargin": (MAXMARGIN, "cbv"),
    "estimated-maxmargin": (MAXMARGIN, "estimate"),
    "reach-maxmargin": (MAXMARGIN, "cbv+gifts"),
    # Libratus's own choice: the estimate raised by the gifts.
    "reach-estimated-maxmargin": (MAXMARGIN, "estimate+gifts"),
    # Ours: Maxmargin's objective plus the unsafe one (see UNSAFE_WEIGHT).
    "maxmargin-unsafe": (MIXED, "cbv"),
    "reach-maxmargin-unsafe": (MIXED, "cbv+gifts"),
}
#: The gadgets that are ours, not the paper's (Table 1 labels their rows).
OURS = ("maxmargin-unsafe", "reach-maxmargin-unsafe")


class GadgetError(ValueError):
    """A gadget is asked for by an unknown name or with inputs that do not fit."""


@dataclass(frozen=True)
class Gadget:
    """The opponent's root of one augmented subgame.

    Attributes:
        name: one of :data:`GADGETS`.
        alternatives: (n_hands,) counterfactual alternative payoff per opponent hand
            (zeros for ``unsafe``).
        weight: (n_hands,) counterfactual weight of each opponent hand (0: the hand
            cannot be held here: it clashes with the board or the re-solver's range).
        blueprint_reach: (n_hands,) the opponent's reach under the blueprint (used by
            ``unsafe`` and the ``-unsafe`` gadgets).
        unsafe_weight: the weight of the unsafe objective in the ``-unsafe`` gadgets.
    """

    name: str
    alternatives: np.ndarray
    weight: np.ndarray
    blueprint_reach: np.ndarray
    unsafe_weight: float = UNSAFE_WEIGHT

    @property
    def kind(self) -> int:
        return GADGETS[self.name][0]

    def new_regrets(self) -> np.ndarray:
        """Zeroed gadget regrets, (n_hands, 2): [alternative, enter] for Resolve, column 0 for Maxmargin."""
        return np.zeros((len(self.weight), 2))

    def margins(self, best_response_values: np.ndarray) -> np.ndarray:
        """Per hand margin in chips, ``(alt - CBV') / w``; NaN where the hand has no weight.

        ``best_response_values`` are the opponent's counterfactual best-response values
        against the re-solved strategy at the subgame root.
        """
        out = np.full(len(self.weight), np.nan)
        held = self.weight > 0
        out[held] = (self.alternatives[held] - best_response_values[held]) / self.weight[held]
        return out


def make_gadget(
    name: str, alternatives: np.ndarray, weight: np.ndarray, blueprint_reach: np.ndarray,
    unsafe_weight: float = UNSAFE_WEIGHT,
) -> Gadget:
    """Check and build a :class:`Gadget` (``unsafe_weight``: see :data:`UNSAFE_WEIGHT`).

    Raises:
        GadgetError: for an unknown name or vectors of different lengths.
    """
    if name not in GADGETS:
        raise GadgetError(f"unknown gadget {name!r} (expected one of {', '.join(GADGETS)})")
    arrays = [np.asarray(x, np.float64) for x in (alternatives, weight, blueprint_reach)]
    if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
        raise GadgetError(f"alternatives, weights and reach must be vectors of one length, got {[a.shape for a in arrays]}")
    if not unsafe_weight >= 0:
        raise GadgetError(f"the unsafe objective's weight must be a non-negative number, got {unsafe_weight}")
    return Gadget(name, *arrays, float(unsafe_weight))


def hand_weights(hands: np.ndarray, other_reach: np.ndarray) -> np.ndarray:
    """(n_hands,) the other player's reach summed over the hands sharing no card with
    each hand (``hands``: (n_hands, hole cards) card ids): a gadget's weights, up to the
    chance factor every hand shares."""
    # Inclusion-exclusion over per-card sums: a hand of k cards shares every one of them
    # with itself only, so it was subtracted k times and is added back k - 1 times.
    hands = np.asarray(hands)
    reach = np.asarray(other_reach, np.float64)
    per_card = np.zeros(int(hands.max()) + 1 if hands.size else 1)
    np.add.at(per_card, hands.ravel(), np.repeat(reach, hands.shape[1]))
    return reach.sum() + (hands.shape[1] - 1) * reach - per_card[hands].sum(axis=1)


class GadgetHook:
    """A gadget at the root of a :class:`solver.subgame.range_solver.SubgameSolver` (its ``RootHook``).

    Args:
        gadget: alternatives and weights in the solver's units (values summed over the
            other player's hands, each weighted by its root reach).
        opponent: the player the gadget protects against.
        config: the solver's discounting, applied to the gadget's regrets too.
    """

    def __init__(self, gadget: Gadget, opponent: int, config: CFRConfig = DCFR) -> None:
        self.gadget = gadget
        self.opponent = opponent
        self.config = CFRConfig(*(float(x) for x in config))
        self.regrets = gadget.new_regrets()
        self.reach = np.zeros(len(gadget.weight))

    def root_reach(self, iteration: int, player: int, reach: np.ndarray) -> np.ndarray | None:
        """The opponent's root reach this iteration (None for the re-solver: keep its range)."""
        if player != self.opponent:
            return None
        g = self.gadget
        gadget_reach(g.kind, self.regrets, g.weight, g.blueprint_reach, self.reach, g.unsafe_weight)
        return self.reach.copy()

    def entered(self, iteration: int, player: int, values: np.ndarray) -> None:
        """Feed the opponent's counterfactual values of entering to the gadget."""
        if player != self.opponent:
            return
        d_pos, d_neg, _ = discounts(iteration, *self.config)
        g = self.gadget
        gadget_update(g.kind, self.regrets, g.alternatives, g.weight, self.reach, np.asarray(values, np.float64), d_pos, d_neg)


@njit(cache=True)
def gadget_reach(
    kind: int, regrets: np.ndarray, weight: np.ndarray, blueprint_reach: np.ndarray, out: np.ndarray,
    unsafe_weight: float,
) -> None:
    """Fill ``out`` (n_hands,) with the opponent's root reach this iteration
    (``unsafe_weight``: the unsafe part's total weight in a MIXED gadget).

    ``regrets`` is (n_hands, 2) float64 (see :meth:`Gadget.new_regrets`); hands with
    zero ``weight`` get zero reach.
    """
    n_h = weight.shape[0]
    if kind == UNSAFE:
        for h in range(n_h):
            out[h] = blueprint_reach[h] if weight[h] > 0 else 0.0
        return
    if kind == RESOLVE:
        for h in range(n_h):
            r_alt, r_enter = max(regrets[h, 0], 0.0), max(regrets[h, 1], 0.0)
            if weight[h] <= 0:
                out[h] = 0.0
            elif r_alt + r_enter > 0:
                out[h] = r_enter / (r_alt + r_enter)
            else:
                out[h] = 0.5
        return
    _start_hand(regrets, weight, out)
    mass = 0.0
    for h in range(n_h):
        if weight[h] > 0:
            out[h] /= weight[h]
            mass += blueprint_reach[h] * weight[h]
    if kind == MIXED and mass > 0:
        # The unsafe part: the blueprint range scaled to total weight unsafe_weight.
        for h in range(n_h):
            if weight[h] > 0:
                out[h] += unsafe_weight * blueprint_reach[h] / mass


@njit(cache=True)
def _start_hand(regrets: np.ndarray, weight: np.ndarray, out: np.ndarray) -> None:
    """Maxmargin's choice of the hand to start in: regret matching over column 0 of
    ``regrets`` (n_hands, 2), uniform over held hands if no regret is positive.
    Fills ``out`` (n_hands,) with probabilities (0 where ``weight`` is 0)."""
    n_h = weight.shape[0]
    total, held = 0.0, 0
    for h in range(n_h):
        if weight[h] > 0:
            held += 1
            total += max(regrets[h, 0], 0.0)
    for h in range(n_h):
        if weight[h] <= 0:
            out[h] = 0.0
        elif total > 0:
            out[h] = max(regrets[h, 0], 0.0) / total
        else:
            out[h] = 1.0 / held


@njit(cache=True)
def gadget_update(
    kind: int, regrets: np.ndarray, alternatives: np.ndarray, weight: np.ndarray, reach: np.ndarray,
    enter_values: np.ndarray, d_pos: float, d_neg: float,
) -> None:
    """Update the gadget's ``regrets`` (in place) from the opponent's counterfactual
    values of entering (n_hands,), ``reach`` being what :func:`gadget_reach` gave.

    Old regrets are discounted like the subgame's (``d_pos`` positive, ``d_neg`` negative).
    """
    n_h = weight.shape[0]
    if kind == UNSAFE:
        return
    if kind == RESOLVE:
        for h in range(n_h):
            if weight[h] <= 0:
                continue
            p = reach[h]
            node = (1.0 - p) * alternatives[h] + p * enter_values[h]
            for a in range(2):
                old = regrets[h, a]
                gain = (alternatives[h] if a == 0 else enter_values[h]) - node
                regrets[h, a] = old * (d_pos if old > 0 else d_neg) + gain
        return
    # Maxmargin's own hand distribution q (a MIXED gadget's reach also holds the
    # unsafe part); u(h) = (v - alt) / w is hand h's payoff in chips.
    q = np.empty(n_h)
    _start_hand(regrets, weight, q)
    mean = 0.0
    for h in range(n_h):
        if weight[h] > 0:
            mean += q[h] * (enter_values[h] - alternatives[h]) / weight[h]
    for h in range(n_h):
        if weight[h] > 0:
            old = regrets[h, 0]
            gain = (enter_values[h] - alternatives[h]) / weight[h] - mean
            regrets[h, 0] = old * (d_pos if old > 0 else d_neg) + gain
