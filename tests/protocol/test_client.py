"""The client helper against a scripted dealer over a real loopback socket."""

from __future__ import annotations

import socket
import threading

from protocol.client import Connection
from protocol.gamedef import load_game
from protocol.rules import CALL, raise_to

NL = load_game("holdem.nolimit.2p")


def scripted_dealer(lines_to_send: list[str], received: list[str]) -> tuple[int, threading.Thread]:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def run() -> None:
        conn, _ = server.accept()
        reader = conn.makefile("rb")
        received.append(reader.readline().decode())
        for line in lines_to_send:
            conn.sendall(line.encode())
            if line.startswith("MATCHSTATE:1:0::") or line.startswith("MATCHSTATE:1:0:cr300"):
                received.append(reader.readline().decode())
        conn.close()
        server.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return port, thread


def test_client_skips_comments_and_garbage_and_echoes_states():
    script = [
        "# welcome\r\n",
        ";another comment\r\n",
        "MATCHSTATE:1:0::|2hAc\r\n",
        "complete garbage \x00\xff\r\n",
        "MATCHSTATE:1:0:r300:|2hAc\r\n",
        "MATCHSTATE:1:0:cr300:|2hAc\n",  # a bare \n is fine too
    ]
    received: list[str] = []
    port, thread = scripted_dealer(script, received)
    seen = []
    with Connection.open("127.0.0.1", port, NL) as conn:
        for match in conn.states():
            seen.append(str(match))
            if match.is_my_turn:
                conn.act(match, raise_to(600) if match.state.actions[0] else CALL)
    thread.join(5)
    assert seen == ["MATCHSTATE:1:0::|2hAc", "MATCHSTATE:1:0:r300:|2hAc", "MATCHSTATE:1:0:cr300:|2hAc"]
    assert received == [
        "VERSION:2.0.0\r\n",
        "MATCHSTATE:1:0::|2hAc:c\r\n",
        "MATCHSTATE:1:0:cr300:|2hAc:r600\r\n",
    ]
