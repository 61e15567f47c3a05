"""AIVAT's values are exactly those of the first implementation, on every shared log.

``aivat_golden.json`` was written by the brute-force board enumeration AIVAT used
until the value function switched to counting board classes (commit 0319b2e's
``dealer/evaluation/values.py``).  Chance-only corrections of the reference dealer's
logs must match it bit for bit (a SHA-256 of the float64 array); simulated matches
with decision logs, whose action corrections go through BLAS, to 1e-9.

Regenerate (only when values change on purpose, and say why in the commit)::

    .venv/bin/python -m tests.dealer.evaluation.test_values_unchanged --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from dealer.bots import POLICIES
from dealer.evaluation.aivat import declared_strategies
from dealer.evaluation.matchlog import read_match_log
from protocol.gamedef import load_game
from tests.dealer.evaluation.simulate import evaluate_match, simulate_match
from tests.reference import game_file_for, log_files

GOLDEN = Path(__file__).with_name("aivat_golden.json")
#: Simulated matches with decision logs: (game, seat kinds, hands, seed, what the estimator knows).
SIMULATED = [
    ("holdem.nolimit.2p", ("random", "call"), 60, 5, "logged"),
    ("holdem.nolimit.2p", ("random", "random"), 60, 6, "declared"),
    ("holdem.limit.2p", ("random", "raise"), 60, 7, "logged"),
    ("holdem.limit.3p", ("random", "call", "raise"), 40, 8, "logged"),
    ("leduc.limit.2p", ("random", "call"), 200, 9, "known"),
]


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array, dtype=np.float64).tobytes()).hexdigest()


def _reference_log(path: Path) -> dict:
    result = evaluate_match(read_match_log(path, load_game(game_file_for(path))))
    return {"sha256": _digest(result.corrections), "aivat_totals": result.aivat.sum(axis=0).tolist()}


def _simulated(game_name: str, kinds: tuple[str, ...], hands: int, seed: int, source: str) -> list[list[float]]:
    seats = [(f"{k}-{i}", POLICIES[k]) for i, k in enumerate(kinds)]
    sim = simulate_match(load_game(game_name), seats, hands, seed)
    match, index = sim.match_log(), sim.decision_index()
    declared = declared_strategies(match.name, match.game, match.seats, index)[0]
    strategies = {"logged": None, "declared": declared, "known": dict(seats)}[source]
    return evaluate_match(match, index, strategies=strategies).corrections.sum(axis=1).tolist()


def _golden() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("path", log_files(), ids=lambda p: p.name)
def test_reference_logs_bit_identical(path):
    golden = _golden()["logs"][path.name]
    found = _reference_log(path)
    assert found["aivat_totals"] == pytest.approx(golden["aivat_totals"], rel=1e-12)
    assert found["sha256"] == golden["sha256"]


@pytest.mark.parametrize("case", SIMULATED, ids=lambda c: f"{c[0]}-{'-'.join(c[1])}-{c[4]}")
def test_simulated_matches_with_decision_logs(case):
    golden = _golden()["simulated"]["|".join(map(str, case))]
    assert np.allclose(_simulated(*case), golden, rtol=1e-9, atol=1e-9)


def _write() -> None:
    data = {
        "logs": {p.name: _reference_log(p) for p in log_files()},
        "simulated": {"|".join(map(str, c)): _simulated(*c) for c in SIMULATED},
    }
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.dealer.evaluation.test_values_unchanged --write")
    _write()
