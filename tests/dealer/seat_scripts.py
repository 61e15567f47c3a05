"""Misbehaving seats for ``dealer run`` tests, run as ``python seat_scripts.py MODE HOST PORT``.

``quit-after N``: call everything, then exit with code 3 at the start of hand N.
``hang``: connect, send the version, then never answer.
"""

from __future__ import annotations

import sys
import time

from protocol.client import Connection
from protocol.gamedef import load_game
from protocol.rules import CALL


def main() -> None:
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "quit-after":
        limit, host, port = int(rest[0]), rest[1], int(rest[2])
        with Connection.open(host, port, load_game("holdem.nolimit.2p")) as conn:
            for match in conn.states():
                if match.hand_number >= limit:
                    print(f"quitting at hand {match.hand_number}", flush=True)
                    sys.exit(3)
                if match.is_my_turn:
                    conn.act(match, CALL)
    elif mode == "hang":
        host, port = rest[0], int(rest[1])
        with Connection.open(host, port, load_game("holdem.nolimit.2p")):
            time.sleep(600)


if __name__ == "__main__":
    main()
