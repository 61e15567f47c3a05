"""Fixtures shared by the precompute tests: built once per run, whichever test file and
worker process needs them first."""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from precompute.bucketing import PRESETS, build_abstraction
from precompute.cli import main
from protocol.gamedef import load_game

#: ``precompute blueprint --quick`` as the shared quick blueprint is trained (test_blueprint
#: continues and compares runs with these options).
QUICK_BLUEPRINT = ["blueprint", "--game", "holdem.nolimit.2p", "--quick", "--quiet", "--block", "512"]


def _built_once(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, name: str,
                build: Callable[[Path], None]) -> Path:  # fmt: skip
    """``build(folder)`` run once for the whole run: the suite's worker processes share the
    folder through their common temporary folder; the first to need it builds it under a
    lock, the others wait (every build here is deterministic)."""
    root = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):  # a pytest-xdist worker: the run's folder is the parent
        root = root.parent
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "built").exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that died half-way
            folder.mkdir()
            build(folder)
            (folder / "built").touch()
    return folder


@pytest.fixture(scope="session")
def quick_cards(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``blueprint-quick`` card abstraction (what ``precompute blueprint --quick``
    builds into ``OUT/cards``; about 40 s).  Read it, or copy it to change it."""

    def build(folder: Path) -> None:
        build_abstraction(load_game("holdem.nolimit.2p"), folder / "cards", PRESETS["blueprint-quick"],
                          show_progress=False)  # fmt: skip

    return _built_once(request, tmp_path_factory, "blueprint-quick-cards", build) / "cards"


@pytest.fixture(scope="session")
def quick_blueprint(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, quick_cards: Path) -> Path:
    """A finished ``QUICK_BLUEPRINT`` run (2 threads, 4,096 iterations) on the quick cards:
    its folder holds ``cards/``, ``blueprint.art`` and ``checkpoint.mccfr``.  Copy it
    before changing anything in it."""

    def build(folder: Path) -> None:
        shutil.copytree(quick_cards, folder / "run" / "cards")  # what the run would build
        assert main([*QUICK_BLUEPRINT, "--threads", "2", "--out", str(folder / "run")]) == 0

    return _built_once(request, tmp_path_factory, "quick-blueprint", build) / "run"
