"""``with_stored_baseline``: a saved chunk's baseline values beside a new candidate's, only
when both played the same deals the same way."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dealer.evaluation.comparison import CompareError, PairedLogs
from dealer.evaluation.pooled import Chunk, with_stored_baseline

ESTIMATORS = ("raw", "duplicate", "aivat", "aivat+duplicate")


def _chunk(candidate: str, baseline: str, column: tuple[float, float], *, seed: int = 7, hands: int = 3) -> Chunk:
    values = {k: np.column_stack([np.arange(hands) + column[0], np.arange(hands) + column[1]]) for k in ESTIMATORS}
    pairs = [PairedLogs(f"{candidate}/match.{i}.log", f"{baseline}/match.{i}.log", hands, seed,
                        (candidate, "equity") if i == 1 else ("equity", candidate)) for i in (1, 2)]  # fmt: skip
    return Chunk(candidate=candidate, baseline=baseline, opponents=["equity"], game="holdem.nolimit.2p", big_blind=100,
                 value_function="check-down", guard=False, pairs=pairs, hands_alike=0, values=values,
                 decision_logs=[f"{candidate}/d1.dlog", f"{candidate}/d2.dlog"])  # fmt: skip


def test_the_candidate_column_and_the_stored_baseline_column_are_put_side_by_side():
    own = _chunk("new", "new", (10.0, 10.0))  # the candidate's logs compared with themselves
    stored = _chunk("old-candidate", "river", (0.0, 10.0))  # baseline column equal to own's candidate column
    joined = with_stored_baseline(own, stored, "saved.json.gz")
    assert (joined.candidate, joined.baseline) == ("new", "river")
    for k in ESTIMATORS:
        np.testing.assert_array_equal(joined.values[k][:, 0], own.values[k][:, 0])
        np.testing.assert_array_equal(joined.values[k][:, 1], stored.values[k][:, 1])
    assert joined.hands_alike == 3
    assert [p.baseline_log for p in joined.pairs] == [p.baseline_log for p in stored.pairs]
    assert joined.notes[-1] == "the baseline's values are saved.json.gz's"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "holdem.limit.2p"}, "has game 'holdem.limit.2p' where this chunk has 'holdem.nolimit.2p'"),
        ({"big_blind": 50}, "has big_blind 50"),
        ({"value_function": "blueprint"}, "has value_function 'blueprint'"),
        ({"guard": True}, "has guard True"),
        ({"opponents": ["call"]}, "has opponents ['call']"),
    ],
)
def test_a_stored_chunk_of_another_setting_is_refused(change, message):
    with pytest.raises(CompareError, match=message.replace("[", r"\[").replace("]", r"\]")):
        with_stored_baseline(_chunk("new", "new", (1.0, 1.0)), replace(_chunk("old", "river", (0.0, 0.0)), **change), "x")


def test_other_deals_seats_hands_or_estimators_are_refused():
    own = _chunk("new", "new", (1.0, 1.0))
    with pytest.raises(CompareError, match=r"holds seed 8, .* where this chunk has seed 7"):
        with_stored_baseline(own, _chunk("old", "river", (0.0, 0.0), seed=8), "x")
    with pytest.raises(CompareError, match="3 hands where this chunk has seed 7, seats new,equity, 4 hands"):
        with_stored_baseline(_chunk("new", "new", (1.0, 1.0), hands=4), _chunk("old", "river", (0.0, 0.0)), "x")
    one_log = _chunk("old", "river", (0.0, 0.0))
    one_log.pairs = one_log.pairs[:1]
    with pytest.raises(CompareError, match="pairs 1 logs where this chunk has 2"):
        with_stored_baseline(own, one_log, "x")
    swapped = _chunk("old", "river", (0.0, 0.0))
    swapped.pairs = [replace(p, seats=tuple(reversed(p.seats))) for p in swapped.pairs]
    with pytest.raises(CompareError, match="seats equity,new"):
        with_stored_baseline(own, swapped, "x")
    fewer = _chunk("old", "river", (0.0, 0.0))
    del fewer.values["aivat+duplicate"]
    with pytest.raises(CompareError, match="has the estimators"):
        with_stored_baseline(own, fewer, "x")
