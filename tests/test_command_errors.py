"""Bad command lines get one sentence on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

NL = "holdem.nolimit.2p"

# (module, arguments, a phrase of the expected sentence); FILE is a plain file in the test folder.
CASES = [
    ("dealer.cli", ["serve", "m", NL, "5", "1", "A", "B", "-p", "70000,70001"], "port 70000 is not between 0 and 65535"),
    ("dealer.cli", ["serve", "m", NL, "5", "1", "A", "B", "--out-dir", "FILE"], "--out-dir FILE is a file, not a folder"),
    ("dealer.cli", ["serve", "m", NL, "5", "-3", "A", "B"], "SEED must be between 0 and 4294967295, got -3"),
    ("dealer.cli", ["serve", "m", NL, "5", "1", "A", "B", "--t_response", "-5"], "--t_response must be a positive number"),
    ("dealer.cli", ["serve", "m", NL, "5", "1", "A", "B", "-a"], "cannot resume: there is no transaction log"),
    ("dealer.cli", ["run", "--out", "FILE"], "--out FILE is a file, not a folder"),
    ("dealer.cli", ["run", "--seed", "-3", "--out", "r"], "--seed must be between 0 and 4294967295, got -3"),
    ("dealer.cli", ["run", "--t_response", "-1", "--out", "r"], "--t_response must be a positive number of milliseconds"),
    ("dealer.cli", ["run", "--resume", "nowhere"], "cannot resume: nowhere/run.json does not exist"),
    ("dealer.cli", ["bot", "call", "127.0.0.1", "18001", "--game", NL, "--seed", "-1"], "--seed: must be 0 or more, got -1"),
    ("dealer.cli", ["bot", "call", "127.0.0.1", "70000", "--game", NL], "a port is between 1 and 65535, got 70000"),
    ("dealer.cli", ["bot", "call", "no-such-host.invalid", "18001", "--game", NL],
     "cannot reach the dealer at no-such-host.invalid"),
    ("dealer.cli", ["bot", "call", "127.0.0.1", "18001", "--game", NL, "--decision-log", "FILE/x.dlog"],
     "cannot write the decision log FILE/x.dlog"),
    ("solver.cli", ["solve", "--game", "kuhn.limit.3p", "--algo", "mccfr", "--iterations", "10", "--seed", "-1"],
     "--seed must be 0 or more, not -1"),
    ("solver.cli", ["solve", "--game", "kuhn.limit.3p", "--algo", "mccfr", "--iterations", "10", "--checkpoint", "FILE/c"],
     "--checkpoint FILE/c cannot be written: FILE is a file, not a folder"),
    ("solver.cli", ["solve", "--game", "leduc.limit.2p", "--iterations", "10", "--out", "FILE/a/s"],
     "--out FILE/a/s cannot be written: FILE is a file, not a folder"),
    ("solver.cli", ["solve", "--game", "leduc.limit.2p", "--iterations", "10", "--evaluations", "0"],
     "--evaluations must be at least 1, not 0"),
    ("solver.cli", ["solve", "--game", "leduc.limit.2p", "--iterations", "10", "--evaluations", "-1"],
     "--evaluations must be at least 1, not -1"),
    ("precompute.cli", ["abstraction", "--game", NL, "--preset", "small", "--out", "FILE"], "--out FILE is a file, not a folder"),
    ("precompute.cli", ["tables"], "FILE/cache: Not a directory"),
    ("precompute.cli", ["equity", "AsAd", "--samples", "0"], "--samples must be at least 1, not 0"),
    ("precompute.cli", ["equity", "AsAd", "--samples", "-5"], "--samples must be at least 1, not -5"),
    ("precompute.cli", ["blueprint", "--game", NL, "--quick", "--workers", "0", "--out", "bp"],
     "--workers must be at least 1, got 0"),
]  # fmt: skip


@pytest.mark.parametrize(("module", "args", "sentence"), CASES, ids=[" ".join(c[1][:1] + c[1][-2:]) for c in CASES])
def test_one_sentence_not_a_traceback(tmp_path, module, args, sentence):
    (tmp_path / "FILE").write_text("a file where a folder is expected\n")
    # A cache folder that cannot be created (only `precompute tables` gets that far).
    env = dict(os.environ, ACPC_CACHE_DIR=str(tmp_path / "FILE" / "cache"))
    result = subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert sentence in result.stderr.strip().splitlines()[-1]  # the last line; argparse prints its usage above
