"""A client connection to an ACPC dealer: the loop every bot and the agent share.

    with Connection.open("127.0.0.1", 18001, game) as conn:
        for match in conn.states():
            if match.is_my_turn:
                conn.act(match, CALL)

``states()`` skips comment lines, logs and skips lines it cannot parse or that no
dealer sends (see :mod:`protocol.wire`: a bad line from the dealer never crashes a
client), and ends cleanly when the dealer closes.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from types import TracebackType

from protocol.errors import WireFormatError
from protocol.gamedef import GameDef
from protocol.lines import LineReader, PeerClosed
from protocol.rules import Action
from protocol.wire import VERSION_LINE, MatchState, MatchStateReader, format_reply


class Connection:
    """One seat's TCP connection to a dealer."""

    def __init__(self, sock: socket.socket, game: GameDef, spin: float = 0.0) -> None:
        self.game = game
        self._sock = sock
        self._reader = LineReader(sock, spin)
        self._last: tuple[MatchState, str] | None = None
        self._parser = MatchStateReader(game)

    @classmethod
    def open(
        cls, host: str, port: int, game: GameDef, timeout: float | None = 30.0, spin: float = 0.0
    ) -> Connection:
        """Connect to ``host:port`` and send the protocol version line.

        ``timeout`` bounds the connection attempt only; reads then block, because a
        dealer may legitimately wait minutes for another seat.  ``spin``: seconds to
        poll for the next line before blocking (see :class:`~protocol.lines.LineReader`);
        worth it only for a client that answers in microseconds.
        """
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = cls(sock, game, spin)
        conn.send_line(VERSION_LINE)
        return conn

    @property
    def last_line(self) -> str:
        """The text of the last match state received, exactly as the dealer sent it."""
        return self._last[1] if self._last is not None else ""

    def send_line(self, line: str) -> None:
        self._sock.sendall(line.encode("ascii") + b"\r\n")

    def states(self) -> Iterator[MatchState]:
        """Every match state the dealer sends, in order, until it closes the socket.

        A connection the dealer resets (e.g. it was killed) ends the iteration too.
        """
        while True:
            try:
                line = self._reader.readline(None)
            except PeerClosed:
                return
            if not line or line[0] in "#;":
                continue
            try:
                match = self._parser.parse(line)
            except WireFormatError as exc:
                import structlog  # only here: it costs a bot a tenth of a second to import

                structlog.get_logger("protocol.client").warning("bad line from dealer skipped", line=line[:200], problem=str(exc))
                continue
            self._last = (match, line)
            yield match

    def act(self, match: MatchState, action: Action) -> None:
        """Reply to ``match`` with ``action``, echoing the state text exactly as received."""
        if self._last is not None and self._last[0] is match:
            line = self._last[1]
        else:
            line = str(match)
        self.send_line(format_reply(line, action))

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
