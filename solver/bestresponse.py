"""Exact best response, exploitability and NashConv of strategies.

Two-player games use the range-vector kernel (:func:`solver.ranges.walk` in
best-response mode), so any game :mod:`solver.deals` can enumerate is handled in
O(hands) per terminal.  Games with more players (3-player Kuhn) enumerate every deal
and ask the rules for each showdown's payoffs; that is exact but only for small games.

Strategies are tabular (one row per board and hand, :class:`TabularGame` layout).
:func:`tabulate_policy` turns a callable policy into one and :func:`expand_buckets`
a strategy over card buckets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from protocol.rules import Action, State, with_cards
from solver.deals import all_deals
from solver.ranges import (
    BEST_RESPONSE,
    EVALUATE,
    TabularGame,
    kernel_arrays,
    root_values,
)
from solver.tree import CHANCE, DECISION, FOLD_END, SHOWDOWN, Layout

#: Deal enumeration refuses games with more deals than this.
MAX_DEALS = 200_000

Policy = Callable[[State, Sequence[Action]], Sequence[float]]


class Exploitability(NamedTuple):
    """How much each player could gain by deviating from a strategy profile.

    ``values[p]`` is player p's expected chips under the profile and
    ``best_responses[p]`` its expected chips playing a best response to the others.
    """

    values: tuple[float, ...]
    best_responses: tuple[float, ...]
    big_blind: int

    @property
    def gains(self) -> tuple[float, ...]:
        return tuple(b - v for b, v in zip(self.best_responses, self.values))

    @property
    def nash_conv(self) -> float:
        """Sum of every player's best-response gain, in chips (0 at a Nash equilibrium)."""
        return float(sum(self.gains))

    @property
    def exploitability(self) -> float:
        """NashConv divided by the number of players (OpenSpiel's exploitability), chips."""
        return self.nash_conv / len(self.values)

    @property
    def exploitability_mbb(self) -> float:
        """Exploitability (NashConv / players) in milli-big-blinds per hand."""
        return 1000.0 * self.exploitability / self.big_blind


def check_strategy(game: TabularGame, strategy: np.ndarray, *, tolerance: float = 1e-6) -> np.ndarray:
    """Return ``strategy`` as float64 after checking it is a distribution on every row.

    Raises:
        ValueError: naming the first node whose rows are not probability distributions.
    """
    s = np.asarray(strategy, dtype=np.float64)
    if s.shape != (game.layout.size,):
        raise ValueError(f"the strategy has shape {s.shape}, but this tree's tabular layout needs ({game.layout.size},)")
    tree, lay = game.tree, game.layout
    for node in np.flatnonzero(tree.kind == DECISION):
        n_a = int(tree.child_count[node])
        rows = s[lay.offset[node] : lay.offset[node] + lay.rows[tree.round[node]] * n_a].reshape(-1, n_a)
        if not np.all(np.isfinite(rows)) or rows.min() < 0 or np.abs(rows.sum(axis=1) - 1).max() > tolerance:
            raise ValueError(f"the strategy at node {node} is not a probability distribution on every row")
    return s


def exploitability(game: TabularGame, strategy: np.ndarray) -> Exploitability:
    """Exact values and best responses for a tabular strategy profile.

    Raises:
        ValueError: if the strategy does not fit the game (see :func:`check_strategy`).
    """
    s = check_strategy(game, strategy)
    if game.game.num_players != 2:
        return deal_exploitability(game, s)
    tree, cards = kernel_arrays(game)
    unused = np.zeros(0)
    values, best = [], []
    for p in range(2):
        values.append(float(root_values(p, EVALUATE, tree, cards, unused, unused, s, 1.0, 1.0, 1.0).sum()))
        best.append(float(root_values(p, BEST_RESPONSE, tree, cards, unused, unused, s, 1.0, 1.0, 1.0).sum()))
    return Exploitability(tuple(values), tuple(best), game.game.big_blind)


class _Deals(NamedTuple):
    """Every deal of a small game: hand per player, board index per round, payoffs."""

    hands: np.ndarray  # (D, players)
    boards: np.ndarray  # (D, rounds)
    probability: float
    showdown: dict[int, np.ndarray]  # showdown node → (D, players) chips


def _enumerate_deals(game: TabularGame) -> _Deals:
    space, tree, g = game.space, game.tree, game.game
    last = g.num_rounds - 1
    hands, boards = all_deals(space, MAX_DEALS)
    showdown = {}
    for node in np.flatnonzero(tree.kind == SHOWDOWN):
        state = tree.states[node]
        showdown[int(node)] = np.array(
            [
                with_cards(
                    state, tuple(tuple(space.hands[h].tolist()) for h in c), tuple(space.boards[last][b].tolist())
                ).values()
                for c, b in zip(hands, boards[:, last])
            ]
        )
    probability = space.hand_probability() * space.deal_probability(-1, last)
    return _Deals(hands, boards, probability, showdown)


