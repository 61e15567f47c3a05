"""The range-vector traversal of a two-player betting tree: one kernel for CFR updates,
strategy evaluation and best response (Slumbot's vectorized CFR).

Each call walks the card-free betting tree once for one *traverser*, carrying both
players' reach over every private hand and returning the traverser's counterfactual
values per hand.  Chance nodes loop over the boards they deal; terminals cost
O(hands) with card removal, and all terminal children of a decision share one call
(:mod:`solver.range_terminals`).

Values include the probability of the deal, so the values at the root summed over
hands are the traverser's expected winnings in chips.

Two cores: a traversal can be split at the *frontier*, the chance nodes with no chance
node above them (:mod:`solver.subgame.split`): :func:`walk` records the reaches arriving
there (``stage=RECORD``) and later reads the values computed below (``stage=READ``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from protocol.gamedef import GameDef
from solver.bets import ActionAbstraction
from solver.deals import CardSpace, card_space
from solver.range_terminals import CARD_SLOTS, card_pairs, compatible_weight, ranked_weights
from solver.tree import (
    CHANCE,
    DECISION,
    FOLD_END,
    SHOWDOWN,
    BettingTree,
    Layout,
    build_tree,
    layout,
    showdown_table,
)

# OpenMP threads that spin between parallel regions burn a shared machine's cores
# (measured: 6x the CPU per turn iteration); ours run one region per traversal.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

UPDATE, EVALUATE, BEST_RESPONSE = 0, 1, 2
#: Stages of a split traversal (see the module docstring); WHOLE is an ordinary walk.
WHOLE, RECORD, READ = 0, 1, 2


@dataclass(frozen=True, eq=False)
class TabularGame:
    """A betting tree, its cards, and the tabular layout (one row per board and hand)."""

    tree: BettingTree
    space: CardSpace
    layout: Layout

    @property
    def game(self) -> GameDef:
        return self.tree.game

    def uniform_strategy(self) -> np.ndarray:
        """Every action equally likely at every decision, in this layout."""
        out = np.empty(self.layout.size)
        for node in np.flatnonzero(self.tree.kind == DECISION):
            n_a = int(self.tree.child_count[node])
            start = self.layout.offset[node]
            out[start : start + self.layout.rows[self.tree.round[node]] * n_a] = 1.0 / n_a
        return out


def tabular_game(game: GameDef, abstraction: ActionAbstraction | None = None) -> TabularGame:
    """Build the tree, enumerate the cards and lay out one row per (board, hand)."""
    return tabular_layout(build_tree(game, abstraction), card_space(game))


def tabular_layout(tree: BettingTree, space: CardSpace) -> TabularGame:
    """One row per (board, hand) of ``space`` at every decision of ``tree``."""
    return TabularGame(tree, space, layout(tree, tuple(space.rows(r) for r in range(tree.game.num_rounds))))


class TreeArrays(NamedTuple):
    """What the kernel reads of the tree (see :class:`solver.tree.BettingTree`).

    ``offset`` is the tabular layout; ``deal_factor`` the probability of one board
    extension at chance nodes; ``showdown_value[node, outcome, player]`` the chips won
    when player 0 wins (outcome 0), ties (1) or loses (2); ``frontier[node]`` the
    index of a frontier chance node (no chance node above it) in ``frontier_nodes``,
    else -1.
    """

    kind: np.ndarray
    player: np.ndarray
    round: np.ndarray
    deal_from: np.ndarray
    child_start: np.ndarray
    child_count: np.ndarray
    children: np.ndarray
    offset: np.ndarray
    fold_value: np.ndarray
    showdown_value: np.ndarray
    deal_factor: np.ndarray
    frontier: np.ndarray
    frontier_nodes: np.ndarray


class CardArrays(NamedTuple):
    """What the kernel reads of the cards (see :class:`solver.deals.CardSpace`).

    ``boards_before[r + 1]`` is the number of boards at round ``r`` (index 0: one empty
    board); ``compat`` concatenates the rounds' (board, hand) masks from
    ``compat_start[r]``; ``hand_scale`` is the probability of one hand assignment.
    ``hand_cards`` (hands, 2) int32 are each hand's card slots, below ``card_slots``
    (see :func:`solver.range_terminals.card_pairs`).  For showdowns, per final board:
    ``final_order`` the hands weakest first, ``sorted_cards`` (boards, hands, 2) int32
    their card slots in that order, and ``group_end`` (boards, hands) int32 where each
    one's group of equal rank ends.
    """

    hand_cards: np.ndarray
    boards_before: np.ndarray
    compat: np.ndarray
    compat_start: np.ndarray
    final_order: np.ndarray
    sorted_cards: np.ndarray
    group_end: np.ndarray
    hand_scale: float
    card_slots: int


class TreeParts(NamedTuple):
    """The kernel arrays that depend on the betting tree alone (:func:`tree_parts`)."""

    showdown_value: np.ndarray
    frontier: np.ndarray
    frontier_nodes: np.ndarray


def tree_parts(tree: BettingTree) -> TreeParts:
    """Showdown payoffs and frontier chance nodes of ``tree``: shared by every card space
    the tree is packed with (a depth-limited solve packs each leaf's rest of the hand on
    each of its runouts)."""
    frontier_nodes = _frontier_nodes(tree)
    frontier = np.full(tree.n_nodes, -1, np.int64)
    frontier[frontier_nodes] = np.arange(len(frontier_nodes))
    return TreeParts(showdown_table(tree), frontier, frontier_nodes)


def card_arrays(space: CardSpace, hand_scale: float | None = None) -> CardArrays:
    """The kernel's :class:`CardArrays` of ``space`` (shared by every tree packed with it);
    ``hand_scale`` as in :func:`kernel_arrays`."""
    compat = np.concatenate([c.ravel() for c in space.compat])
    starts = np.concatenate([[0], np.cumsum([c.size for c in space.compat])[:-1]]).astype(np.int64)
    pairs = card_pairs(space.hands)
    return CardArrays(
        hand_cards=pairs,
        boards_before=np.array((1,) + space.n_boards, np.int64),
        compat=compat,
        compat_start=starts,
        final_order=space.final_order,
        sorted_cards=pairs[space.final_order],
        group_end=_group_ends(space.final_rank, space.final_order),
        hand_scale=space.hand_probability() if hand_scale is None else hand_scale,
        card_slots=CARD_SLOTS + (space.n_hands if space.hands.shape[1] == 1 else 0),
    )


def kernel_arrays(
    tg: TabularGame, hand_scale: float | None = None, parts: TreeParts | None = None, cards: CardArrays | None = None,
) -> tuple[TreeArrays, CardArrays]:
    """Pack a two-player :class:`TabularGame` for :func:`walk`.

    ``hand_scale`` (default: the probability of one hand assignment) multiplies every
    payoff; subgames pass 1 and put the hands' probabilities into the root reach.
    ``parts`` (:func:`tree_parts` of ``tg``'s tree) and ``cards`` (:func:`card_arrays` of
    its space, with this ``hand_scale``) are reused when given.

    Raises:
        ValueError: if the game does not have exactly two players.
    """
    tree, space = tg.tree, tg.space
    if tree.game.num_players != 2:
        raise ValueError(f"range-vector kernels need a two-player game, not {tree.game.num_players} players")
    deal_factor = np.ones(tree.n_nodes)
    for node in np.flatnonzero(tree.kind == CHANCE):
        deal_factor[node] = space.deal_probability(int(tree.deal_from[node]), int(tree.round[node]))
    parts = parts or tree_parts(tree)
    arrays = TreeArrays(
        kind=tree.kind,
        player=tree.player,
        round=tree.round,
        deal_from=tree.deal_from,
        child_start=tree.child_start,
        child_count=tree.child_count,
        children=tree.children,
        offset=tg.layout.offset,
        fold_value=tree.fold_value,
        showdown_value=parts.showdown_value,
        deal_factor=deal_factor,
        frontier=parts.frontier,
        frontier_nodes=parts.frontier_nodes,
    )
    return arrays, cards or card_arrays(space, hand_scale)


def _group_ends(rank: np.ndarray, order: np.ndarray) -> np.ndarray:
    """(boards, hands) int32: for each position in ``order``, the end of its run of equal ranks."""
    n_b, n_h = rank.shape
    ranked = np.take_along_axis(rank, order, axis=1)
    position = np.broadcast_to(np.arange(1, n_h + 1, dtype=np.int32), (n_b, n_h))
    # A run ends after position m where the next rank differs (or at the last hand).
    ends = np.where(np.concatenate([ranked[:, 1:] != ranked[:, :-1], np.ones((n_b, 1), bool)], axis=1), position, n_h)
    return np.minimum.accumulate(ends[:, ::-1], axis=1)[:, ::-1].astype(np.int32)


def _frontier_nodes(tree: BettingTree) -> np.ndarray:
    """Chance nodes with no chance node on the path from the root, in node order."""
    found, stack = [], [0]
    while stack:
        node = stack.pop()
        if tree.kind[node] == CHANCE:
            found.append(node)
            continue
        start = tree.child_start[node]
        stack.extend(int(c) for c in tree.children[start : start + tree.child_count[node]])
    return np.array(sorted(found), np.int64)


@njit(cache=True)
def regret_match(regret: np.ndarray, base: int, n_rows: int, n_actions: int, out: np.ndarray) -> None:
    """Fill ``out`` (rows, actions) with probabilities ∝ positive regret, uniform if none."""
    uniform = 1.0 / n_actions
    for h in range(n_rows):
        row = base + h * n_actions
        total = 0.0
        for a in range(n_actions):
            total += max(regret[row + a], 0.0)
        if total > 0:
            # Branch-free positive parts (signs are unpredictable); a division, not a
            # multiplication by 1 / total, keeps a lone positive regret's probability exactly 1.
            for a in range(n_actions):
                out[h, a] = max(regret[row + a], 0.0) / total
        else:
            for a in range(n_actions):
                out[h, a] = uniform


@njit(cache=True)
def _is_terminal(kind: int) -> bool:
    """Whether a node kind ends the hand (FOLD_END and SHOWDOWN are the two largest codes)."""
    return kind >= FOLD_END


@njit(cache=True)
def _showdown_coefficients(tree: TreeArrays, node: int, trav: int, scale: float) -> tuple[float, float, float]:
    """``trav``'s (win - tie, lose - tie, tie) payoffs at showdown ``node``, times ``scale``."""
    win = tree.showdown_value[node, 2 * trav, trav] * scale
    tie = tree.showdown_value[node, 1, trav] * scale
    lose = tree.showdown_value[node, 2 - 2 * trav, trav] * scale
    return win - tie, lose - tie, tie


