"""Hostile MATCHSTATE streams for the agent, and the check of what it answered (tests only).

A stream is what one seat is sent over two random hands (every state of each from one
position), with some lines mutated: characters replaced, inserted or deleted, lines
cut, cases changed, cards duplicated or moved to another seat's slot, digits of other
scripts and control bytes, plus wholly random lines.  The mutations are plain
functions of drawn numbers, so hypothesis (``tests/agent/test_line_fuzz.py``) and the
long run (``tests/bench/fuzz_agent_lines.py``) share them.

:func:`run_stream` plays a stream through the agent's real loop (:func:`agent.loop.play`
over a socket pair, the placeholder strategist deciding) and :func:`check_replies`
asserts what a dealer needs: every line a seat can be sent on its turn answered once,
in order, with its exact text and a legal action, and nothing else answered.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from agent.loop import MatchSummary, play
from agent.player import Agent
from agent.timing import TimeLimits, TimeManager
from protocol.errors import WireFormatError
from protocol.gamedef import GameDef, load_game
from protocol.wire import MatchStateReader, format_view, parse_action, parse_matchstate
from tests.agent.fakes import replies, scripted_connection
from tests.agent.placeholder import StrengthStrategist
from tests.protocol.test_properties import random_hand

#: Games the fuzz plays: heads-up no-limit (the agent's), a 3-player limit game, Leduc.
GAME_NAMES = ("holdem.nolimit.2p", "holdem.limit.3p", "leduc.nolimit.2p", "kuhn.limit.3p")
GAMES = {name: load_game(name) for name in GAME_NAMES}
_STRATEGISTS: dict[str, StrengthStrategist] = {}

#: Text a mutation puts in: protocol characters, cards in every case, huge and signed
#: numbers, other scripts' digits and spaces, control bytes, a second header.
PIECES = (
    "0", "1", "9", "r", "c", "f", "k", "b", "R", "/", ":", "|", "-", "+", " ", "\t", "#",
    "A", "s", "K", "d", "T", "h", "2", "x", "a", "S", "As", "as", "AS", "Kd", "2c", "Xx",
    "99999999999999999999", "r300", "r-5", "cc/", "MATCHSTATE:", "MATCHSTATE:0:0::",
    "\u0663", "\u0663\u0660\u0660", "\uff11", "\u2003", "\u00a0", "\x00", "\x1b]0;t\x07", "\x7f", "\u00e9", "\ufffd",
)  # fmt: skip
MUTATIONS = (
    "replace", "insert", "delete", "truncate", "lower", "upper", "duplicate card", "move cards", "position",
    "hand number", "random line",
)  # fmt: skip

_CARD = re.compile(r"[2-9TJQKA][cdhs]")


def game_named(name: str) -> GameDef:
    return GAMES[name]


def mutate(line: str, kind: str, at: int, piece: str) -> str:
    """``line`` changed by mutation ``kind`` at (``at`` modulo the length), with ``piece``."""
    i = at % (len(line) + 1)
    if kind == "replace":
        return line[:i] + piece + line[i + 1 :]
    if kind == "insert":
        return line[:i] + piece + line[i:]
    if kind == "delete":
        return line[:i] + line[i + 1 :]
    if kind == "truncate":
        return line[:i]
    if kind == "lower":
        return line[:i] + line[i:].lower()
    if kind == "upper":
        return line[:i] + line[i:].upper()
    head, _, cards = line.rpartition(":")
    if kind == "duplicate card":
        found = list(_CARD.finditer(cards))
        if len(found) < 2:
            return line
        source, target = found[at % len(found)], found[(at // len(found)) % len(found)]
        return f"{head}:{cards[: target.start()]}{source.group()}{cards[target.end() :]}"
    if kind == "move cards":
        # The seat's hole cards into another slot, or another slot's into the seat's.
        holes, slash, board = cards.partition("/")
        slots = holes.split("|")
        j, k = at % len(slots), (at // len(slots)) % len(slots)
        slots[j], slots[k] = slots[k], slots[j] or piece
        return f"{head}:{'|'.join(slots)}{slash}{board}"
    if kind in ("position", "hand number"):
        fields = line.split(":", 3)
        if len(fields) < 4:
            return line
        fields[1 if kind == "position" else 2] = piece if at % 2 else str(at % 5)
        return ":".join(fields)
    if kind == "random line":
        return f"MATCHSTATE:{at % 4}:{at % 7}:{piece * (1 + at % 5)}:{piece}"
    raise ValueError(f"unknown mutation {kind!r}")


@dataclass(frozen=True)
class Edit:
    """One mutation of the stream's line ``index`` (modulo its length)."""

    index: int
    kind: str
    at: int
    piece: str


