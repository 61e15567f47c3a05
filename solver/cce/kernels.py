"""Numba kernels of CFR-Jr and CFR-S (:mod:`solver.cce.cfr_jr`) on a :class:`solver.cce.game.FullGame`.

* :func:`regret_pass`: one full-width CFR iteration for every player over every deal,
  each player updating against the others' strategies (simultaneous updates);
* :func:`realization`: a behavioural strategy's realization plan (reach of each sequence);
* :func:`reconstruct`: Celli et al.'s Algorithm 1, the greedy decomposition of a
  realization plan into at most |Z| weighted reduced plans;
* :func:`sample_plan`: one reduced plan drawn from a behavioural strategy (CFR-S);
* :func:`mixture_realization`: the realization plan of a weighted set of plans.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.cce.game import UNREACHED
from solver.deals import random_unit
from solver.tree import CHANCE, DECISION

#: Greedy weights at or below this end the reconstruction (what is left is rounding).
RECONSTRUCTION_TOLERANCE = 1e-12


@njit(cache=True)
def regret_pass(
    own: np.ndarray, others: np.ndarray, delta: np.ndarray, kind: np.ndarray, player: np.ndarray, round_: np.ndarray,
    child_start: np.ndarray, child_count: np.ndarray, children: np.ndarray, offset: np.ndarray, term_index: np.ndarray,
    rows: np.ndarray, payoff: np.ndarray, chance: float,
) -> None:
    """Add every player's counterfactual regrets of one iteration to ``delta``.

    For traverser ``i`` the others play ``others`` and ``i`` plays ``own`` (both
    float64 strategies in the tabular layout ``offset``; for CFR-Jr the same array,
    for CFR-S ``others`` is the sampled plans as 0/1).  Each deal is two sweeps over
    the depth-first node order: reaches top-down, values bottom-up (no recursion).
    ``rows`` (deals, players, rounds) int64, ``payoff`` (deals, T, players) float64;
    ``delta`` float64 in the layout, mutated.
    """
    n_nodes = kind.shape[0]
    n_deals, n_players = rows.shape[0], rows.shape[1]
    opp = np.empty(n_nodes)  # chance x the others' reach
    value = np.empty(n_nodes)
    for trav in range(n_players):
        for d in range(n_deals):
            opp[0] = chance
            for node in range(n_nodes):
                first, n_a = child_start[node], child_count[node]
                if kind[node] == CHANCE:
                    opp[children[first]] = opp[node]
                elif kind[node] == DECISION:
                    p = player[node]
                    base = offset[node] + rows[d, p, round_[node]] * n_a
                    for a in range(n_a):
                        opp[children[first + a]] = opp[node] if p == trav else opp[node] * others[base + a]
            for node in range(n_nodes - 1, -1, -1):
                first, n_a = child_start[node], child_count[node]
                if term_index[node] >= 0:
                    value[node] = payoff[d, term_index[node], trav]
                elif kind[node] == CHANCE:
                    value[node] = value[children[first]]
                else:
                    p = player[node]
                    base = offset[node] + rows[d, p, round_[node]] * n_a
                    sigma = own if p == trav else others
                    v = 0.0
                    for a in range(n_a):
                        v += sigma[base + a] * value[children[first + a]]
                    value[node] = v
                    if p == trav and opp[node] > 0:
                        for a in range(n_a):
                            delta[base + a] += opp[node] * (value[children[first + a]] - v)


@njit(cache=True)
def realization(
    strategy: np.ndarray, base: np.ndarray, n_actions: np.ndarray, seq_start: np.ndarray, parent_seq: np.ndarray
) -> np.ndarray:
    """(S,) float64 reach of each of one player's sequences under its behavioural ``strategy``."""
    out = np.empty(seq_start[-1])
    for i in range(base.shape[0]):
        reach = 1.0 if parent_seq[i] < 0 else out[parent_seq[i]]
        for a in range(n_actions[i]):
            out[seq_start[i] + a] = reach * strategy[base[i] + a]
    return out


