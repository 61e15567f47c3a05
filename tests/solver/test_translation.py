"""Pseudoharmonic action translation: the paper's worked value, its edge cases, monotonicity."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.gamedef import load_game
from protocol.rules import initial_state, raise_to
from solver.bets import parse_abstraction
from solver.translation import TranslationError, pot_fraction, pseudoharmonic, threshold, translate

SIZES = [0.0, 0.5, 1.0, 2.0, 4.0]


def test_worked_value_and_end_points():
    assert pseudoharmonic(0, 1, 0.25) == pytest.approx(0.6)
    assert pseudoharmonic(0.5, 1, 0.5) == 1.0
    assert pseudoharmonic(0.5, 1, 1.0) == 0.0
    assert pseudoharmonic(2, 2, 2) == 1.0


@given(
    a=st.floats(0, 10),
    gap=st.floats(1e-3, 10),
    u=st.floats(0, 1),
    v=st.floats(0, 1),
)
def test_probability_is_monotone_decreasing_in_the_bet(a, gap, u, v):
    b = a + gap
    x, y = sorted((a + u * gap, a + v * gap))
    x, y = min(max(x, a), b), min(max(y, a), b)
    fx, fy = pseudoharmonic(a, b, x), pseudoharmonic(a, b, y)
    assert 0.0 <= fy <= fx + 1e-12 <= 1.0 + 1e-12


@given(a=st.floats(0, 10), gap=st.floats(1e-3, 10))
def test_deterministic_threshold_is_where_the_probability_crosses_one_half(a, gap):
    b = a + gap
    t = threshold(a, b)
    assert a <= t <= b
    assert pseudoharmonic(a, b, t) == pytest.approx(0.5, abs=1e-9)
    assert threshold(0, 1) == pytest.approx(1 / 3)


def test_deterministic_translation_uses_the_threshold():
    t = threshold(0.5, 1.0)
    assert translate(t - 1e-9, SIZES) == 1
    assert translate(t, SIZES) == 2
    assert translate(0.25, [0.0, 1.0]) == 0  # below 1/3 maps down to the check
    assert translate(0.34, [0.0, 1.0]) == 1


def test_edge_cases():
    assert translate(0.0, SIZES) == 0  # a check is the check
    assert translate(1.0, SIZES) == 2  # exact matches, randomized or not
    assert translate(1.0, SIZES, np.random.default_rng(0)) == 2
    assert translate(4.0, SIZES) == 4  # the all-in (largest) size
    assert translate(9.0, SIZES) == 4  # above the largest size
    assert translate(9.0, SIZES, np.random.default_rng(0)) == 4
    assert translate(1e-6, SIZES) == 0  # a tiny bet below the smallest bet maps to the check...
    assert translate(0.01, [0.0]) == 0  # ...and with only the check, everything maps there
    for bad in ([], [0.5, 1.0], [0.0, 1.0, 1.0], [0.0, 2.0, 1.0]):
        with pytest.raises(TranslationError):
            translate(0.5, bad)
    for x in (-0.1, float("nan")):
        with pytest.raises(TranslationError):
            translate(x, SIZES)
    with pytest.raises(TranslationError):
        pseudoharmonic(0, 1, 2)


def test_randomized_frequencies_match_the_formula():
    rng = np.random.default_rng(7)
    picks = [translate(0.25, [0.0, 1.0], rng) for _ in range(20000)]
    assert picks.count(0) / len(picks) == pytest.approx(0.6, abs=0.015)


def test_pot_fraction_agrees_with_the_abstraction():
    game = load_game("holdem.nolimit.2p")
    state = initial_state(game).apply(raise_to(300))  # facing a raise: pot after calling is 600
    sizes = parse_abstraction("0.5,1").raise_sizes(state)
    assert [pot_fraction(state, s) for s in sizes[:2]] == [0.5, 1.0]
