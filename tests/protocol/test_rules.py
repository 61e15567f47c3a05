"""The rules of a hand: worked examples of the ACPC rules (docs/protocol.md) and the reference dealer's edge-case transcripts."""

from __future__ import annotations

import pytest

from protocol.cards import parse_cards
from protocol.errors import IllegalActionError
from protocol.gamedef import load_game
from protocol.rules import CALL, FOLD, LIMIT_RAISE, ActionType, initial_state, raise_to, start_of_round, with_cards
from protocol.wire import parse_matchstate

NL = load_game("holdem.nolimit.2p")
LIMIT = load_game("holdem.limit.2p")
NL3 = load_game("holdem.nolimit.3p")


def play(game, *actions, **cards):
    state = initial_state(game)
    for a in actions:
        state = state.apply(a)
    return state


def test_heads_up_no_limit_opening():
    s = initial_state(NL)
    assert s.current_player == 1  # the button (small blind) acts first preflop
    assert s.spent == (100, 50) and s.raise_bounds() == (200, 20000)
    assert s.legal_action_types() == [ActionType.FOLD, ActionType.CALL, ActionType.RAISE]
    s = s.apply(CALL).apply(CALL)
    assert s.round == 1 and s.current_player == 0
    assert s.raise_bounds() == (200, 20000)  # M + big blind at the start of a round
    assert not s.can_fold()


def test_min_raise_follows_the_last_raise():
    s = play(NL, CALL, CALL, CALL, raise_to(200))
    assert s.raise_bounds() == (300, 20000)
    s = s.apply(raise_to(300))
    assert s.raise_bounds() == (400, 20000)
    s = s.apply(raise_to(1000))
    assert s.raise_bounds() == (1700, 20000)


def test_all_in_runs_out_the_board():
    s = play(NL, raise_to(20000))
    assert s.raise_bounds() is None  # nothing left to raise over
    assert s.legal_action_types() == [ActionType.FOLD, ActionType.CALL]
    s = s.apply(CALL)
    assert s.finished and s.round == 3
    assert s.betting == "r20000c///"


def test_short_stack_can_only_go_all_in():
    game = load_game("leduc.nolimit.2p")
    s = play(game, raise_to(700))
    assert s.raise_bounds() == (1200, 1200)  # min would be 1300 > stack: all-in only


def test_limit_raise_cap_and_sizes():
    s = play(LIMIT, LIMIT_RAISE, LIMIT_RAISE, LIMIT_RAISE)
    assert s.max_spent == 40 and s.raise_bounds() is None
    with pytest.raises(IllegalActionError, match="raising is not allowed"):
        s.apply(LIMIT_RAISE)
    s = s.apply(CALL)
    assert s.round == 1 and s.raise_bounds() == (50, 50)


def test_illegal_actions_are_refused_with_a_sentence():
    s = play(NL, CALL, CALL)
    with pytest.raises(IllegalActionError, match="nothing to call"):
        s.apply(FOLD)
    with pytest.raises(IllegalActionError, match=r"outside the legal range 200\.\.20000"):
        s.apply(raise_to(150))


def test_fix_mode_matches_reference_warnings():
    s = play(NL, CALL, CALL, CALL)
    assert s.fix_action(raise_to(50)) == (raise_to(200), ["raise of 50 increased to 200"])
    s = s.apply(raise_to(200))
    assert s.fix_action(raise_to(299)) == (raise_to(300), ["raise of 299 increased to 300"])
    s = s.apply(raise_to(300))
    assert s.fix_action(raise_to(50000)) == (raise_to(20000), ["raise of 50000 decreased to 20000"])
    checked = play(NL, CALL)
    assert checked.fix_action(FOLD) == (CALL, ["invalid action, changed to call"])
    capped = play(LIMIT, LIMIT_RAISE, LIMIT_RAISE, LIMIT_RAISE)
    assert capped.fix_action(LIMIT_RAISE) == (CALL, ["invalid action, changed to call"])


def test_fold_ends_the_hand_and_values():
    s = play(NL, raise_to(300), FOLD)
    assert s.finished and s.values() == (-100.0, 100.0)


def test_three_player_side_pots_and_fractional_split():
    # Position 2 (button) shoves 20000, position 0 (SB) calls, position 1 (BB) folds.
    # Then a split between positions 0 and 2: each gets back its own plus half the BB.
    s = play(NL3, raise_to(20000), CALL, FOLD)
    assert s.finished and s.round == 3
    board = parse_cards("AhKhQhJh2c")
    s = with_cards(s, (parse_cards("3c4c"), parse_cards("5d6d"), parse_cards("3d4d")), board)
    assert s.values() == (50.0, -100.0, 50.0)


def test_side_pot_goes_to_best_eligible_hand():
    game = load_game("holdem.nolimit.3p")
    # Unequal stacks: build a custom game with a short stack at position 0.
    from dataclasses import replace

    short = replace(game, stack=(1000, 20000, 20000))
    s = initial_state(short)
    s = s.apply(raise_to(5000)).apply(CALL).apply(CALL)  # pos 2 raises, pos 0 all-in 1000, pos 1 calls
    assert s.spent == (1000, 5000, 5000) and s.round == 1
    s = s.apply(CALL).apply(CALL)  # position 0 is all-in and skipped
    s = s.apply(CALL).apply(CALL).apply(CALL).apply(CALL)
    assert s.finished
    board = parse_cards("2c7d9hJs3d")
    # Position 0 has the best hand, position 1 the second best: 0 wins the main pot only.
    s = with_cards(s, (parse_cards("AsAd"), parse_cards("KcKh"), parse_cards("3c4h")), board)
    assert s.values() == (2000.0, 3000.0, -5000.0)
    assert sum(s.values()) == 0


def test_matchstate_turn_is_derived_from_the_state():
    m = parse_matchstate("MATCHSTATE:1:0::|2hAc", NL)
    assert m.is_my_turn and m.my_cards == parse_cards("2hAc")
    m = parse_matchstate("MATCHSTATE:0:0::7d3d|", NL)
    assert not m.is_my_turn


def test_start_of_round_is_the_state_before_the_rounds_first_action():
    game = load_game("holdem.nolimit.2p")
    facing = parse_matchstate("MATCHSTATE:1:4:r300c/cc/cc/r900:|AsKd/2c7hKs/9d/3h", game).state
    start = start_of_round(facing)
    assert start.betting == "r300c/cc/cc/" and start.round == 3 and start.actions[3] == ()
    assert start.current_player == 0 and start.hand_number == 4
    assert start.board == facing.board and start.hole_cards == facing.hole_cards
    assert start.apply(facing.actions[3][0]).betting == facing.betting
    preflop = parse_matchstate("MATCHSTATE:0:4:r300:AsKd|", game).state
    assert start_of_round(preflop).betting == "" and start_of_round(preflop).spent == (100, 50)
