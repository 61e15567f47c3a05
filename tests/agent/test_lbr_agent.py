"""LBR against the agent's strategist: hypothetical questions leave the real hand alone, an
answer LBR then plays into is reused, and LBR's Bayes rows are the rows the agent samples."""

from __future__ import annotations

import numpy as np

from agent.lbr import HoldemEquity, LocalBestResponse, deal_hand, lbr_setting, play_hand, public_state
from agent.lbr_policy import AgentRangePolicy
from agent.player import Agent
from agent.strategist import AgentStrategist
from agent.timing import TimeLimits, TimeManager
from protocol.decisions import ROW_TOTAL
from protocol.fasteval import HOLE_PAIRS
from protocol.rules import CALL, FOLD, Action, ActionType, State, raise_to
from solver.subgame.alternatives import GADGET
from tests.agent.test_strategist import GAME, StandInBlueprint

DECK = np.arange(52)
HANDS = 12


def _policy(seed: int = 3) -> tuple[AgentRangePolicy, StandInBlueprint]:
    bp = StandInBlueprint()
    agent = Agent(GAME, AgentStrategist(bp, solving=None, seed=seed), TimeManager(TimeLimits()), seed=seed)
    return AgentRangePolicy(agent), bp


class _RecordingLBR(LocalBestResponse):
    """LBR remembering its action at every state it decided at."""

    def __init__(self, policy: AgentRangePolicy) -> None:
        super().__init__(GAME, HOLE_PAIRS, policy, HoldemEquity(samples=20, seed=1), lbr_setting("fcpa", 4))
        self.played: dict[tuple[int, str], Action] = {}

    def act(self, public: State, hand: tuple[int, ...], weights: np.ndarray) -> Action:
        action = super().act(public, hand, weights)
        self.played[public.hand_number, public.betting] = action
        return action


class _Recorder:
    """The adapter as LBR's opponent, recording the agent's real actions and the rows it sampled them from."""

    def __init__(self, policy: AgentRangePolicy) -> None:
        self.policy, self.actions = policy, []

    def start(self, state: State, seat: int, gen: np.random.Generator) -> None:
        self.policy.start(state, seat, gen)

    def act(self, public: State) -> Action:
        actions, rows = self.policy(public)
        action = self.policy.act(public)
        self.actions.append((public.hand_number, public.betting, actions, rows, action))
        return action


def test_hypothetical_questions_do_not_change_the_real_line():
    """Same seeds, same agent actions whether or not LBR asked about its candidate bets."""
    asked, _ = _policy()
    lbr, opponent = _RecordingLBR(asked), _Recorder(asked)
    for i in range(HANDS):
        state, gen = deal_hand(GAME, DECK, i, seed=5)
        play_hand(lbr, state, i % 2, opponent, gen)
    assert any(a.kind == ActionType.RAISE for a in lbr.played.values())  # LBR did bet ...
    assert asked.hypothetical > 0  # ... and asked about states the hands never reached

    quiet, _ = _policy()  # the same hands, the agent asked only where it really acts
    replay = _Recorder(quiet)
    for i in range(HANDS):
        state, gen = deal_hand(GAME, DECK, i, seed=5)
        replay.start(state, 1 - i % 2, gen)
        while not state.finished:
            public = public_state(state, state.board)
            if state.current_player == i % 2:
                action = lbr.played[i, public.betting]
            else:
                action = replay.act(public)
            state = state.apply(action)
    assert len(replay.actions) == len(opponent.actions)
    for real, alone in zip(opponent.actions, replay.actions):
        assert real[:3] == alone[:3] and np.array_equal(real[3], alone[3]) and real[4] == alone[4]
    assert quiet.hypothetical == 0 and quiet.questions == len(replay.actions)


def test_a_bet_lbr_asked_about_and_then_makes_reuses_the_answer():
    policy, bp = _policy()
    state, gen = deal_hand(GAME, DECK, 0, seed=5)
    public = public_state(state, ())
    policy.start(state, 1 - public.current_player, gen)  # LBR opens
    bet = public.apply(raise_to(250))  # between the stand-in tree's sizes: translated with a random draw
    notes, drawn = dict(policy.agent.hand.notes), policy.strategist.rng.bit_generator.state
    actions, probs = policy(bet)
    assert policy.agent.hand.notes == notes  # the real hand's memory is untouched ...
    assert policy.strategist.rng.bit_generator.state == drawn  # ... and the translation's draw undone
    calls = len(bp.calls)
    action = policy.act(bet)  # LBR really bets 250: the agent plays the answer it gave
    assert len(bp.calls) == calls and action in actions
    assert policy.agent.hand.notes["translation"].edges  # and keeps the translation it drew
    assert policy.strategist.rng.bit_generator.state != drawn
    assert np.allclose(probs.sum(axis=1), 1.0) and np.all(probs * ROW_TOTAL == np.round(probs * ROW_TOTAL))
    assert FOLD in actions and probs[:, actions.index(FOLD)].std() > 0  # card-dependent fold rows for LBR


def test_river_questions_solve_on_a_copy_and_the_bet_made_reuses_the_solve():
    """With subgame solving: LBR's candidate river bets are answered by (nested) solves on a
    copy of the hand's memory; the real hand keeps its own solve until LBR really bets."""
    from agent.solving import SolvingStage, warm_up

    warm_up()  # compile (or load) the solver kernels, so the solves below manage iterations

    bp = StandInBlueprint()
    solving = SolvingStage(np.random.default_rng(4))
    agent = Agent(GAME, AgentStrategist(bp, solving, seed=4), TimeManager(TimeLimits(target=2.0, max_solve=1.0)), seed=4)
    policy = AgentRangePolicy(agent)
    lbr_seat = 0
    for number in range(40):  # the first hand LBR check/calls into a river decision with chips behind
        state, gen = deal_hand(GAME, DECK, number, seed=5)
        policy.start(state, 1 - lbr_seat, gen)
        while not (state.round == 3 and state.current_player == lbr_seat) and not state.finished:
            public = public_state(state, state.board)
            state = state.apply(policy.act(public) if state.current_player != lbr_seat else CALL)
        if not state.finished and state.raise_bounds() is not None:
            break
    assert not state.finished and state.raise_bounds() is not None
    public = public_state(state, state.board)
    real_solve = agent.hand.notes.get("solve")
    bounds = public.raise_bounds()
    asked = {size: policy(public.apply(raise_to(size))) for size in (bounds[0] + 37, bounds[1])}
    assert agent.hand.notes.get("solve") is real_solve  # the questions' solves stayed on their copies
    questions = policy.questions
    bet = public.apply(raise_to(bounds[0] + 37))
    action = policy.act(bet)
    assert policy.questions == questions  # no second solve for the bet LBR asked about
    assert agent.hand.notes["solve"] is not real_solve and action in asked[bounds[0] + 37][0]
    assert agent.hand.notes["solve"].kind in ("unsafe", GADGET, "nested-unsafe")
