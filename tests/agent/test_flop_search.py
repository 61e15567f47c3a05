"""``--solve-from flop``: depth-limited flop search in the agent (agent/solving.py), on the
shipped blueprint, with solves capped at a few iterations."""

from __future__ import annotations

import numpy as np
import pytest

from agent.player import Agent
from agent.solving import (
    DEPTH_LIMITED_KIND,
    DL_MIN_BUDGET,
    DL_POOL,
    DL_START_MIN_BUDGET,
    MIN_ITERATIONS,
    SolveSettings,
    SolvingStage,
    warm_up,
)  # fmt: skip
from agent.strategist import SOLVE_FROM, AgentStrategist, load_blueprint, solves_here
from agent.timing import TimeLimits, TimeManager
from protocol.gamedef import load_game
from protocol.wire import parse_matchstate
from solver.tree import CHANCE, DECISION
from tests.agent.test_strategist import StandInBlueprint

GAME = load_game("holdem.nolimit.2p")
FLOP = "MATCHSTATE:0:0:r200c/:AsKd|/2c7hKs"  # position 0 acts first on the flop
BOARD = {0, 22, 47}  # 2c 7h Ks


@pytest.fixture(scope="module")
def blueprint():
    warm_up()
    return load_blueprint(None)


def flop_agent(blueprint, max_solve: float = 30.0) -> tuple[Agent, SolvingStage]:
    """An agent searching from the flop whose solves stop after MIN_ITERATIONS (or ``max_solve`` s)."""
    clock = TimeManager(TimeLimits(per_hand=60.0, max_solve=max_solve))
    stage = SolvingStage(np.random.default_rng(0), settings=SolveSettings(iterations=MIN_ITERATIONS))
    agent = Agent(GAME, AgentStrategist(blueprint, stage, seed=0, rounds_early=SOLVE_FROM["flop"]), clock, seed=0)
    clock.hands = 20
    return agent, stage


def test_the_flop_is_searched_only_from_flop_on():
    flop, preflop = parse_matchstate(FLOP, GAME).state, parse_matchstate("MATCHSTATE:0:0:r200:AsKd|", GAME).state
    assert solves_here(flop, SOLVE_FROM["flop"]) and not solves_here(flop, SOLVE_FROM["turn"])
    assert not solves_here(preflop, SOLVE_FROM["flop"])


def test_a_flop_decision_is_a_depth_limited_solve_whose_rows_cover_the_range(blueprint):
    agent, _ = flop_agent(blueprint)
    decision = agent.decide(parse_matchstate(FLOP, GAME))
    active = agent.hand.notes["solve"]
    assert decision.source == DEPTH_LIMITED_KIND and active.depth_limited
    assert active.solver.iterations == MIN_ITERATIONS and decision.detail["iterations"] == MIN_ITERATIONS
    tree = active.subgame.tree
    assert len(active.subgame.leaves) and (tree.kind[active.subgame.leaves] == CHANCE).all()
    assert {int(r) for r in tree.round[tree.kind == DECISION]} == {1}  # the flop only: the turn is behind the leaves
    assert len(set(active.solver.leaves.pool)) == DL_POOL  # its runouts, drawn once for the solve
    rows = decision.range.strategy()
    blocked = np.array([bool({a, b} & BOARD) for a, b in agent.hand_cards])
    assert np.allclose(rows[~blocked].sum(axis=1), 1.0) and not rows[blocked].any()


def test_the_opponents_flop_check_is_solved_from_the_start_of_the_flop_and_followed(blueprint):
    """Pluribus roots its search at the start of the round: the opponent's check is part
    of the solve (its node is followed), not the solve's root."""
    agent, _ = flop_agent(blueprint)
    decision = agent.decide(parse_matchstate("MATCHSTATE:1:0:r200c/c:|AsKd/2c7hKs", GAME))
    active = agent.hand.notes["solve"]
    assert decision.source == DEPTH_LIMITED_KIND and active.root_betting == "r200c/"
    assert decision.detail["node"] != 0 and active.me == 1


def _roots(stage: SolvingStage) -> list[str]:
    """The bettings at which ``stage`` starts its solves, recorded as they start."""
    roots = []
    solve = stage._solve

    def counted(match, hand, clock, previous, view, root=None):
        roots.append((root or match.state).betting)
        return solve(match, hand, clock, previous, view, root)

    stage._solve = counted
    return roots


