"""A plain-Python CFR that walks the rules' states deal by deal, to check the kernels.

Independent of :mod:`solver.tree` and :mod:`solver.deals`: it enumerates deals with
itertools, keys infosets by (player, hole cards, visible board, betting) in dicts and
applies the same DCFR(α, β, γ) discounting once per infoset per traversal.  Limit
games only (no action abstraction).
"""

from __future__ import annotations

import math
from itertools import combinations, permutations

from protocol.cards import deck
from protocol.gamedef import GameDef
from protocol.rules import (
    CALL,
    FOLD,
    LIMIT_RAISE,
    ActionType,
    State,
    initial_state,
    with_cards,
)

_ACTIONS = {ActionType.FOLD: FOLD, ActionType.CALL: CALL, ActionType.RAISE: LIMIT_RAISE}


def _factor(exponent: float, x: float) -> float:
    if exponent == math.inf:
        return 1.0
    if exponent == -math.inf:
        return 0.0
    return x**exponent / (x**exponent + 1.0)


def _deals(game: GameDef) -> list[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]]:
    cards = deck(game)
    k = game.num_hole_cards
    out = []
    for holes in permutations(combinations(cards, k), game.num_players):
        used = {c for h in holes for c in h}
        if len(used) < k * game.num_players:
            continue
        boards: list[tuple[int, ...]] = [()]
        for r in range(game.num_rounds):
            boards = [
                b + new
                for b in boards
                for new in combinations([c for c in cards if c not in used and c not in b], game.num_board_cards[r])
            ]
        out.extend((holes, b) for b in boards)
    return out


class ReferenceCFR:
    """History-by-history CFR; ``regret`` and ``avg`` map infoset keys to lists."""

    def __init__(self, game: GameDef, alpha: float, beta: float, gamma: float) -> None:
        self.game, self.alpha, self.beta, self.gamma = game, alpha, beta, gamma
        self.deals = _deals(game)
        self.chance = 1.0 / len(self.deals)
        self.regret: dict[tuple, list[float]] = {}
        self.avg: dict[tuple, list[float]] = {}
        self.t = 0
        self._children: dict[tuple, list[State]] = {}
        self._payoff: dict[tuple, tuple[float, ...]] = {}

    def key(self, state: State, holes: tuple, board: tuple) -> tuple:
        p = state.current_player
        return (p, holes[p], board[: self.game.board_cards_through(state.round)], state.actions)

    def _next(self, state: State) -> list[State]:
        path = state.actions
        if path not in self._children:
            self._children[path] = [state.apply(_ACTIONS[k]) for k in state.legal_action_types()]
        return self._children[path]

    def strategy(self, key: tuple, n: int) -> list[float]:
        r = self.regret.setdefault(key, [0.0] * n)
        total = sum(x for x in r if x > 0)
        return [max(x, 0.0) / total for x in r] if total > 0 else [1.0 / n] * n

    def _walk(self, state: State, deal: int, trav: int, pi_t: float, pi_o: float, acc: dict, own: dict) -> float:
        holes, board = self.deals[deal]
        if state.finished:
            cache = (state.actions, deal)
            if cache not in self._payoff:
                self._payoff[cache] = with_cards(state, holes, board).values()
            return self._payoff[cache][trav]
        children = self._next(state)
        key = self.key(state, holes, board)
        sigma = self.strategy(key, len(children))
        if state.current_player != trav:
            return sum(s * self._walk(c, deal, trav, pi_t, pi_o * s, acc, own) for s, c in zip(sigma, children))
        values = [self._walk(c, deal, trav, pi_t * s, pi_o, acc, own) for s, c in zip(sigma, children)]
        v = sum(s * x for s, x in zip(sigma, values))
        regrets = acc.setdefault(key, [0.0] * len(children))
        for a, x in enumerate(values):
            regrets[a] += pi_o * (x - v)
        own[key] = (pi_t, sigma)
        return v

    def iterate(self) -> None:
        self.t += 1
        x = float(self.t - 1)
        d_pos, d_neg, d_avg = _factor(self.alpha, x), _factor(self.beta, x), (x / self.t) ** self.gamma
        root = initial_state(self.game)
        for trav in range(self.game.num_players):
            acc: dict = {}
            own: dict = {}
            for deal in range(len(self.deals)):
                self._walk(root, deal, trav, 1.0, self.chance, acc, own)
            for key, inst in acc.items():
                old = self.regret[key]
                self.regret[key] = [r * (d_pos if r > 0 else d_neg) + i for r, i in zip(old, inst)]
                pi_t, sigma = own[key]
                avg = self.avg.setdefault(key, [0.0] * len(old))
                self.avg[key] = [s_old * d_avg + pi_t * s for s_old, s in zip(avg, sigma)]
