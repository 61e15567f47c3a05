"""A card-dependent stand-in strategist for testing the agent's machinery (tests only).

Plays by a crude strength score of its hole cards alone (high ranks, pairs, suited),
so every row of its range strategy differs by hand.  It is not the agent's strategy:
the agent ships with the blueprint and subgame-solving strategist.
"""

from __future__ import annotations

import numpy as np

from agent.player import HandContext
from agent.strategy import RangeStrategy
from agent.timing import TimeManager
from protocol.cards import card_rank, card_suit
from protocol.decisions import private_hands
from protocol.rules import CALL, FOLD, Action, ActionType, raise_to
from protocol.wire import MatchState


class StrengthStrategist:
    """Raise strong hands, fold weak ones facing a bet, call the rest (smoothly mixed)."""

    def __init__(self, game) -> None:
        hands = private_hands(game)
        ranks = np.array([[card_rank(c) for c in h] for h in hands], dtype=np.float64)
        suits = np.array([[card_suit(c) for c in h] for h in hands])
        score = ranks.max(axis=1) / 12.0
        if ranks.shape[1] > 1:
            score = 0.6 * score + 0.4 * ranks.mean(axis=1) / 12.0
            score += 0.3 * (ranks.min(axis=1) == ranks.max(axis=1)) + 0.05 * (suits.min(axis=1) == suits.max(axis=1))
        self.strength = np.clip(score, 0.0, 1.0)

    def start_hand(self, number: int, position: int) -> None:
        """Nothing random here."""

    def strategy(self, match: MatchState, hand: HandContext, clock: TimeManager) -> RangeStrategy:
        state = match.state
        s = self.strength
        actions: list[Action] = [CALL]
        columns = [np.full_like(s, 0.5)]
        if state.can_fold():
            actions.insert(0, FOLD)
            columns.insert(0, np.clip(0.8 - s, 0.0, 1.0))
        bounds = state.raise_bounds()
        if bounds is not None:
            pot_raise = state.max_spent + state.pot + state.amount_to_call()
            actions.append(raise_to(pot_raise) if state.game.is_nolimit else Action(ActionType.RAISE))
            columns.append(np.clip(s - 0.3, 0.0, 1.0) * 2)
        probs = np.stack(columns, axis=1)
        return RangeStrategy(tuple(actions), probs / probs.sum(axis=1, keepdims=True), "strength")
