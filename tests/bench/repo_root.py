"""Puts the repository on ``sys.path``, so that a bench run as a script can import the
``tests.*`` helpers it shares with the test suite (simulated matches, spots).

``ACPC_BENCH_CODE``, if set, names another checkout to import instead: a bench measuring
an older commit's code with today's script (``bench_subgame.py --baseline``) runs itself
in a subprocess with it set to that commit's checkout.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(os.environ.get("ACPC_BENCH_CODE") or Path(__file__).resolve().parents[2])
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
