"""The ``equity`` bot (:mod:`dealer.equitybot`): legal, deterministic, stronger than the
trivial bots, and evaluated correctly as a card-dependent seat."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from itertools import combinations

import numpy as np
import pytest

from dealer import equitybot
from dealer.bots import CARD_INDEPENDENT, POLICIES, declared
from dealer.policy import Distribution
from protocol.cards import parse_cards
from protocol.decisions import CARD_DEPENDENT, read_decision_log
from protocol.gamedef import load_game
from protocol.rules import CALL, FOLD, ActionType, State, initial_state, raise_to, with_cards
from tests.dealer.evaluation.simulate import evaluate_match, simulate_match

GAME = load_game("holdem.nolimit.2p")
EQUITY = POLICIES["equity"]


def checked(state: State) -> Distribution:
    """The equity bot's distribution, checked: legal actions, positive, summing to 1."""
    dist = EQUITY(state)
    assert dist.uniform_raise is None
    actions = [a for a, _ in dist.probs]
    assert len(set(actions)) == len(actions)
    for action, p in dist.probs:
        assert p > 0 and state.illegal_reason(action) is None, (state.betting, action)
    assert abs(sum(p for _, p in dist.probs) - 1) < 1e-12
    return dist


@pytest.mark.parametrize("opponent", ["random", "allin", "raise"])
def test_every_action_is_legal_and_the_probabilities_sum_to_one(opponent):
    for seats in ([("equity", checked), (opponent, POLICIES[opponent])], [(opponent, POLICIES[opponent]), ("equity", checked)]):
        simulate_match(GAME, seats, 60, 3)


def test_limit_holdem_is_played_too_and_other_games_are_refused():
    limit = load_game("holdem.limit.2p")
    simulate_match(limit, [("equity", checked), ("random", POLICIES["random"])], 30, 4)
    with pytest.raises(equitybot.UnsupportedGame):
        equitybot.check_game(load_game("leduc.limit.2p"))


def _state(mine: str, theirs: str, board: str, actions, hand: int = 7) -> State:
    """Position 1 (the small blind, first to act preflop) holds ``mine``."""
    state = initial_state(GAME, hand, (parse_cards(theirs), parse_cards(mine)), parse_cards(board))
    for action in actions:
        state = state.apply(action)
    return state


LINES = [
    [], [CALL, CALL], [CALL, CALL, raise_to(300)], [CALL, CALL, CALL, CALL, raise_to(250), CALL, CALL],
    [CALL, CALL, CALL, CALL, raise_to(250), CALL, CALL, raise_to(1200)], [raise_to(300), raise_to(900)],
]  # fmt: skip


def _evict_streets() -> None:
    """Rank :data:`~dealer.equitybot.STREETS_KEPT` other rivers (one run-out each: cheap),
    which pushes every round ranked before them out of the bot's cache."""
    ranks = "3467 9TQA".replace(" ", "")
    assert len(ranks) >= equitybot.STREETS_KEPT
    for rank in ranks[: equitybot.STREETS_KEPT]:
        EQUITY(_state(f"{rank}c{rank}d", f"{rank}h{rank}s", "Jc8h2s5dKh", LINES[3]))


@pytest.mark.parametrize("line", LINES)
def test_the_same_state_gives_the_same_distribution(line):
    state = _state("AsJd", "7h7c", "Jc8h2s5dKh", line)
    first = checked(state)
    _evict_streets()  # recomputed from scratch, not read back from the bot's cache
    assert EQUITY(state) == first
    # What the seat cannot see changes nothing: the opponent's cards, the board to come.
    me = state.current_player
    seen = state.board[: GAME.board_cards_through(state.round)]
    hidden = with_cards(state, tuple(h if p == me else () for p, h in enumerate(state.hole_cards)), seen)
    other = with_cards(state, tuple(h if p == me else parse_cards("3c4c") for p, h in enumerate(state.hole_cards)),
                       seen + tuple(c for c in parse_cards("6c9dQs") if c not in seen)[: 5 - len(seen)])  # fmt: skip
    assert EQUITY(hidden) == first and EQUITY(other) == first


def test_aces_never_fold_preflop():
    aces = [f"A{a}A{b}" for a, b in combinations("cdhs", 2)]
    lines = [
        [], [raise_to(300)], [raise_to(200)], [raise_to(20000)], [CALL, raise_to(400)], [raise_to(300), raise_to(900)],
        [raise_to(300), raise_to(900), raise_to(2700)], [raise_to(300), raise_to(900), raise_to(20000)],
        [raise_to(300), raise_to(900), raise_to(2700), raise_to(8100)],
    ]  # fmt: skip
    checked_states = 0
    for hand, line, position in ((h, line, p) for h in aces for line in lines for p in (0, 1)):
        holes = (parse_cards(hand), parse_cards("7d2c"))
        state = initial_state(GAME, 1, holes if position == 0 else holes[::-1], ())
        for action in line:
            state = state.apply(action)
        if state.current_player == position and state.round == 0:
            assert FOLD not in dict(checked(state).probs), (hand, state.betting)
            checked_states += 1
    assert checked_states == len(aces) * len(lines)
    # The bottom of the range folds to a raise.
    trash = initial_state(GAME, 1, (parse_cards("7c2d"), parse_cards("AhKh")), ()).apply(raise_to(300))
    assert dict(checked(trash).probs).get(FOLD, 0) > 0.9


