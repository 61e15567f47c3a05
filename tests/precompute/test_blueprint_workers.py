"""``precompute blueprint --workers N`` and ``--ray ADDRESS``: the same arrays on local
processes and on a Ray head the test starts on loopback (with a Ray worker killed
mid-task), exact resume after the driver is killed, a killed local worker's block run
again, one-sentence refusals, and the scaling bench's quick form."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from precompute.cli import main
from solver.artifacts import load_artifact, read_header
from tests.dealer.ray_head import LOOPBACK_ENV, free_port, local_ray_head

ROOT = Path(__file__).resolve().parents[2]
#: 8 rounds of 2 blocks of 128 iterations: seconds of training, enough rounds to kill one mid-run.
QUICK = ["blueprint", "--game", "holdem.nolimit.2p", "--quick", "--quiet", "--iterations", "2048", "--block", "128"]
TWO = [*QUICK, "--workers", "2"]


def fresh(cards: Path, folder: Path) -> Path:
    shutil.copytree(cards, folder / "cards")
    return folder


@pytest.fixture(scope="module")
def local_run(quick_cards, tmp_path_factory) -> Path:
    """The reference: 2 local workers, uninterrupted."""
    out = fresh(quick_cards, tmp_path_factory.mktemp("local"))
    assert main([*TWO, "--out", str(out)]) == 0
    return out


def arrays(out: Path) -> dict[str, np.ndarray]:
    return load_artifact(out / "checkpoint.mccfr", "mccfr-checkpoint").arrays


def assert_same_run(a: Path, b: Path) -> None:
    x, y = arrays(a), arrays(b)
    assert int(x["iterations"][0]) == int(y["iterations"][0]) == 2048
    for name in ("regret", "avg"):
        np.testing.assert_array_equal(x[name], y[name], err_msg=name)
    assert read_header(a / "blueprint.art")[0]["content_hash"] == read_header(b / "blueprint.art")[0]["content_hash"]


def driver(*args: str) -> subprocess.Popen:
    """``precompute`` in its own process (stdout and stderr into a pipe)."""
    return subprocess.Popen([sys.executable, "-m", "precompute.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env={**os.environ, **LOOPBACK_ENV})  # fmt: skip


def wait_for(path: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    """Until ``path`` exists (the first checkpoint: a round is done, more are to come)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()[0][-2000:]
        assert time.monotonic() < deadline, "no checkpoint in time"
        time.sleep(0.01)


