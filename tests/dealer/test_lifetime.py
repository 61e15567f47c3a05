"""A match's processes live and die with ``dealer run`` / ``dealer tournament``, whatever
stops them, and a run killed at any moment resumes to the logs of an uninterrupted one."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from dealer.lifetime import living, start_time

ARGS = ["random", "raise", "--hands", "300", "--seed", "9", "--quiet"]


def dealer(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dealer.cli", *args], capture_output=True, text=True, timeout=timeout)


def start(*args: str) -> subprocess.Popen:
    """A command in its own session, as a shell starts a job."""
    return subprocess.Popen(
        [sys.executable, "-m", "dealer.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip


def hands_in(log: Path) -> int:
    try:
        return log.read_bytes().count(b"\nSTATE:")
    except FileNotFoundError:
        return 0


def wait_until(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def recorded_groups(folder: Path) -> list[tuple[int, int]]:
    return [tuple(g) for g in json.loads((folder / "run.lock").read_text() or "{}").get("groups", [])]


def files_of(folder: Path) -> dict[str, bytes]:
    """The match log and decision logs: what must come out the same."""
    paths = [folder / "match.log", *sorted((folder / "decisions").glob("*.dlog"))]
    return {str(p.relative_to(folder)): p.read_bytes() for p in paths}


def test_a_run_killed_at_a_random_moment_resumes_byte_identical(tmp_path):
    whole = tmp_path / "whole"
    assert dealer("run", *ARGS, "--out", str(whole)).returncode == 0
    cut = tmp_path / "cut"
    moment = random.randrange(0, 300)  # after this many finished hands, and a random fraction of the next
    proc = start("run", *ARGS, "--out", str(cut))
    wait_until(lambda: (cut / "run.json").exists() and hands_in(cut / "match.log") >= moment)
    time.sleep(random.uniform(0, 0.01))
    groups = recorded_groups(cut) if (cut / "run.lock").exists() else []
    proc.kill()  # SIGKILL: no handler runs, nothing is cleaned up by the run itself
    proc.communicate(timeout=30)
    print(f"killed after {hands_in(cut / 'match.log')} finished hands (waited for {moment})")
    # The dealer and both seats died with it (zombies, awaiting their new parent, write nothing).
    wait_until(lambda: not living(groups), timeout=5)

    resumed = dealer("run", "--resume", str(cut), "--quiet")
    assert resumed.returncode == 0, (moment, resumed.stderr)
    assert files_of(cut) == files_of(whole), f"killed after {moment} hands"


def test_resume_waits_for_and_refuses_while_a_process_of_the_stopped_run_lives(tmp_path):
    run = tmp_path / "run"
    assert dealer("run", "random", "call", "--hands", "5", "--seed", "1", "--out", str(run)).returncode == 0
    before = files_of(run)
    # A process of a killed run's match group that lives on, e.g. a command seat's own child.
    sleeper = subprocess.Popen(["sleep", "60"], process_group=0)
    try:
        (run / "run.lock").write_text(json.dumps({"pid": 1, "groups": [[sleeper.pid, start_time(sleeper.pid)]]}))
        refused = dealer("run", "--resume", str(run))
        assert refused.returncode == 2
        assert refused.stderr.strip() == (
            f"dealer run: processes {sleeper.pid} of a stopped run still write in {run}; "
            f"stop them (kill {sleeper.pid}) and try again"
        )
        assert files_of(run) == before
    finally:
        sleeper.kill()
        sleeper.wait()
    assert dealer("run", "--resume", str(run), "--quiet").returncode == 0


def test_sigterm_stops_the_match_and_says_how_to_resume(tmp_path):
    cut = tmp_path / "cut"
    proc = start("run", "random", "raise", "--hands", "5000", "--seed", "3", "--quiet", "--out", str(cut))
    wait_until(lambda: hands_in(cut / "match.log") >= 20)
    groups = recorded_groups(cut)
    proc.terminate()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    kept = hands_in(cut / "match.log")
    assert f"dealer run: stopped by SIGTERM; {kept} finished hands are kept in {cut}. " in err
    assert f"Resume with: dealer run --resume {cut}" in err
    assert not living(groups)


def test_a_killed_dealer_is_named_with_the_way_to_resume(tmp_path):
    cut = tmp_path / "cut"
    proc = start("run", "random", "raise", "--hands", "5000", "--seed", "3", "--quiet", "--out", str(cut))
    wait_until(lambda: hands_in(cut / "match.log") >= 20)
    os.kill(recorded_groups(cut)[0][0], signal.SIGKILL)  # the group's leader is the dealer
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "the match stopped after" in err and "the dealer was killed by SIGKILL" in err
    assert f"Fix the cause, then resume with: dealer run --resume {cut}" in err


def _processes_naming(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes() and (entry / "stat").read_text().split()[2] != "Z":
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_killed_tournament_leaves_no_match_running_and_resumes(tmp_path):
    out = tmp_path / "t"
    proc = start("tournament", "random", "raise", "--hands", "300", "--workers", "1", "--quiet", "--out", str(out))
    log = out / "random-raise" / "random-raise.1" / "random-raise.1.log"
    wait_until(lambda: hands_in(log) >= 20)
    proc.kill()
    proc.communicate(timeout=30)
    # The match runner (told by SIGTERM) stops its dealer and seats; they would die with it anyway.
    wait_until(lambda: not _processes_naming(str(out)), timeout=20)
    resumed = dealer("tournament", "--resume", str(out), "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert hands_in(log) == 300