@njit(cache=True)
def _terminal_basis(
    reach_o: np.ndarray, need_ranked: bool, cards: CardArrays, round_: int, board: int, out: np.ndarray
) -> None:
    """``out`` (3, n_hands): C, W and S of ``reach_o`` (see :mod:`solver.range_terminals`);
    W and S only if ``need_ranked`` (a showdown on a final board)."""
    n_h = reach_o.shape[0]
    mask = _board_mask(cards, round_, board, n_h)
    compatible_weight(reach_o, cards.hand_cards, cards.card_slots, mask, out[0])
    if need_ranked:
        ranked_weights(
            reach_o, reach_o, cards.final_order[board], cards.sorted_cards[board], cards.group_end[board],
            cards.card_slots, mask, out[1], out[2],
        )


@njit(cache=True)
def _terminal_value(tree: TreeArrays, cards: CardArrays, node: int, trav: int, basis: np.ndarray) -> np.ndarray:
    """``trav``'s values (n_hands,) at terminal ``node`` from the basis of its opponent reach."""
    if tree.kind[node] == FOLD_END:
        return tree.fold_value[node, trav] * cards.hand_scale * basis[0]
    cw, cs, ct = _showdown_coefficients(tree, node, trav, cards.hand_scale)
    return cw * basis[1] + cs * basis[2] + ct * basis[0]


