"""tests/bench/paired_chunk.py: a comparison played in chunks, each saved and pooled with the ones before."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "paired_chunk.py"


def _chunk(tmp_path: Path, seed: int, *more: str, data: str = "raise-vs-call") -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(SCRIPT), "--quick", "--candidate", "raise", "--baseline", "call", "--opponent", "random",
           "--seed", str(seed), "--data", str(tmp_path / "data" / data), "--out", str(tmp_path / data), *more]  # fmt: skip
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
    # The baseline's side from the first chunk's logs: the same values, without playing it again.
    reused = _chunk(tmp_path, 11, "--baseline-logs", str(tmp_path / "raise-vs-call" / "call-seed11"), data="reused")
    assert reused.returncode == 0, reused.stderr[-2000:]
    assert reused.stdout.count("+ dealer run") == 1 and "the baseline's logs" in reused.stdout
    same = [gzip.decompress((tmp_path / "data" / f"{name}-seed11.json.gz").read_bytes()) for name in ("raise-vs-call", "reused")]
    assert json.loads(same[0])["values"] == json.loads(same[1])["values"]
    # The baseline's side from the first chunk's saved values: the same values again.
    revalued = _chunk(tmp_path, 11, "--baseline-values", str(tmp_path / "data" / "raise-vs-call-seed11.json.gz"),
                      data="revalued")  # fmt: skip
    assert revalued.returncode == 0, revalued.stderr[-2000:]
    assert revalued.stdout.count("+ dealer run") == 1 and "the baseline's values" in revalued.stdout
    again = json.loads(gzip.decompress((tmp_path / "data" / "revalued-seed11.json.gz").read_bytes()))
    assert again["values"] == json.loads(same[0])["values"] and again["baseline"] == "call"
    assert again["hands_alike"] == json.loads(same[0])["hands_alike"]
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == [f"{n}-seed{s}.json.gz" for n, s in
        (("raise-vs-call", 11), ("raise-vs-call", 12), ("reused", 11), ("revalued", 11))]  # fmt: skip
    wrong_seed = _chunk(tmp_path, 13, "--baseline-values", str(tmp_path / "data" / "raise-vs-call-seed11.json.gz"),
                        data="wrong")  # fmt: skip
    assert wrong_seed.returncode == 2 and "needs call on seed 13" in wrong_seed.stderr
    other = _chunk(tmp_path, 12, "--baseline-logs", str(tmp_path / "raise-vs-call" / "call-seed11"), data="wrong")
    assert other.returncode == 2 and "its run.json has seed 11, this chunk needs 12" in other.stderr


def _load_script():
    import importlib.util

    sys.path.insert(0, str(SCRIPT.parent))  # the script imports repo_root from its folder
    spec = importlib.util.spec_from_file_location("paired_chunk", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_candidate_options_reach_the_agent_as_dealer_run_agent_args(tmp_path):
    """``--candidate-options`` becomes ``dealer run``'s ``--agent-args``: the candidate
    starts as its kind's agent plus the options, and a non-agent candidate is refused."""
    from agent.cli import build_parser
    from dealer.cli import build_parser as dealer_parser
    from dealer.run import _seat_command, run_seats

    script = _load_script()
    sizes = "0.5,1,2;raise=1;allin;cap=3"
    kind, *options = script.run_args("agent-flop", f"--river-sizes '{sizes}'")
    run = vars(dealer_parser().parse_args(["run", kind, "equity", *options]))
    seat, _ = run_seats(["x", "equity"], run)
    plain, _ = run_seats(["x", "equity"], {**run, "agent_args": ""})
    args = (0, "holdem.nolimit.2p", 5000, "match.1", 7, tmp_path, (60000, 7000))
    parsed, parsed_kind = (vars(build_parser().parse_args(_seat_command(s, *args)[3:])) for s in (seat, plain))
    assert parsed.pop("river_sizes") == sizes and parsed_kind.pop("river_sizes") != sizes
    assert parsed == parsed_kind and parsed_kind["solve_from"] == "flop"
    assert script.run_args("agent", "") == ["agent"]
    with pytest.raises(ValueError, match="need an agent seat kind"):
        script.run_args("call", "--river-sizes 1")
    refused = subprocess.run(
        [sys.executable, str(SCRIPT), "--seed", "5", "--candidate", "call", "--candidate-name", "c",
         "--candidate-options", "--river-sizes 1", "--data", str(tmp_path / "d"), "--out", str(tmp_path / "m")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 2 and "need an agent seat kind" in refused.stderr and not (tmp_path / "m").exists()
