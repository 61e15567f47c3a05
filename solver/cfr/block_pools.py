"""Where the blocks of :mod:`solver.cfr.mccfr_distributed` run: local processes or Ray tasks.

Both pools build each worker's :class:`~solver.cfr.mccfr_distributed.BlockWorker` once
from a picklable ``factory`` (a module-level function, or a :func:`functools.partial`
of one, so that it pickles by reference) and run the same
:func:`run_block` for every block; only how the snapshot goes out and the changes come
back differs.

* :class:`LocalBlockPool`: ``workers`` processes on this machine (started with
  ``spawn``: no forked numba or thread state).  The snapshot is written once per round
  into shared memory, which every worker reads; the changes come back through a pipe.
  A worker that dies is restarted and its block run again; a worker ends when its pipe
  closes, so a killed driver leaves none behind (a worker finishes its block first).
* :class:`RayBlockPool`: every block is a Ray task (1 CPU) on a cluster; the snapshot
  goes through the object store once per round (one copy per node), the factory once
  per run.  Ray retries a task whose worker or node was lost (``retries`` times).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.shared_memory import SharedMemory
from types import ModuleType
from typing import Any
from uuid import uuid4

import numpy as np
import structlog

from protocol.cluster import cluster_cpus
from solver.cfr.mccfr_distributed import BlockJob, BlockResult, BlockWorker, WorkerError

log = structlog.get_logger("solver.block_pools")

#: How often one block may lose its worker before the run gives up.
RETRIES = 3

_built: dict[str, BlockWorker] = {}  # this process's worker, by run


def run_block(key: str, factory: Callable[[], BlockWorker], snapshot: np.ndarray, job: BlockJob) -> BlockResult:
    """Run ``job`` on this process's worker for run ``key`` (built by ``factory`` on first use)."""
    worker = _built.get(key)
    if worker is None:
        _built.clear()  # a process serves one run at a time: free an earlier run's arrays
        worker = _built[key] = factory()
    return worker.run(snapshot, job)


