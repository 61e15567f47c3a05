"""LineReader: line splitting, bounds, deadlines, and spinning before blocking."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from protocol import lines
from protocol.lines import MAX_LINE_BYTES, LineReader, PeerClosed, PeerTimeout


@pytest.fixture
def spin() -> float:
    """The reader's spin before blocking; tests parametrized over ``spin`` override it."""
    return 0.0


@pytest.fixture
def link(spin: float) -> Iterator[tuple[LineReader, socket.socket]]:
    """A reader on one end of a socket pair, and the peer's end."""
    ours, peer = socket.socketpair()
    yield LineReader(ours, spin=spin), peer
    ours.close()
    peer.close()


def _send_overlong(reader: LineReader, peer: socket.socket) -> None:
    """The peer sends more than a line may hold; the reader returns the first MAX_LINE_BYTES."""
    peer.sendall(b"x" * (MAX_LINE_BYTES + 10))
    assert reader.readline(5) == "x" * MAX_LINE_BYTES


def _line_after_a_timeout(reader: LineReader, peer: socket.socket, first: bytes, then: bytes, timeout: float) -> str:
    """The peer sends ``first``, which completes no line within ``timeout``; then ``then``:
    the line the reader returns next."""
    peer.sendall(first)
    with pytest.raises(PeerTimeout):
        reader.readline(timeout)
    peer.sendall(then)
    return reader.readline(5)


@pytest.mark.parametrize("spin", [0.0, 0.0002])
def test_lines_across_chunks_and_endings(link, spin):
    reader, peer = link
    peer.sendall(b"MATCHSTATE:0:0::Ah")
    peer.sendall(b"Kd|\r\nsecond\nthird\r\n")
    assert [reader.readline(5) for _ in range(3)] == ["MATCHSTATE:0:0::AhKd|", "second", "third"]


def test_an_overlong_line_comes_back_truncated_once(link):
    reader, peer = link
    _send_overlong(reader, peer)
    peer.sendall(b"rest of it\r\nnext\r\n")
    assert reader.readline(5) == "next"


def test_the_rest_of_an_overlong_line_arriving_alone_is_dropped(link):
    reader, peer = link
    _send_overlong(reader, peer)
    assert _line_after_a_timeout(reader, peer, b"rest of it\r\n", b"next\r\n", 0.05) == "next"  # the rest is dropped


@pytest.mark.parametrize("spin", [0.0, 0.0002])
def test_timeout_keeps_a_partial_line(link, spin):
    reader, peer = link
    assert _line_after_a_timeout(reader, peer, b"half", b" a line\r\n", 0.01) == "half a line"


@pytest.mark.parametrize("spin", [0.0, 0.0002])
def test_peer_closing_is_reported(link, spin):
    reader, peer = link
    peer.sendall(b"last\r\n")
    peer.close()
    assert reader.readline(5) == "last"
    with pytest.raises(PeerClosed):
        reader.readline(5)


@pytest.mark.parametrize("spin", [0.0002])
def test_a_spin_that_finds_nothing_backs_off_and_a_hit_resets_it(link, monkeypatch):
    reader, peer = link
    peer.sendall(b"one\r\n")
    assert reader.readline(5) == "one"  # found while spinning: no back-off
    assert reader._spin_skips == 0 and reader._spin_backoff == lines.SPIN_BACKOFF_FIRST
    polls = []
    monkeypatch.setattr(lines.os, "sched_yield", lambda: polls.append(1))
    backoffs = []
    for _ in range(3):  # nothing to read: each spin misses, and the next ones block
        assert reader._spin() is None
        backoffs.append(reader._spin_skips)
        polls.clear()
        for _ in range(reader._spin_skips):
            assert reader._spin() is None
        assert polls == []  # skipped reads do not poll at all
    assert backoffs == [4, 8, 16]
    peer.sendall(b"two\r\n")
    time.sleep(0.01)
    assert reader._spin() == b"two\r\n"  # a hit: spinning pays again
    assert reader._spin_backoff == lines.SPIN_BACKOFF_FIRST


@pytest.mark.parametrize("spin", [0.0002])
def test_a_spin_that_loses_its_core_backs_off(link, monkeypatch):
    reader, peer = link
    # A yield that hands the core away for a time slice (5 ms), as beside a CPU hog.
    monkeypatch.setattr(lines.os, "sched_yield", lambda: time.sleep(0.005))
    assert reader._spin() is None
    assert reader._spin_skips == lines.SPIN_BACKOFF_FIRST
    peer.sendall(b"late\r\n")
    assert reader.readline(5) == "late"  # reads go on, blocking
