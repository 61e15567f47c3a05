"""The hand's first subgame is solved safe against the blueprint's values (solver.subgame.alternatives)."""

from __future__ import annotations

import numpy as np
import pytest

from agent import solving
from agent.player import Agent
from agent.solving import SolveSettings, SolvingStage, warm_up
from agent.strategist import AgentStrategist
from agent.timing import TimeLimits, TimeManager
from protocol.fasteval import HOLE_PAIRS, rank_range
from protocol.gamedef import load_game
from protocol.rules import Action, ActionType
from protocol.wire import parse_matchstate
from solver.follow import TranslationMemory, skip_chance, walk
from solver.subgame.alternatives import FIRST_GADGET, blueprint_alternatives, safe_hook
from solver.subgame.gadgets import hand_weights
from solver.tree import DECISION
from tests.agent.test_strategist import StandInBlueprint

GAME = load_game("holdem.nolimit.2p")
# Seat 0 shoves the river into a limped pot: every action is in the stand-in's tree.
SHOVE = "MATCHSTATE:1:0:cc/cc/cc/r20000:|AsKd/2c7hKs/9d/3h"
# The same after an open to 300 the tree lacks: the tree's pot differs from the real one.
OFF_TREE_SHOVE = "MATCHSTATE:1:0:r300c/cc/cc/r20000:|AsKd/2c7hKs/9d/3h"


class NavigableStandIn(StandInBlueprint):
    """The stand-in with the tree navigation a real blueprint has (what first solves need)."""

    def actions(self, node: int) -> list[Action]:
        return self.tree.actions(node)

    def child(self, node: int, action: Action) -> int:
        return skip_chance(self.tree, int(self.tree.children[self.tree.child_start[node] + self.actions(node).index(action)]))


@pytest.fixture(scope="module", autouse=True)
def compiled():
    warm_up()


def direct_alternatives(bp: NavigableStandIn, node: int, line: str) -> np.ndarray:
    """The opponent's value per hand, counted hand against hand: our fold/call from the
    stand-in at ``node`` (a river all-in), uniform reach, scaled to the real pot."""
    state = parse_matchstate(line, GAME).state
    abstract = bp.tree.states[node]
    me = int(bp.tree.player[node])
    fold, call = bp.range_strategy(node, state.board).T
    ranks = rank_range(list(state.board))
    ours, stake = abstract.spent[me], abstract.spent[1 - me]
    free = ranks > 0
    out = np.zeros(len(HOLE_PAIRS))
    for h in np.flatnonzero(free):
        mates = free & ~np.isin(HOLE_PAIRS, HOLE_PAIRS[h]).any(axis=1)
        showdown = np.sign(ranks[h] - ranks[mates]) * stake
        out[h] = (fold[mates] * ours + call[mates] * showdown).sum() / mates.sum()
    return out * state.pot / abstract.pot


@pytest.mark.parametrize("line", [SHOVE, OFF_TREE_SHOVE])
def test_alternatives_are_the_opponent_best_response_to_the_blueprint(line):
    bp = NavigableStandIn()
    state = parse_matchstate(line, GAME).state
    node, _ = walk(bp.tree, state, TranslationMemory(), np.random.default_rng(0), 1)
    assert [a.kind for a in bp.actions(node)] == [ActionType.FOLD, ActionType.CALL]
    found = blueprint_alternatives(bp, node, state, np.ones(len(HOLE_PAIRS)))
    expected = direct_alternatives(bp, node, line)
    assert np.allclose(found, expected, atol=1e-6 * state.pot)
    assert np.ptp(found) > 0.1 * state.pot  # hands differ: the check compares real values


def margins(agent: Agent) -> tuple[np.ndarray, float]:
    """Per opponent hand (the solve's hands), its alternative minus its best-response
    value against the solved strategy, in chips; and the pot."""
    active = agent.hand.notes["solve"]
    sg, solver = active.subgame, active.solver
    me = int(sg.root.current_player)
    bp = agent.strategist.blueprint
    node, _ = walk(bp.tree, sg.root, TranslationMemory(), np.random.default_rng(0), me)
    root_reach = sg.to_hole_pairs(solver.ranges[me])  # the hand's reach has moved on since
    alternatives = sg.from_hole_pairs(blueprint_alternatives(bp, node, sg.root, root_reach))
    weight = hand_weights(sg.hands, solver.ranges[me])
    held = weight > 0
    best = solver.best_response_values(0, 1 - me)[held] / weight[held]
    return alternatives[held] - best, sg.pot


