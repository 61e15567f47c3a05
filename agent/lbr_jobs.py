"""``agent lbr --jobs N``: a run's hands played by N processes at once.

LBR and the agent it plays are one Python process that keeps one core busy, and a run
against the searching agent takes hours; on a machine with N cores, N processes finish
it N times sooner.  Each worker builds its own agent (``make_policy``: the blueprint is
loaded once per worker) and takes hand numbers from a shared queue, so a slow hand
holds up nothing; the parent writes each finished hand to the run's folder as it
arrives (out of order), so an interruption keeps every finished hand and the same
command resumes with the missing ones.

What depends on the split: only LBR's equity samples on the preflop and flop (each
worker draws from its own stream, seeded by the run's seed and the worker's number).
The deals, and the agent's play given them, are the hand number's, as in one process.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import signal
from collections.abc import Callable
from dataclasses import asdict

from agent.lbr_policy import AgentRangePolicy
from agent.lbr_run import (
    HandPlayer,
    HandRecord,
    RunConfig,
    RunError,
    RunLog,
    hands_to_play,
    merge_sessions,
    result_of,
    session_of,
)
from protocol.gamedef import GameDef, load_game

#: Seconds between checks that every worker is still alive while waiting for a hand.
POLL = 2.0


def _worker(make_policy: Callable[[], AgentRangePolicy], config: RunConfig, index: int, tasks, results) -> None:
    """Play the hand numbers taken from ``tasks`` until a None; report each on ``results``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers
    try:
        policy = make_policy()
        player = HandPlayer(config, load_game(config.game), policy, equity_seed=[config.seed, index + 1])
        while (number := tasks.get()) is not None:
            results.put(("hand", asdict(player.play(number))))
        results.put(("done", session_of(policy)))
    except Exception as exc:  # reported by the parent as one sentence; the finished hands are kept
        results.put(("error", f"worker {index + 1}: {type(exc).__name__}: {exc}"))


def play_parallel(
    config: RunConfig, game: GameDef, make_policy: Callable[[], AgentRangePolicy], records: list[HandRecord],
    total: int, log: RunLog | None, progress, jobs: int,
) -> dict:  # fmt: skip
    """Play until ``records`` holds ``total`` hands on ``jobs`` worker processes, appending
    and logging each hand as it arrives; returns the workers' sessions merged.

    ``make_policy`` must pickle (a module-level function or a partial of one): each
    worker calls it once.  Raises RunError if a worker fails or dies (the hands finished
    by then are in ``records`` and the log).
    """
    todo = hands_to_play(records, total)
    if not todo:
        return merge_sessions([])
    ctx = mp.get_context("spawn")  # a fresh interpreter: numba's threads and the parent's state are not forked
    tasks, results = ctx.Queue(), ctx.Queue()
    for number in todo:
        tasks.put(number)
    jobs = min(jobs, len(todo))
    for _ in range(jobs):
        tasks.put(None)
    workers = [ctx.Process(target=_worker, args=(make_policy, config, j, tasks, results), daemon=True) for j in range(jobs)]
    for w in workers:
        w.start()
    sessions: list[dict] = []
    try:
        while len(sessions) < jobs:
            try:
                kind, payload = results.get(timeout=POLL)
            except queue.Empty:
                dead = [j + 1 for j, w in enumerate(workers) if w.exitcode not in (None, 0)]
                if dead:
                    raise RunError(f"worker {dead[0]} stopped (exit code {workers[dead[0] - 1].exitcode}) before "
                                   "its hands were done; the finished hands are kept: run again to resume") from None  # fmt: skip
                continue
            if kind == "error":
                raise RunError(f"{payload}; the finished hands are kept: run again to resume")
            if kind == "done":
                sessions.append(payload)
                continue
            records.append(HandRecord(**payload))
            if log is not None:
                log.add(records[-1])
                log.write_result(result_of(config, records, game.big_blind, merge_sessions(sessions)))
            progress(records)
    finally:
        for w in workers:
            if w.is_alive():
                w.terminate()
            w.join()
    return merge_sessions(sessions)
