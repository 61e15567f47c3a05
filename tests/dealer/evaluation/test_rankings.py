"""Rankings on hand-made lineup results: Holm, Total Bankroll, Bankroll Instant Run-off, crosstable."""

from __future__ import annotations

import math

import pytest

from dealer.evaluation.rankings import (
    LineupResult,
    SeatValue,
    crosstable,
    difference,
    holm,
    instant_runoff,
    one_tailed,
    total_bankroll,
)


def heads_up(table: dict[tuple[str, str], float], se: float = 1.0) -> list[LineupResult]:
    """Lineup results from ``{(a, b): a's mbb/hand against b}``."""
    results = []
    for (a, b), v in table.items():
        values = {a: SeatValue(v, se, one_tailed(v, se), 1000), b: SeatValue(-v, se, one_tailed(-v, se), 1000)}
        results.append(LineupResult((a, b), values, "raw"))
    return results


# A beats only D, by a lot; B and C beat everyone else a little.  Total Bankroll ranks A first
# on the strength of D alone; once D is run off, A loses to both others: the run-off puts B first.
CROSSTABLE = {("A", "B"): -10.0, ("A", "C"): -10.0, ("A", "D"): 1000.0, ("B", "C"): 5.0, ("B", "D"): 10.0, ("C", "D"): 10.0}


def test_total_bankroll_and_instant_runoff_differ_on_a_hand_made_crosstable():
    results = heads_up(CROSSTABLE)
    bots = ["A", "B", "C", "D"]
    tb = total_bankroll(results, bots)
    assert [r["bot"] for r in tb] == ["A", "B", "C", "D"]
    assert tb[0]["mbb_per_hand"] == pytest.approx((-10 - 10 + 1000) / 3)
    assert tb[1]["mbb_per_hand"] == pytest.approx((10 + 5 + 10) / 3)
    assert tb[3]["mbb_per_hand"] == pytest.approx((-1000 - 10 - 10) / 3)
    bir = instant_runoff(results, bots, players=2)
    assert [r["bot"] for r in bir] == ["B", "C", "A", "D"]
    # D goes first (bankroll -340), then A (among A, B, C: (-10 - 10) / 2), then B beats C head to head.
    assert [r["round"] for r in bir] == [None, None, 2, 1]
    assert bir[2]["mbb_per_hand"] == pytest.approx(-10.0)
    assert bir[0]["mbb_per_hand"] == pytest.approx(5.0) and bir[1]["mbb_per_hand"] == pytest.approx(-5.0)


def test_difference_variance_counts_the_shared_lineup_twice_and_the_others_once():
    results = heads_up(CROSSTABLE, se=3.0)
    diff, se, p = difference(results, "B", "C", frozenset("ABCD"))
    assert diff == pytest.approx((25 / 3) - (-5 + 10 + 10) / 3)
    # B-C shared: (3/3 + 3/3)^2; A and D lineups: 2 each of (3/3)^2.
    assert se == pytest.approx(math.sqrt(4 + 4))
    assert p == pytest.approx(one_tailed(diff, se))


def test_holm_adjusts_step_down_and_stays_monotone():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, math.nan, 0.01]) == pytest.approx([0.5, math.nan, 0.02], nan_ok=True)
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])


def test_crosstable_marks_only_significant_winners_after_holm():
    results = heads_up({("A", "B"): 5.0, ("A", "C"): 2.2, ("B", "C"): 0.1}, se=1.0)
    table = crosstable(results, ["A", "B", "C"])
    assert table["mbb_per_hand"][0, 1] == 5.0 and table["mbb_per_hand"][1, 0] == -5.0
    assert table["ci95"][0, 1] == pytest.approx(1.959964, abs=1e-5)
    # p: A-B 2.9e-7, A-C 0.0139 (x2 = 0.028 after Holm), B-C 0.46: only the first two count.
    assert table["significant"][0, 1] and table["significant"][1, 0]
    assert table["significant"][0, 2]
    assert not table["significant"][1, 2]
    assert math.isnan(table["mbb_per_hand"][0, 0])


def test_missing_lineup_leaves_a_hole_not_a_wrong_number():
    results = heads_up({("A", "B"): 4.0, ("B", "C"): 2.0})
    table = crosstable(results, ["A", "B", "C"])
    assert math.isnan(table["mbb_per_hand"][0, 2])
    tb = {r["bot"]: r for r in total_bankroll(results, ["A", "B", "C"])}
    assert tb["A"]["lineups"] == 1 and tb["A"]["mbb_per_hand"] == 4.0
    assert tb["B"]["mbb_per_hand"] == pytest.approx((-4 + 2) / 2)


def test_three_player_runoff_orders_the_last_lineup_by_bankroll():
    def three(seats, values):
        return LineupResult(seats, {s: SeatValue(v, 1.0, one_tailed(v, 1.0), 500) for s, v in zip(seats, values)}, "raw")

    results = [
        three(("A", "B", "C"), (30.0, -10.0, -20.0)),
        three(("A", "B", "D"), (-5.0, 10.0, -5.0)),
        three(("A", "C", "D"), (-5.0, 10.0, -5.0)),
        three(("B", "C", "D"), (1.0, 2.0, -3.0)),
    ]
    bots = ["A", "B", "C", "D"]
    tb = total_bankroll(results, bots)
    assert [r["bot"] for r in tb] == ["A", "B", "C", "D"]
    assert tb[3]["mbb_per_hand"] == pytest.approx(-13 / 3)
    bir = instant_runoff(results, bots, players=3)
    # D is dropped first (-13/3); the last lineup A, B, C is ordered by its own values.
    assert [r["bot"] for r in bir] == ["A", "B", "C", "D"]
    assert bir[3]["round"] == 1


def test_three_player_cells_test_row_against_column_not_against_zero():
    values = {"A": SeatValue(30.0, 5.0, one_tailed(30.0, 5.0), 500), "B": SeatValue(28.0, 5.0, one_tailed(28.0, 5.0), 500),
              "C": SeatValue(-58.0, 5.0, one_tailed(-58.0, 5.0), 500)}  # fmt: skip
    table = crosstable([LineupResult(("A", "B", "C"), values, "raw")], ["A", "B", "C"])
    # A and B both won, but A's 2 mbb/hand more than B is within the noise (s.e. 10).
    assert table["p_row_wins"][0, 1] == pytest.approx(one_tailed(2.0, 10.0))
    assert not table["significant"][0, 1]
    assert table["significant"][0, 2] and table["significant"][1, 2]