@njit(cache=True)
def reconstruct(
    omega: np.ndarray, terminal: np.ndarray, empty_terminal: bool, n_actions: np.ndarray, seq_start: np.ndarray,
    parent_seq: np.ndarray, tolerance: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Decompose a realization plan into weighted reduced plans (Celli et al. 2019, Algorithm 1).

    Repeatedly takes the plan whose terminal sequences keep the largest minimum
    remaining ``omega`` (one bottom-up sweep choosing, per infoset, the action whose
    subtree keeps that minimum largest), gives it that minimum as weight and
    subtracts it along the plan.  Each step empties at least one terminal sequence,
    so there are at most (terminal sequences + 1) <= |Z| plans; O(S) per step.

    Args:
        omega: (S,) float64 realization plan (copied, not modified).
        terminal: (S,) bool terminal sequences; ``empty_terminal`` for the empty one.

    Returns:
        plans (k, I) uint8 (UNREACHED where the plan never gets) and weights (k,) float64.
    """
    n_inf = n_actions.shape[0]
    left = omega.copy()
    left_empty = 1.0
    n_terminal = 1
    for s in range(terminal.shape[0]):
        n_terminal += terminal[s]
    plans = np.full((n_terminal, n_inf), UNREACHED, np.uint8)
    weights = np.zeros(n_terminal)
    keep = np.empty(terminal.shape[0])  # min remaining omega over the terminals below each sequence
    choice = np.zeros(n_inf, np.int64)
    on = np.zeros(terminal.shape[0], np.bool_)
    k = 0
    while k < n_terminal:
        for s in range(terminal.shape[0]):
            keep[s] = left[s] if terminal[s] else np.inf
        top = left_empty if empty_terminal else np.inf
        for i in range(n_inf - 1, -1, -1):
            best, best_a = -np.inf, 0
            for a in range(n_actions[i]):
                if keep[seq_start[i] + a] > best:
                    best, best_a = keep[seq_start[i] + a], a
            choice[i] = best_a
            if parent_seq[i] < 0:
                top = min(top, best)
            else:
                keep[parent_seq[i]] = min(keep[parent_seq[i]], best)
        if top <= tolerance:
            break
        weights[k] = top
        left_empty -= top
        on[:] = False  # the sequences this plan plays
        for i in range(n_inf):
            if parent_seq[i] < 0 or on[parent_seq[i]]:
                plans[k, i] = choice[i]
                on[seq_start[i] + choice[i]] = True
                left[seq_start[i] + choice[i]] -= top
        k += 1
    return plans[:k], weights[:k]


@njit(cache=True)
def sample_plan(
    strategy: np.ndarray, base: np.ndarray, n_actions: np.ndarray, seq_start: np.ndarray, parent_seq: np.ndarray, rng: np.ndarray
) -> np.ndarray:
    """(I,) uint8 a reduced plan drawn from a behavioural ``strategy``: one action per
    infoset the plan reaches, drawn independently; ``rng`` (one uint64) is advanced."""
    n_inf = base.shape[0]
    plan = np.full(n_inf, UNREACHED, np.uint8)
    chosen = np.zeros(seq_start[-1], np.bool_)
    for i in range(n_inf):
        if parent_seq[i] >= 0 and not chosen[parent_seq[i]]:
            continue
        u = random_unit(rng)
        pick = n_actions[i] - 1
        for a in range(n_actions[i] - 1):
            u -= strategy[base[i] + a]
            if u < 0:
                pick = a
                break
        plan[i] = pick
        chosen[seq_start[i] + pick] = True
    return plan


@njit(cache=True)
def mixture_realization(plans: np.ndarray, probs: np.ndarray, seq_start: np.ndarray) -> np.ndarray:
    """(S,) float64 reach of each sequence under the mixture of ``plans`` (k, I) uint8
    with probabilities ``probs`` (k,)."""
    out = np.zeros(seq_start[-1])
    for j in range(plans.shape[0]):
        for i in range(plans.shape[1]):
            if plans[j, i] != UNREACHED:
                out[seq_start[i] + plans[j, i]] += probs[j]
    return out


@njit(cache=True)
def plan_to_strategy(plan: np.ndarray, base: np.ndarray, out: np.ndarray) -> None:
    """Write one player's reduced ``plan`` (I,) uint8 into ``out`` as 0/1 probabilities
    at the layout positions ``base``; ``out`` (float64, the tabular layout) is mutated."""
    for i in range(plan.shape[0]):
        if plan[i] != UNREACHED:
            out[base[i] + plan[i]] = 1.0
