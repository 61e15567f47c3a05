"""Depth-limited safe subgame solving inside a tabular game (Modicum: Brown, Sandholm and
Amos, NeurIPS 2018; docs/algorithms.md, "Depth-limited solving").

A depth-limited subgame is a public state (betting node, board of its round) of a
two-player :class:`~solver.ranges.TabularGame` cut at the end of its betting round: its
nodes are the decisions of that round below the root; its *leaves* are the chance nodes
that deal the next round and the terminals reached inside the round.  A leaf is
replaced by a table of payoffs per pair of private hands, the value of the rest of the
game for player 0 (counterfactual: chance and the hands' probability included, as
:func:`solver.ranges.walk` returns values).  At a chance leaf the opponent of the
re-solver (the *chooser*) picks, per private hand, one of k continuation strategy pairs
for the rest of the game: our side plays the blueprint there, the opponent the
blueprint or the blueprint biased toward folding, calling or raising (each probability
of that class multiplied by a factor, 5 by default, and renormalised; ours, k = 5: its
best response to the blueprint).  The leaf is an opponent decision with k actions,
solved by CFR like any other, so the re-solver's strategy in the round must be good
against every continuation, not only the blueprint's.  Cut *after the card* instead,
the subgame also holds the deal and its leaves are the first nodes of the next round,
one table set per card, so the chooser picks knowing the card.

Leaf payoffs are exact: the rest-of-game tree is evaluated by the range kernel once per
opponent hand (a unit range), i.e. n_hands walks per (leaf, board, continuation); a solve
iteration then costs n_hands² per leaf.  The gadget at the root is the one
:func:`solver.safe.build_gadget` builds (alternatives from the full game's values).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from protocol.rules import ActionType
from solver.cfr.fullwidth import DCFR, CFRConfig
from solver.ranges import BEST_RESPONSE, EVALUATE, UPDATE, WHOLE, CardArrays, TabularGame, TreeArrays, discounts, walk
from solver.subgame.blueprint_values import BlueprintValues
from solver.subgame.gadgets import GADGETS, Gadget, gadget_reach, gadget_update
from solver.subgame.safe import SubgameSolution, subgame_rows, subtree_nodes
from solver.tree import CHANCE, DECISION

#: The continuation strategies in the order ``k`` takes them: Pluribus's four, then
#: (ours, k = 5) the opponent's best response to the blueprint after the cut, the
#: "generative" kind of continuation Modicum describes, computed once, not grown.
CONTINUATIONS = ("blueprint", "fold", "call", "raise", "best-response")
#: Multiplier of the biased action class's probabilities.
BIAS_FACTOR = 5.0
_BIASED_ACTION = {"fold": ActionType.FOLD, "call": ActionType.CALL, "raise": ActionType.RAISE}


def biased_strategy(tg: TabularGame, strategy: np.ndarray, player: int, bias: str, factor: float = BIAS_FACTOR) -> np.ndarray:
    """``strategy`` with ``player``'s probabilities of the ``bias`` action class (fold,
    call or raise; ``blueprint``: none) multiplied by ``factor`` and renormalised, at
    every decision of that player.  Rows where the class is absent are unchanged.

    Raises:
        ValueError: for an unknown ``bias``.
    """
    if bias not in _BIASED_ACTION and bias != "blueprint":
        raise ValueError(f"unknown continuation {bias!r} (expected one of {', '.join(CONTINUATIONS)})")
    out = np.array(strategy, np.float64)
    if bias == "blueprint":
        return out
    tree, lay = tg.tree, tg.layout
    wanted = int(_BIASED_ACTION[bias])
    for node in np.flatnonzero((tree.kind == DECISION) & (tree.player == player)):
        n_a = int(tree.child_count[node])
        start = int(tree.child_start[node])
        scale = np.where(tree.edge_action[start : start + n_a] == wanted, factor, 1.0)
        if (scale == 1.0).all():
            continue
        size = lay.rows[int(tree.round[node])] * n_a
        rows = out[lay.offset[node] : lay.offset[node] + size].reshape(-1, n_a) * scale
        total = rows.sum(axis=1, keepdims=True)
        rows = np.divide(rows, total, out=np.full_like(rows, 1.0 / n_a), where=total > 0)
        out[lay.offset[node] : lay.offset[node] + size] = rows.ravel()
    return out


def best_response_strategy(bv: BlueprintValues, player: int, rounds: Sequence[int]) -> np.ndarray:
    """The blueprint with ``player``'s rows in ``rounds`` replaced by a pure best response
    to the blueprint: at each of its infosets the action of largest counterfactual
    best-response value (the first on ties).  Counterfactual values do not depend on the
    player's own earlier play, so the rows of other rounds can stay the blueprint's."""
    tg = bv.game
    tree, lay, n_h = tg.tree, tg.layout, tg.space.n_hands
    out = bv.strategy.copy()
    for node in np.flatnonzero((tree.kind == DECISION) & (tree.player == player) & np.isin(tree.round, list(rounds))):
        n_a = int(tree.child_count[node])
        for board in range(tg.space.n_boards[int(tree.round[node])]):
            best = bv.action_values(int(node), board, player).argmax(axis=0)
            start = lay.offset[node] + board * n_h * n_a
            out[start : start + n_h * n_a] = np.eye(n_a)[best].ravel()
    return out


@njit(cache=True)
def _pair_payoffs(node: np.int64, board: np.int64, tree: TreeArrays, cards: CardArrays, strategy: np.ndarray) -> np.ndarray:
    """(n_hands, n_hands): player 0's counterfactual value below ``node`` on ``board`` per
    (hand of player 0, hand of player 1), both playing ``strategy``.  Values are linear in
    the opponent's range, so a walk with a unit range per player-1 hand gives one column."""
    n_h = cards.hand_cards.shape[0]
    out = np.empty((n_h, n_h))
    unit = np.zeros(n_h)
    ones = np.ones(n_h)
    unused = np.zeros(0)
    trav = np.int64(0)
    for j in range(n_h):
        unit[j] = 1.0
        out[:, j] = walk(
            node, board, trav, ones, unit, np.int64(EVALUATE), tree, cards, unused, unused, strategy,
            1.0, 1.0, 1.0, np.int64(WHOLE), np.zeros((0, 2, n_h)), np.zeros((0, n_h)),
        )
        unit[j] = 0.0
    return out


