"""``dealer run`` says what it waits for before the first hand instead of a bar stuck at 0%."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dealer.run import AGENT_START


def dealer_run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dealer.cli", "run", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_a_run_with_our_agent_says_it_waits_for_the_agent_to_load(tmp_path):
    result = dealer_run("agent", "call", "--hands", "1", "--seed", "1", "--out", str(tmp_path / "agent"))
    assert result.returncode == 0, result.stderr
    assert f"dealer run: {AGENT_START}\n" in result.stderr
    assert "loading the blueprint, compiling kernels (first run only, about a minute)" in AGENT_START
    bots = dealer_run("random", "call", "--hands", "5", "--seed", "1", "--out", str(tmp_path / "bots"))
    assert bots.returncode == 0 and "waiting for" not in bots.stderr  # baseline bots start at once
