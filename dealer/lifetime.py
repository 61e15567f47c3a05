"""How long a match's processes live, and the lock that says which may still write.

A match's dealer and seats are children of the process that plays the match
(``dealer run``, or a tournament's match runner).  They must not outlive it: an
orphaned dealer and seats go on appending to logs that a ``--resume`` is cutting
back.  So on Linux each child asks the kernel, before it executes its program, for
SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``), which holds whatever
kills the parent, SIGKILL and the OOM killer included; and all of a match's
processes share one process group, led by its dealer, so a seat's own children
(a command seat run through a shell script) are stopped with it.

The run folder's lock (:class:`FolderLock`) is an ``flock`` held while the run
lives, and its file records the process groups of the matches being played.  The
flock dies with its owner; the record outlives it, so the next run in the folder
waits for, and else refuses to touch, logs that a member of a group still writes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
#: Exit status of a child whose parent died before the child could ask to die with it.
ORPHANED = 128 + signal.SIGKILL


def die_with_parent() -> Callable[[], None]:
    """A ``preexec_fn`` for :class:`subprocess.Popen`: the child is killed when the
    process that starts it dies (Linux; elsewhere only the process group protects)."""
    import ctypes

    parent = os.getpid()
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork: the child only calls it
    except (OSError, AttributeError):
        prctl = None

    def setup() -> None:
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died between the fork and the request
            os._exit(ORPHANED)

    return setup


def start_member(cmd: Sequence[str], group: int | None, **popen: object) -> subprocess.Popen:
    """Start ``cmd`` so that it dies with this process, in process group ``group``
    (None: a new group that it leads).  Raises OSError as Popen does."""
    return subprocess.Popen(cmd, process_group=group or 0, preexec_fn=die_with_parent(), **popen)  # type: ignore[call-overload]


def stop_group(group: int, members: Sequence[subprocess.Popen], grace: float = 10.0) -> None:
    """Stop a match's processes: SIGTERM to the group, SIGKILL to what is left after ``grace`` s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if sig == signal.SIGKILL and not living([(group, start_time(group))]):
            break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)
        deadline = time.monotonic() + grace
        for proc in members:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(0.0, deadline - time.monotonic()))


def _stat(pid: int | str) -> tuple[str, int, int] | None:
    """A process's state letter, process group and start time (clock ticks after boot), or None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()  # the command name in parentheses may hold anything
    try:
        return fields[0], int(fields[2]), int(fields[19])
    except (IndexError, ValueError):
        return None


def start_time(pid: int) -> int:
    """When process ``pid`` started (0 where /proc is not available or it is gone)."""
    stat = _stat(pid)
    return stat[2] if stat is not None else 0


def living(groups: Sequence[tuple[int, int]]) -> list[int]:
    """Live processes (zombies excluded: they write nothing) of the process groups
    ``(pgid, start time of its leader)``; a group whose number now belongs to a
    younger leader is another one and is left out."""
    if not Path("/proc/self/stat").exists():  # no procfs: ask the kernel whether each group has members
        alive = []
        for pgid, _ in groups:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                continue
            except PermissionError:
                pass
            alive.append(pgid)
        return alive
    ours = set()
    for pgid, started in groups:
        leader = _stat(pgid)
        # While a group has a member its number cannot go to a new process, so a leader
        # that started at another time means the group is gone and the number reused.
        if leader is None or leader[2] == started:
            ours.add(pgid)
    if not ours:
        return []
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            stat = _stat(entry.name)
            if stat is not None and stat[1] in ours and stat[0] not in "ZX":
                pids.append(int(entry.name))
    return sorted(pids)


class FolderLock:
    """The lock of a folder a run plays in: ``FolderLock(path)`` takes it or raises
    BlockingIOError (another live run holds it); :meth:`survivors` lists processes of
    an earlier run's matches that are still alive; :meth:`add` and :meth:`remove`
    keep the record of this run's groups.  Released when this process ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # Read-write without truncating (the earlier run's record must stay readable) and
        # without O_APPEND (the record is rewritten in place): one handle, held (and
        # flock-ed) for the run's lifetime, closed by close().
        self.file = os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o644), "r+")
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.file.close()
            raise
        self.previous = self._read()
        self.groups: list[tuple[int, int]] = []

    def _read(self) -> list[tuple[int, int]]:
        """The groups an earlier run recorded (none from an empty or foreign file)."""
        self.file.seek(0)
        try:
            data = json.loads(self.file.read() or "{}")
        except ValueError:
            return []
        groups = data.get("groups") if isinstance(data, dict) else None
        if not isinstance(groups, list):
            return []
        return [
            (g[0], g[1]) for g in groups
            if isinstance(g, list) and len(g) == 2 and type(g[0]) is int and g[0] > 1 and type(g[1]) is int
        ]  # fmt: skip

    def survivors(self, wait: float = 5.0) -> list[int]:
        """Processes of the earlier run's matches still alive after up to ``wait`` seconds
        (a parent's death reaches its children within milliseconds, but a busy machine
        may take a moment to tear them down)."""
        deadline = time.monotonic() + wait
        while (alive := living(self.previous)) and time.monotonic() < deadline:
            time.sleep(0.05)
        return alive

    def add(self, group: int) -> None:
        """Record a match's process group (its leader must be alive)."""
        self.groups.append((group, start_time(group)))
        self._write()

    def remove(self, group: int) -> None:
        """Forget a stopped match's group, unless one of its processes still lives."""
        record = [g for g in self.groups if g[0] == group]
        if not living(record):
            self.groups = [g for g in self.groups if g[0] != group]
            self._write()

    def _write(self) -> None:
        # Overwritten in place, then cut: the file is never empty while a group is recorded.
        data = json.dumps({"pid": os.getpid(), "groups": [list(g) for g in self.groups]})
        self.file.seek(0)
        self.file.write(data + "\n")
        self.file.truncate()
        self.file.flush()

    def close(self) -> None:
        self.file.close()


def describe_exit(code: int) -> str:
    """How a process ended, from its return code: 'exited with code 3', 'was killed by SIGKILL'."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"
