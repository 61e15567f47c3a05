"""Paths to the reference data from the ACPC reference dealer, kept with the tests in
``tests/data/reference`` (its README says how it was made)."""

from __future__ import annotations

import os
from pathlib import Path

REFERENCE = Path(os.environ.get("ACPC_REFERENCE", Path(__file__).resolve().parent / "data" / "reference"))
if not REFERENCE.is_dir():
    raise RuntimeError(f"reference data not found at {REFERENCE}; ACPC_REFERENCE, when set, must name such a folder")

GAMES = REFERENCE / "games"
LOGS = REFERENCE / "logs"
TRACES = REFERENCE / "traces"
EDGE_CASES = REFERENCE / "edge_cases"

#: log/trace file prefix → the game file the reference match used
GAME_OF_PREFIX = {
    "kuhn3p": "kuhn.limit.3p",
    "leducnl": "leduc.nolimit.2p",
    "limit2p": "holdem.limit.2p.reverse_blinds",
    "limit3p": "holdem.limit.3p",
    "nolimit2p": "holdem.nolimit.2p.reverse_blinds",
    "nolimit3p": "holdem.nolimit.3p",
}


def game_file_for(path: Path) -> Path:
    """The reference game file of a log or trace such as ``nolimit2p_s11.log``."""
    return GAMES / f"{GAME_OF_PREFIX[path.name.split('_')[0]]}.game"


def seed_of(path: Path) -> int:
    """The dealer seed of a log or trace named ``<prefix>_s<seed>...``."""
    return int(path.name.split("_s")[1].split(".")[0])


def log_files() -> list[Path]:
    return sorted(LOGS.glob("*.log"))


def trace_files() -> list[Path]:
    return sorted(TRACES.glob("*.trace"))