@dataclass(eq=False)
class LeafValues:
    """Payoff tables of leaves, computed once and shared by every subgame that needs them.

    Attributes:
        bv: the blueprint.
        continuations: the continuation names the chooser picks from (first k of
            :data:`CONTINUATIONS` unless given otherwise).
        factor: the bias factor.
    """

    bv: BlueprintValues
    continuations: tuple[str, ...] = ("blueprint",)
    factor: float = BIAS_FACTOR
    #: ``best-response`` replaces the chooser's rows of the rounds after this one only
    #: (the rows a leaf's table reads; earlier ones would cost walks for nothing).
    best_response_after: int = 0

    def __post_init__(self) -> None:
        for name in self.continuations:
            if name not in CONTINUATIONS:
                raise ValueError(f"unknown continuation {name!r} (expected one of {', '.join(CONTINUATIONS)})")
        self._profiles: dict[tuple[str, int], np.ndarray] = {}
        self._tables: dict[tuple[int, int, str, int], np.ndarray] = {}
        self.walks = 0  # rest-of-game walks run so far (the cost)

    def profile(self, name: str, chooser: int) -> np.ndarray:
        """The continuation pair ``name``: the blueprint with ``chooser``'s play biased."""
        key = (name if name != "blueprint" else "blueprint", chooser if name != "blueprint" else -1)
        if key not in self._profiles:
            if name == "best-response":
                rounds = range(self.best_response_after + 1, self.bv.game.game.num_rounds)
                self._profiles[key] = best_response_strategy(self.bv, chooser, rounds)
            else:
                self._profiles[key] = biased_strategy(self.bv.game, self.bv.strategy, chooser, name, self.factor)
        return self._profiles[key]

    def table(self, node: int, board: int, name: str, chooser: int) -> np.ndarray:
        """(n_hands, n_hands) player 0's value below ``node`` on ``board`` under continuation ``name``."""
        key = (node, board, name, chooser if name != "blueprint" else -1)
        if key not in self._tables:
            tree_arrays, cards = self.bv.arrays
            table = _pair_payoffs(np.int64(node), np.int64(board), tree_arrays, cards, self.profile(name, chooser))
            # The kernel masks only the traverser's hands by the board; mask both so the
            # table serves either player (player 1's values are minus its transpose).
            mask = self.bv.game.space.compat[self.bv.board_round(node)][board].astype(np.float64)
            self._tables[key] = table * mask[:, None] * mask[None, :]
            self.walks += cards.hand_cards.shape[0]
        return self._tables[key]


