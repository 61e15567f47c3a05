"""Local best response on no-limit Leduc: never above the exact best response, equal to it
where its check-down assumption holds, and a sampled match agreeing with the exact value."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from agent.lbr import (
    FIFTY_SIX,
    HoldemEquity,
    LocalBestResponse,
    PolicySampler,
    RangePolicy,
    Settle,
    TabularEquity,
    exact_value,
    lbr_setting,
    play_match,
    summarize,
)
from protocol.fasteval import HOLE_PAIRS
from protocol.gamedef import load_game
from protocol.handrank import rank_hand
from protocol.rules import CALL, Action, State, initial_state, raise_to
from solver.bestresponse import check_strategy, exploitability
from solver.bets import parse_abstraction
from solver.cfr.fullwidth import DCFR, CFRSolver
from solver.ranges import TabularGame, tabular_game
from solver.tree import DECISION

GAME = load_game("leduc.nolimit.2p")
TG = tabular_game(GAME, parse_abstraction("1;allin"))


def _calling_station() -> np.ndarray:
    """Check/call with every hand at every decision."""
    s = np.zeros(TG.layout.size)
    tree, lay = TG.tree, TG.layout
    for node in np.flatnonzero(tree.kind == DECISION):
        n_a = int(tree.child_count[node])
        rows = np.arange(lay.rows[tree.round[node]])
        s[lay.offset[node] + rows * n_a + tree.actions(node).index(CALL)] = 1.0
    return s


@pytest.fixture(scope="module")
def strategies() -> dict[str, np.ndarray]:
    solver = CFRSolver(TG, DCFR)
    solver.run(10)
    partial = solver.average_strategy()
    solver.run(290)
    return {"uniform": TG.uniform_strategy(), "cfr10": partial, "cfr300": solver.average_strategy(), "call": _calling_station()}


def _lbr(strategy: np.ndarray, setting: str) -> LocalBestResponse:
    return LocalBestResponse(GAME, TG.space.hands, tabular_policy(TG, strategy), TabularEquity(TG.space), lbr_setting(setting, 2))


@pytest.mark.parametrize("setting", ["fc", "fcpa"])
@pytest.mark.parametrize("name", ["uniform", "cfr10", "cfr300", "call"])
def test_lbr_never_beats_the_exact_best_response(strategies, name, setting):
    s = strategies[name]
    best = exploitability(TG, s).best_responses
    lbr = _lbr(s, setting)
    for seat in (0, 1):
        assert exact_value(lbr, TG.space, seat) <= best[seat] + 1e-9


def test_lbr_equals_the_best_response_against_a_calling_station(strategies):
    """Against check/call, checking down after LBR's action is exactly what happens,
    and in Leduc the all-in does not depend on earlier bets, so myopic LBR is a best response."""
    best = exploitability(TG, strategies["call"]).best_responses
    lbr = _lbr(strategies["call"], "fcpa")
    assert [exact_value(lbr, TG.space, seat) for seat in (0, 1)] == pytest.approx(best, abs=1e-9)
    assert best[0] > 100  # the calling station is very exploitable: the check is not vacuous


def test_lbr_wins_against_weak_strategies_and_not_much_against_cfr(strategies):
    mbb = {
        name: 1000 * np.mean([exact_value(_lbr(strategies[name], "fcpa"), TG.space, seat) for seat in (0, 1)]) / GAME.big_blind
        for name in ("uniform", "cfr300")
    }
    best = 1000 * np.mean(exploitability(TG, strategies["cfr300"]).best_responses) / GAME.big_blind
    assert mbb["uniform"] > 500
    assert mbb["cfr300"] < best + 1e-6 and mbb["cfr300"] < 0.1 * mbb["uniform"]


def test_bet_value_against_a_calling_station_is_the_closed_form(strategies):
    """Nobody folds and the caller's range is the range: bet − call = (2·wp − 1)·bet."""
    lbr = _lbr(strategies["call"], "fcpa")
    public = initial_state(GAME)
    hand = (int(TG.space.deck[-1]),)  # a king
    weights = lbr.initial_range(hand)
    values = dict(lbr.values(public, hand, weights))
    wp = lbr.equity(hand, (), weights)
    for size in (300, 1200):  # pot (100 + the 200 in the pot) and all-in
        assert raise_to(size) in values
        assert values[raise_to(size)] - values[CALL] == pytest.approx((2 * wp - 1) * (size - 100))
    assert values[CALL] == pytest.approx(wp * 200)