def seat_stream(game: GameDef, seed: int, position: int, hands: int = 2) -> list[str]:
    """Every line ``position`` is sent over ``hands`` random hands (the reference sends each state once)."""
    rng = random.Random(seed)
    return [format_view(state, position) for _ in range(hands) for state in random_hand(game, rng)]


def hostile_stream(game: GameDef, seed: int, position: int, edits: list[Edit]) -> list[str]:
    """:func:`seat_stream` with ``edits``: each replaces its line, or with an odd ``at``
    goes in before it (the dealer's good line still follows)."""
    lines = seat_stream(game, seed, position)
    out = list(lines)
    for edit in edits:
        j = edit.index % len(out)
        bad = mutate(out[j], edit.kind, edit.at, edit.piece)
        if edit.at % 2:
            out.insert(j, bad)
        else:
            out[j] = bad
    # A line holds no line break: the wire would split it into two lines.
    return [line.replace("\r", " ").replace("\n", " ") for line in out]


def random_edits(rng: random.Random, count: int) -> list[Edit]:
    """``count`` random edits (the long run's; hypothesis draws its own)."""
    return [
        Edit(rng.randrange(64), rng.choice(MUTATIONS), rng.randrange(10**6), rng.choice(PIECES)) for _ in range(count)
    ]


def make_agent(name: str, seed: int = 0) -> Agent:
    """The agent's player with the cheap placeholder strategist (built once per game)."""
    if name not in _STRATEGISTS:
        _STRATEGISTS[name] = StrengthStrategist(GAMES[name])
    return Agent(GAMES[name], _STRATEGISTS[name], TimeManager(TimeLimits()), seed=seed)


def run_stream(name: str, lines: list[str], seed: int = 0) -> tuple[MatchSummary, list[str]]:
    """Play ``lines`` through :func:`agent.loop.play`; returns its summary and the replies sent."""
    conn, dealer = scripted_connection(GAMES[name], lines)
    with conn:
        summary = play(conn, make_agent(name, seed))
    sent = replies(dealer)
    dealer.close()
    return summary, sent


def answerable(game: GameDef, lines: list[str]) -> list[str]:
    """The lines of ``lines`` a seat must answer: views a dealer can send, on its turn."""
    return classify(game, lines)[0]


def classify(game: GameDef, lines: list[str]) -> tuple[list[str], int]:
    """:func:`answerable` lines, and how many lines are no view a dealer can send.

    Read by a reader of its own, as the client reads them (comments and blank lines
    skipped, its state carried from line to line).
    """
    reader = MatchStateReader(game)
    due, bad = [], 0
    for line in lines:
        if not line or line[0] in "#;":
            continue
        try:
            match = reader.parse(line)
        except WireFormatError:
            bad += 1
            continue
        if match.is_my_turn:
            due.append(line)
    return due, bad


def check_replies(game: GameDef, lines: list[str], sent: list[str]) -> None:
    """Assert that ``sent`` answers exactly :func:`answerable` lines, in order, legally."""
    due = answerable(game, lines)
    echoed = [reply.rsplit(":", 1)[0] for reply in sent]
    assert echoed == due, (lines, sent)
    for reply, line in zip(sent, due):
        assert reply.isascii(), reply
        state = parse_matchstate(line, game).state
        action = parse_action(reply[len(line) + 1 :], game)
        assert state.illegal_reason(action) is None, (line, reply)
