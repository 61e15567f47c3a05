"""Facing an all-in: every hand's equity against a range, and the call rule built on it."""

from __future__ import annotations

import numpy as np
import pytest

from agent.allin import call_or_fold, completions, nothing_left_to_decide, range_equity
from protocol.cards import parse_cards
from protocol.fasteval import HOLE_PAIRS, fast_rank_hand
from protocol.gamedef import load_game
from protocol.wire import parse_matchstate

GAME = load_game("holdem.nolimit.2p")


def direct_equity(hand: tuple[int, ...], board: tuple[int, ...], weights: np.ndarray) -> float:
    """Hand against hand over every completion: the definition, slowly."""
    won = live = 0.0
    for full in completions(board, np.random.default_rng(0)):
        if set(hand) & set(full):
            continue
        mine = fast_rank_hand(hand + full)
        for o, pair in enumerate(HOLE_PAIRS.tolist()):
            if weights[o] == 0 or set(pair) & (set(hand) | set(full)):
                continue
            theirs = fast_rank_hand(tuple(pair) + full)
            won += weights[o] * ((mine > theirs) + 0.5 * (mine == theirs))
            live += weights[o]
    return won / live


@pytest.mark.parametrize("board", ["2c7hKs9d3h", "2c7hKs9d"])
def test_equity_is_exact_with_card_removal_on_the_turn_and_river(board):
    cards = tuple(parse_cards(board))
    rng = np.random.default_rng(3)
    weights = rng.random(len(HOLE_PAIRS)) * (rng.random(len(HOLE_PAIRS)) < 0.3)
    equity = range_equity(cards, weights, rng)
    for h in (0, 400, 777, 1325):
        hand = tuple(HOLE_PAIRS[h].tolist())
        if set(hand) & set(cards):
            assert np.isnan(equity[h])
        else:
            assert equity[h] == pytest.approx(direct_equity(hand, cards, weights), abs=1e-9)


def test_preflop_equity_of_aces_against_any_hand_is_about_85_percent():
    equity = range_equity((), np.ones(len(HOLE_PAIRS)), np.random.default_rng(0))
    aces = [i for i, (a, b) in enumerate(HOLE_PAIRS.tolist()) if a // 4 == b // 4 == 12]
    assert np.all(np.abs(equity[aces] - 0.852) < 0.03)  # 400 boards: about 1.8% standard error


def test_the_rule_calls_exactly_the_hands_whose_equity_pays_the_price():
    state = parse_matchstate("MATCHSTATE:1:0:r300c/cc/r20000:|AsKd/2c7hKs/9d", GAME).state
    assert nothing_left_to_decide(state)
    assert not nothing_left_to_decide(parse_matchstate("MATCHSTATE:1:0:r300c/cc/r900:|AsKd/2c7hKs/9d", GAME).state)
    opponent = np.random.default_rng(1).random(len(HOLE_PAIRS))
    call, equity = call_or_fold(state, opponent, np.random.default_rng(0))
    price = state.amount_to_call() / (state.pot + state.amount_to_call())
    known = np.isfinite(equity)
    assert np.array_equal(call[known] == 1.0, equity[known] >= price)
    assert 0 < call[known].mean() < 1  # some hands call, some fold
    assert set(np.unique(call)) <= {0.0, 1.0}
