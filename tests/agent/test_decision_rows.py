"""The agent's decision-log rows: its strategy for every private hand it could hold."""

from __future__ import annotations

import numpy as np
import pytest

from agent.player import Agent
from agent.strategy import RangeStrategy, legalize, quantize
from agent.timing import TimeLimits, TimeManager
from protocol.decisions import CARD_DEPENDENT, ROW_TOTAL, DecisionLogWriter, private_hands, read_decision_log
from protocol.gamedef import load_game
from protocol.rules import CALL, FOLD, raise_to
from protocol.wire import parse_matchstate
from tests.agent.placeholder import StrengthStrategist
from tests.protocol.test_decisions import probability_of

GAME = load_game("holdem.nolimit.2p")
# One hand seen by position 0 (big blind in this game): three decisions, the last on the flop.
LINES = [
    "MATCHSTATE:0:4:r300:AsKd|",
    "MATCHSTATE:0:4:r300r900c/:AsKd|/2c7hKs",
    "MATCHSTATE:0:4:r300r900c/r1800:AsKd|/2c7hKs",
]


def play_lines(tmp_path, lines=LINES, seed=3):
    agent = Agent(GAME, StrengthStrategist(GAME), TimeManager(TimeLimits()), seed=seed)
    path = tmp_path / "agent.dlog"
    with DecisionLogWriter(path, seat="agent", match="m", game=GAME, strategy=CARD_DEPENDENT) as log:
        for line in lines:
            match = parse_matchstate(line, GAME)
            if not match.is_my_turn:
                continue
            d = agent.decide(match)
            log.record(hand=match.hand_number, position=match.position, state=line, probs=d.probs,
                       taken=str(d.action), range=d.range)
    return read_decision_log(path)


def test_full_range_rows(tmp_path):
    header, decisions = play_lines(tmp_path)
    assert header["version"] == 2 and header["strategy"] == CARD_DEPENDENT and header["policy"] is None
    decisions = list(decisions)
    assert len(decisions) == 2  # the middle line is the opponent's turn
    hands = private_hands(GAME)
    index = {h: i for i, h in enumerate(hands)}
    reach = np.ones(len(hands))
    for d in decisions:
        match = parse_matchstate(d.state, GAME)
        strategy, weights = d.range.strategy(), d.range.weights()
        assert strategy.shape == (1326, len(d.probs))
        blocked = np.array([bool(set(h) & set(match.state.board)) for h in hands])
        sums = strategy.sum(axis=1)
        assert np.allclose(sums[~blocked], 1.0) and np.all(strategy[blocked] == 0)
        assert np.all(d.range.counts().sum(axis=1)[~blocked] == ROW_TOTAL)
        # The distribution the agent sampled from is exactly the row of the hand it holds.
        held = index[tuple(sorted(match.my_cards))]
        assert [p for _, p in d.probs] == list(strategy[held])
        assert probability_of(d, d.taken) > 0
        # Weights: the agent's own reach of every hand on this line, 0 where blocked.
        reach = np.where(blocked, 0.0, reach)
        assert np.allclose(weights, reach, rtol=1e-6)
        reach = reach * strategy[:, [a for a, _ in d.probs].index(d.taken)]
    assert decisions[1].range.weights()[index[(48, 50)]] > 0  # AcAh raised too ...
    assert decisions[1].range.weights()[index[(0, 4)]] == 0  # ... 2c3c holds the board's 2c


def test_quantize_sums_exactly_and_handles_empty_rows():
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(4), size=500)
    probs[7] = 0.0
    probs[8, 2] = np.nan
    blocked = np.zeros(500, dtype=bool)
    blocked[9] = True
    counts = quantize(probs, blocked, fallback_column=1)
    sums = counts.sum(axis=1, dtype=np.int64)
    assert np.all(sums[~blocked] == ROW_TOTAL) and sums[9] == 0
    assert counts[7, 1] == ROW_TOTAL
    assert np.abs(counts[10:] / ROW_TOTAL - probs[10:]).max() <= 1 / ROW_TOTAL


def test_legalize_clamps_and_merges():
    state = parse_matchstate("MATCHSTATE:1:0:r19000:|AsKd", GAME).state  # facing 19000 of 20000
    strategy = RangeStrategy((FOLD, CALL, raise_to(19500), raise_to(60000), raise_to(5)), np.full((2, 5), 0.2), "x")
    legal = legalize(state, strategy)
    assert legal.actions == (FOLD, CALL, raise_to(20000))  # every raise clamps to the all-in
    assert np.allclose(legal.probs, [[0.2, 0.2, 0.6]] * 2)
    checked = parse_matchstate("MATCHSTATE:0:0:r200c/:AsKd|/2c7hKs", GAME).state
    assert legalize(checked, RangeStrategy((FOLD, CALL), np.ones((1, 2)) / 2, "x")).actions == (CALL,)


def test_failing_strategist_checks_or_calls():
    class Broken:
        def strategy(self, match, hand, clock):
            raise RuntimeError("boom")

        def start_hand(self, number, position):
            pass

    agent = Agent(GAME, Broken(), TimeManager(TimeLimits()))
    d = agent.decide(parse_matchstate(LINES[0], GAME))
    assert d.action == CALL and d.source == "fallback" and d.probs == [("c", 1.0)]


def test_decision_rows_are_reproducible(tmp_path):
    first = [d.taken for d in play_lines(tmp_path / "a", seed=5)[1]]
    again = [d.taken for d in play_lines(tmp_path / "b", seed=5)[1]]
    assert first == again


def test_range_must_match_logged_actions(tmp_path):
    _, decisions = play_lines(tmp_path)
    d = next(decisions)
    with DecisionLogWriter(tmp_path / "x.dlog", seat="a", match="m", game=GAME) as log, pytest.raises(ValueError):
        log.record(hand=0, position=0, state=d.state, probs=[("c", 1.0)], taken="c", range=d.range)


def test_each_hand_draws_from_its_own_stream():
    # Common random numbers (protocol.seeding): the action sampled in a hand does not
    # depend on the hands played before it.
    def taken(numbers):
        agent = Agent(GAME, StrengthStrategist(GAME), TimeManager(TimeLimits()), seed=9)
        return {n: str(agent.decide(parse_matchstate(f"MATCHSTATE:0:{n}:r300:AsKd|", GAME)).action) for n in numbers}

    every, even = taken(range(40)), taken(range(0, 40, 2))
    assert all(every[n] == even[n] for n in even)
    assert len(set(every.values())) > 1  # the strategy is mixed: the draws decide


def test_the_strategist_restarts_its_streams_each_hand():
    from agent.solving import SolvingStage
    from agent.strategist import AgentStrategist

    def states(warm: int) -> tuple:
        strategist = AgentStrategist(StandIn(), SolvingStage(np.random.default_rng(0)), seed=4)
        strategist.rng.random(warm), strategist.solving.rng.random(warm)  # earlier hands' draws
        strategist.start_hand(12, 1)
        return strategist.rng.random(), strategist.solving.rng.random()

    first = states(0)
    assert states(7) == first and first[0] != first[1]


class StandIn:
    tree = None
