"""Statistics against direct computation, and duplicate pairing across seat orders."""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import permutations

import numpy as np
import pytest
from scipy import stats

from dealer.bots import POLICIES
from dealer.evaluation.stats import (
    PairingError,
    duplicate_groups,
    duplicate_values,
    hands_needed,
    std_reduction,
    summarize,
)
from protocol.gamedef import load_game
from tests.dealer.evaluation.simulate import simulate_match


def test_summary_by_hand():
    s = summarize([1, 2, 3, 4, 10], big_blind=2)
    # mean 4, sample variance (9+4+1+0+36)/4 = 12.5
    assert (s.hands, s.total, s.mean) == (5, 20.0, 4.0)
    assert s.std == pytest.approx(math.sqrt(12.5))
    assert s.stderr == pytest.approx(math.sqrt(12.5 / 5))
    assert s.t == pytest.approx(4 / math.sqrt(2.5))
    assert s.p_value == pytest.approx(0.032338, abs=1e-6)  # t = 2.5298 with 4 degrees of freedom
    half = 2.776445 * math.sqrt(2.5)  # t(0.975, 4)
    assert (s.ci_low, s.ci_high) == pytest.approx((4 - half, 4 + half), abs=1e-5)
    assert s.mbb_per_hand == 2000 and s.mbb_std == pytest.approx(500 * math.sqrt(12.5))


def test_t_test_matches_direct_computation():
    x = np.random.default_rng(7).normal(0.3, 5.0, 4000)
    s = summarize(x, big_blind=100)
    n = x.size
    se = x.std(ddof=1) / math.sqrt(n)
    t = x.mean() / se
    assert s.t == pytest.approx(t) and s.stderr == pytest.approx(se)
    assert s.p_value == pytest.approx(stats.t.sf(t, n - 1))
    assert s.ci_high - s.mean == pytest.approx(stats.t.ppf(0.975, n - 1) * se)
    assert s.mbb_per_hand == pytest.approx(10 * x.mean())
    losing = summarize(-x, big_blind=100)
    assert losing.p_value == pytest.approx(1 - s.p_value)


def test_degenerate_samples_give_nan_not_errors():
    one = summarize([5.0], big_blind=1)
    assert one.mean == 5 and math.isnan(one.std) and math.isnan(one.p_value)
    flat = summarize([2.0, 2.0, 2.0], big_blind=1)
    assert math.isnan(flat.t)


def test_hands_needed_and_reduction():
    assert hands_needed(1.0, 10.0) == pytest.approx((1.644854 * 10) ** 2, rel=1e-6)
    assert hands_needed(0.0, 10.0) == math.inf
    assert std_reduction(10.0, 4.0) == pytest.approx(0.6)


def _mirrored(game, kinds, hands, seed, orders):
    seats = [(f"P{i}", POLICIES[k]) for i, k in enumerate(kinds)]
    return [
        simulate_match(game, [seats[i] for i in order], hands, seed, name=f"m{j}").match_log()
        for j, order in enumerate(orders)
    ]


@pytest.mark.parametrize("game_name", ["leduc.limit.2p", "holdem.limit.3p"])
def test_duplicate_pairs_hands_across_every_seat_order(game_name):
    game = load_game(game_name)
    n = game.num_players
    orders = list(permutations(range(n)))
    logs = _mirrored(game, ["call"] * n, 60, 11, orders)
    (group,) = duplicate_groups(logs)
    assert group.complete and group.hands == 60 and group.members == tuple(range(len(orders)))
    per_log = [np.array([[h.values[h.names.index(s)] for s in m.seats] for h in m.hands]) for m in logs]
    dup = duplicate_values(group, per_log, [m.seats for m in logs])
    # Identical deterministic players: each seat held every position's cards once,
    # so paired correctly the luck cancels exactly; misaligned, it would not.
    assert np.abs(per_log[0]).sum() > 0
    assert np.abs(dup).max() < 1e-9
    shifted = [per_log[0]] + [np.roll(v, 1, axis=0) for v in per_log[1:]]
    assert np.abs(duplicate_values(group, shifted, [m.seats for m in logs])).max() > 0


def test_duplicate_values_are_seat_averages_of_mirrored_hands():
    game = load_game("leduc.limit.2p")
    a, b = _mirrored(game, ["raise", "call"], 40, 5, [(0, 1), (1, 0)])
    (group,) = duplicate_groups([a, b])
    values = [np.array([[h.values[h.names.index(s)] for s in m.seats] for h in m.hands]) for m in (a, b)]
    dup = duplicate_values(group, values, [a.seats, b.seats])
    for h in range(40):
        assert dup[h, 0] == pytest.approx((a.seat_values("P0")[h] + b.seat_values("P0")[h]) / 2)
        # P0 held position p in one match and the other position in its mirror.
        pa = a.hands[h].names.index("P0")
        pb = b.hands[h].names.index("P0")
        assert pa != pb and a.hands[h].state.hole_cards == b.hands[h].state.hole_cards


def test_unmirrored_logs_are_not_paired_and_tampered_cards_are_caught():
    game = load_game("leduc.limit.2p")
    a = simulate_match(game, [("A", POLICIES["call"]), ("B", POLICIES["call"])], 10, 1).match_log()
    other_seed = simulate_match(game, [("B", POLICIES["call"]), ("A", POLICIES["call"])], 10, 2).match_log()
    assert duplicate_groups([a, other_seed]) == []
    mirror = simulate_match(game, [("B", POLICIES["call"]), ("A", POLICIES["call"])], 10, 1).match_log()
    (group,) = duplicate_groups([a, mirror])
    assert group.complete and group.seats == ("A", "B")
    hands = list(mirror.hands)
    hands[3] = other_seed.hands[3]
    tampered = replace(mirror, hands=tuple(hands))
    with pytest.raises(PairingError, match="deal different cards in hand 3"):
        duplicate_groups([a, tampered])
    with pytest.raises(PairingError, match="share game, seed and seat order"):
        duplicate_groups([a, a])
