"""A dealer stand-in over a socket pair: send the agent scripted lines, collect its replies."""

from __future__ import annotations

import socket

from protocol.client import Connection
from protocol.gamedef import GameDef


def scripted_connection(game: GameDef, lines: list[str], close: bool = True) -> tuple[Connection, socket.socket]:
    """A :class:`Connection` that reads ``lines`` (then end of stream if ``close``);
    returns it and the dealer's end, where the replies arrive."""
    dealer, seat = socket.socketpair()
    dealer.sendall("".join(line + "\r\n" for line in lines).encode())
    if close:
        dealer.shutdown(socket.SHUT_WR)
    return Connection(seat, game), dealer


def replies(dealer: socket.socket) -> list[str]:
    """Every reply line the agent sent (reads until the agent's end is closed)."""
    data = b""
    while chunk := dealer.recv(65536):
        data += chunk
    return [line for line in data.decode().split("\r\n") if line]
