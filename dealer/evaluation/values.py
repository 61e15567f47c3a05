"""Value functions for AIVAT: ṽ(h), what each position is expected to win from a node.

:class:`ValueFunction` is the interface :mod:`dealer.evaluation.aivat` corrects with;
:class:`CheckDownValue` is the default, which needs no training.  Its showdown
equities are exact counts over every board completion (:mod:`dealer.evaluation.showdown`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

import numpy as np
from numba import njit

from dealer.evaluation.matchlog import EvaluationError
from dealer.evaluation.showdown import outcome_counts, supported
from protocol.cards import deck
from protocol.gamedef import GameDef
from protocol.rules import State, raise_to

#: The outcome patterns of a showdown are counted in ``N**N`` bins.
MAX_PLAYERS = 6
#: The evaluator ranks 1 to 7 cards.
MAX_HAND_CARDS = 7


class AivatError(EvaluationError):
    """Decision logs that contradict the match log, or a game AIVAT cannot handle."""


def next_board_round(game: GameDef, dealt: int) -> int:
    """The round whose board cards come next once ``dealt`` board cards are out."""
    r = 0
    while game.board_cards_through(r) <= dealt:
        r += 1
    return r


def deal_logged_board(state: State, final: State) -> tuple[State, list[tuple[State, State]]]:
    """``state`` with the board cards it is due dealt as ``final`` (the logged hand's last
    state) shows them, and each deal on the way as (before, after): an action may end
    a round, or, all-in, several.

    Raises:
        AivatError: if the log does not show the cards of a round the hand reaches.
    """
    game = state.game
    dealt = len(state.board)
    deals = []
    while dealt < game.board_cards_through(state.round):
        dealt = game.board_cards_through(next_board_round(game, dealt))
        if len(final.board) < dealt:
            raise AivatError(f"hand {final.hand_number} reaches a round whose board cards the log does not show")
        deals.append((state, replace(state, board=final.board[:dealt])))
        state = deals[-1][1]
    return state, deals


class ValueFunction(ABC):
    """ṽ(h): chips each position is expected to win from a node of a fully known hand.

    A node is a :class:`~protocol.rules.State` holding every player's hole cards
    (none before the deal) and, in ``board``, exactly the board cards dealt so far:
    between a round's last action and its cards, ``state.round`` is already the new
    round while ``board`` still lacks its cards.  Implementations must be fixed
    before the data they evaluate is seen.

    Hidden hands: after the deal, a position with no hole cards holds cards nobody
    knows, uniform over the unseen ones; ṽ is then the mean over them.  A value
    function that cannot average over hidden hands raises :class:`AivatError`.
    """

    @abstractmethod
    def values(self, states: Sequence[State]) -> np.ndarray:
        """ṽ of each state, shape ``(len(states), num_players)``, by position."""

    @abstractmethod
    def chance_mean(self, state: State) -> np.ndarray:
        """Mean of ṽ over the next cards dealt at ``state``, shape ``(num_players,)``.

        With no hole cards yet, the next cards are the deal (hole cards and the first
        round's board cards, every hand hidden if the hand is replayed hidden);
        otherwise the board cards of the first round lacking them.
        """

    def raise_mean(self, state: State, low: int, high: int) -> np.ndarray:
        """Mean of ṽ after a raise to each of ``low..high`` (no-limit), shape ``(num_players,)``.

        This default evaluates every size; value functions with structure override it.
        """
        states = [state.apply(raise_to(x)) for x in range(low, high + 1)]
        return self.values(states).mean(axis=0)


class CheckDownValue(ValueFunction):
    """The default ṽ: call, check it down, and count the chips.

    Every player still in calls the current bet (as far as its stack allows), nobody
    bets again, and the board is dealt out: ṽ is each player's expected winnings at
    that showdown under the reference's side-pot rules, averaged exactly over every
    completion of the board from the cards not yet seen (folded hands are dead cards).
    At the end of a hand it is exactly what the hand paid.

    Hidden hands: when every player still in holds a hidden hand, their hands are
    exchangeable, so each pot is on average split evenly among the players eligible
    for it, exactly as if all of them tied; ṽ is that split, whatever the board.  A
    mix of hidden and known hands among the players still in is refused.

    Why this is cheap and exact at chance nodes: dealing a card changes neither the
    chips in nor who is in, and an exact average over completions is a martingale, so
    the mean of ṽ over the next board cards is ṽ before them.  Before the deal every
    hand is hidden, and the mean over the deal is that even split (zero once the
    blinds are called): positions are exchangeable under a uniform deal.  Between
    kinks at the other players' stacks and bets, ṽ is linear in a raise's size, so
    the mean over a uniform range of sizes is ṽ at a few averaged sizes.
    """

    def __init__(self, game: GameDef) -> None:
        if game.num_players > MAX_PLAYERS:
            raise AivatError(f"the default AIVAT value function handles up to {MAX_PLAYERS} players")
        if game.num_hole_cards + game.total_board_cards > MAX_HAND_CARDS:
            raise AivatError(f"the default AIVAT value function ranks hands of at most {MAX_HAND_CARDS} cards")
        if not supported(game.num_hole_cards, game.total_board_cards):
            raise AivatError("the default AIVAT value function handles games with 2 × hole cards + board cards below 10")
        self.game = game
        self._deck = tuple(deck(game))

    def values(self, states: Sequence[State]) -> np.ndarray:
        spent = np.array([self._called(s) for s in states], dtype=np.float64).reshape(len(states), -1)
        return self._showdown(states, spent)

    def chance_mean(self, state: State) -> np.ndarray:
        # Known hands: the exact average over completions is a martingale.  Hidden ones
        # (before the deal, all are) split evenly whatever comes.  Either way: ṽ now.
        return self.values([state])[0]

    def raise_mean(self, state: State, low: int, high: int) -> np.ndarray:
        g = self.game
        raiser = state.current_player
        # Kinks: where a raise size crosses another player's chips in or stack.
        kinks = sorted(
            {v for p in range(g.num_players) if p != raiser for v in (state.spent[p], g.stack[p]) if low <= v < high}
        )
        edges = [low - 1, *kinks, high]
        sizes, weights = [], []
        for a, b in pairwise(edges):
            # Integers a+1..b lie on one linear piece: their mean is ṽ at their mean size.
            sizes.append((a + 1 + b) / 2)
            weights.append((b - a) / (high - low + 1))
        after = state.apply(raise_to(low))
        spent = np.empty((len(sizes), g.num_players))
        for i, size in enumerate(sizes):
            spent[i] = [s if f else min(size, g.stack[p]) for p, (s, f) in enumerate(zip(after.spent, after.folded))]
        return np.asarray(weights) @ self._showdown([after] * len(sizes), spent)

    def _called(self, state: State) -> list[float]:
        """Chips in once every player still in has called the current bet."""
        stack = self.game.stack
        return [
            float(s) if f else float(min(state.max_spent, stack[p])) for p, (s, f) in enumerate(zip(state.spent, state.folded))
        ]

    def _showdown(self, states: Sequence[State], spent: np.ndarray) -> np.ndarray:
        """Expected showdown winnings for ``spent[i]`` chips in at each state's cards."""
        out = np.empty_like(spent)
        groups: dict[tuple, list[int]] = {}
        for i, s in enumerate(states):
            groups.setdefault((s.hole_cards, s.board), []).append(i)
        for (holes, board), rows in groups.items():
            folded = np.array([states[i].folded for i in rows], dtype=np.bool_)
            if (folded.sum(axis=1) >= self.game.num_players - 1).all() or all(_all_in_hidden(states[i]) for i in rows):
                # A sole survivor's winnings do not depend on the cards, and hidden
                # hands split every pot evenly on average: pattern 0, all tied.
                counts = _ONE_PATTERN
            else:
                if not all(holes):
                    raise AivatError("the default value function needs every hand, or every hand still in hidden")
                counts = outcome_counts(self._deck, holes, board, self.game.total_board_cards)
            out[rows] = _expected_payoffs(counts, spent[rows], folded)
        return out


#: Pattern 0 (all hands equal) seen once: enough when at most one player is in.
_ONE_PATTERN = np.ones(1, np.int64)


def _all_in_hidden(state: State) -> bool:
    """Whether every player still in holds a hidden hand (no hole cards)."""
    return not any(h for h, f in zip(state.hole_cards, state.folded) if not f)


@njit(cache=True)
def _pot_payoffs(strength: np.ndarray, spent: np.ndarray, folded: np.ndarray, out: np.ndarray) -> None:
    """Chips won at a showdown (reference side-pot rules), written into ``out``.

    strength: ``int64[N]``, larger wins; spent: ``float64[N]`` chips in; folded:
    ``bool[N]``.  The smallest remaining contribution is peeled off as one pot at a
    time and split among the strongest players still in who paid into it.
    """
    n = spent.shape[0]
    left = spent.copy()
    for p in range(n):
        out[p] = -spent[p]
    while True:
        size = np.inf
        for p in range(n):
            if 0 < left[p] < size:
                size = left[p]
        if size == np.inf:
            return
        best = -(1 << 62)
        contributors = 0
        for p in range(n):
            if left[p] > 0:
                contributors += 1
                if not folded[p] and strength[p] > best:
                    best = strength[p]
        winners = 0
        for p in range(n):
            if left[p] > 0 and not folded[p] and strength[p] == best:
                winners += 1
        for p in range(n):
            if left[p] > 0:
                if winners == 0:
                    # Nobody still in paid into this pot: it goes back (keeps the sum zero).
                    out[p] += size
                elif not folded[p] and strength[p] == best:
                    out[p] += size * contributors / winners
                left[p] -= size


@njit(cache=True)
def _expected_payoffs(counts: np.ndarray, spent: np.ndarray, folded: np.ndarray) -> np.ndarray:
    """Mean showdown winnings over pattern ``counts`` for each row of ``spent``/``folded``.

    counts: ``int64[N**N]`` from :func:`dealer.evaluation.showdown.outcome_counts`; spent: ``float64[K, N]``;
    folded: ``bool[K, N]``.  Returns ``float64[K, N]``.
    """
    k_rows, n = spent.shape
    out = np.zeros((k_rows, n))
    payoff = np.empty(n)
    strength = np.empty(n, np.int64)
    total = 0
    for code in range(counts.shape[0]):
        if counts[code] == 0:
            continue
        total += counts[code]
        rest = code
        for p in range(n):
            strength[p] = -(rest % n)
            rest //= n
        for k in range(k_rows):
            _pot_payoffs(strength, spent[k], folded[k], payoff)
            for p in range(n):
                out[k, p] += counts[code] * payoff[p]
    return out / total
