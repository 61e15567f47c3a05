"""Fixtures shared by the precompute tests."""

from __future__ import annotations

import fcntl
import shutil
from pathlib import Path

import pytest

from precompute.bucketing import PRESETS, build_abstraction
from protocol.gamedef import load_game


@pytest.fixture(scope="session")
def quick_cards(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``blueprint-quick`` card abstraction (what ``precompute blueprint --quick``
    builds into ``OUT/cards``), built once for the whole run: the suite's worker processes
    share it through their common temporary folder, the first to need it builds it under a
    lock and the others wait and copy (the build is deterministic; about 40 s)."""
    root = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):  # a pytest-xdist worker: the run's folder is the parent
        root = root.parent
    folder = root / "blueprint-quick-cards"
    with open(root / "blueprint-quick-cards.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "built").exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that died half-way
            build_abstraction(load_game("holdem.nolimit.2p"), folder / "cards", PRESETS["blueprint-quick"],
                              show_progress=False)  # fmt: skip
            (folder / "built").touch()
    return folder / "cards"

