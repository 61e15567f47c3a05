"""Test run order: the longest test files first.

The suite runs in two pytest-xdist workers that take one file at a time
(``--dist loadfile --no-loadscope-reorder``, pyproject.toml).  Handing out the longest
files first (longest-processing-time-first scheduling) leaves short files for the end, so
neither worker idles long while the other finishes a long one.  The list holds the files
that took 45 s or more in a clean-clone run (2026-11-29, ``--durations=0`` summed per
file); the rest keep their collection order after them.  Order never changes what a test
checks, only when it runs.
"""

from __future__ import annotations

import pytest

LONGEST_FIRST = (
    "tests/precompute/test_potential.py",
    "tests/precompute/test_blueprint_workers.py",  # builds the shared quick cards
    "tests/dealer/evaluation/test_compare.py",
    "tests/precompute/test_bucketing.py",
    "tests/precompute/test_blueprint.py",
    "tests/dealer/test_tournament.py",
    "tests/agent/test_solving.py",
    "tests/dealer/evaluation/test_rangeaivat.py",
    "tests/precompute/test_health.py",  # after the quick cards are built, not waiting on them
    "tests/dealer/test_strength_ladder.py",
    "tests/dealer/test_run.py",
    "tests/dealer/evaluation/test_aivat.py",
    "tests/solver/test_subgame.py",
    "tests/precompute/test_isomorphism.py",
    "tests/dealer/test_lifetime.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: the rest keep their order
