"""The agent's strategist: blueprint with action translation, then subgame solving.

Preflop and flop come from the blueprint: the real hand is followed down the
blueprint's betting tree (:mod:`agent.translate`: randomized pseudoharmonic
translation of the opponent's off-tree bets, the Libratus rule), and the blueprint's
strategy at that node is read for every private hand.  From the turn on (earlier
once no raise is possible) :class:`agent.solving.SolvingStage` solves subgames in
real time; when it cannot (no time left, a solve without an iteration) the
blueprint answers.  ``--blueprint-only`` never solves.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from agent.policy import HandContext
from agent.strategy import RangeStrategy
from agent.timing import TimeManager
from agent.translate import TranslationMemory, real_actions, walk
from protocol.gamedef import GameDef
from protocol.rules import State
from protocol.wire import MatchState
from solver.tree import BettingTree

if TYPE_CHECKING:  # the solving stage (and its numba kernels) loads only when used
    from agent.solving import SolvingStage


class PipelineError(Exception):
    """The agent cannot be assembled (wrong game, missing or mismatched blueprint)."""


class OffTree(Exception):
    """The hand left the blueprint's tree where no subgame is solved."""


class BlueprintSource(Protocol):
    """What the agent reads from a blueprint: its tree, and at a decision node the
    strategy of every private hand (HOLE_PAIRS order) given the board so far."""

    tree: BettingTree

    def range_strategy(self, node: int, board: tuple[int, ...]) -> np.ndarray: ...


def solves_here(state: State) -> bool:
    """Whether the agent solves at ``state``: from the turn on, or from the flop when
    no more raises are possible (a call or fold decision with cards to come)."""
    return state.round >= 2 or (state.round >= 1 and state.raise_bounds() is None)


class Pipeline:
    """Blueprint (+ translation) first, subgame solving where :func:`solves_here`."""

    def __init__(self, blueprint: BlueprintSource, solving: SolvingStage | None, seed: int = 0) -> None:
        self.blueprint = blueprint
        self.solving = solving
        self.rng = np.random.default_rng([seed, 1])

    def strategy(self, match: MatchState, hand: HandContext, clock: TimeManager) -> RangeStrategy:
        state = match.state
        if self.solving is not None and solves_here(state):
            solved = self.solving.strategy(match, hand, clock, self._opponent_range(hand, match.position))
            if solved is not None:
                return solved
        return self._blueprint(match, hand)

    def _walk(self, hand: HandContext, state: State, me: int):
        memory = hand.notes.setdefault("translation", TranslationMemory())
        return walk(self.blueprint.tree, state, memory, self.rng, me)

    def _blueprint(self, match: MatchState, hand: HandContext) -> RangeStrategy:
        state = match.state
        found = self._walk(hand, state, match.position)
        if found is None:
            raise OffTree(f"hand {state.hand_number} left the blueprint's tree at {state.betting!r}")
        node, _ = found
        tree = self.blueprint.tree
        return RangeStrategy(real_actions(tree, node, state), self.blueprint.range_strategy(node, state.board), "blueprint")

    def _opponent_range(self, hand: HandContext, me: int) -> Callable[[State], np.ndarray]:
        """The opponent's range at a state by the blueprint along the translated path
        (uniform where the path left the tree)."""

        def at(state: State) -> np.ndarray:
            reach = np.ones(len(hand.reach))
            found = self._walk(hand, state, me)
            if found is None:
                return reach
            tree, game = self.blueprint.tree, state.game
            for step in found[1]:
                if step.player != me:
                    board = state.board[: game.board_cards_through(int(tree.round[step.node]))]
                    column = step.edge - int(tree.child_start[step.node])
                    reach *= self.blueprint.range_strategy(step.node, board)[:, column]
            return reach

        return at


def build_strategist(game: GameDef, blueprint_path: Path | None, *, blueprint_only: bool, seed: int) -> Pipeline:
    """The agent's strategist for ``game``.

    Raises:
        PipelineError: if the game is not heads-up no-limit or the blueprint cannot be
            loaded for it (the message names the file and what to rebuild).
    """
    if game.num_players != 2 or not game.is_nolimit:
        raise PipelineError("the agent plays heads-up no-limit games only")
    from agent.blueprint import load_blueprint

    blueprint = load_blueprint(game, blueprint_path)
    if blueprint_only:
        return Pipeline(blueprint, None, seed)
    from agent.solving import SolvingStage

    solving = SolvingStage(np.random.default_rng([seed, 2]))
    return Pipeline(blueprint, solving, seed)
