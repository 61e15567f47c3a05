"""tests/bench/paired_chunk.py: a comparison played in chunks, each saved and pooled with the ones before."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "paired_chunk.py"


def _chunk(tmp_path: Path, seed: int) -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(SCRIPT), "--quick", "--candidate", "raise", "--baseline", "call", "--opponent", "random",
           "--seed", str(seed), "--data", str(tmp_path / "data" / "raise-vs-call"), "--out", str(tmp_path / "m")]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_two_chunks_are_saved_and_the_second_prints_them_pooled(tmp_path):
    first = _chunk(tmp_path, 11)
    assert first.returncode == 0, first.stderr[-2000:]
    assert (tmp_path / "data" / "raise-vs-call-seed11.json.gz").is_file()
    assert "Paired comparison: raise against call, each facing random" in first.stdout and "Pooled" not in first.stdout
    second = _chunk(tmp_path, 12)
    assert second.returncode == 0, second.stderr[-2000:]
    pooled = second.stdout.split("Pooled with 1 earlier chunk(s):")[1]
    # 10 hands a side of a duplicate match: 20 paired hands a chunk, 40 pooled.
    assert re.search(r"^\s+raw\s+40\s", pooled, re.M) and re.search(r"^\s+duplicate\s+20\s", pooled, re.M), pooled
    again = _chunk(tmp_path, 11)
    assert again.returncode == 2 and "seed 11 is already a chunk" in again.stderr