def test_strong_hands_bet_and_weak_hands_fold_to_big_bets():
    # Top set on the flop, first to act: bets (some slow play allowed).
    nuts = checked(_state("KdKs", "7h6c", "Kh8c2d", [CALL, CALL, CALL]))
    bet = sum(p for a, p in nuts.probs if a.kind == ActionType.RAISE)
    assert bet > 0.5
    # Seven high on a paired board facing a pot-sized river bet: folds.
    state = _state("7c3d", "AhAd", "KsKc9h5s2d", [CALL, CALL, CALL, CALL, CALL, CALL, raise_to(300)])
    assert state.current_player == 1
    assert dict(checked(state).probs).get(FOLD, 0) == 1


def _duplicate_mbb(opponent: str, hands: int, seed: int) -> tuple[float, float]:
    """The equity bot's AIVAT + duplicate mean and its standard error (mbb/hand), in process."""
    values = []
    for seats in ([("equity", EQUITY), (opponent, POLICIES[opponent])], [(opponent, POLICIES[opponent]), ("equity", EQUITY)]):
        sim = simulate_match(GAME, seats, hands, seed, name=f"m-{seats[0][0]}")
        result = evaluate_match(sim.match_log(), sim.decision_index())
        values.append(result.aivat[:, result.seats.index("equity")])
    paired = (values[0] + values[1]) / 2 * 1000 / GAME.big_blind
    return float(paired.mean()), float(paired.std(ddof=1) / math.sqrt(len(paired)))


@pytest.mark.parametrize("opponent", ["call", "raise"])
def test_beats_call_and_raise_clearly(opponent):
    mean, stderr = _duplicate_mbb(opponent, 250, 21)
    assert mean > 1000 and mean - 3 * stderr > 0, (mean, stderr)


def test_not_card_independent_and_declared_card_dependent():
    assert EQUITY not in CARD_INDEPENDENT
    assert declared("equity") == (None, CARD_DEPENDENT) and declared("call") == ("call", "baseline")


def test_a_duplicate_match_against_call_is_logged_card_dependent_and_reported_with_aivat(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "dealer.cli", "run", "equity", "call", "--hands", "40", "--duplicate", "--seed", "3",
         "--quiet", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    for match in ("match.1", "match.2"):
        header, decisions = read_decision_log(tmp_path / "decisions" / f"{match}.equity.dlog")
        assert (header["policy"], header["strategy"]) == (None, CARD_DEPENDENT)
        assert all(d.range is None for d in decisions)
        header, _ = read_decision_log(tmp_path / "decisions" / f"{match}.call.dlog")
        assert (header["policy"], header["strategy"]) == ("call", "baseline")
    results = json.loads((tmp_path / "report.json").read_text())["lineups"][0]["results"]["equity"]
    for estimator in ("aivat", "aivat+duplicate"):
        r = results[estimator]
        assert all(r[k] is not None and math.isfinite(r[k]) for k in ("mbb_per_hand", "mbb_ci_low", "mbb_ci_high", "p_value"))
    # Both seats' decisions are corrected at the cards held; nobody's range is averaged over.
    assert results["decisions_corrected"] > 0 and results["strategy_used"] is None
    assert "AIVAT action corrections: " in run.stdout and "equity" in run.stdout


def test_dealer_run_refuses_a_game_the_bot_cannot_play(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "dealer.cli", "run", "equity", "call", "--game", "leduc.limit.2p", "--quiet",
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 2 and "heads-up hold'em only" in run.stderr


def test_decisions_take_milliseconds():
    import time

    equitybot.prepare(GAME)
    rng = np.random.default_rng(0)
    slowest = 0.0
    for hand in range(30):
        cards = rng.permutation(52)[:9].tolist()
        state = initial_state(GAME, hand, (tuple(cards[:2]), tuple(cards[2:4])), tuple(cards[4:]))
        while not state.finished:
            started = time.perf_counter()
            dist = EQUITY(state)
            slowest = max(slowest, time.perf_counter() - started)
            assert dist.probs
            state = state.apply(CALL)  # checked down: a decision on every round
    assert slowest < 0.1  # a few ms each on a quiet core; generous for a loaded CI machine
