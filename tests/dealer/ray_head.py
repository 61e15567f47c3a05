"""A throwaway one-node Ray cluster on 127.0.0.1, for the Ray backend's test and benchmark."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

#: Ray replaces a loopback node address by the machine's outward one unless told this
#: (a switch meant for single-machine use on macOS/Windows); with it, every Ray server
#: binds 127.0.0.1.  Both the head and the tournament (the driver) need it.
LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def local_ray_head(cpus: int) -> Iterator[str]:
    """Start ``ray start --head`` with ``cpus`` CPUs on loopback; yields its address.

    The head runs in its own process group, which is stopped (SIGTERM, then SIGKILL)
    on exit, so nothing of it outlives the caller.

    Raises:
        RuntimeError: if the head does not start.
    """
    ray = shutil.which("ray", path=str(Path(sys.executable).parent)) or shutil.which("ray")
    if ray is None:
        raise RuntimeError("the 'ray' command is not installed (pip install -e '.[cluster]')")
    port = free_port()
    temp = tempfile.mkdtemp(prefix="ray-")  # short: Ray's socket paths must fit in 107 bytes
    output = Path(temp) / "head.out"
    with open(output, "w") as out:
        head = subprocess.Popen(
            [ray, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", f"--num-cpus={cpus}",
             "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}", "--block"],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env={**os.environ, **LOOPBACK_ENV},
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        # Ray prints this once the head is up.
        while "will now block" not in output.read_text():
            if head.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Ray head did not start: {output.read_text()[-500:]}")
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(head.pid, sig)
            except ProcessLookupError:
                break
            time.sleep(3)
        head.wait(10)
        shutil.rmtree(temp, ignore_errors=True)
