"""AIVAT over a seat's logged range: exact, and unbiased where the truth is known exactly.

Leduc: a seat playing a card-dependent strategy and logging its whole range (as our
agent does) against a card-dependent bot whose strategy the estimator does not know.
The exact expected value comes from walking the whole game tree.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import replace
from functools import cache, lru_cache

import numpy as np
import pytest

from dealer.evaluation.aivat import IMAGINARY, LOGGED_RANGE, DecisionIndex
from dealer.evaluation.rangeaivat import CheckDown, SeatValues
from dealer.evaluation.values import AivatError, CheckDownValue
from dealer.policy import Distribution
from protocol.cards import card_rank, deck
from protocol.decisions import ROW_TOTAL, LoggedRange
from protocol.gamedef import load_game
from protocol.rules import CALL, FOLD, LIMIT_RAISE, State, initial_state, raise_to
from tests.dealer.evaluation.simulate import evaluate_match, simulate_match

LEDUC = load_game("leduc.limit.2p")
NL_LEDUC = load_game("leduc.nolimit.2p")


def _visible(state: State, position: int) -> tuple[int, int]:
    own = card_rank(state.hole_cards[position][0])
    board = state.board[: state.game.board_cards_through(state.round)]
    return own, card_rank(board[0]) if board else -1


def _legal(state: State) -> list:
    actions = [FOLD] if state.can_fold() else []
    actions.append(CALL)
    bounds = state.raise_bounds()
    if bounds is not None:
        actions += [LIMIT_RAISE] if not state.game.is_nolimit else [raise_to(x) for x in sorted({bounds[0], bounds[1]})]
    return actions


def ranged_policy(state: State) -> Distribution:
    """A card-dependent strategy in units of 1/65,535 (so its logged rows are exact)."""
    own, board = _visible(state, state.current_player)
    actions = _legal(state)
    rng = np.random.default_rng(zlib.crc32(f"{own}|{board}|{state.betting}".encode()))
    weights = rng.random(len(actions)) + 0.1
    counts = np.floor(weights / weights.sum() * ROW_TOTAL).astype(np.int64)
    counts[0] += ROW_TOTAL - counts.sum()
    return Distribution(tuple((a, c / ROW_TOTAL) for a, c in zip(actions, counts)))


def opponent_policy(state: State) -> Distribution:
    """A fixed card-dependent bot: bets its pairs and high cards, folds weak hands to bets."""
    own, board = _visible(state, state.current_player)
    strength = 3 if own == board else own - min(card_rank(c) for c in deck(state.game))
    actions = _legal(state)
    weights = np.array([1.0 + (strength if a.kind.name == "RAISE" else 2 - strength if a == FOLD else 1.5) for a in actions])
    probs = np.maximum(weights, 0.05) / np.maximum(weights, 0.05).sum()
    return Distribution(tuple(zip(actions, probs)))


def uniform_opponent(state: State) -> Distribution:
    """:func:`opponent_policy` with half its raise mass spread over every size (no-limit):
    the estimator's uniform-raise path (too many lines for the exact tree walk)."""
    dist = opponent_policy(state)
    bounds = state.raise_bounds()
    if not state.game.is_nolimit or bounds is None or bounds[1] <= bounds[0] + 1:
        return dist
    mass = sum(p for a, p in dist.probs if a.kind.name == "RAISE")
    probs = tuple((a, p / 2 if a.kind.name == "RAISE" else p) for a, p in dist.probs)
    return Distribution(probs, (mass / 2, bounds[0], bounds[1]))


@lru_cache(maxsize=500_000)
def exact_walk(state: State, policies: tuple, at: int) -> float:
    """Exact winnings of position ``at`` from a state with every card known: ``policies[0]``
    plays position ``at``, ``policies[1]`` the other (memoised: the exact ṽ below asks for the
    same states over and over)."""
    if state.finished:
        return state.values()[at]
    policy = policies[0] if state.current_player == at else policies[1]
    return sum(p * exact_walk(state.apply(a), policies, at) for a, p in policy(state).probs)


@cache
def position_value(game, policies: tuple, position: int) -> float:
    """Exact expected winnings per hand of ``policies[0]`` sitting in ``position``."""
    cards = deck(game)
    values = []
    for a in cards:
        for b in cards:
            for board in cards:
                if len({a, b, board}) == 3:
                    holes = [(a,), (b,)] if position == 0 else [(b,), (a,)]
                    values.append(exact_walk(initial_state(game, 0, tuple(holes), (board,)), policies, position))
    return float(np.mean(values))