def serve_blocks(conn: Connection, key: str, factory: Callable[[], BlockWorker]) -> None:
    """A local worker process: for each (shared memory name, entries, job) received on
    ``conn``, run the job against the snapshot in that shared memory and send back its
    result, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's: it stops between rounds
    shm: SharedMemory | None = None
    try:
        while True:
            try:
                name, size, job = conn.recv()
            except (EOFError, OSError):
                return
            try:
                if shm is None or shm.name != name:
                    shm = SharedMemory(name)
                reply: Any = run_block(key, factory, np.ndarray((size,), np.float32, buffer=shm.buf), job)
            except Exception as exc:  # reported to the driver, which stops the run
                traceback.print_exc()
                reply = WorkerError(f"{type(exc).__name__}: {exc}")
            try:
                conn.send(reply)
            except (BrokenPipeError, OSError):
                return
    finally:
        if shm is not None:
            with contextlib.suppress(BufferError):
                shm.close()


class StoredFactory:
    """A factory kept in Ray's object store, fetched only when called: a process that
    already built its worker for the run never fetches it again (see :func:`run_block`)."""

    def __init__(self, ref: Any) -> None:
        self.ref = ref  # nested in an object, Ray passes the reference itself, not its value

    def __call__(self) -> BlockWorker:
        import ray

        return ray.get(self.ref)()


class LocalBlockPool:
    """``workers`` processes on this machine (see the module docstring).

    Args:
        factory: builds a worker's :class:`BlockWorker` (pickled to each process).
        workers: how many processes; they start (and build their workers) at once.
    """

    def __init__(self, factory: Callable[[], BlockWorker], workers: int) -> None:
        if workers < 1:
            raise ValueError(f"--workers must be at least 1, got {workers}")
        self.workers, self._factory = workers, factory
        self._context = multiprocessing.get_context("spawn")
        self._key = uuid4().hex
        self._shm: SharedMemory | None = None  # made by the first round, sized by its snapshot
        self._entries = 0
        self._procs: list[Any] = [None] * workers
        self._conns: list[Any] = [None] * workers
        self.restarts = 0
        for w in range(workers):
            self._start(w)

    def describe(self) -> str:
        return f"{self.workers} local worker process{'es' if self.workers > 1 else ''}"

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids, by worker."""
        return [p.pid for p in self._procs]

    def _start(self, w: int) -> None:
        parent, child = self._context.Pipe()
        proc = self._context.Process(target=serve_blocks, args=(child, self._key, self._factory),
                                     name=f"mccfr-worker-{w}", daemon=True)  # fmt: skip
        proc.start()
        child.close()
        self._procs[w], self._conns[w] = proc, parent

    def _restart(self, w: int, job: BlockJob, attempts: dict[int, int]) -> None:
        attempts[w] = attempts.get(w, 0) + 1
        code = self._procs[w].exitcode
        if attempts[w] > RETRIES:
            raise WorkerError(f"local worker {w} died {attempts[w]} times on the block of round {job.round} "
                              f"(exit code {code}); is the machine out of memory?")  # fmt: skip
        log.warning("worker lost; restarting it and running its block again", worker=w, round=job.round, exit_code=code)
        with contextlib.suppress(OSError):
            self._conns[w].close()
        self._procs[w].join(timeout=5)
        self._start(w)
        self.restarts += 1
        self._send(w, job, attempts)

    def _send(self, w: int, job: BlockJob, attempts: dict[int, int]) -> None:
        try:
            self._conns[w].send((self._shm.name, self._entries, job))
        except (BrokenPipeError, OSError):
            self._procs[w].join(timeout=5)
            self._restart(w, job, attempts)

    def run(self, snapshot: np.ndarray, jobs: Sequence[BlockJob]) -> list[BlockResult]:
        """Run one round's ``jobs`` (job ``i`` on worker ``job.worker``); results in job order.

        Raises:
            WorkerError: if a block fails in its worker, or a worker keeps dying.
        """
        if self._shm is None:
            self._shm, self._entries = SharedMemory(create=True, size=max(4, snapshot.nbytes)), snapshot.size
        np.copyto(np.ndarray(snapshot.shape, np.float32, buffer=self._shm.buf), snapshot)
        attempts: dict[int, int] = {}
        pending = {job.worker: job for job in jobs}
        for w, job in pending.items():
            self._send(w, job, attempts)
        results: dict[int, BlockResult] = {}
        while pending:
            conns = {self._conns[w]: w for w in pending}
            sentinels = {self._procs[w].sentinel: w for w in pending}
            for ready in wait([*conns, *sentinels]):
                w = conns.get(ready, sentinels.get(ready))
                if w not in pending:
                    continue
                reply = None
                if ready in conns or self._conns[w].poll():
                    try:
                        reply = self._conns[w].recv()
                    except (EOFError, OSError):
                        reply = None
                if isinstance(reply, WorkerError):
                    raise WorkerError(f"local worker {w} failed on the block of round {pending[w].round}: {reply}")
                if isinstance(reply, BlockResult):
                    results[w] = reply
                    del pending[w]
                elif not self._procs[w].is_alive() or ready in sentinels:
                    self._procs[w].join(timeout=5)
                    self._restart(w, pending[w], attempts)
        return [results[job.worker] for job in jobs]

    def close(self) -> None:
        """Stop the workers and free the shared memory."""
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.close()  # a worker waiting for a job sees the pipe close and ends
        for proc in self._procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        if self._shm is not None:
            self._shm.close()
            with contextlib.suppress(FileNotFoundError):
                self._shm.unlink()


class RayBlockPool:
    """Every block a Ray task on the cluster ``ray`` is connected to (see the module docstring).

    Args:
        factory: builds a worker's :class:`BlockWorker`; put in the object store once.
        workers: blocks per round (tasks queue if the cluster has fewer CPUs).
        ray: the connected ``ray`` module (:func:`protocol.cluster.connect_ray`).
        retries: how often Ray reruns a task whose worker was lost.
    """

    def __init__(self, factory: Callable[[], BlockWorker], workers: int, ray: ModuleType, *,
                 retries: int = RETRIES) -> None:  # fmt: skip
        if workers < 1:
            raise ValueError(f"--workers must be at least 1, got {workers}")
        self.workers, self.ray, self.retries = workers, ray, retries
        self._key = uuid4().hex
        self._factory = StoredFactory(ray.put(factory))
        self._remote = ray.remote(num_cpus=1, max_retries=retries)(run_block)

    def describe(self) -> str:
        return f"{self.workers} Ray tasks per round on a cluster of {cluster_cpus(self.ray)} CPUs"

    def run(self, snapshot: np.ndarray, jobs: Sequence[BlockJob]) -> list[BlockResult]:
        """Run one round's ``jobs`` as tasks; results in job order.

        Raises:
            WorkerError: if a task fails, or loses its worker more than ``retries`` times.
        """
        shared = self.ray.put(snapshot)
        tasks = [self._remote.remote(self._key, self._factory, shared, job) for job in jobs]
        try:
            return list(self.ray.get(tasks))
        except self.ray.exceptions.RayError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise WorkerError(f"a block of round {jobs[0].round} failed on the Ray cluster ({first})") from None

    def close(self) -> None:
        """Nothing to stop: the tasks end with their rounds, and whoever connected to the
        cluster disconnects."""
