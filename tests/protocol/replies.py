"""Replies as the tests read them: a client's ``<matchstate>:<action>`` line split in two."""

from __future__ import annotations

from protocol.gamedef import GameDef
from protocol.wire import MatchState, WireFormatError, read_matchstate


def split_reply(line: str, game: GameDef) -> tuple[MatchState, str]:
    """Split a client's reply ``<matchstate>:<action>`` into the state and raw action text.

    Raises:
        WireFormatError: if the line does not start with a match state followed by ':'.
    """
    match, used = read_matchstate(line, game)
    if not line.startswith(":", used):
        raise WireFormatError("the match state is not followed by ':' and an action")
    return match, line[used + 1 :]