def exact_value(game, policies: tuple) -> float:
    """Exact expected winnings per hand of seat 0 (``policies[0]``), in each position half the time."""
    return (position_value(game, policies, 0) + position_value(game, policies, 1)) / 2


#: Seeds and hands per seed of the unbiasedness checks (the tree walk of no-limit is the costlier).
SEEDS = {LEDUC: 6, NL_LEDUC: 4}
HANDS = {LEDUC: 300, NL_LEDUC: 250}


@cache
def ranged_match(game, hands: int, seed: int, *, opponent_logs: bool = False):
    """A simulated match of ``ranged_policy`` (logging its range) against an opponent, cached per arguments."""
    seats = [("ranged", ranged_policy), ("bot", uniform_opponent if opponent_logs else opponent_policy)]
    logging = ["ranged", "bot"] if opponent_logs else ["ranged"]
    return simulate_match(game, seats, hands, seed, logging=logging, ranged=["ranged"])


def z_score(values: np.ndarray, truth: float) -> float:
    """(mean − truth) / standard error of the mean."""
    return float((values.mean() - truth) / (values.std(ddof=1) / math.sqrt(values.size)))


def test_range_estimator_is_the_exact_average_over_the_seats_private_hands():
    """The vectorised estimator equals enumerating the seat's private deals with its strategy known."""
    for game in (LEDUC, NL_LEDUC):
        sim = ranged_match(game, 150, 3, opponent_logs=True)
        match, index = sim.match_log(), sim.decision_index()
        fast = evaluate_match(match, index)
        slow = evaluate_match(match, index, strategies={"ranged": ranged_policy})
        assert fast.strategies == {"ranged": LOGGED_RANGE}
        np.testing.assert_allclose(fast.corrections, slow.corrections, atol=1e-9)
        assert fast.decisions == slow.decisions
        assert np.abs(fast.corrections[:, IMAGINARY]).sum() > 0


@pytest.mark.parametrize("game", [LEDUC, NL_LEDUC], ids=["limit", "nolimit"])
def test_unbiased_against_the_exact_value_and_cuts_the_spread(game):
    """Over seeds, the AIVAT mean agrees with the tree's exact value within its CI."""
    truth = exact_value(game, (ranged_policy, opponent_policy))
    zs, raw_std, aivat_std = [], [], []
    for seed in range(SEEDS[game]):
        sim = ranged_match(game, HANDS[game], seed)
        result = evaluate_match(sim.match_log(), sim.decision_index())
        aivat = result.aivat[:, 0]
        zs.append(z_score(aivat, truth))
        raw_std.append(result.raw[:, 0].std(ddof=1))
        aivat_std.append(aivat.std(ddof=1))
    # Each z is about N(0, 1); their sum over k seeds about N(0, k): allow 3.5 standard deviations.
    assert abs(sum(zs)) < 3.5 * math.sqrt(len(zs)), zs
    assert max(abs(z) for z in zs) < 4.5, zs
    assert np.mean(aivat_std) < 0.8 * np.mean(raw_std)


class _BiasedValue(CheckDownValue):
    """Check-down values whose mean over the deal is off by a quarter chip: a deal
    correction that no longer has expectation zero."""

    def chance_mean(self, state: State) -> np.ndarray:
        shift = 0.25 if not any(state.hole_cards) else 0.0
        return super().chance_mean(state) + shift


def test_the_check_catches_a_biased_correction():
    """The same check, on a deliberately biased estimator, fails: the test can fail."""
    truth = exact_value(LEDUC, (ranged_policy, opponent_policy))
    zs = []
    for seed in range(SEEDS[LEDUC]):
        sim = ranged_match(LEDUC, HANDS[LEDUC], seed)
        result = evaluate_match(sim.match_log(), sim.decision_index(), _BiasedValue(LEDUC))
        assert result.strategies == {"ranged": LOGGED_RANGE}
        zs.append(z_score(result.aivat[:, 0], truth))
    assert abs(sum(zs)) >= 3.5 * math.sqrt(len(zs)), zs


