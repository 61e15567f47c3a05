"""Refused command lines: one sentence naming what is wrong and where, before any work,
and nothing left behind."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.gamedef import bundled_game_path

NL = "holdem.nolimit.2p"


def command(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def one_sentence(result: subprocess.CompletedProcess) -> str:
    """The error line (the last: argparse prints its usage above), checked to be no traceback."""
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    sentence = result.stderr.strip().splitlines()[-1]
    assert not re.search(r"[a-z]Error\b", sentence), "a class name is no explanation"
    return sentence


# (module, arguments, the sentence's words, paths that must not exist afterwards)
CASES = [
    ("dealer.cli", ["tournament", "--lineup", "binary.bin"], "the lineup file binary.bin is not text", ["tournaments"]),
    ("dealer.cli", ["tournament", "call", "raise", "--hands", "5", "--out", "afile"], "--out afile is a file, not a folder", []),
    ("dealer.cli", ["tournament", "call", "raise", "--workers", "0", "--out", "t"], "--workers must be at least 1", ["t"]),
    ("dealer.cli", ["run", "nosuchbot", "call"], "seat 1: 'nosuchbot' is not a bot kind", ["matches"]),
    ("dealer.cli", ["report", "missing.log"], "dealer report: missing.log: no such match log", []),
    ("solver.cli", ["export", "x.strategy", "--game", "leduc.limit.2p", "--out", "adir"], "--out adir is a folder", ["adir.tmp"]),
    ("solver.cli", ["solve", "--game", "nosuch"], "nosuch: no such game file or bundled game", []),
    ("precompute.cli", ["blueprint", "--game", NL, "--quick", "--actions", "garbage", "--out", "bp"],
     "pot fractions 'garbage' must be numbers", ["bp"]),
    ("agent.cli", ["connect", "127.0.0.1", "99999"], "a port is between 1 and 65535, got 99999", []),
]  # fmt: skip


@pytest.mark.parametrize(("module", "args", "words", "absent"), CASES, ids=[" ".join(c[1][:2]) for c in CASES])
def test_refused_in_one_sentence_leaving_nothing(tmp_path, module, args, words, absent):
    (tmp_path / "binary.bin").write_bytes(bytes(range(256)))
    (tmp_path / "afile").write_text("a file where a folder is expected\n")
    (tmp_path / "adir").mkdir()
    assert words in one_sentence(command(module, *args, cwd=tmp_path))
    assert [p for p in absent if (tmp_path / p).exists()] == []


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A finished 20-hand run (seed 5) to resume with doctored settings."""
    folder = tmp_path_factory.mktemp("runs") / "r"
    result = command("dealer.cli", "run", "random", "raise", "--hands", "20", "--seed", "5", "--quiet", "--out", str(folder),
                     cwd=folder.parent)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return folder


@pytest.mark.parametrize(
    ("change", "words"),
    [({"hands": "3000"}, "run.json gives 'hands' as \"3000\", not a whole number"),
     ({"seed": 6}, "match.log is a match with seed 5, but"), ({"seats": "random"}, "gives 'seats' as \"random\"")],
)  # fmt: skip
def test_a_resume_checks_the_settings_against_their_types_and_the_logs(finished_run, change, words):
    settings = json.loads((finished_run / "run.json").read_text())
    log = (finished_run / "match.log").read_bytes()
    (finished_run / "run.json").write_text(json.dumps({**settings, **change}))
    try:
        assert words in one_sentence(command("dealer.cli", "run", "--resume", str(finished_run), cwd=finished_run.parent))
        assert (finished_run / "match.log").read_bytes() == log
    finally:
        (finished_run / "run.json").write_text(json.dumps(settings))


def test_a_run_whose_seat_fails_at_once_leaves_no_folder(tmp_path):
    result = command("dealer.cli", "run", "call", "false", "--hands", "5", "--quiet", "--out", "r", cwd=tmp_path)
    assert result.returncode == 1
    assert "the match stopped before its first hand ended because a seat left it" in result.stderr
    assert "seat 2 (false) exited with code 1" in result.stderr and "Nothing was played, so r was removed." in result.stderr
    assert not (tmp_path / "r").exists()


def test_the_report_reads_no_game_file_outside_the_log_folder(finished_run, tmp_path):
    secret = tmp_path / "secret.game"
    secret.write_text("SECRET-LINE\n")
    lines = (finished_run / "match.log").read_text().splitlines(keepends=True)
    logs = tmp_path / "logs"
    logs.mkdir()
    for name, game in (("abs.log", str(secret)), ("rel.log", "../secret.game")):
        (logs / name).write_text(lines[0].replace(NL, game) + "".join(lines[1:]))
        sentence = one_sentence(command("dealer.cli", "report", str(logs / name), cwd=tmp_path))
        assert f"its header names the game {game!r}, which is neither a game this program knows" in sentence
        assert "SECRET" not in sentence
    # A game file in the log's own folder is read, and --game overrides the header.
    (logs / "own.game").write_text(bundled_game_path(NL).read_text())
    (logs / "own.log").write_text(lines[0].replace(NL, "own.game") + "".join(lines[1:]))
    assert command("dealer.cli", "report", str(logs / "own.log"), cwd=tmp_path).returncode == 0
    assert command("dealer.cli", "report", str(logs / "abs.log"), "--game", NL, cwd=tmp_path).returncode == 0
