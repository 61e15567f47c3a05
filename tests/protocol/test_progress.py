"""The project's progress bar: a redrawn line on a terminal, plain sparse lines in files and pipes."""

from __future__ import annotations

import io

from protocol.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_into_a_file_plain_lines_every_tenth_without_bar_or_control_codes():
    out = io.StringIO()
    with Progress("build", 1000, stream=out, unit="items") as bar:
        for _ in range(1000):
            bar.advance()
    lines = out.getvalue().splitlines()
    assert 2 <= len(lines) <= 11
    assert all(line.startswith("build: ") for line in lines)
    assert "\r" not in out.getvalue() and "\033" not in out.getvalue() and "[#" not in out.getvalue()
    assert "1,000/1,000" in lines[-1] and "items/s" in lines[-1]


def test_on_a_terminal_one_redrawn_line_with_the_bar():
    out = _Terminal()
    bar = Progress("match", 10, done=4, stream=out, unit="hands")
    bar.update(10)
    bar.close()
    bar.close()  # a second close draws nothing more
    text = out.getvalue()
    assert text.startswith("\r\033[K") and text.endswith("\n") and text.count("\n") == 1
    assert "match [" + "#" * 30 + "]" in text and "10/10" in text


def test_disabled_writes_nothing_and_counts_past_the_total_are_clamped():
    out = io.StringIO()
    with Progress("quiet", 5, stream=out, enabled=False) as bar:
        bar.advance(9)
    assert out.getvalue() == "" and bar.done == 5


def test_a_rate_under_one_per_second_is_shown_not_rounded_to_zero(monkeypatch):
    now = [0.0]
    monkeypatch.setattr("protocol.progress.time.monotonic", lambda: now[0])
    bar = Progress("blueprint", 10, stream=io.StringIO(), unit="checkpoints")
    now[0] = 8.0
    bar.update(2)
    assert " 0.25 checkpoints/s" in bar.line()


def test_a_report_shows_its_status_at_once_in_a_file_and_on_a_terminal():
    out = io.StringIO()
    with Progress("solving", 1000, stream=out) as bar:
        bar.update(13)
        bar.report("exploitability 1.5%")
        bar.update(14)
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("solving: ") and "13/1,000" in lines[1] and lines[1].endswith("exploitability 1.5%")
    assert len(lines) == 2  # the first line and the report; the close adds none within the same tenth
    term = _Terminal()
    bar = Progress("solving", 1000, stream=term)
    bar.report("exploitability 2%")
    assert term.getvalue().endswith("exploitability 2%")