def worker_pids(pid: int) -> list[int]:
    """The local block workers among ``pid``'s children (spawned processes, not the
    shared-memory resource tracker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]


def test_the_workers_trained_and_the_blueprint_loads(local_run):
    from precompute.blueprint import Blueprint

    header = read_header(local_run / "blueprint.art")[0]["params"]
    assert header["workers"] == 2 and header["block"] == 128 and "threads" not in header
    assert np.count_nonzero(arrays(local_run)["regret"]) > 10_000
    bp = Blueprint.load(local_run / "blueprint.art", verify=True)
    assert bp.strategy_at(bp.root, [48, 49]).sum() == pytest.approx(1)


def test_two_ray_tasks_equal_two_local_workers_bit_for_bit_even_when_a_task_dies(quick_cards, local_run, tmp_path):
    pytest.importorskip("ray", reason="--ray needs the 'cluster' extra: pip install -e '.[cluster]'")
    out = fresh(quick_cards, tmp_path)
    killed: list[int] = []

    def kill_one_running_task(proc: subprocess.Popen) -> None:
        # Ray titles a worker process by the task it runs: kill one mid-block, once.
        wait_for(out / "checkpoint.mccfr", proc)
        while proc.poll() is None and not killed:
            for entry in Path("/proc").iterdir():
                try:
                    if entry.name.isdigit() and (entry / "cmdline").read_bytes().startswith(b"ray::run_block"):
                        os.kill(int(entry.name), signal.SIGKILL)
                        killed.append(int(entry.name))
                        break
                except OSError:
                    continue
            time.sleep(0.005)

    with local_ray_head(cpus=2) as address:
        proc = driver(*TWO, "--ray", address, "--out", str(out), "--checkpoint-minutes", "0")
        killer = threading.Thread(target=kill_one_running_task, args=(proc,))
        killer.start()
        output = proc.communicate(timeout=300)[0]
        killer.join()
    assert proc.returncode == 0, output[-3000:]
    assert "2 Ray tasks per round on a cluster of 2 CPUs" in output
    assert killed, "no running block to kill: the run ended first"
    assert_same_run(local_run, out)


def test_a_killed_driver_resumes_to_the_uninterrupted_arrays(quick_cards, local_run, tmp_path):
    out = fresh(quick_cards, tmp_path)
    args = [*TWO, "--out", str(out), "--checkpoint-minutes", "0"]
    proc = driver(*args)
    wait_for(out / "checkpoint.mccfr", proc)
    workers = worker_pids(proc.pid)
    proc.kill()
    proc.wait()
    done = int(arrays(out)["iterations"][0])
    assert 0 < done < 2048 and done % 256 == 0  # killed mid-run, checkpointed between rounds
    # The workers end with their driver (after the block in hand).
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{w}").exists() and b"spawn_main" in Path(f"/proc/{w}/cmdline").read_bytes() for w in workers):
        assert time.monotonic() < deadline, "a worker outlived its driver"
        time.sleep(0.1)
    assert main(args) == 0
    assert_same_run(local_run, out)


def test_a_killed_local_worker_is_restarted_and_its_block_run_again(quick_cards, local_run, tmp_path):
    out = fresh(quick_cards, tmp_path)
    proc = driver(*TWO, "--out", str(out), "--checkpoint-minutes", "0")
    wait_for(out / "checkpoint.mccfr", proc)
    os.kill(worker_pids(proc.pid)[1], signal.SIGKILL)
    output = proc.communicate(timeout=300)[0]
    assert proc.returncode == 0, output[-3000:]
    assert "worker lost; restarting it and running its block again" in output
    assert_same_run(local_run, out)


def test_bad_worker_options_are_one_sentence(quick_cards, local_run, tmp_path, capsys):
    def refused(*args: str) -> str:
        assert main([*QUICK, "--out", str(tmp_path / "x"), *args]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "Traceback" not in err
        return err

    assert "--workers must be at least 1, got 0" in refused("--workers", "0")
    assert "--workers must be at least 1, got -2" in refused("--workers", "-2")
    assert "multiple of a round (--block 128 x --workers 2) (256), got 128" in refused("--workers", "2", "--stop-at", "128")
    err = refused("--workers", "2", "--ray", f"127.0.0.1:{free_port()}")
    assert "cannot connect to the Ray cluster at 127.0.0.1:" in err or "--ray needs Ray" in err
    assert not (tmp_path / "x").exists()  # refused before any work
    # A checkpoint continues only with the workers and block it was trained with.
    more = tmp_path / "more"
    shutil.copytree(local_run, more)
    hint = "trained by 2 workers in blocks of 128; continue it with --workers 2 --block 128"
    assert main([*QUICK, "--out", str(more), "--workers", "3"]) == 2 and hint in capsys.readouterr().err
    assert main([*QUICK, "--out", str(more)]) == 2 and hint in capsys.readouterr().err
    threads = fresh(quick_cards, tmp_path / "threads")
    assert main([*QUICK, "--out", str(threads), "--iterations", "128", "--schedule-iterations", "2048"]) == 0
    assert main([*QUICK, "--out", str(threads), "--workers", "2"]) == 2
    assert "trained with threads on one machine; continue it without --workers and --ray" in capsys.readouterr().err


def test_the_scaling_bench_quick_prints_rates_ratios_costs_and_the_projection():
    """The bench's whole path but Ray's (``--no-ray``: a Ray head costs 15-20 s of the
    suite's time; Ray block pools against local ones are the test above)."""
    result = subprocess.run([sys.executable, str(ROOT / "tests/bench/bench_blueprint_workers.py"), "--quick", "--no-ray"],
                            capture_output=True, text=True, timeout=300, env={**os.environ, **LOOPBACK_ENV})  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    for words in ("load average before", "1 local worker:", "2 local workers:", "2 local / 1 local:",
                  "bytes per block:", "communication per block:", "memory per worker:",
                  "projected efficiency at 64 workers:", "load average after", "Ray: skipped (--no-ray)"):  # fmt: skip
        assert words in out, f"{words!r} missing from:\n{out}"
