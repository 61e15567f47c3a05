"""Calling or folding when nothing is left to decide: the opponent is all-in (or a call
puts us all-in), so the hand's value is the call's equity against the opponent's range.

A subgame solve of such a spot is one decision of ours against a fixed range: its best
answer is exactly "call when the equity pays the price".  Solved under a safe gadget
within a few hundred iterations, though, a hand whose call changes no opponent margin
keeps whatever its first uniform iterations gave it (measured: AA folding 55% to a
turn shove holding 89%), and the blueprint's barely-visited all-in nodes are near
uniform too.  So these spots are answered here, for every private hand at once:

    call  iff  equity * (pot + to_call) >= to_call,

``pot`` being every chip already in (the all-in included), equity counting ties half,
against the modelled range with card removal.  The equity is exact over every board
completion on the turn and the river (1 and 46 boards) and on the flop (1,081), and
the mean over :data:`PREFLOP_BOARDS` seeded random boards preflop.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from protocol.fasteval import HOLE_PAIRS, NUM_CARDS, rank_range
from protocol.rules import State
from solver.range_terminals import card_pairs, compatible_weight, ranked_weights

#: Random boards preflop (1.7 million completions): the equity's standard error is then
#: below 2.5%, against price thresholds that rarely come closer than that.
PREFLOP_BOARDS = 400
_PAIRS = card_pairs(np.asarray(HOLE_PAIRS, np.int64))
_SLOTS = NUM_CARDS


def nothing_left_to_decide(state: State) -> bool:
    """Whether the player to act may only call or fold, and no decision follows a call."""
    return state.game.is_nolimit and state.can_fold() and state.raise_bounds() is None


def completions(board: tuple[int, ...], rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Full boards extending ``board``: all of them from the flop on, else :data:`PREFLOP_BOARDS` random ones."""
    unseen = [c for c in range(NUM_CARDS) if c not in board]
    missing = 5 - len(board)
    if missing <= 2:
        return [board + rest for rest in combinations(unseen, missing)]
    return [board + tuple(int(c) for c in rng.choice(unseen, missing, replace=False)) for _ in range(PREFLOP_BOARDS)]


def range_equity(board: tuple[int, ...], opponent: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Equity (ties half) of every ``HOLE_PAIRS`` hand against ``opponent`` (weights over
    ``HOLE_PAIRS``) at the showdown, averaged over the boards of :func:`completions`
    weighted by how much opponent weight each leaves; NaN for a hand no board or no
    opponent hand is compatible with."""
    n = len(HOLE_PAIRS)
    won, live = np.zeros(n), np.zeros(n)
    weights, beaten, beating, compatible = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    for full in completions(tuple(board), rng):
        ranks = rank_range(full)
        alive = ranks > 0
        np.multiply(opponent, alive, out=weights)
        mask = alive.astype(np.float64)
        order = np.argsort(ranks, kind="stable")
        sorted_ranks = ranks[order]
        # A run of equal ranks is named by the position where it ends (any id unique to the run will do).
        ends = np.searchsorted(sorted_ranks, sorted_ranks, side="right").astype(np.int32)
        ranked_weights(weights, weights, order, _PAIRS[order], ends, _SLOTS, mask, beaten, beating)
        compatible_weight(weights, _PAIRS, _SLOTS, mask, compatible)
        won += beaten + 0.5 * (compatible - beaten - beating)
        live += compatible
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(live > 0, won / live, np.nan)


def call_or_fold(state: State, opponent: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per ``HOLE_PAIRS`` hand at ``state`` (see :func:`nothing_left_to_decide`): the
    probability of calling (1 or 0; a hand with no equity estimate calls when the price
    is below one half) and the equity.  An opponent range with no weight counts every hand."""
    opponent = np.asarray(opponent, np.float64)
    if not opponent.sum() > 0:
        opponent = np.ones(len(HOLE_PAIRS))
    equity = range_equity(tuple(state.board), opponent, rng)
    to_call = state.amount_to_call()
    price = to_call / (state.pot + to_call)
    known = np.isfinite(equity)
    call = np.where(known, equity >= price, price < 0.5).astype(np.float64)
    return call, equity
