"""The real agent as local best response's opponent: its strategy for every private hand
at any public state, and its real play along the line the hand takes.

LBR asks the policy at states the match never reaches: after each of its candidate bets,
to read the probability that the agent folds.  Those bets are often off the agent's
tree, so the agent answers exactly as it would in a match (pseudoharmonic translation
of the bet, a nested subgame solve on the river).  Such a *hypothetical* answer is
computed on a copy of the agent's memory of the hand (its reach, translated history,
solved subgames, bet-size scale) with its random generators and time bank saved and
restored around it, so asking changes nothing of the real hand.  Every answer is kept
per public state for the hand: when LBR then really makes the bet, the agent plays from
that answer and adopts the memory, generators and time bank it left, exactly as if it
had computed it only then.  The answer's rows are the quantised ones the agent samples
from, so LBR's Bayes update uses exactly the distribution the action was drawn from.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from agent.player import Agent, HandContext
from agent.strategist import AgentStrategist
from agent.strategy import RangeStrategy
from protocol.decisions import ROW_TOTAL
from protocol.rules import Action, State, with_cards
from protocol.wire import MatchState
from solver.follow import TranslationMemory


def fork(hand: HandContext) -> HandContext:
    """A copy of ``hand`` the strategist may update without touching the original.

    The reach and the translation memory are copied; solved subgames are shared: the
    strategist replaces them with new solves, it never changes one (and they are large).
    """
    notes = {key: copy.deepcopy(value) if isinstance(value, TranslationMemory) else value for key, value in hand.notes.items()}
    return HandContext(hand.number, hand.position, hand.reach.copy(), hand.scale, notes)


@dataclass(frozen=True)
class _Saved:
    """The agent's mutable state besides its hand memory: generator states and time used."""

    generators: tuple[dict, ...]
    used: float


@dataclass(frozen=True)
class _Answer:
    """The agent's answer at one public state and the state it leaves the agent in."""

    strategy: RangeStrategy
    counts: np.ndarray
    hand: HandContext
    after: _Saved
    seconds: float


class AgentRangePolicy:
    """A :data:`agent.lbr.RangePolicy` and :class:`agent.lbr.Opponent` backed by an :class:`Agent`.

    Args:
        agent: the agent, its strategist a :class:`AgentStrategist` (whose generators are saved
            and restored around hypothetical questions).

    Attributes:
        questions: answers computed (real and hypothetical) since construction.
        sources: real decisions per strategist stage (``blueprint``, ``unsafe`` ...).
        agent_seconds: time the agent spent on its real decisions (what a match would cost it).
    """

    def __init__(self, agent: Agent) -> None:
        if not isinstance(agent.strategist, AgentStrategist):
            raise TypeError("the LBR adapter needs the agent's own strategist (AgentStrategist)")
        self.agent = agent
        self.strategist: AgentStrategist = agent.strategist
        self.seat, self.cards = 0, ()
        self._answers: dict[str, _Answer] = {}
        self._played: set[str] = set()
        self.questions, self._closed = 0, 0
        self.sources: dict[str, int] = {}
        self.agent_seconds = 0.0

    # --- the opponent of a sampled match -----------------------------------------------

    def start(self, state: State, seat: int, gen: np.random.Generator) -> None:
        """A new hand: the agent sits at ``seat`` holding ``state``'s cards there (``gen`` unused:
        the agent samples with its own generator, as in a match)."""
        self._close_hand()
        self.seat, self.cards = seat, state.hole_cards[seat]
        self.agent.observe(self._match(with_cards(state, ((),) * len(state.hole_cards), ())))

    def act(self, public: State) -> Action:
        """The agent's real action at ``public``: from the (possibly already asked) answer there."""
        answer = self._answer(public)
        self.agent.hand = answer.hand
        self._restore(answer.after)
        self._played.add(public.betting)
        self.agent_seconds += answer.seconds
        self.sources[answer.strategy.source] = self.sources.get(answer.strategy.source, 0) + 1
        return self.agent.take(self._match(public), answer.strategy, answer.counts).action

    # --- the range policy ----------------------------------------------------------------

    def __call__(self, public: State) -> tuple[list[Action], np.ndarray]:
        """The agent's actions at ``public`` and their probabilities for every private hand
        (HOLE_PAIRS order; all-zero rows for hands sharing a card with the board)."""
        answer = self._answer(public)
        return list(answer.strategy.actions), answer.counts / ROW_TOTAL

    def _answer(self, public: State) -> _Answer:
        found = self._answers.get(public.betting)
        if found is not None:
            return found
        if self.agent.hand is None:
            raise RuntimeError("the LBR adapter was asked about a hand it was not started on")
        before = self._save()
        hand = fork(self.agent.hand)
        clock = self.agent.clock
        clock.start_action()
        strategy, counts = self.agent.rows(self._match(public), hand)
        seconds = clock.end_action()
        answer = _Answer(strategy, counts, hand, self._save(), seconds)
        self._restore(before)
        self._answers[public.betting] = answer
        self.questions += 1
        return answer

    @property
    def hypothetical(self) -> int:
        """Answers at states no hand reached (the hand in progress counts what it has reached so far)."""
        return self._closed + len(self._answers.keys() - self._played)

    def _close_hand(self) -> None:
        self._closed = self.hypothetical
        self._answers.clear()
        self._played.clear()

    def _match(self, public: State) -> MatchState:
        holes = [()] * len(public.spent)
        holes[self.seat] = self.cards
        return MatchState(self.seat, with_cards(public, tuple(holes), public.board))

    def _generators(self) -> list[np.random.Generator]:
        solving = self.strategist.solving
        return [self.strategist.rng] + ([solving.rng] if solving is not None else [])

    def _save(self) -> _Saved:
        return _Saved(tuple(copy.deepcopy(g.bit_generator.state) for g in self._generators()), self.agent.clock.used)

    def _restore(self, saved: _Saved) -> None:
        for gen, state in zip(self._generators(), saved.generators):
            gen.bit_generator.state = copy.deepcopy(state)
        self.agent.clock.used = saved.used
