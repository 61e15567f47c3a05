"""The strategist with a stand-in blueprint: tree lookup through translation, the
opponent's range along the path, and the fallback when the hand leaves the tree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.player import Agent
from agent.strategist import AgentStrategist
from agent.strategy import legalize
from agent.timing import TimeLimits, TimeManager
from dealer.bots import raise_policy
from protocol.gamedef import load_game, parse_gamedef
from protocol.rules import CALL, FOLD, ActionType, State, initial_state, with_cards
from protocol.wire import format_view, parse_matchstate
from solver.action_floor import threshold
from solver.bets import parse_abstraction
from solver.follow import TranslationMemory, real_actions, walk
from solver.tree import build_tree
from tests.agent.placeholder import StrengthStrategist

GAME = load_game("holdem.nolimit.2p")
GAME_TEXT = (
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = {stack}\nblind = 100 50\nfirstPlayer = 2 1 1 1\n"
    "numSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
)


def state_before_last_call(state: State) -> State:
    """The state just before the hand's last action (replayed from the start)."""
    before = with_cards(initial_state(state.game, state.hand_number), state.hole_cards, state.board)
    actions = [a for round_ in state.actions for a in round_]
    for action in actions[:-1]:
        before = before.apply(action)
    return before


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

    def range_strategies(self, nodes, board: tuple[int, ...]) -> np.ndarray:
        return np.stack([self.range_strategy(int(n), board) for n in nodes])


def blueprint_agent(bp: StandInBlueprint, action_floor: float = 0.0) -> tuple[AgentStrategist, Agent]:
    """An agent playing ``bp`` without solving (seed 1), and its strategist."""
    strategist = AgentStrategist(bp, solving=None, seed=1, action_floor=action_floor)
    return strategist, Agent(GAME, strategist, TimeManager(TimeLimits()), seed=1)


def test_blueprint_lookup_follows_the_translated_path():
    bp = StandInBlueprint()
    _, agent = blueprint_agent(bp)
    match = parse_matchstate("MATCHSTATE:0:0:r250:AsKd|", GAME)  # an off-tree open to 250
    decision = agent.decide(match)
    assert decision.source == "blueprint"
    memory = agent.hand.notes["translation"]
    node, steps = walk(bp.tree, match.state, memory, np.random.default_rng(0), me=0)
    assert steps[0].translated and bp.calls[-1] == (node, ())
    # The decision log says which node answered, its abstract betting and that an action was translated.
    assert decision.detail == {"source": "blueprint", "node": node, "abstract": bp.tree.states[node].betting, "translated": 1}
    assert [a for a, _ in decision.probs] == [str(a) for a in real_actions(bp.tree, node, match.state)]


def test_opponent_range_is_the_blueprint_along_the_path():
    bp = StandInBlueprint()
    strategist, agent = blueprint_agent(bp)
    match = parse_matchstate("MATCHSTATE:0:0:r300c/cr600:AsKd|/2c7hKs", GAME)
    hand = agent.observe(match)
    reach = strategist.view(hand, match.state, 0).opponent_reach
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
    agent = Agent(GAME, AgentStrategist(bp, solving=None), TimeManager(TimeLimits()))
    # The SB bets out of the tree's cap of 1 on the flop and the BB re-raises: the
    # tree has no node of the round where the SB faced a bet to go back to.
    bp.tree = build_tree(GAME, parse_abstraction("1;allin;cap=1"))
    match = parse_matchstate("MATCHSTATE:1:0:r300c/r600r1200:|AsKd/2c7hKs", GAME)
    assert walk(bp.tree, match.state, TranslationMemory(), np.random.default_rng(0), me=1) is None
    decision = agent.decide(match)
    assert decision.action == CALL and decision.source == "off-tree"


DEEP = parse_gamedef(GAME_TEXT.format(stack="1000000 1000000"))


