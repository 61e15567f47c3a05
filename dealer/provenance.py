"""Which code played a run: the git commit of the checkout, if it is one.

``dealer run`` writes it into ``run.json`` (``code``), so a folder of logs says what
played it, and a run resumed by other code says so.  A copy without git history (a
packaged entry, an unpacked archive) has no commit: ``code`` is then null.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

#: The project's root: the folder above this package.
ROOT = Path(__file__).resolve().parents[1]


def code_version(root: Path = ROOT) -> dict[str, object] | None:
    """``{"commit": SHA, "modified": bool}`` for the checkout at ``root`` (``modified``:
    tracked files differ from the commit), or None where git or its history is missing."""
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10, check=True).stdout.strip()  # fmt: skip
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=10, check=True).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if len(commit) != 40:
        return None
    return {"commit": commit, "modified": bool(status.strip())}


def describe(code: object) -> str:
    """A code record in a few words (``ab12cd3``, ``ab12cd3 + changes``, ``unknown code``)."""
    if not isinstance(code, dict) or not isinstance(code.get("commit"), str):
        return "unknown code"
    return str(code["commit"])[:7] + (" + changes" if code.get("modified") else "")