#: The ranged seat's policy and the card-dependent bot's, as the exact ṽ below plays them.
POLICIES_PAIR = (ranged_policy, opponent_policy)


class _ExactSeatValues(SeatValues):
    """ṽ = the exact expected winnings under both seats' real policies, through every hook
    a richer value function overrides (:meth:`after`, :meth:`deal`, :meth:`board`)."""

    def after(self, state: State) -> np.ndarray:
        dead = set(self.opponent) | set(state.board)
        return np.array([0.0 if dead & set(h) else self._exact(state, tuple(int(c) for c in h)) for h in self.margins.hands])

    def deal(self, dealt: State, before_deal: float) -> np.ndarray:
        return position_value(self.game, POLICIES_PAIR, self.position) - self.after(dealt)

    def board(self, before: State, after: State) -> np.ndarray:
        # after() averages over the cards still to come, so its mean over them is ṽ before.
        return self.after(before) - self.after(after)

    def _exact(self, state: State, hand: tuple[int, ...]) -> float:
        holes = [hand, hand]
        holes[1 - self.position] = self.opponent
        left = [c for c in deck(self.game) if c not in {*state.board, *hand, *self.opponent}]
        missing = self.game.total_board_cards - len(state.board)
        runs = [(c,) for c in left] if missing else [()]
        # hand_number 0: the value does not depend on it, and the cache is then shared by every hand.
        start = replace(state, hand_number=0, hole_cards=tuple(holes))
        return float(np.mean([exact_walk(replace(start, board=state.board + r), POLICIES_PAIR, self.position) for r in runs]))


class _Exact(CheckDown):
    name = "exact"

    def hand(self, game, margins, opponent, position):
        return _ExactSeatValues(game, margins, opponent, position)


def test_a_value_function_through_the_seat_value_hooks_stays_unbiased_and_cuts_more():
    """The exact ṽ, plugged in as a blueprint's values are (after, deal, board): the mean
    still agrees with the tree's exact value, and the spread left is far below check-down's."""
    truth = exact_value(LEDUC, POLICIES_PAIR)
    zs, checkdown_std, exact_std = [], [], []
    for seed in range(SEEDS[LEDUC]):
        sim = ranged_match(LEDUC, HANDS[LEDUC], seed)
        exact = evaluate_match(sim.match_log(), sim.decision_index(), seat_values=_Exact())
        checkdown = evaluate_match(sim.match_log(), sim.decision_index())
        assert exact.strategies == {"ranged": LOGGED_RANGE}
        zs.append(z_score(exact.aivat[:, 0], truth))
        exact_std.append(exact.aivat[:, 0].std(ddof=1))
        checkdown_std.append(checkdown.aivat[:, 0].std(ddof=1))
    assert abs(sum(zs)) < 3.5 * math.sqrt(len(zs)), zs
    assert max(abs(z) for z in zs) < 4.5, zs
    # What is left is the opponent's own randomisation, which no ṽ corrects (measured: 0.73×).
    assert np.mean(exact_std) < 0.8 * np.mean(checkdown_std), (exact_std, checkdown_std)


def test_a_range_contradicting_the_logged_distribution_is_refused():
    sim = ranged_match(LEDUC, 20, 1)
    index = sim.decision_index()
    key, (seat, decisions) = next(iter(index.by_node.items()))
    d = decisions[0]
    counts = d.range.counts().astype(np.int64)
    counts[:] = 0
    counts[:, -1] = ROW_TOTAL

    lie = replace(d, range=LoggedRange.pack(counts, d.range.weights()))
    bad = DecisionIndex({**index.by_node, key: (seat, (lie, *decisions[1:]))})
    with pytest.raises(AivatError, match="row for the hand held"):
        evaluate_match(sim.match_log(), bad)


