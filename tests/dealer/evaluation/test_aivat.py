"""AIVAT: a hand worked by hand, zero-mean corrections at every node type, no bias."""

from __future__ import annotations

import re
from itertools import permutations

import numpy as np
import pytest

from dealer.bots import POLICIES
from dealer.evaluation.aivat import (
    ACTION,
    BOARD,
    DEAL,
    IMAGINARY,
    DecisionIndex,
    LoggedSigma,
    declared_strategies,
    hand_corrections,
    load_decision_logs,
    played,
)
from dealer.evaluation.matchlog import read_match_log
from dealer.evaluation.values import AivatError, CheckDownValue, ValueFunction
from protocol.cards import deck, parse_cards
from protocol.decisions import Decision, DecisionLogWriter
from protocol.gamedef import load_game, parse_gamedef
from protocol.rules import CALL, FOLD, initial_state, raise_to, with_cards
from protocol.wire import parse_state_line
from tests.dealer.evaluation.simulate import evaluate_match, simulate_match
from tests.reference import game_file_for, log_files

# Three players, short and unequal stacks, a player without a blind, a dead card
# when someone folds: the side-pot cases in a deck small enough to enumerate.
SMALL_3P = parse_gamedef(
    """GAMEDEF
nolimit
numPlayers = 3
numRounds = 2
stack = 300 500 800
blind = 1 2 0
firstPlayer = 3 1
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
""",
    "small3p",
)


def test_hand_worked_by_hand():
    """Leduc, Kh vs Qs, board Qh, betting c r c / c c; only position 1 logs (it plays 50/50).

    P0 wins 3 of the 4 possible boards, so with c chips each in, ṽ = (c/2, -c/2).
    deal: 0 - ṽ(blinds 1,1) = -0.5 for P0.  P1 checks or raises 50/50 after P0's check:
    ½·ṽ(1,1) + ½·ṽ(3,3) - ṽ(3,3) = ½·0.5 + ½·1.5 - 1.5 = -0.5.  Board Qh pairs P1:
    ṽ(3,3 before) - ṽ(after) = 1.5 - (-3) = 4.5.  P1 checks behind, 50/50 against a raise
    to 7: ½·(-3) + ½·(-7) - (-3) = -2.  P0's AIVAT value: -3 - 0.5 + 4.5 - 0.5 - 2 = -1.5.
    """
    game = load_game("leduc.limit.2p")
    hand = parse_state_line("STATE:0:crc/cc:Kh|Qs/Qh:-3|3:A|B", game)
    half = (("c", 0.5), ("r", 0.5))
    decisions = [
        Decision("m", 0, 1, "MATCHSTATE:1:0:c:|Qs", half, None, "r"),
        Decision("m", 0, 1, "MATCHSTATE:1:0:crc/c:|Qs/Qh", half, None, "c"),
    ]
    corrections, used, likelihood = hand_corrections(hand, {1: LoggedSigma(decisions)}, CheckDownValue(game))
    assert corrections[:, 0].tolist() == [-0.5, 4.5, -2.5]
    assert corrections.sum(axis=0).tolist() == [1.5, -1.5]
    assert used == {1: 2} and likelihood == {1: 0.25}


@pytest.mark.parametrize("path", log_files(), ids=lambda p: p.name)
def test_value_at_the_end_of_a_hand_is_what_it_paid(path):
    game = load_game(game_file_for(path))
    match = read_match_log(path, game)
    value = CheckDownValue(game)
    got = value.values([h.state for h in match.hands])
    assert np.allclose(got, [h.values for h in match.hands], atol=1e-9)


@pytest.mark.parametrize(
    "game", [load_game("leduc.limit.2p"), load_game("kuhn.limit.3p"), SMALL_3P], ids=["leduc", "kuhn3p", "small3p"]
)
def test_deal_correction_has_mean_zero(game):
    value = CheckDownValue(game)
    deals = list(permutations(deck(game), game.num_players))
    states = [initial_state(game, 0, tuple((c,) for c in d)) for d in deals]
    assert np.abs(value.values(states).mean(axis=0)).max() < 1e-12
    assert value.chance_mean(initial_state(game, 0)).tolist() == [0.0] * game.num_players


def _board_mean(value, state, cards_left):
    after = [with_cards(state, state.hole_cards, state.board + (c,)) for c in cards_left]
    return value.values(after).mean(axis=0)


