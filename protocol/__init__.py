"""The ACPC rules and wire format, exactly as the reference dealer plays them.

The single source of truth for the game: ``.game`` files (:mod:`protocol.gamedef`),
cards and showdown ranking (:mod:`protocol.cards`, :mod:`protocol.handrank`), the
rules of a hand (:mod:`protocol.rules`), the wire and log formats
(:mod:`protocol.wire`) and a client connection (:mod:`protocol.client`).
"""

from protocol.errors import GameDefError, IllegalActionError, ProtocolError, WireFormatError
from protocol.gamedef import GameDef, bundled_game_names, format_gamedef, load_game, parse_gamedef
from protocol.rules import CALL, FOLD, LIMIT_RAISE, Action, ActionType, State, initial_state, raise_to
from protocol.wire import MatchState, format_matchstate, parse_action, parse_matchstate

__all__ = [
    "CALL",
    "FOLD",
    "LIMIT_RAISE",
    "Action",
    "ActionType",
    "GameDef",
    "GameDefError",
    "IllegalActionError",
    "MatchState",
    "ProtocolError",
    "State",
    "WireFormatError",
    "bundled_game_names",
    "format_gamedef",
    "format_matchstate",
    "initial_state",
    "load_game",
    "parse_action",
    "parse_gamedef",
    "parse_matchstate",
    "raise_to",
]
