"""The pipeline with a stand-in blueprint: tree lookup through translation, the
opponent's range along the path, and the fallback when the hand leaves the tree."""

from __future__ import annotations

import numpy as np

from agent.pipeline import Pipeline
from agent.policy import Agent
from agent.timing import TimeLimits, TimeManager
from agent.translate import TranslationMemory, real_actions, walk
from protocol.gamedef import load_game
from protocol.rules import CALL
from protocol.wire import parse_matchstate
from solver.abstraction import parse_abstraction
from solver.tree import build_tree
from tests.agent.placeholder import StrengthStrategist

GAME = load_game("holdem.nolimit.2p")


class StandInBlueprint:
    """A card-dependent strategy over a small tree (tests only): the strength score
    of the placeholder strategist spread over each node's actions."""

    def __init__(self) -> None:
        self.tree = build_tree(GAME, parse_abstraction("0.5,1/1;allin;cap=2"))
        self.strength = StrengthStrategist(GAME).strength
        self.calls: list[tuple[int, tuple[int, ...]]] = []

    def range_strategy(self, node: int, board: tuple[int, ...]) -> np.ndarray:
        self.calls.append((node, tuple(board)))
        n = int(self.tree.child_count[node])
        weights = np.stack([self.strength ** (a + 1) + 0.1 * (node % 3) for a in range(n)], axis=1)
        return weights / weights.sum(axis=1, keepdims=True)


def test_blueprint_lookup_follows_the_translated_path():
    bp = StandInBlueprint()
    pipeline = Pipeline(bp, solving=None, seed=1)
    agent = Agent(GAME, pipeline, TimeManager(TimeLimits()), seed=1)
    match = parse_matchstate("MATCHSTATE:0:0:r250:AsKd|", GAME)  # an off-tree open to 250
    decision = agent.decide(match)
    assert decision.source == "blueprint"
    memory = agent.hand.notes["translation"]
    node, steps = walk(bp.tree, match.state, memory, np.random.default_rng(0), me=0)
    assert steps[0].translated and bp.calls[-1] == (node, ())
    assert [a for a, _ in decision.probs] == [str(a) for a in real_actions(bp.tree, node, match.state)]


def test_opponent_range_is_the_blueprint_along_the_path():
    bp = StandInBlueprint()
    pipeline = Pipeline(bp, solving=None, seed=1)
    agent = Agent(GAME, pipeline, TimeManager(TimeLimits()), seed=1)
    match = parse_matchstate("MATCHSTATE:0:0:r300c/cr600:AsKd|/2c7hKs", GAME)
    hand = agent.observe(match)
    reach = pipeline._opponent_range(hand, 0)(match.state)
    _, steps = walk(bp.tree, match.state, hand.notes["translation"], np.random.default_rng(0), me=0)
    expected = np.ones(1326)
    for step in steps:
        if step.player == 1:
            board = () if bp.tree.round[step.node] == 0 else match.state.board
            expected *= bp.range_strategy(step.node, board)[:, step.edge - bp.tree.child_start[step.node]]
    assert [s.player for s in steps] == [1, 0, 0, 1]
    assert np.allclose(reach, expected) and reach.std() > 0


def test_leaving_the_tree_costs_a_check_or_call_not_the_match():
    bp = StandInBlueprint()
    agent = Agent(GAME, Pipeline(bp, solving=None), TimeManager(TimeLimits()))
    match = parse_matchstate("MATCHSTATE:1:0:r300r900r2700r8100:|AsKd", GAME)  # past the tree's raise cap
    assert walk(bp.tree, match.state, TranslationMemory(), np.random.default_rng(0), me=1) is None
    decision = agent.decide(match)
    assert decision.action == CALL and decision.source == "off-tree"