def test_holdem_margins_match_exact_counts():
    """The run-out kernel's margins equal exact pattern counts; the table's classes are suit-invariant."""
    from dealer.evaluation import margins
    from dealer.evaluation.showdown import outcome_counts

    game = load_game("holdem.nolimit.2p")
    sm = margins.ShowdownMargins(game)
    # Rainbow and monotone flops, a four-flush turn, a river: flushes by rank pair or card by card.
    for opponent, cards in (
        ((10, 33), (0, 17, 40)), ((10, 33), (0, 17, 40, 51)), ((1, 2), (0, 4, 8)), ((1, 2), (0, 4, 8, 12)),
        ((10, 33), (0, 17, 40, 51, 22)),
    ):  # fmt: skip
        fast = sm.margins(opponent, cards)
        for i, hand in enumerate(sm.hands):
            hand = tuple(int(c) for c in hand)
            if set(hand) & set(cards + opponent):
                assert fast[i] == 0
                continue
            counts = outcome_counts(tuple(deck(game)), (hand, opponent), cards, 5)
            assert fast[i] == pytest.approx((counts[2] - counts[1]) / counts.sum(), abs=1e-12), (hand, cards)
    # The shipped pre-flop table: exact counts, and one hand's margin is the other's negated.
    table = margins.preflop_table()
    np.testing.assert_array_equal(table, -table.T)
    rng = np.random.default_rng(7)
    for opponent, mine in rng.integers(len(sm.hands), size=(12, 2)):
        a, b = (tuple(int(c) for c in sm.hands[i]) for i in (mine, opponent))
        if not set(a) & set(b):
            counts = outcome_counts(tuple(deck(game)), (a, b), (), 5)
            assert table[opponent, mine] == pytest.approx((counts[2] - counts[1]) / counts.sum(), abs=1e-12)
    # Swapping suits (clubs <-> spades, hearts <-> diamonds) keeps the class of a matchup.
    a, b = np.array([[0, 5], [12, 13]]), np.array([[20, 41], [50, 51]])
    swap = np.array([(c // 4) * 4 + (3 - c % 4) for c in range(52)])
    np.testing.assert_array_equal(margins.canonical_matchups(a, b), margins.canonical_matchups(swap[a], swap[b]))


def holdem_ranged_policy(state: State) -> Distribution:
    """A card-dependent hold'em strategy in units of 1/65,535: weights from the hole cards' ranks."""
    hole = state.hole_cards[state.current_player]
    actions = _legal(state)
    score = sum(card_rank(c) for c in hole) + 7 * (card_rank(hole[0]) == card_rank(hole[1]))
    weights = np.array([1.0 + ((score * (k + 3) + len(state.betting)) % 11) for k in range(len(actions))])
    counts = np.floor(weights / weights.sum() * ROW_TOTAL).astype(np.int64)
    counts[0] += ROW_TOTAL - counts.sum()
    return Distribution(tuple((a, c / ROW_TOTAL) for a, c in zip(actions, counts)))


def test_holdem_estimator_equals_the_general_one():
    """Over all 1,326 hands, the vectorised estimator (with the shipped pre-flop table) equals
    enumerating every private deal of the seat with the general AIVAT (its strategy known,
    each showdown counted afresh)."""
    from dealer.bots import POLICIES
    game = load_game("holdem.nolimit.2p")
    seats = [("ranged", holdem_ranged_policy), ("caller", POLICIES["call"])]
    sim = simulate_match(game, seats, 2, 5, logging=["ranged"], ranged=["ranged"])
    match, index = sim.match_log(), sim.decision_index()
    fast = evaluate_match(match, index)
    slow = evaluate_match(match, index, strategies={"ranged": holdem_ranged_policy}, max_private_deals=2000)
    assert fast.strategies == {"ranged": LOGGED_RANGE}
    assert any(len(h.state.board) == 5 for h in match.hands)
    np.testing.assert_allclose(fast.corrections, slow.corrections, atol=1e-6)


def test_a_hand_missing_a_decision_is_corrected_at_the_hand_held():
    """A seat that crashed or timed out logged fewer decisions than it made: that hand
    gets the corrections of the hand held (no imaginary observations), the rest its range."""
    sim = ranged_match(LEDUC, 20, 1)
    index = sim.decision_index()
    key = next(k for k, (_, ds) in index.by_node.items() if len(ds) > 1)
    seat, decisions = index.by_node[key]
    cut = DecisionIndex({**index.by_node, key: (seat, decisions[:-1])})
    full = evaluate_match(sim.match_log(), index)
    partial = evaluate_match(sim.match_log(), cut)
    assert partial.corrections[key[1], IMAGINARY].tolist() == [0.0, 0.0]
    assert full.corrections[key[1], IMAGINARY].any()
    others = [h for h in range(20) if h != key[1]]
    np.testing.assert_array_equal(partial.corrections[others], full.corrections[others])