def make_agent(bp, settings: SolveSettings | None = None) -> Agent:
    clock = TimeManager(TimeLimits(per_hand=20.0, max_solve=6.0))  # room for a loaded machine
    clock.hands = 20
    # The all-in here is the safe gadget's test spot: solved, not answered by the call rule.
    stage = SolvingStage(np.random.default_rng(0), settings=settings)
    return Agent(GAME, AgentStrategist(bp, stage, seed=0, call_rule=False), clock, seed=0)


def test_first_solve_keeps_every_opponent_hand_below_its_blueprint_value():
    agent = make_agent(NavigableStandIn())
    decision = agent.decide(parse_matchstate(SHOVE, GAME))
    assert decision.source == FIRST_GADGET
    found, pot = margins(agent)
    assert found.min() >= -0.005 * pot


@pytest.mark.parametrize("gadget", ["maxmargin", "resolve"])
def test_every_offered_gadget_keeps_the_same_bound(gadget):
    agent = make_agent(NavigableStandIn(), SolveSettings(gadget=gadget, iterations=400))
    decision = agent.decide(parse_matchstate(SHOVE, GAME))
    assert decision.source == f"blueprint-{gadget}"
    assert agent.hand.notes["solve"].solver.iterations == 400
    found, pot = margins(agent)
    assert found.min() >= -0.005 * pot


@pytest.mark.parametrize(
    "settings, wrong",
    [(SolveSettings(gadget="unsafe"), "unknown gadget"), (SolveSettings(unsafe_weight=-1), "unsafe weight"),
     (SolveSettings(iterations=3), "at least")],
)  # fmt: skip
def test_solve_settings_name_what_is_wrong(settings, wrong):
    with pytest.raises(ValueError, match=wrong):
        settings.validated()


def test_the_open_unsafe_weight_serves_only_solves_where_the_agent_faces_no_bet(monkeypatch):
    weights = []

    def recording_hook(subgame, ranges, me, alternatives, unsafe_weight, gadget):
        weights.append(unsafe_weight)
        return safe_hook(subgame, ranges, me, alternatives, unsafe_weight, gadget)

    monkeypatch.setattr(solving, "safe_hook", recording_hook)
    settings = SolveSettings(iterations=20, unsafe_weight=0.5, open_unsafe_weight=100.0)
    # Seat 1 faces the river shove; seat 1 after seat 0 checked the river; seat 0 first to act.
    for state in (SHOVE, "MATCHSTATE:1:0:cc/cc/cc/c:|AsKd/2c7hKs/9d/3h", "MATCHSTATE:0:0:cc/cc/cc/:AsKd|/2c7hKs/9d/3h"):
        make_agent(NavigableStandIn(), settings).decide(parse_matchstate(state, GAME))
    assert weights == [0.5, 100.0, 100.0]
    assert SolveSettings(unsafe_weight=0.5).unsafe_weight_at(parse_matchstate(SHOVE, GAME).state, 1) == 0.5
    with pytest.raises(ValueError, match="open unsafe weight"):
        SolveSettings(open_unsafe_weight=-1.0).validated()


def test_an_unsafe_first_solve_breaks_the_same_bound():
    # The check above can fail: the stand-in without navigation gives no alternatives,
    # so the solve is unsafe, and some opponent hand gains on the blueprint by a lot.
    agent = make_agent(StandInBlueprint())
    decision = agent.decide(parse_matchstate(SHOVE, GAME))
    assert decision.source == "unsafe"
    agent.strategist.blueprint = NavigableStandIn()  # only to value the margins
    found, pot = margins(agent)
    assert found.min() < -0.02 * pot


def test_first_solve_falls_back_to_unsafe_when_the_subtree_disagrees():
    class Mismatched(NavigableStandIn):
        def actions(self, node: int) -> list[Action]:
            return super().actions(node)[::-1]  # not the tree the subgame rebuilds

    bp = Mismatched()
    state = parse_matchstate(SHOVE, GAME).state
    node, _ = walk(bp.tree, state, TranslationMemory(), np.random.default_rng(0), 1)
    assert bp.tree.kind[node] == DECISION
    assert blueprint_alternatives(bp, node, state, np.ones(len(HOLE_PAIRS))) is None
    assert make_agent(bp).decide(parse_matchstate(SHOVE, GAME)).source == "unsafe"
