"""The project's one progress bar, on stderr: a line redrawn on a terminal, sparse plain lines otherwise.

Used by ``precompute abstraction``/``blueprint``, ``dealer run``, ``dealer tournament``,
``dealer report`` and ``solver spot``.  It lives in ``protocol``, the ground layer, so that every package
may import it without an arrow pointing upwards.  Written here (standard library only,
~10 ms to import) rather than taken from tqdm or rich: each of those costs 60-100 ms of
CPU to import, and neither writes the sparse plain lines wanted in logs and pipes (see
docs/development.md, "Progress bars").
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``with Progress("flop features", total) as bar: bar.advance(n)`` (or ``bar.update(done)``).

    On a terminal the line is redrawn at most five times a second.  Into a file or pipe
    no bar and no control code is written: a plain line every tenth of the way, so logs
    stay short and readable.
    """

    def __init__(
        self, label: str, total: int, *, done: int = 0, stream: TextIO | None = None, enabled: bool = True,
        unit: str = "",
    ) -> None:  # fmt: skip
        self.label = label
        self.unit = unit  # if set, the line shows the rate, e.g. "1,234 hands/s"
        self.status = ""  # free text appended to the line (e.g. a convergence figure)
        self.total = max(int(total), 1)
        self.done = done
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty()
        self.start = time.monotonic()
        self.start_done = done
        self._last_draw = 0.0
        self._last_tenth = -1
        self._closed = False

    def __enter__(self) -> Progress:
        self._draw(force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n)

    def update(self, done: int) -> None:
        """Set the count done so far (clamped to the total) and redraw if it is time."""
        self.done = min(done, self.total)
        self._draw()

    def report(self, status: str) -> None:
        """Set the status and show it now (a news worth a line of its own in a log, such
        as a convergence check): redrawn on a terminal, one plain line into a file."""
        self.status = status
        self._draw(force=True)

    def close(self) -> None:
        """Draw the final line (once; later calls do nothing)."""
        if self._closed:
            return
        self._closed = True
        self._draw(force=self.tty)  # into a file, only if the count moved on since the last line
        if self.tty and self.enabled:
            self.stream.write("\n")
            self.stream.flush()

    def line(self) -> str:
        """The text of the line (on a terminal with the bar, else plain)."""
        fraction = self.done / self.total
        elapsed = time.monotonic() - self.start
        rate = (self.done - self.start_done) / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        speed = f" {_rate(rate)} {self.unit}/s" if self.unit else ""
        status = f" {self.status}" if self.status else ""
        counts = f"{fraction:6.1%} {self.done:,}/{self.total:,}{speed} elapsed {_clock(elapsed)} eta {_clock(eta)}{status}"
        if not self.tty:
            return f"{self.label}: {counts.lstrip()}"
        width = 30
        filled = int(fraction * width)
        return f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {counts}"

    def _draw(self, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if force or now - self._last_draw >= 0.2:
                self.stream.write("\r\033[K" + self.line())
                self.stream.flush()
                self._last_draw = now
        else:
            tenth = int(10 * self.done / self.total)
            if force or tenth != self._last_tenth:
                self.stream.write(self.line() + "\n")
                self.stream.flush()
                self._last_tenth = tenth


def _rate(rate: float) -> str:
    """A rate with three significant digits below 100 (0.25, not 0), whole numbers above."""
    return f"{rate:,.0f}" if rate >= 100 or rate == 0 else f"{rate:.3g}"


def _clock(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):  # NaN: rate not known yet
        return "--:--"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