def test_a_raise_war_on_every_round_stays_on_the_blueprint():
    """A hand against the ``raise`` bot (a min-raise at every turn), deep stacks: on
    every round we check, it bets, we raise, it re-raises past the tree's cap of 2,
    and we call.  Every decision reads the blueprint (none falls back to check/call),
    every action is legal, and every round's war took the tree back once."""
    bp = StandInBlueprint()
    strategist = AgentStrategist(bp, solving=None, seed=3)
    agent = Agent(DEEP, strategist, TimeManager(TimeLimits()), seed=3)
    deal = with_cards(initial_state(DEEP), ((12, 25), (38, 51)), tuple(range(13, 18)))
    me, state = 0, deal  # position 0 is the big blind
    while not state.finished:
        if state.current_player != me:
            state = state.apply(raise_policy(state).probs[0][0])
            continue
        match = parse_matchstate(format_view(state, me), DEEP)  # the state rebuilt from the line
        hand = agent.observe(match)
        strategy = legalize(match.state, strategist.strategy(match, hand, agent.clock))
        assert strategy.source == "blueprint", match.state.betting
        raises = [a for a in strategy.actions if a.kind == ActionType.RAISE]
        facing = match.state.amount_to_call() > 0
        action = raises[0] if facing and raises and match.state.num_raises_this_round < 3 else CALL
        assert not match.state.illegal_reason(action)
        state = state.apply(action)
    assert state.is_showdown and len(state.actions) == 4
    assert [a.kind for a in state.actions[3]] == [ActionType.CALL, *[ActionType.RAISE] * 3, ActionType.CALL]
    _, steps = walk(bp.tree, state_before_last_call(state), agent.hand.notes["translation"], strategist.rng, me)
    collapsed_rounds = {int(bp.tree.round[s.node]) for s in steps if s.collapsed}
    assert collapsed_rounds == {0, 1, 2, 3}


def test_folds_shrink_when_the_real_call_is_cheaper_than_the_trees():
    bp = StandInBlueprint()
    strategist, agent = blueprint_agent(bp)
    # Flop: we (position 0) check and the opponent bets 100 into 600; the Libratus rule
    # reads it as the tree's pot bet (a call of 600 into 1,200 costs 1/3 of the pot after
    # calling) while the real call costs 100 of 800.
    match = parse_matchstate("MATCHSTATE:0:0:r300c/cr400:AsKd|/2c7hKs", GAME)
    hand = agent.observe(match)
    got = strategist.strategy(match, hand, agent.clock)
    node, _ = walk(bp.tree, match.state, hand.notes["translation"], np.random.default_rng(0), me=0)
    assert bp.tree.actions(node)[:2] == [FOLD, CALL] and bp.tree.states[node].amount_to_call() == 600
    raw = bp.range_strategy(node, match.state.board)
    ratio = (100 / 800) / (600 / 1800)
    np.testing.assert_allclose(got.probs[:, 0], raw[:, 0] * ratio)
    np.testing.assert_allclose(got.probs[:, 1], raw[:, 1] + raw[:, 0] * (1 - ratio))
    np.testing.assert_allclose(got.probs[:, 2:], raw[:, 2:])
    # A bet the tree holds exactly keeps the blueprint's folds.
    exact = parse_matchstate("MATCHSTATE:0:1:r300c/cr900:AsKd|/2c7hKs", GAME)
    hand = agent.observe(exact)
    kept = strategist.strategy(exact, hand, agent.clock).probs
    node, _ = walk(bp.tree, exact.state, hand.notes["translation"], np.random.default_rng(0), me=0)
    np.testing.assert_allclose(kept, bp.range_strategy(node, exact.state.board))


def test_thresholding_drops_rare_blueprint_actions_and_renormalises():
    probs = np.array([[0.6, 0.37, 0.03], [0.02, 0.02, 0.96], [0.34, 0.33, 0.33]])
    out = threshold(probs, 0.05)
    assert np.allclose(out, [[0.6 / 0.97, 0.37 / 0.97, 0], [0, 0, 1], [0.34, 0.33, 0.33]])
    assert np.array_equal(threshold(np.array([[0.3, 0.3, 0.4]]), 0.5), [[0, 0, 1]])  # the largest is kept


def test_the_strategist_plays_thresholded_blueprint_rows():
    bp = StandInBlueprint()
    match = parse_matchstate("MATCHSTATE:0:0::AsKd|", GAME)
    plain = blueprint_agent(bp)[1].decide(match)
    floored = blueprint_agent(bp, action_floor=0.2)[1].decide(match)
    rows, kept = plain.range.strategy(), floored.range.strategy()
    assert (rows[rows.sum(axis=1) > 0] < 0.2).any()  # the stand-in has rare actions to drop
    live = kept.sum(axis=1) > 0
    assert not ((kept[live] > 0) & (kept[live] < 0.2 - 1e-4)).any()


def test_an_unknown_all_in_rule_is_named_before_anything_loads():
    from agent.strategist import StrategistError, build_strategist

    with pytest.raises(StrategistError, match="unknown all-in rule 'guess'"):
        build_strategist(load_game("holdem.nolimit.2p"), Path("no/such/blueprint"), blueprint_only=False, seed=0,
                         all_in="guess")  # fmt: skip