@njit(cache=True)
def _strategy_rows(strategy: np.ndarray, base: int, n_rows: int, n_actions: int, out: np.ndarray) -> None:
    """Fill ``out`` (rows, actions) with ``strategy``'s rows scaled to sum 1 (uniform where
    a row sums to 0 or less), so unnormalized sums such as an average's can be played."""
    for h in range(n_rows):
        row = base + h * n_actions
        total = 0.0
        for a in range(n_actions):
            total += strategy[row + a]
        for a in range(n_actions):
            out[h, a] = strategy[row + a] / total if total > 0 else 1.0 / n_actions


@njit(cache=True)
def _factor(exponent: float, x: float) -> float:
    """x^e / (x^e + 1); +inf keeps everything (1), -inf drops everything (0)."""
    if exponent == np.inf:
        return 1.0
    if exponent == -np.inf:
        return 0.0
    p = x**exponent
    return p / (p + 1.0)


@njit(cache=True)
def discounts(t: int, alpha: float, beta: float, gamma: float) -> tuple[float, float, float]:
    """Factors applied on iteration ``t`` (1-based) to positive regrets, negative regrets
    and the average strategy accumulated over iterations 1..t-1 (DCFR)."""
    x = float(t - 1)
    return _factor(alpha, x), _factor(beta, x), (x / t) ** gamma


