"""The range-vector walk of a depth-limited subgame (:mod:`solver.subgame.depth_limited`).

:func:`dl_walk` is :func:`solver.ranges.walk` with the tree cut at *leaves*: a leaf's
value is read from payoff tables per pair of private hands, and where the re-solver's
opponent (the *chooser*) picks one of several continuations the leaf is one more
decision of the chooser's, with its own regrets.  Deals, decisions and the CFR update
are :mod:`solver.ranges`'s own pieces; only the leaves are new here.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.ranges import (
    BEST_RESPONSE,
    UPDATE,
    CardArrays,
    TreeArrays,
    deal_count,
    deal_reaches,
    own_values,
    played,
    regret_match,
    update_rows,
)
from solver.tree import CHANCE


class LeafArrays(NamedTuple):
    """What the kernel reads of a depth-limited subgame's leaves (per tree node).

    A leaf's tables are laid out board by board from ``first_board`` (one board unless
    the cut is after the next card): on board ``b`` its options are tables
    ``option_start + (b - first_board) * option_count`` onward of ``payoff``, and the
    chooser's decision there is ``leaf_slot + (b - first_board)``.  Every leaf with a
    choice offers the same options, so the chooser's regrets are one (slots, hands,
    options) array.
    """

    option_start: np.ndarray  # (n,) int64, -1 where the node is not a leaf
    option_count: np.ndarray  # (n,) int64, 0 where the node is not a leaf
    first_board: np.ndarray  # (n,) int64
    leaf_slot: np.ndarray  # (n,) int64, -1 where the chooser has no choice
    payoff: np.ndarray  # (tables, n_hands, n_hands) player 0's counterfactual values


#: No leaves: the subtree runs to the end of the game (:func:`solver.subgame.safe.solve_with_gadget`).
NO_LEAVES = LeafArrays(*(np.zeros(0, np.int64) for _ in range(4)), np.zeros((0, 0, 0)))


@njit(cache=True)
def _leaf_values(payoff: np.ndarray, option: int, trav: int, reach_o: np.ndarray) -> np.ndarray:
    """``trav``'s values at a leaf option from the other player's reach (zero-sum tables)."""
    n_h = reach_o.shape[0]
    out = np.zeros(n_h)
    if trav == 0:
        for h in range(n_h):
            total = 0.0
            for g in range(n_h):
                total += payoff[option, h, g] * reach_o[g]
            out[h] = total
    else:
        for g in range(n_h):
            r = reach_o[g]
            if r != 0.0:
                for h in range(n_h):
                    out[h] -= payoff[option, g, h] * r
    return out


@njit(cache=True)
def _leaf(
    node: np.int64, board: np.int64, trav: np.int64, chooser: np.int64, reach_t: np.ndarray, reach_o: np.ndarray,
    mode: np.int64, leaves: LeafArrays, leaf_regret: np.ndarray, leaf_avg: np.ndarray,
    d_pos: float, d_neg: float, d_avg: float,
) -> np.ndarray:
    """:func:`dl_walk` at a leaf: one table, or the chooser's decision among its options."""
    n_h = reach_t.shape[0]
    n_o = leaves.option_count[node]
    start = leaves.option_start[node] + (board - leaves.first_board[node]) * n_o
    if n_o == 1:
        return _leaf_values(leaves.payoff, start, trav, reach_o)
    # The chooser's regrets at this leaf, laid out as a decision's rows (hands x options).
    slot = leaves.leaf_slot[node] + board - leaves.first_board[node]
    regret, avg = leaf_regret[slot].reshape(-1), leaf_avg[slot].reshape(-1)
    sigma = np.zeros((n_h, n_o))
    if mode == UPDATE:
        regret_match(regret, 0, n_h, n_o, sigma)
    else:
        # Outside CFR the chooser's continuation is the first (the blueprint) unless it best-responds.
        sigma[:, 0] = 1.0
    if trav != chooser:
        values = np.zeros(n_h)
        part = np.empty(n_h)
        for j in range(n_o):
            for h in range(n_h):
                part[h] = reach_o[h] * sigma[h, j]
            values += _leaf_values(leaves.payoff, start + j, trav, part)
        return values
    options = np.empty((n_o, n_h))
    for j in range(n_o):
        options[j] = _leaf_values(leaves.payoff, start + j, trav, reach_o)
    values = own_values(mode, sigma, options)
    if mode == UPDATE:
        update_rows(regret, avg, 0, sigma, options, values, reach_t, d_pos, d_neg, d_avg, False)
    return values


