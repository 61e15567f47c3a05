"""The AIVAT guard: a choice between raw chips and AIVAT made from earlier hands only.

Leduc against a bot that folds whenever it can (the raw result barely varies, the
check-down value's corrections add spread): the guard falls back to raw chips, and its
mean still agrees with the exact value of the game tree over seeds; a choice that looks
at the hand itself fails the same check.
"""

from __future__ import annotations

import io
import math
from functools import cache

import numpy as np
import pytest

from dealer.bots import POLICIES
from dealer.evaluation.guard import WARMUP, guarded, keep_aivat
from dealer.evaluation.report import report_match
from tests.dealer.evaluation.simulate import evaluate_match, simulate_match
from tests.dealer.evaluation.test_rangeaivat import LEDUC, NL_LEDUC, exact_value, ranged_policy, z_score

SEEDS, HANDS = 6, 300


@cache
def _fold_match(game, seed: int):
    seats = [("ranged", ranged_policy), ("bot", POLICIES["fold"])]
    return simulate_match(game, seats, HANDS, seed, logging=["ranged"], ranged=["ranged"])


def test_the_choice_uses_only_earlier_hands():
    rng = np.random.default_rng(5)
    raw = rng.normal(0, 1, (200, 2))
    aivat = 0.9 * raw + rng.normal(0, 0.4, (200, 2))
    keep = keep_aivat(raw, aivat)
    assert keep[:WARMUP].all()
    for i in (WARMUP, 57, 199):
        assert keep[i, 0] == (aivat[:i, 0].var() <= raw[:i, 0].var())
    # Changing hand 120 on changes no choice up to hand 120.
    changed = aivat.copy()
    changed[120:] *= 50
    again = keep_aivat(raw, changed)
    assert np.array_equal(again[:121], keep[:121]) and not np.array_equal(again, keep)


@pytest.mark.parametrize("game", [LEDUC, NL_LEDUC], ids=["limit", "nolimit"])
def test_guard_falls_back_to_raw_and_stays_unbiased(game):
    truth = exact_value(game, (ranged_policy, POLICIES["fold"]))
    zs = []
    for seed in range(SEEDS):
        result = evaluate_match(_fold_match(game, seed).match_log(), _fold_match(game, seed).decision_index())
        kept = guarded(result)
        raw, aivat, safe = result.raw[:, 0], result.aivat[:, 0], kept.aivat[:, 0]
        # The check-down corrections add spread here; the guard takes raw chips after its warm-up.
        assert aivat.std() > 1.5 * raw.std()
        assert kept.raw_hands["ranged"] > 0.8 * HANDS and safe[WARMUP:].std() < 0.6 * aivat[WARMUP:].std()
        dropped = ~keep_aivat(result.raw, result.aivat)[:, 0]
        np.testing.assert_array_equal(safe[dropped], raw[dropped])
        np.testing.assert_array_equal(safe[~dropped], aivat[~dropped])
        zs.append(z_score(safe, truth))
    assert abs(sum(zs)) < 3.5 * math.sqrt(len(zs)), zs


def test_the_check_catches_a_choice_that_looks_at_the_hand():
    """Per hand, the smaller of raw and AIVAT: a choice made with the hand's own luck is biased."""
    truth = exact_value(LEDUC, (ranged_policy, POLICIES["fold"]))
    zs = []
    for seed in range(SEEDS):
        result = evaluate_match(_fold_match(LEDUC, seed).match_log(), _fold_match(LEDUC, seed).decision_index())
        zs.append(z_score(np.minimum(result.raw[:, 0], result.aivat[:, 0]), truth))
    assert abs(sum(zs)) >= 3.5 * math.sqrt(len(zs)), zs


def test_report_names_the_guarded_hands_and_no_guard_turns_it_off(tmp_path):
    path = _fold_match(LEDUC, 0).write(tmp_path)
    on, off = io.StringIO(), io.StringIO()
    guarded_report = report_match([path], tmp_path / "decisions", out=on)
    plain = report_match([path], tmp_path / "decisions", out=off, guard=False)
    seat = guarded_report.lineups[0].results["ranged"]
    assert seat.aivat_raw_hands > 0.8 * HANDS and plain.lineups[0].results["ranged"].aivat_raw_hands == 0
    (line,) = (x for x in on.getvalue().splitlines() if x.startswith("  AIVAT guard: raw chips kept for "))
    assert f"ranged on {seat.aivat_raw_hands:,} hands" in line
    assert "AIVAT guard" not in off.getvalue()
    assert seat.std_reduction["aivat"] > plain.lineups[0].results["ranged"].std_reduction["aivat"]
