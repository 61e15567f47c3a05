"""The agent's player: from a match state to a legal action and its log rows.

:class:`Agent` keeps what the agent knows about the hand in progress (its own range:
the probability it would have played the hand so far with each private hand) and
asks a :class:`Strategist` for a :class:`~agent.strategy.RangeStrategy` at every
decision.  Whatever the strategist returns is made legal (raise sizes clamped through
``State.raise_bounds``), quantised to the rows the decision log stores, and the
action is sampled from the row of the hand actually held, so the log's distribution
is exactly the one sampled from.  A strategist that fails or returns nonsense costs
a check/call, never a crash or an illegal reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import structlog

from agent.strategy import RangeStrategy, legalize, quantize
from agent.timing import TimeManager
from protocol.decisions import ROW_TOTAL, LoggedRange, private_hands
from protocol.gamedef import GameDef
from protocol.rules import CALL, Action, ActionType
from protocol.seeding import ACTIONS, reseed
from protocol.wire import MatchState

log = structlog.get_logger("agent.player")


@dataclass
class HandContext:
    """The agent's memory of the hand in progress.

    ``reach[h]``: the agent's own probability of having played this hand's earlier
    decisions as it did, holding private hand ``h``.  ``scale`` is the bet-size
    randomization factor, drawn once per hand at its first subgame solve.  ``notes``
    belongs to the strategist (translated history, subgame solutions ...).
    """

    number: int
    position: int
    reach: np.ndarray
    scale: float | None = None
    notes: dict[str, Any] = field(default_factory=dict)


class Strategist(Protocol):
    """What the player asks at each decision: the strategy for every private hand at a node."""

    def strategy(self, match: MatchState, hand: HandContext, clock: TimeManager) -> RangeStrategy: ...

    def start_hand(self, number: int, position: int) -> None:
        """A new hand begins: restart any random stream on this hand's (:mod:`protocol.seeding`)."""


@dataclass(frozen=True, slots=True)
class AgentDecision:
    """What the agent sends and logs for one decision."""

    action: Action
    probs: list[tuple[str, float]]
    range: LoggedRange
    source: str
    detail: dict | None = None


class Agent:
    """Decides every action of a match through ``strategist``, tracking its own range."""

    def __init__(self, game: GameDef, strategist: Strategist, clock: TimeManager, seed: int = 0) -> None:
        self.game = game
        self.strategist = strategist
        self.clock = clock
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        hands = private_hands(game)
        self.hand_cards = np.array(hands, dtype=np.int64)
        self.hand_index = {h: i for i, h in enumerate(hands)}
        self.hand: HandContext | None = None

    def observe(self, match: MatchState) -> HandContext:
        """Follow the match: a new hand number (or seat) starts a new hand context."""
        hand = self.hand
        if hand is None or hand.number != match.hand_number or hand.position != match.position:
            hand = HandContext(match.hand_number, match.position, np.ones(len(self.hand_cards)))
            self.hand = hand
            self.clock.start_hand()
            # Each hand draws from its own streams: two matches on the same deals that
            # differ in one seat play alike until it acts differently (`dealer compare`).
            reseed(self.rng, self.seed, hand.number, hand.position, ACTIONS)
            self.strategist.start_hand(hand.number, hand.position)
        return hand

    def blocked(self, match: MatchState) -> np.ndarray:
        """bool ``(hands,)``: private hands sharing a card with the visible board."""
        board = np.array(match.state.board, dtype=np.int64)
        if board.size == 0:
            return np.zeros(len(self.hand_cards), dtype=bool)
        return np.isin(self.hand_cards, board).any(axis=1)

    def _strategy(self, match: MatchState, hand: HandContext) -> RangeStrategy:
        try:
            return legalize(match.state, self.strategist.strategy(match, hand, self.clock))
        except Exception as exc:  # any failure of a stage costs a check/call, never the match
            log.error("strategy failed; checking/calling", hand=match.hand_number, error=repr(exc))
            return RangeStrategy((CALL,), np.ones((len(self.hand_cards), 1)), "fallback")

    def rows(self, match: MatchState, hand: HandContext) -> tuple[RangeStrategy, np.ndarray]:
        """The legal strategy at ``match`` (the agent's turn) given ``hand``'s memory, and
        its rows quantised as :meth:`decide` samples and logs them (uint16 ``(hands, actions)``).

        ``hand`` may be a copy of the real context (local best response asks about states
        the match never reaches); the strategist updates its notes, nothing else changes.
        """
        strategy = self._strategy(match, hand)
        call_column = next((i for i, a in enumerate(strategy.actions) if a.kind == ActionType.CALL), 0)
        return strategy, quantize(strategy.probs, self.blocked(match), call_column)

    def decide(self, match: MatchState) -> AgentDecision:
        """The action to send at ``match`` (the agent's turn) and its decision-log rows."""
        hand = self.observe(match)
        return self.take(match, *self.rows(match, hand))

    def take(self, match: MatchState, strategy: RangeStrategy, counts: np.ndarray) -> AgentDecision:
        """Sample the action of the hand held from ``counts`` (:meth:`rows`) and update the reach."""
        hand = self.observe(match)
        blocked = self.blocked(match)
        held = self.hand_index[tuple(sorted(match.my_cards))]
        row = counts[held]
        column = int(np.searchsorted(np.cumsum(row), self.rng.integers(ROW_TOTAL), side="right"))
        weights = np.where(blocked, 0.0, hand.reach)
        logged = LoggedRange.pack(counts, weights)
        hand.reach = weights * (counts[:, column] / ROW_TOTAL)
        probs = [(str(a), int(c) / ROW_TOTAL) for a, c in zip(strategy.actions, row)]
        detail = {"source": strategy.source, **(strategy.detail or {})}
        return AgentDecision(strategy.actions[column], probs, logged, strategy.source, detail)
