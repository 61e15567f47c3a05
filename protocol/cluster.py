"""Joining a Ray cluster (the ``cluster`` extra) as its driver, in one sentence if it fails.

Shared by ``dealer tournament --ray`` and ``precompute blueprint --ray``.  It lives in
``protocol``, the ground layer, for the same reason as the progress bar: every package
may import it.  Ray itself is imported only here and only when asked for, so nothing
else pays for it.
"""

from __future__ import annotations

import socket
from types import ModuleType

#: What to install where Ray is missing (on the driver and on every worker).
INSTALL_HINT = "pip install 'acpc-agent[cluster]'"


class ClusterError(Exception):
    """Ray is missing or the cluster cannot be reached (one sentence)."""


def connect_ray(address: str) -> ModuleType:
    """``ray.init(address)`` as this process's driver; returns the ``ray`` module.

    Raises:
        ClusterError: naming the address and the reason, if Ray is not installed or the
            cluster does not answer.
    """
    try:
        import ray
    except ImportError:
        raise ClusterError(f"--ray needs Ray on this machine and every worker: {INSTALL_HINT}") from None
    host, _, port = address.rpartition(":")
    if host and port.isdigit():
        # ray.init retries an absent cluster for minutes: ask the port first.
        try:
            socket.create_connection((host, int(port)), timeout=10).close()
        except OSError as exc:
            raise ClusterError(f"cannot connect to the Ray cluster at {address} ({exc.strerror or exc})") from None
    try:
        ray.init(address=address, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise ClusterError(f"cannot connect to the Ray cluster at {address} ({str(exc).splitlines()[0]})") from None
    return ray


def cluster_cpus(ray: ModuleType) -> int:
    """The CPUs the connected cluster offers (0 if it does not say)."""
    return int(ray.cluster_resources().get("CPU", 0))