def test_board_correction_has_mean_zero_with_dead_cards_and_side_pots():
    value = CheckDownValue(SMALL_3P)
    holes = tuple((c,) for c in parse_cards("AsJhKs"))
    state = initial_state(SMALL_3P, 0, holes)
    for action in (raise_to(300), FOLD, CALL):  # P2 shoves past P0's stack, P0 folds, P1 calls
        state = state.apply(action)
    assert state.round == 1 and state.folded == (True, False, False)
    left = [c for c in deck(SMALL_3P) if (c,) not in holes]
    assert _board_mean(value, state, left) == pytest.approx(value.chance_mean(state), abs=1e-12)


def test_turn_card_correction_has_mean_zero_in_holdem():
    game = load_game("holdem.nolimit.2p")
    value = CheckDownValue(game)
    holes = (parse_cards("AhKd"), parse_cards("7c7s"))
    board = parse_cards("Kc7d2h")
    state = initial_state(game, 0, holes, board)
    for action in (raise_to(300), CALL, raise_to(500), CALL):
        state = state.apply(action)
    assert state.round == 2 and len(state.board) == 3
    left = [c for c in deck(game) if c not in board + holes[0] + holes[1]]
    assert _board_mean(value, state, left) == pytest.approx(value.chance_mean(state), abs=1e-9)


@pytest.mark.parametrize("setup", ["leduc", "small3p"])
def test_mean_over_a_raise_range_matches_every_size(setup):
    if setup == "leduc":
        game = load_game("leduc.nolimit.2p")
        state = initial_state(game, 0, (parse_cards("Kh"), parse_cards("Qs")))
    else:
        game = SMALL_3P
        state = initial_state(game, 0, tuple((c,) for c in parse_cards("AsJhKs")), parse_cards("Qh"))
        for action in (CALL, CALL, CALL, CALL, CALL):  # to round 1, then P0 and P1 check
            state = state.apply(action)
        assert state.round == 1 and state.current_player == 2
    low, high = state.raise_bounds()
    value = CheckDownValue(game)
    fast = value.raise_mean(state, low, high)
    assert fast == pytest.approx(ValueFunction.raise_mean(value, state, low, high), abs=1e-9)
    part = value.raise_mean(state, low + 7, high - 50)
    assert part == pytest.approx(ValueFunction.raise_mean(value, state, low + 7, high - 50), abs=1e-9)


def test_dealer_fixes_are_pushed_through_sigma():
    game = load_game("leduc.nolimit.2p")
    state = initial_state(game, 0, (parse_cards("Kh"), parse_cards("Qs")))
    low, high = state.raise_bounds()  # 200..1200
    sigma = played(state, ((FOLD, 0.1), (raise_to(100), 0.2)), (0.7, 100, 1299))
    discrete, uniform = sigma.discrete, sigma.uniform
    width = 1299 - 100 + 1
    # An impossible fold is played as a call; sizes below the range as the minimum.
    assert discrete[CALL] == pytest.approx(0.1)
    assert discrete[raise_to(low)] == pytest.approx(0.2 + 0.7 * 100 / width)
    assert discrete[raise_to(high)] == pytest.approx(0.7 * 99 / width)
    assert uniform == pytest.approx((0.7 * 1001 / width, low, high))
    assert sigma.probability(raise_to(500)) == pytest.approx(0.7 / width)


def test_decisions_that_contradict_the_log_are_refused():
    game = load_game("leduc.limit.2p")
    hand = parse_state_line("STATE:0:crc/cc:Kh|Qs/Qh:-3|3:A|B", game)
    value = CheckDownValue(game)
    wrong_state = Decision("m", 0, 1, "MATCHSTATE:1:0:c:|Ks", (("c", 1.0),), None, "r")
    with pytest.raises(AivatError, match=re.escape("acted on 'MATCHSTATE:1:0:c:|Ks'")):
        hand_corrections(hand, {1: LoggedSigma([wrong_state])}, value)
    other = Decision("m", 0, 1, "MATCHSTATE:1:0:c:|Qs", (("c", 1.0),), None, "c")
    with pytest.raises(AivatError, match="sent 'c' but the match log shows r"):
        hand_corrections(hand, {1: LoggedSigma([other])}, value)
    zero = Decision("m", 0, 1, "MATCHSTATE:1:0:c:|Qs", (("c", 1.0), ("r", 0.0)), None, "r")
    with pytest.raises(AivatError, match="probability 0"):
        hand_corrections(hand, {1: LoggedSigma([zero])}, value)
    extra = [
        Decision("m", 0, 1, "MATCHSTATE:1:0:c:|Qs", (("r", 1.0),), None, "r"),
        Decision("m", 0, 1, "MATCHSTATE:1:0:crc/c:|Qs/Qh", (("c", 1.0),), None, "c"),
        Decision("m", 0, 1, "MATCHSTATE:1:0:crc/cc:|Qs/Qh", (("c", 1.0),), None, "c"),
    ]
    with pytest.raises(AivatError, match="never acted"):
        hand_corrections(hand, {1: LoggedSigma(extra)}, value)


def test_files_give_the_same_result_as_memory(tmp_path):
    game = load_game("leduc.nolimit.2p")
    sim = simulate_match(game, [("A", POLICIES["random"]), ("B", POLICIES["random"])], 200, 4, logging=["B"])
    path = sim.write(tmp_path)
    from_files = evaluate_match(read_match_log(path), load_decision_logs(sorted((tmp_path / "decisions").glob("*.dlog"))))
    in_memory = evaluate_match(sim.match_log(), sim.decision_index())
    assert np.array_equal(from_files.aivat, in_memory.aivat)
    assert from_files.decisions["B"] > 200 and from_files.decisions["A"] == 0


UNBIASED_CASES = {
    "leduc-limit random/call, both logged": (load_game("leduc.limit.2p"), ("random", "call"), None),
    "leduc-nolimit random/random, one logged": (load_game("leduc.nolimit.2p"), ("random", "random"), {"P0"}),
    "small3p random x3, two logged": (SMALL_3P, ("random", "random", "random"), {"P0", "P2"}),
}


@pytest.mark.parametrize("case", list(UNBIASED_CASES))
def test_no_bias_on_many_seeded_matches(case):
    """Each kind of correction has mean zero, so AIVAT's mean is the raw mean, up to sampling error."""
    game, kinds, logging = UNBIASED_CASES[case]
    seats = [(f"P{i}", POLICIES[k]) for i, k in enumerate(kinds)]
    results = [
        evaluate_match(sim.match_log(), sim.decision_index())
        for sim in (simulate_match(game, seats, 250, seed, logging=logging) for seed in range(24))
    ]
    corrections = np.concatenate([r.corrections for r in results])  # hands x kinds x seats
    raw = np.concatenate([r.raw for r in results])
    aivat = np.concatenate([r.aivat for r in results])
    assert np.allclose(aivat.sum(axis=1), 0, atol=1e-9) and np.allclose(raw.sum(axis=1), 0, atol=1e-9)
    for kind in (DEAL, BOARD, ACTION):
        x = corrections[:, kind, 0]
        z = x.mean() / (x.std(ddof=1) / np.sqrt(x.size))
        assert abs(z) < 4, (kind, z)
    difference = aivat[:, 0] - raw[:, 0]
    assert abs(difference.mean()) < 4 * difference.std(ddof=1) / np.sqrt(difference.size)
    # The corrections are not trivially zero, and they do reduce the spread here.
    assert np.abs(corrections[:, ACTION, 0]).max() > 0
    assert aivat[:, 0].std() < raw[:, 0].std()


def test_imaginary_observations_remove_all_luck_when_every_line_is_worth_zero():
    """random vs call: the call bot never bets, so random never folds and every hand is a
    showdown between hands dealt alike: each line is worth exactly 0 to both.  With both
    strategies known, AIVAT must say so hand by hand; raw chips swing."""
    game = load_game("leduc.limit.2p")
    sim = simulate_match(game, [("A", POLICIES["random"]), ("B", POLICIES["call"])], 150, 8)
    r = evaluate_match(sim.match_log(), strategies={"A": POLICIES["random"], "B": POLICIES["call"]})
    assert np.abs(r.raw).max() >= 5
    assert np.abs(r.aivat).max() < 1e-9
    assert np.abs(r.corrections[:, IMAGINARY]).max() > 0


@pytest.mark.parametrize(
    ("game", "kinds", "known"),
    [(load_game("leduc.limit.2p"), ("random", "random"), {"P0", "P1"}), (SMALL_3P, ("random",) * 3, {"P1"})],
    ids=["leduc both known", "small3p one known"],
)
def test_imaginary_observations_are_unbiased(game, kinds, known):
    seats = [(f"P{i}", POLICIES[k]) for i, k in enumerate(kinds)]
    strategies = {name: policy for name, policy in seats if name in known}
    results = [
        evaluate_match(sim.match_log(), sim.decision_index(), strategies=strategies)
        for sim in (simulate_match(game, seats, 100, 50 + seed, logging={"P0"}) for seed in range(12))
    ]
    corrections = np.concatenate([r.corrections for r in results])
    for kind in (DEAL, BOARD, ACTION, IMAGINARY):
        x = corrections[:, kind, 0]
        # With every hand hidden, chance corrections are exactly 0 (the split needs no cards).
        assert abs(x.mean()) <= 4 * x.std(ddof=1) / np.sqrt(x.size), kind
    assert np.abs(corrections[:, IMAGINARY, 0]).max() > 0
    raw = np.concatenate([r.raw for r in results])[:, 0]
    aivat = np.concatenate([r.aivat for r in results])[:, 0]
    assert aivat.std() < 0.75 * raw.std()


