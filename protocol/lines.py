"""Reading lines from a peer's socket with deadlines and bounded memory.

A peer may send garbage, never send a newline, or send a megabyte on one line; none
of that may crash the dealer or a client, or make it hold unbounded data.  Used by
the dealer for its seats and by :mod:`protocol.client` for the dealer.
"""

from __future__ import annotations

import os
import socket
import struct
import time

#: Longer lines are consumed and reported as one bad line, never buffered whole.
MAX_LINE_BYTES = 65536
#: After a spin that found nothing or lost its core, the reader blocks for this many
#: reads before it spins again, doubling after each such spin ...
SPIN_BACKOFF_FIRST = 4
#: ... up to this many reads (a few seconds of a fast match).
SPIN_BACKOFF_MAX = 4096


class PeerClosed(Exception):
    """The peer closed the connection (or it broke)."""


class PeerTimeout(Exception):
    """No complete line arrived before the deadline."""


class LineReader:
    """Buffered line reader over a socket; lines are returned without ``\r\n``.

    Waits use the kernel's receive timeout (``SO_RCVTIMEO``), set only when it
    changes, so a read is one system call rather than Python's poll-then-recv.
    """

    def __init__(self, sock: socket.socket, spin: float = 0.0) -> None:
        """``spin``: seconds to poll for data before blocking (see :meth:`_spin`)."""
        self._sock = sock
        self._spin_seconds = spin
        sock.setblocking(True)
        self._buffer = bytearray()
        self._discarding = False  # inside an overlong line, dropping bytes until its end
        self._kernel_timeout: float | None = None
        self._spin_skips = 0  # reads left that block without spinning
        self._spin_backoff = SPIN_BACKOFF_FIRST

    def _set_timeout(self, seconds: float | None) -> None:
        # Round to milliseconds so a deadline that barely moved needs no new setsockopt.
        wanted = None if seconds is None else max(round(seconds, 3), 0.001)
        if wanted != self._kernel_timeout:
            whole = 0 if wanted is None else int(wanted)
            micros = 0 if wanted is None else int((wanted - whole) * 1e6)
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", whole, micros))
            self._kernel_timeout = wanted

    def _spin(self) -> bytes | None:
        """Poll without sleeping for a moment before blocking, while that pays.

        A fast peer's next line often comes within a few hundred microseconds, and
        waking from a blocking wait costs tens of them on a virtual machine, so the
        dealer and the baseline bots spin.  Each empty poll yields the core: the
        kernel tends to wake a peer on the core of the process that woke it.

        Spinning pays only while the peer answers within the spin and a core is free.
        A spin that found nothing (a slow peer), or that took far longer than it
        should (a yield handed the core to another program for a whole time slice:
        the cores are busy), makes the reader block for the next reads instead, for
        twice as many after each such spin; a spin that finds its line resets that.
        So on a busy machine the reader almost never spins and takes no core a
        seat needs.
        """
        if not self._spin_seconds:
            return None
        if self._spin_skips:
            self._spin_skips -= 1
            return None
        start = time.perf_counter()
        chunk = None
        while chunk is None and time.perf_counter() - start < self._spin_seconds:
            try:
                chunk = self._sock.recv(65536, socket.MSG_DONTWAIT)
            except BlockingIOError:
                os.sched_yield()
            except OSError:
                break
        if chunk is None or time.perf_counter() - start > 2 * self._spin_seconds:
            self._spin_skips = self._spin_backoff
            self._spin_backoff = min(2 * self._spin_backoff, SPIN_BACKOFF_MAX)
        else:
            self._spin_backoff = SPIN_BACKOFF_FIRST
        return chunk

    def readline(self, timeout: float | None) -> str:
        """The next line, decoded leniently (undecodable bytes become U+FFFD).

        An overlong line comes back truncated to :data:`MAX_LINE_BYTES`.

        Raises:
            PeerTimeout: if no whole line arrives within ``timeout`` seconds.
            PeerClosed: if the peer closes first.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        self._set_timeout(timeout)  # usually unchanged: no system call
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                raw = self._buffer[:end]
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
            chunk = self._spin()
            try:
                if chunk is None:
                    chunk = self._sock.recv(65536)
            except (BlockingIOError, TimeoutError, InterruptedError):
                chunk = None  # the kernel timeout fired (or a signal): check the deadline
            except OSError:  # reset, broken pipe: the peer is gone
                raise PeerClosed() from None
            if chunk == b"":
                raise PeerClosed()
            if chunk:
                if not self._buffer and chunk.find(b"\n") == len(chunk) - 1 and not self._discarding:
                    # The usual case, exactly one whole line: no buffering.
                    return chunk[:-1].rstrip(b"\r").decode("utf-8", errors="replace")
                self._buffer += chunk
            if deadline is not None and (chunk is None or b"\n" not in chunk):
                # Waiting again: only for what is left of this line's deadline.
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise PeerTimeout()
                self._set_timeout(remaining)
