"""Where a tournament's matches run: a pool of local processes or tasks on a Ray cluster.

Both run the same *match runner* (``python -m dealer.backends FOLDER``): it reads
``FOLDER/task.json``, plays the match with :func:`dealer.run.play_match` into FOLDER
(finishing it from its transaction log if an earlier attempt was cut short), and
writes ``FOLDER/outcome.json``.  The runner dies with its parent (Linux), and on
SIGTERM stops its dealer and seats, which die with it if it is killed outright
(:mod:`dealer.lifetime`), so a killed tournament leaves no match running.

Ray tasks play in a temporary folder on the worker and return every file's bytes,
which the head writes into its own match folder: no shared file system is needed,
and the head's folder stays the one record the rankings and ``--resume`` read.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from dealer.lifetime import FolderLock
from dealer.matchtask import MatchTask
from dealer.run import RunFailed, Seat, count_logged_hands, is_finished, play_match, rewind_match, tail_lines
from protocol.cluster import ClusterError, cluster_cpus, connect_ray
from protocol.gamedef import bundled_game_names
from protocol.progress import Progress

TASK_FILE = "task.json"
OUTCOME_FILE = "outcome.json"


class BackendError(Exception):
    """A backend cannot start or lost contact (one sentence)."""


# --- the match runner (its own process) --------------------------------------------------


def log_path(task: MatchTask, folder: Path) -> Path:
    return folder / f"{task.match}.log"


def run_match(folder: Path) -> dict[str, Any]:
    """Play (or finish) the match described by ``folder/task.json``; returns its outcome."""
    task = MatchTask.from_json(json.loads((folder / TASK_FILE).read_text()))
    log = log_path(task, folder)
    started = time.monotonic()
    outcome: dict[str, Any] = {"match": task.match, "lineup": task.lineup, "folder": str(folder)}
    outcome.update(status="ok", resumed_from=0)
    game_arg = task.game if task.game in bundled_game_names() else str(folder / task.game)
    # One runner per match folder, and none while the dealer or a seat of a killed
    # earlier attempt still writes there (see dealer.lifetime).
    try:
        lock = FolderLock(folder / "run.lock")
    except BlockingIOError:
        return {**outcome, "status": "failed", "hands": count_logged_hands(log, {}),
                "message": f"another runner is playing this match in {folder}"}  # fmt: skip
    if survivors := lock.survivors():
        pids = " ".join(map(str, survivors))
        return {**outcome, "status": "failed", "hands": count_logged_hands(log, {}),
                "message": f"processes {pids} of a stopped attempt still write in {folder}; stop them (kill {pids})"}  # fmt: skip
    for attempt in range(2):
        if is_finished(log):
            break
        resumed = rewind_match(folder, task.match)
        if attempt == 0:
            outcome["resumed_from"] = resumed
        try:
            play_match(
                [Seat(name, spec) for name, spec in task.order], match=task.match, game_arg=game_arg, hands=task.hands,
                seed=task.seed, out=folder, t_response=task.t_response, t_per_hand=task.t_per_hand,
                start_timeout=task.start_timeout, progress=False, resume=resumed > 0, lock=lock,
            )  # fmt: skip
        except RunFailed as exc:
            outcome.update(status="failed", message=str(exc))
            # Every hand was played but the dealer was stopped before its SCORE line (a slow
            # exit on a loaded machine): resuming replays the log and writes just that line.
            if count_logged_hands(log, {}) < task.hands:
                break
    if is_finished(log):  # the dealer wrote its SCORE line, however its exit was seen
        outcome.update(status="ok", message="")
    outcome["hands"] = count_logged_hands(log, {})
    outcome["seconds"] = round(time.monotonic() - started, 3)
    return outcome


def _die_with_parent() -> None:
    """Ask Linux to send SIGTERM when the parent dies (no-op elsewhere)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def main(argv: list[str] | None = None) -> int:
    """``python -m dealer.backends FOLDER``: the match runner."""
    folder = Path((argv or sys.argv[1:])[0])
    _die_with_parent()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # play_match's cleanup stops the dealer and seats
    if os.getppid() == 1:  # the parent died before the request took effect
        return 143
    outcome = run_match(folder)
    tmp = folder / (OUTCOME_FILE + ".tmp")
    tmp.write_text(json.dumps(outcome, indent=2) + "\n")
    tmp.replace(folder / OUTCOME_FILE)
    return 0