def test_sampled_match_agrees_with_the_exact_value(strategies):
    lbr = _lbr(strategies["cfr10"], "fcpa")
    exact = 1000 * np.mean([exact_value(lbr, TG.space, seat) for seat in (0, 1)]) / GAME.big_blind
    played = play_match(lbr, TG.space.deck, PolicySampler(lbr.policy, TG.space.hand_index), 3000, seed=7)
    chips, expected = summarize(played[:, 0], GAME.big_blind), summarize(played[:, 1], GAME.big_blind)
    assert chips.hands == 3000
    assert abs(chips.mbb_per_hand - exact) <= chips.ci95
    # The showdown expectation over the policy's range: unbiased too, and tighter ...
    assert abs(expected.mbb_per_hand - exact) <= expected.ci95 < chips.ci95
    # ... and tighter still over the board cards dealt after the betting ended.
    sampler = PolicySampler(lbr.policy, TG.space.hand_index)
    settled = play_match(lbr, TG.space.deck, sampler, 3000, seed=7, settle=Settle(lbr.equity))
    early = summarize(settled[:, 1], GAME.big_blind)
    assert np.array_equal(settled[:, 0], played[:, 0])
    assert abs(early.mbb_per_hand - exact) <= early.ci95 < expected.ci95
    folded = played[:, 0] == played[:, 1]
    assert 0 < folded.sum() < len(played)  # some hands end by a fold (counted as played), some at a showdown
    again = play_match(lbr, TG.space.deck, PolicySampler(lbr.policy, TG.space.hand_index), 50, seed=7, first=20)
    assert np.array_equal(again, played[20:70])  # seeded per hand: a match resumes at any hand


def test_presets():
    holdem = lbr_setting("fcpa", 4)
    assert holdem.bets == (None, None, (1.0,), (1.0,)) and holdem.all_in == (False, False, True, True)
    big = lbr_setting("56", 4)
    assert len(FIFTY_SIX) == 56 and FIFTY_SIX[0] == pytest.approx(0.05) and FIFTY_SIX[-1] == pytest.approx(0.05 * 1.15**55)
    assert big.bets[:2] == (None, None) and big.bets[3] == FIFTY_SIX
    assert lbr_setting("fc", 4).bets == ((),) * 4
    with pytest.raises(ValueError, match="unknown LBR setting"):
        lbr_setting("pot", 4)


def test_off_tree_betting_is_refused(strategies):
    policy = tabular_policy(TG, strategies["uniform"])
    with pytest.raises(OffTreeError, match="not in the policy's tree"):
        policy(initial_state(GAME).apply(raise_to(250)))


def _brute_equity(hand: tuple[int, ...], board: tuple[int, ...], range_hands: list[tuple[int, int]]) -> float:
    """Equity by ranking every (opponent hand, completion) with the slow reference evaluator."""
    unseen = [c for c in range(52) if c not in hand + board]
    won = total = 0.0
    for rest in combinations(unseen, 5 - len(board)):
        full = board + rest
        mine = rank_hand(hand + full)
        for opp in range_hands:
            if set(opp) & set(full):
                continue
            theirs = rank_hand(opp + full)
            won += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            total += 1
    return won / total


@pytest.mark.parametrize("board", [(0, 9, 18, 27, 36), (0, 9, 18, 27)])
def test_holdem_equity_is_exact_on_the_turn_and_river(board):
    hand, range_hands = (50, 51), [(1, 2), (4, 5), (27, 30), (44, 48)]
    weights = np.zeros(len(HOLE_PAIRS))
    for opp in range_hands:
        weights[_pair_index(opp)] = 1.0
    equity = HoldemEquity()
    equity(hand, board, np.ones(len(HOLE_PAIRS)))  # another range first: the cached completions must not leak it
    assert equity(hand, board, weights) == pytest.approx(_brute_equity(hand, board, range_hands))


def _pair_index(pair: tuple[int, int]) -> int:
    return HOLE_PAIRS.tolist().index(sorted(pair))


def test_holdem_equity_is_sampled_preflop():
    """Two aces against a uniformly random hand win about 85% (85.2% exactly)."""
    aces = (48, 49)  # two cards of the top rank in the 4·rank + suit encoding
    assert rank_hand(aces) > rank_hand((44, 45))
    equity = HoldemEquity(samples=400, seed=3)(aces, (), np.ones(len(HOLE_PAIRS)))
    assert equity == pytest.approx(0.852, abs=0.03)


class OffTreeError(ValueError):
    """The tabular policy has no node for this betting sequence."""



def tabular_policy(tg: TabularGame, strategy: np.ndarray) -> RangePolicy:
    """A full-range policy reading a tabular strategy (``TabularGame`` layout) over ``tg.space.hands``.

    Raises:
        ValueError: if the strategy does not fit the game; the returned policy raises
            :class:`OffTreeError` at a betting sequence the tree does not hold.
    """
    s = check_strategy(tg, strategy)
    tree, space, lay = tg.tree, tg.space, tg.layout
    node_of = {tree.states[n].betting: int(n) for n in np.flatnonzero(tree.kind == DECISION)}

    def policy(public: State) -> tuple[list[Action], np.ndarray]:
        node = node_of.get(public.betting)
        if node is None:
            raise OffTreeError(f"betting {public.betting!r} is not in the policy's tree")
        _, b = space.board_index(public.board[: public.game.board_cards_through(public.round)])
        n_a = int(tree.child_count[node])
        start = lay.offset[node] + b * space.n_hands * n_a
        return tree.actions(node), s[start : start + space.n_hands * n_a].reshape(space.n_hands, n_a)

    return policy