@njit(cache=True)
def _board_mask(cards: CardArrays, round_: int, board: int, n_h: int) -> np.ndarray:
    """(n_h,) uint8: 1 for the hands that share no card with ``board`` of ``round_``."""
    start = cards.compat_start[round_] + board * n_h
    return cards.compat[start : start + n_h]


# --- pieces of a walk that other walks over the same arrays share --------------------------
# (solver.subgame.leaf_walk walks a depth-limited subgame with them.)


@njit(cache=True)
def deal_count(tree: TreeArrays, cards: CardArrays, node: int) -> int:
    """How many boards chance ``node`` deals on each board of the round before it."""
    r = tree.round[node]
    return cards.boards_before[r + 1] // cards.boards_before[tree.deal_from[node] + 1]


@njit(cache=True)
def deal_reaches(
    tree: TreeArrays, cards: CardArrays, node: int, board: int,
    reach_t: np.ndarray, reach_o: np.ndarray, child_t: np.ndarray, child_o: np.ndarray,
) -> None:
    """Fill ``child_t`` and ``child_o`` with the reaches below chance ``node`` once it has
    dealt ``board`` (index in its own round): hands sharing a card with the board drop
    out, and the deal's probability goes into the opponent's reach so that the values
    (and regrets) below are counterfactual values of the whole game."""
    n_h = reach_t.shape[0]
    start = cards.compat_start[tree.round[node]] + board * n_h
    p_deal = tree.deal_factor[node]
    for h in range(n_h):
        child_t[h] = reach_t[h] * cards.compat[start + h]
        child_o[h] = reach_o[h] * cards.compat[start + h] * p_deal


@njit(cache=True)
def played(
    mode: int, own: bool, regret: np.ndarray, strategy: np.ndarray, kept: np.ndarray, base: int, n_h: int, n_a: int
) -> np.ndarray:
    """(n_h, n_a) what is played at a decision whose rows start at ``base``: regret
    matching in UPDATE (a view of ``kept``'s rows if ``kept`` is not empty: see
    :func:`walk`), else ``strategy``'s rows; left unfilled at the traverser's ``own``
    decisions in a best response, where it takes its best action instead."""
    if mode == UPDATE and kept.shape[0] > 0:
        return kept[base : base + n_h * n_a].reshape((n_h, n_a))
    sigma = np.empty((n_h, n_a))
    if mode == UPDATE:
        regret_match(regret, base, n_h, n_a, sigma)
    elif not (mode == BEST_RESPONSE and own):
        _strategy_rows(strategy, base, n_h, n_a, sigma)
    return sigma


