"""A small progress bar on stderr (one line redrawn on a terminal, sparse lines otherwise)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``with Progress("flop features", total) as bar: bar.advance(n)``.

    On a terminal the line is redrawn at most five times a second; into a file or pipe
    a line is written every tenth of the way, so logs stay short.
    """

    def __init__(
        self, label: str, total: int, *, done: int = 0, stream: TextIO | None = None, enabled: bool = True,
        unit: str = "",
    ) -> None:
        self.label = label
        self.unit = unit  # if set, the line shows the rate, e.g. "1,234 it/s"
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

    def __enter__(self) -> Progress:
        self._draw(force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self._draw(force=self.tty)
        if self.tty and self.enabled:
            self.stream.write("\n")
            self.stream.flush()

    def advance(self, n: int = 1) -> None:
        self.done = min(self.done + n, self.total)
        self._draw()

    def line(self) -> str:
        fraction = self.done / self.total
        width = 30
        filled = int(fraction * width)
        elapsed = time.monotonic() - self.start
        rate = (self.done - self.start_done) / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        speed = f" {rate:,.0f} {self.unit}/s" if self.unit else ""
        status = f" {self.status}" if self.status else ""
        return (
            f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {fraction:6.1%} "
            f"{self.done}/{self.total}{speed} elapsed {_clock(elapsed)} eta {_clock(eta)}{status}"
        )

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


def _clock(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):  # NaN: rate not known yet
        return "--:--"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