class LeafArrays(NamedTuple):
    """What the kernel reads of a depth-limited subgame's leaves (per tree node).

    A leaf's tables are laid out board by board from ``first_board`` (one board unless
    the cut is after the next card): on board ``b`` its options are tables
    ``option_start + (b - first_board) * option_count`` onward of ``payoff``, and the
    chooser's decision there is ``leaf_slot + (b - first_board)``.
    """

    option_start: np.ndarray  # (n,) int64, -1 where the node is not a leaf
    option_count: np.ndarray  # (n,) int64, 0 where the node is not a leaf
    first_board: np.ndarray  # (n,) int64
    leaf_slot: np.ndarray  # (n,) int64, -1 where the chooser has no choice
    payoff: np.ndarray  # (tables, n_hands, n_hands) player 0's counterfactual values


@dataclass(eq=False)
class DepthLimitedSubgame:
    """One depth-limited subgame, ready for the kernel.

    Attributes:
        node, board, player: the root, its board (index at the root's round), the re-solver.
        nodes: the decision nodes inside the round (re-solver's and opponent's).
        arrays: the leaves (:class:`LeafArrays`).
        n_choices: (leaf, board) pairs where the chooser picks a continuation.
        k: the largest number of options at a leaf.
        after_card: whether the cut is after the next card (leaves at the start of the
            next round, one choice per card) rather than at the chance node dealing it.
    """

    node: int
    board: int
    player: int
    nodes: np.ndarray
    arrays: LeafArrays
    n_choices: int
    k: int
    after_card: bool = False


def depth_limited_subgame(
    leaves: LeafValues, node: int, board: int, player: int, *, after_card: bool = False
) -> DepthLimitedSubgame:
    """Cut the subgame at (``node``, ``board``) for re-solver ``player`` at the end of its
    round, or with ``after_card`` after the next card (the subgame then holds the deal,
    and the chooser picks a continuation knowing the card).

    Raises:
        ValueError: if ``node`` is not a decision node.
    """
    tree, space = leaves.bv.game.tree, leaves.bv.game.space
    if tree.kind[node] != DECISION:
        raise ValueError(f"subgames start at decision nodes; node {node} is not one")
    chooser = 1 - player
    n = tree.n_nodes
    option_start = np.full(n, -1, np.int64)
    option_count = np.zeros(n, np.int64)
    first_board = np.zeros(n, np.int64)
    leaf_slot = np.full(n, -1, np.int64)
    tables, decisions, choices = [], [], 0
    stack = [(node, [board])]
    while stack:
        here, boards = stack.pop()
        kind = tree.kind[here]
        if kind == DECISION and here != node and tree.round[here] != tree.round[node]:
            kind = -1  # the first decision after the card: a leaf
        if kind == DECISION:
            decisions.append(here)
            start = tree.child_start[here]
            stack.extend((int(c), boards) for c in tree.children[start : start + tree.child_count[here]])
            continue
        if kind == CHANCE and after_card:
            ext = space.extensions(int(tree.deal_from[here]), int(tree.round[here]))
            stack.append((int(tree.children[tree.child_start[here]]), [boards[0] * ext + j for j in range(ext)]))
            continue
        # A terminal, the chance node dealing the next round, or the first node after it: a leaf.
        names = leaves.continuations if kind in (CHANCE, -1) else ("blueprint",)
        option_start[here] = len(tables)
        option_count[here] = len(names)
        first_board[here] = boards[0]
        for b in boards:
            tables.extend(leaves.table(here, b, name, chooser) for name in names)
        if len(names) > 1:
            leaf_slot[here] = choices
            choices += len(boards)
    n_h = space.n_hands
    payoff = np.array(tables) if tables else np.zeros((0, n_h, n_h))
    arrays = LeafArrays(option_start, option_count, first_board, leaf_slot, payoff)
    return DepthLimitedSubgame(
        node, board, player, np.array(sorted(decisions), np.int64), arrays, choices,
        int(option_count.max(initial=1)), after_card,
    )


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
def _choice(leaf_regret: np.ndarray, slot: int, n_o: int, out: np.ndarray) -> None:
    """The chooser's continuation probabilities at leaf ``slot`` by regret matching."""
    n_h = out.shape[0]
    for h in range(n_h):
        total = 0.0
        for j in range(n_o):
            total += max(leaf_regret[slot, h, j], 0.0)
        for j in range(n_o):
            out[h, j] = max(leaf_regret[slot, h, j], 0.0) / total if total > 0 else 1.0 / n_o


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
    n_h = reach_t.shape[0]
    n_o = leaves.option_count[node]
    payoff = leaves.payoff
    if n_o > 0:
        local = board - leaves.first_board[node]
        start = leaves.option_start[node] + local * n_o
        if n_o == 1:
            return _leaf_values(payoff, start, trav, reach_o)
        slot = leaves.leaf_slot[node] + local
        sigma = np.zeros((n_h, n_o))
        if mode == UPDATE:
            _choice(leaf_regret, slot, n_o, sigma)
        else:
            # Outside CFR the chooser's continuation is the first (the blueprint) unless it best-responds.
            sigma[:, 0] = 1.0
        values = np.zeros(n_h)
        if trav != chooser:
            part = np.empty(n_h)
            for j in range(n_o):
                for h in range(n_h):
                    part[h] = reach_o[h] * sigma[h, j]
                values += _leaf_values(payoff, start + j, trav, part)
            return values
        options = np.empty((n_o, n_h))
        for j in range(n_o):
            options[j] = _leaf_values(payoff, start + j, trav, reach_o)
        if mode == BEST_RESPONSE:
            for h in range(n_h):
                values[h] = options[0, h]
                for j in range(1, n_o):
                    values[h] = max(values[h], options[j, h])
            return values
        for h in range(n_h):
            for j in range(n_o):
                values[h] += sigma[h, j] * options[j, h]
            if mode != UPDATE:
                continue
            for j in range(n_o):
                old = leaf_regret[slot, h, j]
                leaf_regret[slot, h, j] = old * (d_pos if old > 0 else d_neg) + options[j, h] - values[h]
                leaf_avg[slot, h, j] = leaf_avg[slot, h, j] * d_avg + reach_t[h] * sigma[h, j]
        return values

    if tree.kind[node] == CHANCE:
        # The deal of the next card inside a subgame cut after it (see solver.ranges.walk).
        r = tree.round[node]
        extensions = cards.boards_before[r + 1] // cards.boards_before[tree.deal_from[node] + 1]
        values = np.zeros(n_h)
        child_t = np.empty(n_h)
        child_o = np.empty(n_h)
        p_deal = tree.deal_factor[node]
        for j in range(extensions):
            b = board * extensions + j
            at = cards.compat_start[r] + b * n_h
            for h in range(n_h):
                child_t[h] = reach_t[h] * cards.compat[at + h]
                child_o[h] = reach_o[h] * cards.compat[at + h] * p_deal
            values += dl_walk(
                tree.children[tree.child_start[node]], b, trav, chooser, child_t, child_o, mode, tree, cards, leaves,
                regret, avg, leaf_regret, leaf_avg, strategy, d_pos, d_neg, d_avg,
            )
        return values
    n_a = tree.child_count[node]
    base = tree.offset[node] + board * n_h * n_a
    first = tree.child_start[node]
    sigma = np.empty((n_h, n_a))
    mine = tree.player[node] == trav
    if mode == UPDATE:
        for h in range(n_h):
            row = base + h * n_a
            total = 0.0
            for a in range(n_a):
                total += max(regret[row + a], 0.0)
            for a in range(n_a):
                sigma[h, a] = max(regret[row + a], 0.0) / total if total > 0 else 1.0 / n_a
    elif mode == EVALUATE or not mine:
        for h in range(n_h):
            row = base + h * n_a
            total = 0.0
            for a in range(n_a):
                total += strategy[row + a]
            for a in range(n_a):
                sigma[h, a] = strategy[row + a] / total if total > 0 else 1.0 / n_a
    values = np.zeros(n_h)
    if not mine:
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
    child_t = np.empty(n_h)
    for a in range(n_a):
        for h in range(n_h):
            child_t[h] = reach_t[h] * sigma[h, a] if mode == UPDATE else reach_t[h]
        child_values[a] = dl_walk(
            tree.children[first + a], board, trav, chooser, child_t, reach_o, mode, tree, cards, leaves,
            regret, avg, leaf_regret, leaf_avg, strategy, d_pos, d_neg, d_avg,
        )
    if mode == BEST_RESPONSE:
        for h in range(n_h):
            values[h] = child_values[0, h]
            for a in range(1, n_a):
                values[h] = max(values[h], child_values[a, h])
        return values
    for a in range(n_a):
        for h in range(n_h):
            values[h] += sigma[h, a] * child_values[a, h]
    if mode != UPDATE:
        return values
    for h in range(n_h):
        row = base + h * n_a
        for a in range(n_a):
            old = regret[row + a]
            regret[row + a] = old * (d_pos if old > 0 else d_neg) + child_values[a, h] - values[h]
            avg[row + a] = avg[row + a] * d_avg + reach_t[h] * sigma[h, a]
    return values


@njit(cache=True)
def _dl_solve(
    node: np.int64, board: np.int64, player: np.int64, tree: TreeArrays, cards: CardArrays, leaves: LeafArrays,
    regret: np.ndarray, avg: np.ndarray,
    leaf_regret: np.ndarray, leaf_avg: np.ndarray, our_reach: np.ndarray, deal: float, kind: int,
    alternatives: np.ndarray, weight: np.ndarray, blueprint_reach: np.ndarray, gadget_regret: np.ndarray,
    iterations: int, alpha: float, beta: float, gamma: float, unsafe_weight: float,
) -> None:
    """``iterations`` of alternating DCFR with the gadget at the root, as
    :func:`solver.safe._solve` runs them, on the depth-limited subgame."""
    n_h = our_reach.shape[0]
    opponent = np.int64(1) - player
    update = np.int64(UPDATE)
    unused = np.zeros(0)
    opp_reach = np.empty(n_h)
    for t in range(1, iterations + 1):
        d_pos, d_neg, d_avg = discounts(t, alpha, beta, gamma)
        gadget_reach(kind, gadget_regret, weight, blueprint_reach, opp_reach, unsafe_weight)
        dl_walk(
            node, board, player, opponent, our_reach, opp_reach * deal, update, tree, cards, leaves,
            regret, avg, leaf_regret, leaf_avg, unused, d_pos, d_neg, d_avg,
        )
        values = dl_walk(
            node, board, opponent, opponent, opp_reach.copy(), our_reach * deal, update, tree, cards, leaves,
            regret, avg, leaf_regret, leaf_avg, unused, d_pos, d_neg, d_avg,
        )
        gadget_update(kind, gadget_regret, alternatives, weight, opp_reach, values, d_pos, d_neg)


@njit(cache=True)
def _solve_keeping(
    node: np.int64, board: np.int64, player: np.int64, tree: TreeArrays, cards: CardArrays, regret: np.ndarray,
    avg: np.ndarray, kept: np.ndarray, kept_values: np.ndarray, our_reach: np.ndarray, deal: float, kind: int,
    alternatives: np.ndarray, weight: np.ndarray, blueprint_reach: np.ndarray, gadget_regret: np.ndarray,
    iterations: int, alpha: float, beta: float, gamma: float, unsafe_weight: float,
) -> None:
    """:func:`solver.safe._solve` with the entries ``kept`` of ``regret`` reset to
    ``kept_values`` (probabilities) after every update, so regret matching plays exactly them."""
    n_h = our_reach.shape[0]
    opponent = np.int64(1) - player
    update = np.int64(UPDATE)
    unused = np.zeros(0)
    whole, no_reach, no_value = np.int64(WHOLE), np.zeros((0, 2, n_h)), np.zeros((0, n_h))
    opp_reach = np.empty(n_h)
    regret[kept] = kept_values
    for t in range(1, iterations + 1):
        d_pos, d_neg, d_avg = discounts(t, alpha, beta, gamma)
        gadget_reach(kind, gadget_regret, weight, blueprint_reach, opp_reach, unsafe_weight)
        walk(
            node, board, player, our_reach, opp_reach * deal, update,
            tree, cards, regret, avg, unused, d_pos, d_neg, d_avg, whole, no_reach, no_value,
        )
        regret[kept] = kept_values
        values = walk(
            node, board, opponent, opp_reach.copy(), our_reach * deal, update,
            tree, cards, regret, avg, unused, d_pos, d_neg, d_avg, whole, no_reach, no_value,
        )
        gadget_update(kind, gadget_regret, alternatives, weight, opp_reach, values, d_pos, d_neg)


def solve_keeping_blueprint(
    bv: BlueprintValues, node: int, board: int, player: int, gadget: Gadget, regret: np.ndarray, avg: np.ndarray,
    *, iterations: int = 200, config: CFRConfig = DCFR,
) -> SubgameSolution | None:
    """The limit of depth-limited solving as k grows: a full-depth safe solve in which the
    re-solver plays the blueprint after the root's round while the opponent is free
    there (any continuation, learned by CFR as the rest of the subgame is).  Accumulates
    into ``regret`` and ``avg`` as :func:`solver.safe.solve_subgame`; only the round's
    rows of the result are the re-solve's (take them with :func:`round_rows`)."""
    our_reach = bv.reach(node, board, player)
    if not our_reach.any() or not (gadget.weight > 0).any():
        return None
    if gadget.kind == GADGETS["unsafe"][0] and not (gadget.blueprint_reach * (gadget.weight > 0)).any():
        return None
    later = np.setdiff1d(subgame_rows(bv, node, board, player), round_rows(bv, node, board, player))
    _solve_keeping(
        np.int64(node), np.int64(board), np.int64(player), *bv.arrays, regret, avg, later, bv.strategy[later].copy(),
        our_reach, bv.deal_probability(node), gadget.kind, gadget.alternatives, gadget.weight, gadget.blueprint_reach,
        gadget.new_regrets(), iterations, *(float(x) for x in config), gadget.unsafe_weight,
    )
    return SubgameSolution(node, board, player, gadget)


def solve_depth_limited(
    leaves: LeafValues, sub: DepthLimitedSubgame, gadget: Gadget, regret: np.ndarray, avg: np.ndarray,
    *, iterations: int = 200, config: CFRConfig = DCFR,
) -> SubgameSolution | None:
    """Re-solve the depth-limited subgame ``sub`` with ``gadget`` at its root, accumulating
    into the full-layout ``regret`` and ``avg`` (only the round's rows of the subgame
    change).  None when the subgame is unreachable (as :func:`solver.safe.solve_subgame`)."""
    bv = leaves.bv
    our_reach = bv.reach(sub.node, sub.board, sub.player)
    if not our_reach.any() or not (gadget.weight > 0).any():
        return None
    if gadget.kind == GADGETS["unsafe"][0] and not (gadget.blueprint_reach * (gadget.weight > 0)).any():
        return None
    n_h = bv.game.space.n_hands
    leaf_regret = np.zeros((sub.n_choices, n_h, sub.k))
    leaf_avg = np.zeros_like(leaf_regret)
    _dl_solve(
        np.int64(sub.node), np.int64(sub.board), np.int64(sub.player), *bv.arrays, sub.arrays,
        regret, avg, leaf_regret, leaf_avg, our_reach,
        bv.deal_probability(sub.node), gadget.kind, gadget.alternatives, gadget.weight, gadget.blueprint_reach,
        gadget.new_regrets(), iterations, *(float(x) for x in config), gadget.unsafe_weight,
    )
    return SubgameSolution(sub.node, sub.board, sub.player, gadget)


def modelled_best_response(leaves: LeafValues, sub: DepthLimitedSubgame, strategy: np.ndarray) -> np.ndarray:
    """(n_hands,) the opponent's counterfactual best-response values at the root of
    ``sub`` against ``strategy`` (tabular) as the depth-limited model sees them: the
    best action at each decision and the best of the leaf's continuations, the
    re-solver playing ``strategy`` in the round and the blueprint beyond."""
    bv = leaves.bv
    opponent = 1 - sub.player
    other = bv.reach(sub.node, sub.board, sub.player, strategy) * bv.deal_probability(sub.node)
    n_h = bv.game.space.n_hands
    unused = np.zeros(0)
    empty = np.zeros((0, n_h, max(sub.k, 1)))
    return dl_walk(
        np.int64(sub.node), np.int64(sub.board), np.int64(opponent), np.int64(opponent), np.ones(n_h), other,
        np.int64(BEST_RESPONSE), *bv.arrays, sub.arrays, unused, unused, empty, empty,
        np.asarray(strategy, np.float64), 1.0, 1.0, 1.0,
    )


def round_rows(bv: BlueprintValues, node: int, board: int, player: int) -> np.ndarray:
    """Layout indices of ``player``'s numbers in the subgame at (``node``, ``board``),
    inside the root's round only (what a depth-limited solve decides)."""
    tg = bv.game
    tree, lay, n_h = tg.tree, tg.layout, tg.space.n_hands
    r0 = int(tree.round[node])
    parts = []
    for n in subtree_nodes(bv, node):
        if tree.kind[n] == DECISION and tree.player[n] == player and tree.round[n] == r0:
            span = n_h * int(tree.child_count[n])
            parts.append(lay.offset[n] + board * span + np.arange(span))
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def continuation_names(k: int, names: Sequence[str] = CONTINUATIONS) -> tuple[str, ...]:
    """The first ``k`` continuations.

    Raises:
        ValueError: if ``k`` is not between 1 and the number of ``names``.
    """
    if not 1 <= k <= len(names):
        raise ValueError(f"k must be between 1 and {len(names)}, not {k}")
    return tuple(names[:k])