def deal_exploitability(game: TabularGame, strategy: np.ndarray) -> Exploitability:
    """Exact values and best responses by enumerating deals: any number of players, small games.

    Raises:
        ValueError: if the strategy does not fit or the game has too many deals.
    """
    s = check_strategy(game, strategy)
    deals = _enumerate_deals(game)
    n_players = game.game.num_players
    ones = np.ones(len(deals.hands))
    values = [float(_deal_values(game, deals, 0, p, ones, s, False).sum() * deals.probability) for p in range(n_players)]
    best = [float(_deal_values(game, deals, 0, p, ones, s, True).sum() * deals.probability) for p in range(n_players)]
    return Exploitability(tuple(values), tuple(best), game.game.big_blind)


def _deal_values(
    game: TabularGame, deals: _Deals, node: int, trav: int, reach_o: np.ndarray, s: np.ndarray, best: bool
) -> np.ndarray:
    """Traverser's chips per deal below ``node``, weighted by the others' reach ``reach_o``.

    With ``best`` the traverser picks, per infoset, the action with the largest
    reach-weighted value (perfect recall makes the choices of deeper infosets final).
    """
    tree, lay = game.tree, game.layout
    kind = tree.kind[node]
    if kind == FOLD_END:
        return reach_o * tree.fold_value[node, trav]
    if kind == CHANCE:
        return _deal_values(game, deals, int(tree.children[tree.child_start[node]]), trav, reach_o, s, best)
    if kind == SHOWDOWN:
        return reach_o * deals.showdown[node][:, trav]
    p, r = tree.player[node], tree.round[node]
    n_a = int(tree.child_count[node])
    rows = deals.boards[:, r] * game.space.n_hands + deals.hands[:, p]
    sigma = s[lay.offset[node] + rows[:, None] * n_a + np.arange(n_a)]
    children = tree.children[tree.child_start[node] : tree.child_start[node] + n_a]
    if p != trav:
        return sum(_deal_values(game, deals, int(c), trav, reach_o * sigma[:, a], s, best) for a, c in enumerate(children))
    child = np.array([_deal_values(game, deals, int(c), trav, reach_o, s, best) for c in children])
    if not best:
        return (sigma.T * child).sum(axis=0)
    totals = np.zeros((lay.rows[r], n_a))
    for a in range(n_a):
        totals[:, a] = np.bincount(rows, weights=child[a], minlength=lay.rows[r])
    choice = totals.argmax(axis=1)[rows]
    return child[choice, np.arange(len(rows))]


def tabulate_policy(game: TabularGame, policy: Policy) -> np.ndarray:
    """Tabular strategy of a callable ``policy(state, actions) -> probabilities``.

    ``state`` is the rules' state as the acting player sees it (its own hole cards
    and the board so far); ``actions`` are the tree's actions there.  Rows whose hand
    clashes with the board are uniform.

    Raises:
        ValueError: if the policy returns the wrong number of probabilities.
    """
    tree, space, lay = game.tree, game.space, game.layout
    out = game.uniform_strategy()
    for node in np.flatnonzero(tree.kind == DECISION):
        p, r = int(tree.player[node]), int(tree.round[node])
        actions = tree.actions(node)
        state = tree.states[node]
        for b in range(space.n_boards[r]):
            board = tuple(space.boards[r][b].tolist())
            for h in np.flatnonzero(space.compat[r][b]):
                holes = tuple(tuple(space.hands[h].tolist()) if q == p else () for q in range(game.game.num_players))
                probs = np.asarray(policy(with_cards(state, holes, board), actions), dtype=np.float64)
                if probs.shape != (len(actions),):
                    raise ValueError(
                        f"the policy returned {probs.shape[0] if probs.ndim else 1} probabilities "
                        f"for {len(actions)} actions at node {node}"
                    )
                start = lay.offset[node] + (b * space.n_hands + h) * len(actions)
                out[start : start + len(actions)] = probs
    return out


def expand_buckets(
    game: TabularGame, buckets: Sequence[np.ndarray], bucket_layout: Layout, strategy: np.ndarray
) -> np.ndarray:
    """Tabular strategy of a ``strategy`` over card buckets.

    Args:
        buckets: per round, (boards, hands) int array giving each row's bucket.
        bucket_layout: the layout ``strategy`` is stored in (rows = buckets per round).

    Raises:
        ValueError: if the bucket tables do not match the game's boards and hands.
    """
    tree, space, lay = game.tree, game.space, game.layout
    for r, table in enumerate(buckets):
        if table.shape != (space.n_boards[r], space.n_hands):
            raise ValueError(
                f"bucket table of round {r + 1} has shape {table.shape}, expected {(space.n_boards[r], space.n_hands)}"
            )
        if table.min() < 0 or table.max() >= bucket_layout.rows[r]:
            raise ValueError(f"bucket table of round {r + 1} has buckets outside 0..{bucket_layout.rows[r] - 1}")
    out = np.empty(lay.size)
    for node in np.flatnonzero(tree.kind == DECISION):
        n_a, r = int(tree.child_count[node]), int(tree.round[node])
        source = bucket_layout.offset[node] + buckets[r].ravel()[:, None] * n_a + np.arange(n_a)
        out[lay.offset[node] : lay.offset[node] + lay.rows[r] * n_a] = np.asarray(strategy)[source].ravel()
    return out
