"""Puts the repository on ``sys.path``, so that a bench run as a script can import the
``tests.*`` helpers it shares with the test suite (simulated matches, spots)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
