"""Test helpers: start our dealer as a process and drive its seats by script."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocol.gamedef import GameDef

STAMP = re.compile(r" at \d+\.\d{6}")


def strip_stamps(line: str) -> str:
    """A transcript line without its time stamp (``TO 1 at 123.456789 ...``)."""
    return STAMP.sub(" at T", line)


@dataclass
class DealerProcess:
    proc: subprocess.Popen
    ports: list[int]
    out_dir: Path

    def finish(self, timeout: float = 30) -> tuple[int, str, str]:
        """Wait for the dealer; returns (exit code, rest of stdout, stderr)."""
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err


def start_dealer(out_dir: Path, match: str, game: str, hands: int, seed: int, names: list[str], *extra: str) -> DealerProcess:
    cmd = [sys.executable, "-m", "dealer.cli", "serve", match, game, str(hands), str(seed), *names,
           "--out-dir", str(out_dir), *extra]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    ports = [int(p) for p in proc.stdout.readline().split()]
    return DealerProcess(proc, ports, out_dir)


class ScriptedSeat:
    """A raw socket to one seat's port with line helpers."""

    def __init__(self, port: int, version: str = "VERSION:2.0.0") -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.reader = self.sock.makefile("rb")
        if version:
            self.send(version)

    def send(self, line: str | bytes) -> None:
        data = line if isinstance(line, bytes) else line.encode()
        self.sock.sendall(data + b"\r\n")

    def recv(self) -> str:
        raw = self.reader.readline()
        if not raw:
            raise EOFError("dealer closed the connection")
        assert raw.endswith(b"\r\n"), raw
        return raw[:-2].decode()

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


TRANSCRIPT = re.compile(r"(TO|FROM) (\d+) at \d+\.\d+ (.*)$")


def replay_transcript(seats: list[ScriptedSeat], lines: list[str]) -> list[str]:
    """Drive seats through a reference transcript: send each FROM line, read each TO line.

    Returns the TO lines our dealer actually sent, in transcript order.
    """
    received = []
    for raw in lines:
        found = TRANSCRIPT.match(raw)
        if not found:
            continue
        direction, seat, body = found.group(1), int(found.group(2)) - 1, found.group(3)
        if direction == "FROM":
            seats[seat].send(body)
        else:
            received.append(seats[seat].recv())
    return received


def check_down(a: ScriptedSeat, b: ScriptedSeat, game: GameDef) -> None:
    """Both scripted seats check/call until the hand they are in ends."""
    from protocol.wire import parse_matchstate

    while True:
        lines = [a.recv(), b.recv()]
        states = [parse_matchstate(line, game) for line in lines]
        if states[0].state.finished:
            return
        for seat, line, match in zip((a, b), lines, states):
            if match.is_my_turn:
                seat.send(line + ":c")


def call_station(port: int, game_name: str, hands_before_quit: int | None = None) -> threading.Thread:
    """A thread that checks/calls every decision on ``port``; optionally hangs up after some hands."""
    from protocol.client import Connection
    from protocol.gamedef import load_game
    from protocol.rules import CALL

    game = load_game(game_name)

    def run() -> None:
        with Connection.open("127.0.0.1", port, game) as conn:
            for match in conn.states():
                if hands_before_quit is not None and match.hand_number >= hands_before_quit:
                    return
                if match.is_my_turn:
                    conn.act(match, CALL)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread
