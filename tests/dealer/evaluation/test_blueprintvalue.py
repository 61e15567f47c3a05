"""The blueprint's ṽ for full-range AIVAT on hold'em (``dealer report --value blueprint``).

Unbiasedness of the hooks it overrides is checked exactly on Leduc
(``test_rangeaivat.py``); here: the hold'em pieces those hooks rely on.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest

from dealer.bots import POLICIES
from dealer.evaluation.aivat import LOGGED_RANGE
from dealer.evaluation.blueprintvalue import BlueprintValue
from dealer.evaluation.margins import ShowdownMargins
from dealer.evaluation.matchlog import EvaluationError
from dealer.evaluation.report import report_match
from dealer.evaluation.values import AivatError
from protocol.cards import parse_cards
from protocol.gamedef import load_game
from protocol.rules import CALL, initial_state, raise_to
from tests.dealer.evaluation.simulate import evaluate_match, simulate_match
from tests.dealer.evaluation.test_rangeaivat import holdem_ranged_policy

GAME = load_game("holdem.nolimit.2p")


@cache
def _source() -> tuple[BlueprintValue, ShowdownMargins]:
    return BlueprintValue(), ShowdownMargins(GAME)


def _index(margins: ShowdownMargins, cards: str) -> int:
    wanted = sorted(parse_cards(cards))
    return next(i for i, h in enumerate(margins.hands) if sorted(int(c) for c in h) == wanted)


def test_card_mean_averages_over_the_cards_each_hand_leaves():
    """The river card's mean, per private hand, over exactly the 44 cards that hand leaves."""
    source, margins = _source()
    opponent = tuple(parse_cards("AhKd"))
    values = source.hand(GAME, margins, opponent, 0)
    board = tuple(parse_cards("2c7d9hJs"))
    state = initial_state(GAME, 17, (tuple(parse_cards("QsQd")), opponent), board)
    for action in (CALL, CALL, CALL, CALL, raise_to(600), CALL):  # preflop and flop called, turn bet and called
        state = state.apply(action)
    river = replace(state, board=(*board, parse_cards("3s")[0]))
    mean = values.card_mean(river)
    for cards in ("QsQd", "8c8s", "Tc9c"):
        h = _index(margins, cards)
        left = [c for c in range(52) if c not in {*board, *opponent, *margins.hands[h]}]
        assert len(left) == 44
        brute = np.mean([np.broadcast_to(values.round_value(replace(river, board=(*board, c))), mean.shape)[h] for c in left])
        assert mean[h] == pytest.approx(brute, abs=1e-9)
    assert np.ptp(mean[margins.compatible((*board, *opponent))]) > 0  # it depends on the hand


def test_round_value_is_zero_sum_and_check_down_once_the_round_is_over():
    """Position 0 holding h against o is worth minus position 1 holding o against h (the
    range rows and the single hand's row are the same blueprint); and a round that is over is
    valued by check-down."""
    source, margins = _source()
    hero, villain = tuple(parse_cards("JcTc")), tuple(parse_cards("9s9d"))
    state = initial_state(GAME, 3, (hero, villain), ())
    first = source.hand(GAME, margins, villain, 0).round_value(state)[_index(margins, "JcTc")]
    second = source.hand(GAME, margins, hero, 1).round_value(state)[_index(margins, "9s9d")]
    assert first == pytest.approx(-second, abs=1e-9)
    called = state.apply(raise_to(300)).apply(CALL)  # the round is over, the flop not yet dealt
    values = source.hand(GAME, margins, villain, 0)
    np.testing.assert_array_equal(values.round_value(called), values.checkdown(called))


def test_the_deal_mean_may_average_over_suit_classes():
    """With a lossless pre-flop abstraction, every hand of a class has the same mean value
    over the other's hands: the deal mean averages over 169 classes, not 1,326 hands."""
    source, margins = _source()
    assert source.blueprint.cards.n_buckets[0] == 169
    means = []
    for cards in ("AsKs", "AhKh", "AsKh"):
        opponent = tuple(parse_cards(cards))
        ours = tuple(parse_cards("2c3d"))
        value = source.hand(GAME, margins, opponent, 1).round_value(initial_state(GAME, 0, (opponent, ours), ()))
        means.append(value[margins.compatible(opponent)].mean())
    assert means[0] == pytest.approx(means[1], abs=1e-9)
    assert means[0] != pytest.approx(means[2], abs=1e-6)  # suited and offsuit differ: the check can fail


def test_a_hold_em_match_with_the_blueprint_value():
    """A simulated hold'em match with a seat logging its range: the blueprint's ṽ corrects it."""
    seats = [("ranged", holdem_ranged_policy), ("raiser", POLICIES["raise"])]
    sim = simulate_match(GAME, seats, 6, 11, logging=["ranged"], ranged=["ranged"])
    match, index = sim.match_log(), sim.decision_index()
    source, _ = _source()
    blueprint = evaluate_match(match, index, seat_values=source)
    checkdown = evaluate_match(match, index)
    assert blueprint.strategies == {"ranged": LOGGED_RANGE}
    assert np.isfinite(blueprint.aivat).all()
    np.testing.assert_array_equal(blueprint.raw, checkdown.raw)
    assert not np.allclose(blueprint.aivat, checkdown.aivat)


def test_other_games_and_misplaced_options_are_one_sentence(tmp_path):
    source, _ = _source()
    limit = load_game("holdem.limit.2p")
    with pytest.raises(AivatError, match="no-limit hold'em only"):
        source.hand(limit, ShowdownMargins(limit), tuple(parse_cards("AhKd")), 0)
    logs = [simulate_match(GAME, [("a", POLICIES["call"]), ("b", POLICIES["call"])], 2, 1).write(tmp_path)]
    with pytest.raises(EvaluationError, match="--blueprint is for --value blueprint"):
        report_match(logs, None, value="check-down", blueprint=tmp_path / "bp.art")
    with pytest.raises(EvaluationError, match=r"--value blueprint: .*missing\.art"):
        report_match(logs, None, value="blueprint", blueprint=tmp_path / "missing.art")