def test_imaginary_observations_refuse_big_decks():
    game = load_game("holdem.nolimit.2p")
    sim = simulate_match(game, [("A", POLICIES["call"]), ("B", POLICIES["call"])], 1, 1)
    with pytest.raises(AivatError, match="990 private deals per hand"):
        evaluate_match(sim.match_log(), strategies={"A": POLICIES["call"]})


def _opaque(policy):
    """The same strategy, not marked card-independent: forces the replay over every private deal."""
    return lambda state: policy(state)


@pytest.mark.parametrize("kinds", [("random", "random"), ("random", "raise")])
def test_hidden_hands_equal_the_average_over_every_private_deal(kinds):
    """The closed form (one replay with hidden hands) is the enumeration over all deals."""
    game = load_game("leduc.limit.2p")
    seats = [(f"P{i}", POLICIES[k]) for i, k in enumerate(kinds)]
    match = simulate_match(game, seats, 60, 5).match_log()
    closed = evaluate_match(match, strategies=dict(seats))
    enumerated = evaluate_match(match, strategies={n: _opaque(p) for n, p in seats})
    assert np.allclose(closed.aivat, enumerated.aivat, atol=1e-9)
    assert np.allclose(closed.corrections[:, IMAGINARY], enumerated.corrections[:, IMAGINARY], atol=1e-9)
    assert closed.strategies == dict(zip(("P0", "P1"), kinds))


def test_random_against_call_in_holdem_is_worth_its_blind_folds_hand_by_hand():
    """No-limit hold'em, random vs call, both strategies known: the call bot never bets, so
    random folds only as the small blind facing the big blind (probability 0.06) and every
    other line is a showdown between hands dealt alike.  Each hand is worth exactly
    -0.06 * 50 = -3 chips to random when it has the small blind (position 1) and 0 otherwise."""
    game = load_game("holdem.nolimit.2p")
    seats = [("R", POLICIES["random"]), ("C", POLICIES["call"])]
    sim = simulate_match(game, seats, 200, 3)
    r = evaluate_match(sim.match_log(), sim.decision_index(), strategies=dict(seats))
    small_blind = np.array([h.names[1] == "R" for h in sim.hands])
    assert np.allclose(r.aivat[:, 0], np.where(small_blind, -3.0, 0.0), atol=1e-9)
    assert r.raw[:, 0].std() > 1000


def test_declared_policies_are_read_from_files_and_checked(tmp_path):
    game = load_game("holdem.nolimit.2p")
    seats = [("R", POLICIES["random"]), ("C", POLICIES["call"])]
    path = simulate_match(game, seats, 30, 2).write(tmp_path / "ok")
    match = read_match_log(path)
    index = load_decision_logs(sorted((tmp_path / "ok" / "decisions").glob("*.dlog")))
    assert index.policies == {("sim", "R"): "random", ("sim", "C"): "call"}
    strategies, note = declared_strategies(match.name, match.game, match.seats, index)
    assert set(strategies) == {"R", "C"} and note is None
    # One declaring seat in hold'em: too many private deals, so the logs are used as logs.
    only_r = simulate_match(game, seats, 30, 2, logging={"R"})
    strategies, note = declared_strategies(only_r.name, game, only_r.seats, only_r.decision_index())
    assert strategies == {} and "1,225 replays per hand" in note
    # A header that claims a policy the seat does not play is refused.
    liar = simulate_match(game, [("R", POLICIES["random"]), ("C", POLICIES["call"])], 30, 2)
    lying = DecisionIndex.of(liar.decisions, policies={("sim", "R"): "call", ("sim", "C"): "call"})
    with pytest.raises(AivatError, match="does not play the policy its header declares"):
        evaluate_match(liar.match_log(), lying, strategies={"R": POLICIES["call"], "C": POLICIES["call"]})


def test_unknown_declared_policy_is_refused(tmp_path):
    game = load_game("leduc.limit.2p")
    with DecisionLogWriter(tmp_path / "x.dlog", seat="X", match="m", game=game, policy="shark"):
        pass
    with pytest.raises(AivatError, match="names policy 'shark', which is not a baseline"):
        load_decision_logs([tmp_path / "x.dlog"])