def _started(stage: SolvingStage) -> list[str]:
    """The roots (bettings) of the solves ``stage`` builds, recorded as they are built."""
    roots = []
    start = stage._start

    def recorded(state, *args, **kwargs):
        roots.append(state.betting)
        return start(state, *args, **kwargs)

    stage._start = recorded
    return roots


def test_with_little_time_no_solve_is_started_from_the_flops_start(blueprint):
    """Below DL_START_MIN_BUDGET a solve of the whole flop round would stop short of its
    minimum iterations: after the opponent's check the decision is solved from where it
    is (one solve), and a flop the agent opens plays the blueprint at once."""
    budget = (DL_MIN_BUDGET + DL_START_MIN_BUDGET) / 2
    agent, stage = flop_agent(blueprint, max_solve=budget)
    started = _started(stage)
    agent.decide(parse_matchstate("MATCHSTATE:1:0:r200c/c:|AsKd/2c7hKs", GAME))
    assert started == ["r200c/c"]
    agent, stage = flop_agent(blueprint, max_solve=budget)
    started = _started(stage)
    assert agent.decide(parse_matchstate(FLOP, GAME)).source == "blueprint" and started == []
    agent, stage = flop_agent(blueprint, max_solve=DL_START_MIN_BUDGET + 1)
    started = _started(stage)
    agent.decide(parse_matchstate("MATCHSTATE:1:0:r200c/c:|AsKd/2c7hKs", GAME))
    assert started[0] == "r200c/"  # with the time, the check is solved inside the flop's solve


def test_an_opening_flop_bet_is_solved_from_the_real_state_in_one_solve(blueprint):
    """An opening bet is never exactly one of the jittered sizes of a solve from the flop's
    start, which would only be followed by a nested solve: one solve, at the real state."""
    agent, stage = flop_agent(blueprint)
    roots = _roots(stage)
    decision = agent.decide(parse_matchstate("MATCHSTATE:1:0:r200c/r500:|AsKd/2c7hKs", GAME))
    active = agent.hand.notes["solve"]
    assert roots == ["r200c/r500"]
    assert decision.source == DEPTH_LIMITED_KIND and active.root_betting == "r200c/r500"
    assert decision.detail["node"] == 0 and decision.detail["solve"] == "new"


def test_the_turn_after_a_flop_search_gets_a_safe_first_solve(blueprint):
    """The turn's first solve after a depth-limited flop solve is safe against the
    blueprint's values (a depth-limited solve has no estimates of the turn), with the
    opponent's range through the flop solve's strategy."""
    agent, stage = flop_agent(blueprint)  # each solve stops at MIN_ITERATIONS; the time is a ceiling
    agent.decide(parse_matchstate(FLOP, GAME))
    flop_solve = agent.hand.notes["solve"]
    check = next(a for a in flop_solve.subgame.tree.actions(0) if a.kind.name == "CALL")
    turn = parse_matchstate(f"MATCHSTATE:0:0:r200c/{check}c/:AsKd|/2c7hKs/9d", GAME)
    decision = agent.decide(turn)
    turn_solve = agent.hand.notes["solve"]
    assert turn_solve is not flop_solve and not turn_solve.depth_limited
    assert decision.source == stage.settings.first_kind and turn_solve.subgame.root.round == 2


def test_without_a_blueprint_that_can_value_leaves_the_flop_plays_the_blueprint():
    clock = TimeManager(TimeLimits(per_hand=60.0, max_solve=5.0))
    stage = SolvingStage(np.random.default_rng(0))
    agent = Agent(GAME, AgentStrategist(StandInBlueprint(), stage, seed=0, rounds_early=SOLVE_FROM["flop"]), clock, seed=0)
    clock.hands = 20
    assert agent.decide(parse_matchstate(FLOP, GAME)).source == "blueprint"


def test_a_flop_solve_is_not_started_without_the_time_for_its_minimum_iterations(blueprint):
    """Below DL_MIN_BUDGET a flop solve would stop short of MIN_ITERATIONS and the
    blueprint would answer after the wait: it answers at once instead."""
    agent, _ = flop_agent(blueprint, max_solve=DL_MIN_BUDGET / 2)
    decision = agent.decide(parse_matchstate(FLOP, GAME))
    assert decision.source == "blueprint" and "solve" not in agent.hand.notes


# --- the depth-limited turn (``--turn-search``) ----------------------------------------------

TURN = "MATCHSTATE:0:0:r200c/cc/:AsKd|/2c7hKs/9d"  # position 0 opens the turn