def stage(task: MatchTask, out: Path) -> Path:
    """Create the match folder with its task file (and game file); returns the folder."""
    folder = task.folder(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / TASK_FILE).write_text(json.dumps(task.as_json(), indent=2) + "\n")
    if task.game not in bundled_game_names() and not (folder / task.game).exists():
        (folder / task.game).write_bytes((out / task.game).read_bytes())
    return folder


def read_outcome(task: MatchTask, folder: Path, runner_err: str = "") -> dict[str, Any]:
    """The runner's outcome, or a failure saying why there is none."""
    try:
        return json.loads((folder / OUTCOME_FILE).read_text())
    except (OSError, json.JSONDecodeError):
        return {
            "match": task.match, "lineup": task.lineup, "status": "failed",
            "hands": count_logged_hands(log_path(task, folder), {}),
            "message": f"the match runner ended without an outcome{': ' + runner_err if runner_err else ''}",
        }  # fmt: skip


# --- backends ----------------------------------------------------------------------------


class LocalPool:
    """Up to ``workers`` match runners at once on this machine, each in its own process group."""

    def __init__(self, workers: int) -> None:
        self.workers = self.local_workers = workers
        self.running: dict[str, tuple[MatchTask, subprocess.Popen, Path, dict[str, int]]] = {}

    def describe(self) -> str:
        return f"{self.workers} local worker{'s' if self.workers > 1 else ''}"

    @property
    def free(self) -> int:
        return self.workers - len(self.running)

    def submit(self, task: MatchTask, out: Path) -> None:
        folder = stage(task, out)
        (folder / OUTCOME_FILE).unlink(missing_ok=True)
        with open(folder / "runner.err", "w") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "dealer.backends", str(folder.resolve())],
                stdin=subprocess.DEVNULL, stdout=err, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        self.running[task.match] = (task, proc, folder, {})

    def wait(self, timeout: float) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while True:
            done = [m for m, (_, proc, _, _) in self.running.items() if proc.poll() is not None]
            if done or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        outcomes = []
        for match in done:
            task, _, folder, _ = self.running.pop(match)
            outcomes.append(read_outcome(task, folder, tail_lines(folder / "runner.err", 3)))
        return outcomes

    def hands_in_flight(self) -> int:
        return sum(count_logged_hands(log_path(task, folder), counter) for task, _, folder, counter in self.running.values())

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for _, proc, _, _ in self.running.values():
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, sig)
            end = time.monotonic() + 10
            while any(p.poll() is None for _, p, _, _ in self.running.values()) and time.monotonic() < end:
                time.sleep(0.05)
        self.running.clear()


def _files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def play_in_temp_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    """A Ray task: write a match folder's files in a temporary folder, run the match
    runner there, and return every file it leaves (logs, decision logs, outcome)."""
    with tempfile.TemporaryDirectory(prefix="acpc-match-") as tmp:
        folder = Path(tmp)
        for name, data in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        with open(folder / "runner.err", "w") as err:
            runner = [sys.executable, "-m", "dealer.backends", tmp]
            subprocess.run(runner, stdin=subprocess.DEVNULL, stdout=err, stderr=subprocess.STDOUT)
        # A lock names this machine's processes: it means nothing on the head.
        return {name: data for name, data in _files_of(folder).items() if not name.endswith(".lock")}


