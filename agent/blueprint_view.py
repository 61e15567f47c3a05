"""The blueprint as one decision sees it: computed once by the strategist, read by every stage.

At each decision the real hand is followed down the blueprint's tree once
(:func:`solver.follow.walk`); :class:`BlueprintView` holds what that gives: the node the
real state translates to, the path there, and (where a stage needs it) the opponent's
range by the blueprint along that path.  The blueprint stage reads its row at the node,
the all-in rule and a hand's first solve the opponent's range, and a first solve values
the blueprint's subtree below the node for its safe alternatives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from protocol.rules import State
from solver.follow import Step
from solver.tree import BettingTree

if TYPE_CHECKING:  # the solving side (and its numba kernels) loads only when solving is on
    from solver.subgame.alternatives import BlueprintRows


class BlueprintSource(Protocol):
    """What the agent reads from a blueprint: its tree, and at a decision node the
    strategy of every private hand (HOLE_PAIRS order) given the board so far."""

    tree: BettingTree

    def range_strategy(self, node: int, board: tuple[int, ...]) -> np.ndarray: ...


@dataclass(frozen=True)
class BlueprintView:
    """The blueprint at one decision of the agent.

    Attributes:
        node: the blueprint's decision node the real state translates to (None: the path left the tree).
        path: the translated steps from the root to ``node`` (empty when it left the tree).
        opponent_reach: the opponent's range (HOLE_PAIRS order) by the blueprint along ``path``,
            uniform where it left the tree; None where no stage asked for it.
        valuer: the blueprint again where it can value its subtree below ``node`` for a first
            solve's alternatives (:func:`solver.subgame.alternatives.blueprint_alternatives`), else None.
    """

    node: int | None
    path: tuple[Step, ...]
    opponent_reach: np.ndarray | None = None
    valuer: BlueprintRows | None = None


def opponent_reach(blueprint: BlueprintSource, state: State, path: tuple[Step, ...], me: int, n_hands: int) -> np.ndarray:
    """The opponent's range at ``state`` (``n_hands`` in HOLE_PAIRS order) by the blueprint
    along ``path``: the product of its rows at the opponent's steps.  A raise past the
    tree's cap, which took the tree back (a collapsed step), weighs nothing more."""
    reach = np.ones(n_hands)
    tree, game = blueprint.tree, state.game
    for step in path:
        if step.player != me and not step.collapsed:
            board = state.board[: game.board_cards_through(int(tree.round[step.node]))]
            column = step.edge - int(tree.child_start[step.node])
            reach *= blueprint.range_strategy(step.node, board)[:, column]
    return reach


def can_value(blueprint: BlueprintSource) -> bool:
    """Whether ``blueprint`` has the tree navigation a first solve's alternatives need
    (:class:`precompute.blueprint.Blueprint` has; test stand-ins may not)."""
    return hasattr(blueprint, "child") and hasattr(blueprint, "actions")