@njit(cache=True)
def own_values(mode: int, sigma: np.ndarray, child_values: np.ndarray) -> np.ndarray:
    """The traverser's values (n_h,) at its own decision from its actions' (n_a, n_h):
    the best per hand in a best response, else their mean under ``sigma``."""
    n_a, n_h = child_values.shape
    values = np.zeros(n_h)
    if mode == BEST_RESPONSE:
        for h in range(n_h):
            values[h] = child_values[0, h]
            for a in range(1, n_a):
                values[h] = max(values[h], child_values[a, h])
        return values
    for a in range(n_a):
        for h in range(n_h):
            values[h] += sigma[h, a] * child_values[a, h]
    return values


@njit(cache=True)
def update_rows(
    regret: np.ndarray, avg: np.ndarray, base: int, sigma: np.ndarray, child_values: np.ndarray,
    values: np.ndarray, reach_t: np.ndarray, d_pos: float, d_neg: float, d_avg: float, refresh: bool,
) -> None:
    """The CFR update of the traverser's decision whose rows start at ``base``: each
    action's regret gains its value over the decision's (old regrets discounted by
    ``d_pos`` or ``d_neg`` by sign), the average strategy the traverser's reach times
    ``sigma`` (old sums discounted by ``d_avg``).  With ``refresh``, ``sigma`` then
    becomes the regret matching of each row's new regrets (as stored, so exactly what
    :func:`regret_match` would give the next time the decision is played).

    The refresh repeats :func:`regret_match`'s rule inline, on the row just updated:
    calling a per-row function from here made an iteration 1.5x slower (measured on the
    river spot), and a second pass over the rows would lose the rows' being in cache."""
    n_h, n_a = sigma.shape
    for h in range(n_h):
        row = base + h * n_a
        total = 0.0
        for a in range(n_a):
            old = regret[row + a]
            regret[row + a] = old * (d_pos if old > 0 else d_neg) + child_values[a, h] - values[h]
            avg[row + a] = avg[row + a] * d_avg + reach_t[h] * sigma[h, a]
            total += max(regret[row + a], 0.0)
        if refresh:
            if total > 0:
                for a in range(n_a):
                    sigma[h, a] = max(regret[row + a], 0.0) / total
            else:
                for a in range(n_a):
                    sigma[h, a] = 1.0 / n_a


