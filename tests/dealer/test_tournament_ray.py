"""``dealer tournament --ray``: the matches as tasks on a local Ray cluster the test starts (loopback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from dealer.evaluation.matchlog import read_match_log
from tests.dealer.ray_head import LOOPBACK_ENV, free_port, local_ray_head

pytest.importorskip("ray", reason="the Ray backend needs the 'cluster' extra: pip install -e '.[cluster]'")


def tournament(*args: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dealer.cli", "tournament", "--quiet", *args],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, **LOOPBACK_ENV},
    )  # fmt: skip


def test_ray_backend_plays_every_match_and_writes_the_logs_back(tmp_path):
    out = tmp_path / "t"
    with local_ray_head(cpus=2) as address:
        result = tournament("random", "call", "raise", "--hands", "30", "--duplicate", "--estimator", "raw",
                            "--ray", address, "--out", str(out), timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"Ray cluster {address} (2 CPUs)" in result.stderr
    for lineup in ("random-call", "random-raise", "call-raise"):
        for order in (1, 2):
            folder = out / lineup / f"{lineup}.1.{order}"
            log = read_match_log(folder / f"{lineup}.1.{order}.log")
            assert len(log.hands) == 30 and log.score is not None
            assert (folder / f"{lineup}.1.{order}.tlog").stat().st_size > 0
            assert len(list((folder / "decisions").glob("*.dlog"))) == 2
            assert json.loads((folder / "outcome.json").read_text())["status"] == "ok"
    ranking = json.loads((out / "rankings.json").read_text())
    assert {r["bot"] for r in ranking["total_bankroll"]} == {"random", "call", "raise"}
    assert all(r["lineups"] == 2 for r in ranking["total_bankroll"])


def test_an_unreachable_cluster_is_one_sentence(tmp_path):
    result = tournament("random", "call", "--hands", "5", "--ray", f"127.0.0.1:{free_port()}", "--out", str(tmp_path / "t"),
                        timeout=120)  # fmt: skip
    assert result.returncode == 2
    assert "cannot connect to the Ray cluster" in result.stderr and "Traceback" not in result.stderr