@njit(cache=True)
def dl_walk(
    node: np.int64, board: np.int64, trav: np.int64, chooser: np.int64, reach_t: np.ndarray, reach_o: np.ndarray,
    mode: np.int64, tree: TreeArrays, cards: CardArrays, leaves: LeafArrays, regret: np.ndarray, avg: np.ndarray,
    leaf_regret: np.ndarray, leaf_avg: np.ndarray, strategy: np.ndarray, d_pos: float, d_neg: float, d_avg: float,
) -> np.ndarray:
    """Counterfactual values (n_hands,) of ``trav`` below ``node`` in a depth-limited subgame.

    Modes as :func:`solver.ranges.walk`: UPDATE runs regret matching for both players
    (and the ``chooser``'s continuation choice at leaves) and updates the traverser's
    ``regret``/``avg`` (tabular layout) or ``leaf_regret``/``leaf_avg`` ((leaves,
    n_hands, k)); EVALUATE plays ``strategy`` for both and the first continuation
    (the blueprint's) at leaves; BEST_RESPONSE plays ``strategy`` for the other player
    and the best action per hand for the traverser, and the best continuation if the
    traverser is the chooser (else the first).
    """
    if leaves.option_count[node] > 0:
        return _leaf(node, board, trav, chooser, reach_t, reach_o, mode, leaves, leaf_regret, leaf_avg, d_pos, d_neg, d_avg)
    n_h = reach_t.shape[0]
    values = np.zeros(n_h)
    if tree.kind[node] == CHANCE:
        # The deal of the next card inside a subgame cut after it.
        child_t, child_o = np.empty(n_h), np.empty(n_h)
        extensions = deal_count(tree, cards, node)
        for b in range(board * extensions, (board + 1) * extensions):
            deal_reaches(tree, cards, node, b, reach_t, reach_o, child_t, child_o)
            values += dl_walk(
                tree.children[tree.child_start[node]], b, trav, chooser, child_t, child_o, mode, tree, cards, leaves,
                regret, avg, leaf_regret, leaf_avg, strategy, d_pos, d_neg, d_avg,
            )
        return values
    n_a = tree.child_count[node]
    base = tree.offset[node] + board * n_h * n_a
    first = tree.child_start[node]
    own = tree.player[node] == trav
    sigma = played(mode, own, regret, strategy, np.empty(0), base, n_h, n_a)
    if not own:
        child_o = np.empty(n_h)
        for a in range(n_a):
            for h in range(n_h):
                child_o[h] = reach_o[h] * sigma[h, a]
            values += dl_walk(
                tree.children[first + a], board, trav, chooser, reach_t, child_o, mode, tree, cards, leaves,
                regret, avg, leaf_regret, leaf_avg, strategy, d_pos, d_neg, d_avg,
            )
        return values
    child_values = np.empty((n_a, n_h))
    # In a best response the traverser's own reach does not change its values.
    child_t = reach_t if mode == BEST_RESPONSE else np.empty(n_h)
    for a in range(n_a):
        if mode != BEST_RESPONSE:
            for h in range(n_h):
                child_t[h] = reach_t[h] * sigma[h, a]
        child_values[a] = dl_walk(
            tree.children[first + a], board, trav, chooser, child_t, reach_o, mode, tree, cards, leaves,
            regret, avg, leaf_regret, leaf_avg, strategy, d_pos, d_neg, d_avg,
        )
    values = own_values(mode, sigma, child_values)
    if mode == UPDATE:
        update_rows(regret, avg, base, sigma, child_values, values, reach_t, d_pos, d_neg, d_avg, False)
    return values


@njit(cache=True)
def showdown_signs(ranks: np.ndarray, live: np.ndarray, clash: np.ndarray) -> np.ndarray:
    """(hands, hands) float32: +1 where the row hand's rank beats the column hand's, -1
    where it loses, 0 on a tie, where the two share a card (``clash``) or where either is
    not ``live`` (touches the board).  One pass, no temporaries: an all-in leaf of a
    depth-limited flop solve needs one such matrix per runout (1,176² entries)."""
    n = len(ranks)
    out = np.zeros((n, n), np.float32)
    for i in range(n):
        if not live[i]:
            continue
        for j in range(n):
            if live[j] and not clash[i, j]:
                if ranks[i] > ranks[j]:
                    out[i, j] = 1.0
                elif ranks[i] < ranks[j]:
                    out[i, j] = -1.0
    return out


@njit(cache=True, nogil=True, fastmath=True)
def signed_sums(signs: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """(hands,) ``signs @ reach`` (``signs`` from :func:`showdown_signs`, float32), in
    float32 as numpy's product was.  Not numpy's product: a depth-limited solve values its
    leaves on two threads, and two threads in OpenBLAS's own threaded product at once ran
    the whole solve 2-3x slower on 2 cores (measured 2026-11-29, ``bench_depth_limited.py``).
    ``fastmath`` lets the sums be vectorised (their order is the compiler's)."""
    n, m = signs.shape
    out = np.zeros(n)
    for i in range(n):
        total = np.float32(0.0)
        for j in range(m):
            total += signs[i, j] * reach[j]
        out[i] = total
    return out