# nogil: a depth-limited solve values its leaves (one walk each) on several Python threads.
@njit(cache=True, nogil=True)
def walk(
    node: int, board: int, trav: int, reach_t: np.ndarray, reach_o: np.ndarray, mode: int,
    tree: TreeArrays, cards: CardArrays, regret: np.ndarray, avg: np.ndarray, strategy: np.ndarray, kept: np.ndarray,
    d_pos: float, d_neg: float, d_avg: float, stage: int, buf_reach: np.ndarray, buf_value: np.ndarray,
) -> np.ndarray:
    """Counterfactual values (n_hands,) of ``trav`` below ``node`` on ``board``.

    Modes: UPDATE plays regret matching for both players and updates the traverser's
    ``regret`` and ``avg`` in place (discounting the old totals by ``d_pos``, ``d_neg``,
    ``d_avg``); EVALUATE plays ``strategy`` for both; BEST_RESPONSE plays ``strategy``
    for the opponent and the best action per hand for the traverser.  ``regret``,
    ``avg`` and ``strategy`` are arrays in the tabular layout ``tree.offset``, all
    float64 or all float32 (storage only: the arithmetic is float64);
    ``strategy``'s rows are normalized as they are read, so an average strategy's
    unnormalized sums can be played directly.

    ``kept`` (float64, the tabular layout, or empty): in UPDATE, the current strategy
    of both players (regret matching of ``regret``, uniform where the regrets are 0)
    kept from one traversal to the next: played as it is instead of regret matching
    every decision on every visit, and refreshed from the new regrets as the
    traverser's rows are updated (each decision is then regret-matched once an
    iteration instead of twice, and no (hands, actions) array is allocated for it).
    The results are bitwise those of regret matching on every visit; the caller
    starts it uniform and must not change ``regret`` without refreshing it.  Empty:
    regret matching on every visit.  Other modes ignore it.

    ``stage`` RECORD stores both reaches arriving at frontier node ``f`` in
    ``buf_reach[f]`` (float64 (F, 2, n_hands): traverser, opponent), returns zeros
    there and updates nothing; READ returns ``buf_value[f]`` (float64 (F, n_hands))
    at frontier nodes; WHOLE ignores both buffers.
    """
    kind = tree.kind[node]
    n_h = reach_t.shape[0]
    r = tree.round[node]
    if _is_terminal(kind):
        basis = np.empty((3, n_h))
        _terminal_basis(reach_o, kind == SHOWDOWN, cards, r, board, basis)
        return _terminal_value(tree, cards, node, trav, basis)
    child0 = tree.children[tree.child_start[node]]
    if kind == CHANCE and stage != WHOLE:
        f = tree.frontier[node]
        if stage == RECORD:
            buf_reach[f, 0] = reach_t
            buf_reach[f, 1] = reach_o
            return np.zeros(n_h)
        return buf_value[f].copy()
    if kind == CHANCE:
        values = np.zeros(n_h)
        child_t, child_o = np.empty(n_h), np.empty(n_h)
        extensions = deal_count(tree, cards, node)
        for b in range(board * extensions, (board + 1) * extensions):
            deal_reaches(tree, cards, node, b, reach_t, reach_o, child_t, child_o)
            values += walk(
                child0, b, trav, child_t, child_o, mode, tree, cards, regret, avg, strategy, kept,
                d_pos, d_neg, d_avg, stage, buf_reach, buf_value,
            )
        return values

    n_a = tree.child_count[node]
    base = tree.offset[node] + board * n_h * n_a
    first = tree.child_start[node]
    sigma = played(mode, tree.player[node] == trav, regret, strategy, kept, base, n_h, n_a)
    # Terminal children are folded into one terminal-basis call (see solver.range_terminals).
    n_ranked = 0
    n_terminal = 0
    for a in range(n_a):
        child_kind = tree.kind[tree.children[first + a]]
        n_terminal += _is_terminal(child_kind)
        n_ranked += child_kind == SHOWDOWN
    basis = np.empty((3 if n_terminal else 0, n_h))
    if tree.player[node] != trav:
        values = np.zeros(n_h)
        child_o = np.empty(n_h)
        # Opponent terminals: the combined weights whose C, W and S sum to their values.
        weights = np.zeros((3 if n_terminal else 0, n_h))
        for a in range(n_a):
            child = tree.children[first + a]
            if tree.kind[child] == FOLD_END:
                c_fold = tree.fold_value[child, trav] * cards.hand_scale
                for h in range(n_h):
                    weights[0, h] += c_fold * reach_o[h] * sigma[h, a]
            elif tree.kind[child] == SHOWDOWN:
                cw, cs, ct = _showdown_coefficients(tree, child, trav, cards.hand_scale)
                for h in range(n_h):
                    p = reach_o[h] * sigma[h, a]
                    weights[0, h] += ct * p
                    weights[1, h] += cw * p
                    weights[2, h] += cs * p
            else:
                for h in range(n_h):
                    child_o[h] = reach_o[h] * sigma[h, a]
                values += walk(
                    child, board, trav, reach_t, child_o, mode, tree, cards, regret, avg, strategy, kept,
                    d_pos, d_neg, d_avg, stage, buf_reach, buf_value,
                )
        if n_terminal:
            mask = _board_mask(cards, r, board, n_h)
            compatible_weight(weights[0], cards.hand_cards, cards.card_slots, mask, basis[0])
            values += basis[0]
            if n_ranked:
                ranked_weights(
                    weights[1], weights[2], cards.final_order[board], cards.sorted_cards[board],
                    cards.group_end[board], cards.card_slots, mask, basis[1], basis[2],
                )
                values += basis[1]
                values += basis[2]
        return values

    if n_terminal:
        _terminal_basis(reach_o, n_ranked > 0, cards, r, board, basis)
    child_values = np.empty((n_a, n_h))
    # In a best response the traverser's own reach does not change its values.
    child_t = reach_t if mode == BEST_RESPONSE else np.empty(n_h)
    for a in range(n_a):
        child = tree.children[first + a]
        if _is_terminal(tree.kind[child]):
            child_values[a] = _terminal_value(tree, cards, child, trav, basis)
            continue
        if mode != BEST_RESPONSE:
            for h in range(n_h):
                child_t[h] = reach_t[h] * sigma[h, a]
        child_values[a] = walk(
            child, board, trav, child_t, reach_o, mode, tree, cards, regret, avg, strategy, kept,
            d_pos, d_neg, d_avg, stage, buf_reach, buf_value,
        )
    values = own_values(mode, sigma, child_values)
    if mode == UPDATE and stage != RECORD:
        update_rows(regret, avg, base, sigma, child_values, values, reach_t, d_pos, d_neg, d_avg, kept.shape[0] > 0)
    return values


