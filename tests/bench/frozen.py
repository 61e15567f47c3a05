"""Checkouts of other commits for the benches that measure today's code against an older
one in the same run (``strength_ladder.py``'s frozen agent, ``bench_subgame.py --baseline``).

A checkout is a detached git worktree of this repository, made once and kept in
``$ACPC_CACHE_DIR/frozen-COMMIT`` (default ``~/.cache/acpc-agent``).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class CheckoutError(Exception):
    """A git command or a checkout failed; the message says which and why."""


def cache_dir() -> Path:
    """Where checkouts (and other cached builds) live."""
    return Path(os.environ.get("ACPC_CACHE_DIR") or Path.home() / ".cache" / "acpc-agent")


def git(*args: str, cwd: Path = ROOT) -> str:
    """``git ARGS`` in ``cwd`` (default this repository); its stripped stdout.  Raises CheckoutError."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise CheckoutError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def frozen_worktree(commit: str) -> Path:
    """A checkout of ``commit`` (a git worktree of this repository, made once and kept in
    ``$ACPC_CACHE_DIR/frozen-COMMIT``); its path.  Raises CheckoutError."""
    full = git("rev-parse", "--verify", f"{commit}^{{commit}}")
    folder = cache_dir() / f"frozen-{commit}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"frozen-{commit}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two benches at once make it once
        if folder.exists():
            try:
                if git("rev-parse", "HEAD", cwd=folder) == full:
                    return folder
            except CheckoutError:
                pass
            raise CheckoutError(f"{folder} is not a checkout of {commit}; remove it (and run git worktree prune)")
        git("worktree", "prune")  # forget a worktree whose folder was deleted
        git("worktree", "add", "--detach", str(folder), full)
    return folder