class RayBackend:
    """Every match as a Ray task (1 CPU each) on an existing cluster; logs come back to ``out``."""

    def __init__(self, address: str) -> None:
        try:
            self.ray = connect_ray(address)
        except ClusterError as exc:
            raise BackendError(str(exc)) from None
        self.address = address
        self.remote = self.ray.remote(num_cpus=1, max_retries=0)(play_in_temp_folder)
        self.running: dict[Any, tuple[MatchTask, Path]] = {}
        self.local_workers = max(1, (os.cpu_count() or 2) - 1)
        self.free = 1 << 30  # Ray queues tasks by their CPU request

    def describe(self) -> str:
        return f"Ray cluster {self.address} ({cluster_cpus(self.ray)} CPUs)"

    def submit(self, task: MatchTask, out: Path) -> None:
        folder = stage(task, out)
        (folder / OUTCOME_FILE).unlink(missing_ok=True)
        files = {k: v for k, v in _files_of(folder).items() if not k.endswith((".out", ".err", ".lock"))}
        self.running[self.remote.remote(files)] = (task, folder)

    def wait(self, timeout: float) -> list[dict[str, Any]]:
        if not self.running:
            return []
        ready, _ = self.ray.wait(list(self.running), num_returns=len(self.running), timeout=timeout)
        outcomes = []
        for ref in ready:
            task, folder = self.running.pop(ref)
            try:
                files = self.ray.get(ref)
            except self.ray.exceptions.RayError as exc:
                outcomes.append(read_outcome(task, folder, f"the Ray task failed: {str(exc).splitlines()[0]}"))
                continue
            for name, data in files.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)
            outcome = read_outcome(task, folder, tail_lines(folder / "runner.err", 3))
            # The runner's outcome names the worker's temporary folder: name the head's copy instead.
            if outcome.get("folder"):
                outcome["message"] = outcome.get("message", "").replace(outcome["folder"], str(folder))
                outcome["folder"] = str(folder)
                (folder / OUTCOME_FILE).write_text(json.dumps(outcome, indent=2) + "\n")
            outcomes.append(outcome)
        return outcomes

    def hands_in_flight(self) -> int:
        return 0  # a task's logs come back when it ends

    def stop(self) -> None:
        for ref in self.running:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)
        self.running.clear()

    def close(self) -> None:
        self.ray.shutdown()


# --- running a tournament's matches ---------------------------------------------------------


def run_matches(
    tasks: list[MatchTask], out: Path, backend: LocalPool | RayBackend, progress: bool = True
) -> dict[str, dict[str, Any]]:
    """Play every task whose log has no SCORE line yet; returns every task's outcome by match.

    A failed match does not stop the others.  On Ctrl-C or SIGTERM the running matches
    are stopped (their finished hands stay for the next run) and KeyboardInterrupt is raised.
    """
    outcomes: dict[str, dict[str, Any]] = {}
    todo = []
    for task in tasks:
        if is_finished(log_path(task, task.folder(out))):
            outcomes[task.match] = {"match": task.match, "lineup": task.lineup, "status": "ok", "hands": task.hands}
        else:
            todo.append(task)
    partial = sum(1 for t in todo if (t.folder(out) / f"{t.match}.tlog").exists())
    if len(todo) < len(tasks) or partial:
        print(
            f"dealer tournament: resuming: {len(tasks) - len(todo)} of {len(tasks)} matches already played, "
            f"{partial} to finish from their transaction logs, {len(todo) - partial} to start",
            file=sys.stderr,
        )
    per_match = tasks[0].hands if tasks else 0
    done_hands = len(outcomes) * per_match
    bar = Progress("tournament", len(tasks) * per_match, done=done_hands, enabled=progress, unit="hands")
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        queue = list(todo)
        while queue or backend.running:
            while queue and backend.free > 0:
                backend.submit(queue.pop(0), out)
            for outcome in backend.wait(0.2):
                outcomes[outcome["match"]] = outcome
                done_hands += outcome.get("hands", 0)
            bar.status = f"{len(outcomes)}/{len(tasks)} matches"
            bar.update(done_hands + backend.hands_in_flight())
        bar.close()
    except KeyboardInterrupt:
        backend.stop()
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        if isinstance(backend, RayBackend):
            backend.close()
    return {t.match: outcomes[t.match] for t in tasks}


if __name__ == "__main__":
    sys.exit(main())
