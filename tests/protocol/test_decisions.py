"""Decision logs: round trip, probabilities, and a cut-off last record."""

from __future__ import annotations

import msgpack
import pytest

from protocol.decisions import Decision, DecisionLogWriter, read_decision_log
from protocol.gamedef import load_game


def test_round_trip_and_truncated_tail(tmp_path):
    path = tmp_path / "seat.dlog"
    game = load_game("holdem.nolimit.2p")
    with DecisionLogWriter(path, seat="Alice", match="m", game=game) as log:
        log.record(hand=0, position=1, state="MATCHSTATE:1:0::|2hAc", probs=[("f", 0.06), ("c", 0.47)],
                   uniform_raise=(0.47, 200, 20000), taken="r5000")
        log.record(hand=0, position=1, state="MATCHSTATE:1:0:r5000c/:|2hAc/5sKs7s", probs=[("c", 1.0)], taken="c")
    with open(path, "ab") as f:
        f.write(b"\x8a\xa4type")  # a record cut off mid-write
    header, decisions = read_decision_log(path)
    assert header["seat"] == "Alice" and header["version"] == 2 and header["strategy"] is None
    got = list(decisions)
    assert [d.taken for d in got] == ["r5000", "c"]
    first = got[0]
    assert probability_of(first, "f") == pytest.approx(0.06)
    assert probability_of(first, "r5000") == pytest.approx(0.47 / 19801)
    assert probability_of(first, "r100") == 0.0


def test_not_a_decision_log(tmp_path):
    bad = tmp_path / "x"
    bad.write_bytes(b"")
    with pytest.raises(ValueError, match="not a decision log"):
        read_decision_log(bad)


def test_version_1_files_read_as_before(tmp_path):
    path = tmp_path / "old.dlog"
    header = {"type": "header", "format": "acpc-decisions", "version": 1, "seat": "b", "match": "m", "game": "", "policy": "call"}
    record = {"type": "decision", "match": "m", "hand": 3, "position": 0, "state": "MATCHSTATE:0:3::Ks|",
              "probs": [["c", 1.0]], "uniform_raise": None, "taken": "c"}
    path.write_bytes(msgpack.packb(header) + msgpack.packb(record))
    header, decisions = read_decision_log(path)
    (d,) = list(decisions)
    assert header["policy"] == "call" and d.range is None and probability_of(d, "c") == 1.0


def test_newer_version_is_refused(tmp_path):
    path = tmp_path / "new.dlog"
    path.write_bytes(msgpack.packb({"type": "header", "format": "acpc-decisions", "version": 99}))
    with pytest.raises(ValueError, match="version 99"):
        read_decision_log(path)


def test_baseline_writers_declare_their_strategy(tmp_path):
    path = tmp_path / "bot.dlog"
    DecisionLogWriter(path, seat="b", match="m", game=load_game("kuhn.limit.2p"), policy="call").close()
    header, _ = read_decision_log(path)
    assert (header["policy"], header["strategy"]) == ("call", "baseline")


def probability_of(decision: Decision, action: str) -> float:
    """Probability the seat had of sending ``action`` (wire form) at ``decision``."""
    total = sum(p for a, p in decision.probs if a == action)
    if decision.uniform_raise is not None and action.startswith("r") and action[1:].lstrip("-").isdigit():
        mass, low, high = decision.uniform_raise
        if low <= int(action[1:]) <= high:
            total += mass / (high - low + 1)
    return total