@njit(cache=True)
def root_values(
    trav: int, mode: int, tree: TreeArrays, cards: CardArrays, regret: np.ndarray, avg: np.ndarray,
    strategy: np.ndarray, d_pos: float, d_neg: float, d_avg: float,
) -> np.ndarray:
    """:func:`walk` from the root with every hand's reach 1 (mutates as ``walk`` does)."""
    n_h = cards.hand_cards.shape[0]
    # Typed zeros: a literal 0 would compile a second specialization of the recursive
    # walk, and cached recursive specializations crash on load (numba issue 6061).
    root = np.int64(0)
    return walk(
        root, root, trav, np.ones(n_h), np.ones(n_h), mode, tree, cards, regret, avg, strategy, np.zeros(0),
        d_pos, d_neg, d_avg, np.int64(WHOLE), np.zeros((0, 2, n_h)), np.zeros((0, n_h)),
    )


@njit(cache=True)
def normalize_rows(
    x: np.ndarray, out: np.ndarray, offset: np.ndarray, rows: np.ndarray, n_actions: np.ndarray, kind: np.ndarray,
    positive_part: bool,
) -> None:
    """Each decision's rows of ``x`` (their positive parts if ``positive_part``) scaled to
    sum 1 into ``out`` (uniform where a row sums to 0 or less).

    ``rows[node]`` is the node's row count.  Sums and quotients are float64 whatever the
    arrays' dtypes, so a float64 ``out`` is bitwise the same from float32 or float64 ``x``
    of the same values.  ``out`` may be a buffer no longer needed of ``x``'s size.
    """
    for node in range(kind.shape[0]):
        if kind[node] != DECISION:
            continue
        n_a = n_actions[node]
        for h in range(rows[node]):
            row = offset[node] + h * n_a
            total = 0.0
            for a in range(n_a):
                v = x[row + a]
                total += max(v, 0.0) if positive_part else v
            for a in range(n_a):
                v = x[row + a]
                if positive_part:
                    v = max(v, 0.0)
                out[row + a] = v / total if total > 0 else 1.0 / n_a


def normalized(
    lay: Layout, tree: BettingTree, x: np.ndarray, *, positive_part: bool = False, dtype: type = np.float64,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Rows of ``x`` as probabilities (regret matching if ``positive_part``), as a new
    ``dtype`` array or written into ``out`` (any float array of ``x``'s size)."""
    node_rows = np.array([lay.rows[r] for r in tree.round], np.int64)
    x = np.ascontiguousarray(x)
    if out is None:
        out = np.empty(x.shape[0], dtype)
    elif out.shape != x.shape:
        raise ValueError(f"out has shape {out.shape}, the rows {x.shape}")
    normalize_rows(x, out, lay.offset, node_rows, tree.child_count, tree.kind, positive_part)
    return out