def turn_agent(blueprint, turn: str, max_solve: float = 30.0) -> tuple[Agent, SolvingStage]:
    """An agent searching from the turn (``turn``: its turn search) whose solves stop after MIN_ITERATIONS."""
    clock = TimeManager(TimeLimits(per_hand=60.0, max_solve=max_solve))
    stage = SolvingStage(np.random.default_rng(0), settings=SolveSettings(iterations=MIN_ITERATIONS, turn=turn))
    agent = Agent(GAME, AgentStrategist(blueprint, stage, seed=0, rounds_early=SOLVE_FROM["turn"]), clock, seed=0)
    clock.hands = 20
    return agent, stage


def _depth_limited_starts(stage: SolvingStage) -> list[bool]:
    """Whether each subgame ``stage`` builds is depth-limited, recorded as they are built."""
    started = []
    start = stage._start

    def recorded(*args, **kwargs):
        started.append(args[-1])  # _start's depth_limited, passed last by position
        return start(*args, **kwargs)

    stage._start = recorded
    return started


def test_a_depth_limited_turn_solve_ends_with_the_turn_and_is_safe_at_its_root(blueprint):
    """Unlike the flop's, a depth-limited turn solve has the blueprint's values at its root
    (a hand's first solve): its gadget is the first solve's, its rows cover the range, and
    the river after it gets its own first solve."""
    agent, stage = turn_agent(blueprint, "depth-limited")
    decision = agent.decide(parse_matchstate(TURN, GAME))
    active = agent.hand.notes["solve"]
    assert decision.source == f"depth-limited-{stage.settings.first_kind}" and active.depth_limited
    assert active.solver.iterations == MIN_ITERATIONS
    tree = active.subgame.tree
    assert len(active.subgame.leaves) and (tree.kind[active.subgame.leaves] == CHANCE).all()
    assert {int(r) for r in tree.round[tree.kind == DECISION]} == {2}  # the turn only: the river is behind the leaves
    rows = decision.range.strategy()
    blocked = np.array([bool({a, b} & (BOARD | {29})) for a, b in agent.hand_cards])  # 9d is card 29
    assert np.allclose(rows[~blocked].sum(axis=1), 1.0) and not rows[blocked].any()
    check = next(a for a in tree.actions(0) if a.kind.name == "CALL")
    agent.decide(parse_matchstate(f"MATCHSTATE:0:0:r200c/cc/{check}c/:AsKd|/2c7hKs/9d/3h", GAME))
    river = agent.hand.notes["solve"]
    assert river is not active and not river.depth_limited and river.kind == stage.settings.first_kind


def test_a_turn_too_short_for_full_depth_is_searched_depth_limited(blueprint):
    """``auto``: at the turn's start a budget under TURN_FULL_START_BUDGET goes
    depth-limited at once; ``full`` plays the blueprint there under TURN_START_MIN_BUDGET."""
    from agent.solving import TURN_DL_START_MIN_BUDGET, TURN_START_MIN_BUDGET

    budget = (TURN_DL_START_MIN_BUDGET + TURN_START_MIN_BUDGET) / 2
    agent, stage = turn_agent(blueprint, "auto", max_solve=budget)
    started = _depth_limited_starts(stage)
    agent.decide(parse_matchstate(TURN, GAME))  # whether it reaches MIN_ITERATIONS in the budget is the machine's
    assert started == [True]  # one solve, depth-limited
    agent, _ = turn_agent(blueprint, "full", max_solve=budget)
    assert agent.decide(parse_matchstate(TURN, GAME)).source == "blueprint" and "solve" not in agent.hand.notes


def test_a_full_depth_turn_solve_whose_pace_falls_short_hands_its_time_to_a_depth_limited_one(blueprint, monkeypatch):
    """``auto`` after a first action: the full-depth solve starts, and when its pace says
    it will not reach MIN_ITERATIONS the rest of the time goes to a depth-limited solve
    (``full`` gives up and plays the blueprint)."""
    import agent.solving as solving

    monkeypatch.setattr(solving, "out_of_reach", lambda *args, **kwargs: True)
    checked = "MATCHSTATE:1:0:r200c/cc/c:|AsKd/2c7hKs/9d"
    agent, stage = turn_agent(blueprint, "auto")
    started = _depth_limited_starts(stage)
    assert agent.decide(parse_matchstate(checked, GAME)).source.startswith("depth-limited-")
    assert started == [False, True]  # full-depth first, then depth-limited
    agent, _ = turn_agent(blueprint, "full")
    assert agent.decide(parse_matchstate(checked, GAME)).source == "blueprint"
