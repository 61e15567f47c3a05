"""Reading lines from a peer's socket with deadlines and bounded memory.

A peer may send garbage, never send a newline, or send a megabyte on one line; none
of that may crash the dealer or make it hold unbounded data.
"""

from __future__ import annotations

import socket
import time

#: Longer lines are consumed and reported as one bad line, never buffered whole.
MAX_LINE_BYTES = 65536


class PeerClosed(Exception):
    """The peer closed the connection (or it broke)."""


class PeerTimeout(Exception):
    """No complete line arrived before the deadline."""


class LineReader:
    """Buffered line reader over a socket; lines are returned without ``\\r\\n``."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buffer = bytearray()
        self._discarding = False  # inside an overlong line, dropping bytes until its end

    def readline(self, timeout: float | None) -> str:
        """The next line, decoded leniently (undecodable bytes become U+FFFD).

        An overlong line comes back truncated to :data:`MAX_LINE_BYTES`.

        Raises:
            PeerTimeout: if no whole line arrives within ``timeout`` seconds.
            PeerClosed: if the peer closes first.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                raw = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                if self._discarding:
                    self._discarding = False
                    continue
                return raw.rstrip(b"\r").decode("utf-8", errors="replace")
            if len(self._buffer) > MAX_LINE_BYTES:
                if self._discarding:
                    self._buffer.clear()
                else:
                    raw = bytes(self._buffer[:MAX_LINE_BYTES])
                    self._buffer.clear()
                    self._discarding = True
                    return raw.decode("utf-8", errors="replace")
            if deadline is None:
                self._sock.settimeout(None)
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise PeerTimeout()
                self._sock.settimeout(remaining)
            try:
                chunk = self._sock.recv(65536)
            except socket.timeout:
                raise PeerTimeout() from None
            except OSError:
                raise PeerClosed() from None
            if not chunk:
                raise PeerClosed()
            self._buffer += chunk
