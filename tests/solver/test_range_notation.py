"""Range notation (:mod:`solver.range_notation`): every form, weights, the board, every error."""

from __future__ import annotations

import numpy as np
import pytest

from protocol.cards import card_rank, card_suit, parse_cards
from protocol.fasteval import HOLE_PAIRS
from solver.range_notation import (
    CLASS_NAMES,
    PAIR_CLASS,
    RangeError,
    combo_str,
    format_weights,
    parse_range,
    weights_from_combos,
)


def classes(weights: np.ndarray) -> dict[str, float]:
    """Class name -> summed weight of the range's combos."""
    sums = np.bincount(PAIR_CLASS, weights=weights, minlength=169)
    return {CLASS_NAMES[c]: float(sums[c]) for c in np.flatnonzero(sums)}


def test_169_classes_in_grid_order_with_their_combo_counts():
    assert len(set(CLASS_NAMES)) == 169
    assert CLASS_NAMES[:3] == ("AA", "AKs", "AQs") and CLASS_NAMES[13:15] == ("AKo", "KK") and CLASS_NAMES[-1] == "22"
    counts = np.bincount(PAIR_CLASS, minlength=169)
    for name, count in zip(CLASS_NAMES, counts):
        assert count == (6 if len(name) == 2 else 4 if name.endswith("s") else 12), name
    # Every combo's class agrees with its cards.
    for i, (a, b) in enumerate(HOLE_PAIRS[::37].tolist()):
        name = CLASS_NAMES[PAIR_CLASS[i * 37]]
        suited = card_suit(a) == card_suit(b)
        assert name.endswith("s") == (suited and card_rank(a) != card_rank(b)), (combo_str(i * 37), name)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AA", {"AA": 6}),
        ("22+", {r * 2: 6 for r in "23456789TJQKA"}),
        ("TT-77", {"TT": 6, "99": 6, "88": 6, "77": 6}),
        ("77-TT", {"TT": 6, "99": 6, "88": 6, "77": 6}),
        ("AKs", {"AKs": 4}),
        ("AKo", {"AKo": 12}),
        ("AK", {"AKs": 4, "AKo": 12}),
        ("A2s+", {f"A{r}s": 4 for r in "23456789TJQK"}),
        ("KTo+", {"KTo": 12, "KJo": 12, "KQo": 12}),
        ("K9+", {"K9s": 4, "K9o": 12, "KTs": 4, "KTo": 12, "KJs": 4, "KJo": 12, "KQs": 4, "KQo": 12}),
        ("T9s-65s", {"T9s": 4, "98s": 4, "87s": 4, "76s": 4, "65s": 4}),
        ("A9s-A6s", {"A9s": 4, "A8s": 4, "A7s": 4, "A6s": 4}),
        ("QJo:0.5", {"QJo": 6}),
        ("22+:0.25", {r * 2: 1.5 for r in "23456789TJQKA"}),
        (" AA , kqs,T9o ,", {"AA": 6, "KQs": 4, "T9o": 12}),  # spaces, lower case, a trailing comma
        ("KAs", {"AKs": 4}),
    ],
)
def test_each_form_names_its_classes(text, expected):
    assert classes(parse_range(text)) == pytest.approx(expected)


def test_combos_weights_every_hand_and_the_board():
    one = parse_range("AhKh:0.3")
    (i,) = np.flatnonzero(one)
    assert combo_str(int(i)) == "AhKh" and one[i] == 0.3
    assert np.array_equal(parse_range("random"), np.ones(1326)) and np.array_equal(parse_range("ALL"), np.ones(1326))
    board = parse_cards("AsKd7c")
    weights = parse_range("AA,AK,72o", board)
    assert classes(weights) == {"AA": 3, "AKs": 2, "AKo": 7, "72o": 9}
    assert not any(set(HOLE_PAIRS[i].tolist()) & set(board) for i in np.flatnonzero(weights))
    # The same combo twice with one weight is fine; the stored form reads back exactly.
    both = parse_range("AKs:0.5, AhKh:0.5, 22")
    assert np.array_equal(weights_from_combos(format_weights(both), "test"), both)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AA,KK,AKx", "'AKx': unknown suit letter 'x' in token 3"),
        ("AZs", "'AZs': unknown rank 'Z' in token 1"),
        ("AhKx", "'AhKx': unknown suit letter 'x' in token 1"),
        ("AhAh", "'AhAh': the same card twice in token 1"),
        ("AA:1.5", "'AA:1.5': the weight 1.5 is outside [0, 1] in token 1"),
        ("AA:-0.1", "outside [0, 1] in token 1"),
        ("KK,AA:nan", "outside [0, 1] in token 2"),
        ("AA:half", "the weight 'half' is not a number in token 1"),
        ("AAs", "a pair is neither suited nor offsuit in token 1"),
        ("T9s-64s", "must share the first rank (A9s-A6s) or the gap"),
        ("T9s-T8o", "same kind of hand"),
        ("AKs,AhKh:0.5", "'AhKh:0.5' in token 2 gives AhKh weight 0.5, but token 1 ('AKs') gave it 1"),
        ("AA,,KK", "token 2 of the range 'AA,,KK' is empty"),
        ("", "names no hands"),
        ("AKQJ+", "is not a hand, range or combo in token 1"),
    ],
)
def test_errors_name_the_token_and_why(text, message):
    with pytest.raises(RangeError) as error:
        parse_range(text)
    assert message in str(error.value)


def test_a_range_empty_after_the_board_is_refused():
    with pytest.raises(RangeError, match=r"the range 'QQ' is empty once the combos holding a board card \(QsQhQd2c\)"):
        parse_range("QQ", parse_cards("QsQhQd2c"))
    with pytest.raises(RangeError, match="is empty"):
        parse_range("AA:0")
