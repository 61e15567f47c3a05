"""The ACPC wire and log formats: MATCHSTATE lines, actions, replies, STATE and SCORE.

Every reader has a printer that is its exact inverse on well-formed input:
``format_matchstate(parse_matchstate(line, game)) == line``.  Readers follow the
reference's leniency where a real dealer or client relies on it (action letters in
either case, ``k``/``b`` aliases, the ``/`` between rounds being optional) and
raise :class:`~protocol.errors.WireFormatError` with a sentence otherwise.  Numbers
are ASCII digits only, as C reads them.

A seat's parsers (:func:`parse_matchstate`, :class:`MatchStateReader`) take only
lines a dealer can send it: ASCII, cards of the game's deck spelled as the dealer
spells them and none twice, its own cards whenever it is to act, and other seats'
only at a showdown they reached (:func:`check_view`).  So a client skips any other
line, and whatever it answers can be echoed.  The dealer's reading of a reply's echo
(:func:`read_matchstate`) keeps the reference's leniency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from protocol.cards import RANK_CHARS, SUIT_CHARS, card_str, deck, parse_card
from protocol.errors import IllegalActionError, WireFormatError
from protocol.gamedef import GameDef
from protocol.rules import Action, ActionType, State, initial_state, with_cards

VERSION = "2.0.0"
VERSION_LINE = f"VERSION:{VERSION}"

_LETTERS = {"f": ActionType.FOLD, "c": ActionType.CALL, "k": ActionType.CALL, "r": ActionType.RAISE, "b": ActionType.RAISE}
# sscanf("%d") semantics: optional white space, optional sign, digits.
# re.ASCII: Python's \d and \s also match other scripts' digits and spaces ('r٣٠٠' would be
# a raise to 300), which no C reader accepts and which cannot be echoed in an ASCII reply.
_INT_RE = re.compile(r"\s*([+-]?\d+)", re.ASCII)
_HEADER_RE = re.compile(r"MATCHSTATE:(\d+):(\d+):", re.ASCII)
_STATE_HEADER_RE = re.compile(r"STATE:(\d+):", re.ASCII)
_DIGIT_CHARS = frozenset("0123456789")
#: Integers with more digits are refused: every number of the protocol fits in 64 bits
#: (the reference reads 32), and Python will not convert more than 4,300 digits.
MAX_INT_DIGITS = 18


def _read_int(text: str, what: str) -> int:
    """``int(text)`` for a wire field, refusing numbers no field can hold.

    Raises:
        WireFormatError: if ``text`` has more than :data:`MAX_INT_DIGITS` digits.
    """
    digits = len(text) - (text[:1] in "+-")
    if digits > MAX_INT_DIGITS:
        raise WireFormatError(f"the {what} has {digits} digits; no field holds more than {MAX_INT_DIGITS}")
    return int(text)


@dataclass(frozen=True, slots=True)
class MatchState:
    """What one seat is told: its position this hand and the state as it may see it."""

    position: int
    state: State

    @property
    def hand_number(self) -> int:
        return self.state.hand_number

    @property
    def is_my_turn(self) -> bool:
        return not self.state.finished and self.state.current_player == self.position

    @property
    def my_cards(self) -> tuple[int, ...]:
        return self.state.hole_cards[self.position]

    def __str__(self) -> str:
        return format_matchstate(self)


# --- actions -------------------------------------------------------------------


def read_action(text: str, game: GameDef) -> tuple[Action | None, int]:
    """Read an action at the start of ``text`` like the reference ``readAction``.

    Returns ``(action, characters consumed)``; ``action`` is None for an unknown
    letter (which the dealer treats as an invalid action).  In limit games only
    the letter counts; in no-limit a raise must carry an integer raise-to size.

    Raises:
        WireFormatError: for a no-limit raise without a size.
    """
    kind = _LETTERS.get(text[:1].lower()) if text else None
    if kind is None:
        return None, 1
    if kind == ActionType.RAISE and game.is_nolimit:
        match = _INT_RE.match(text, 1)
        if match is None:
            raise WireFormatError(f"no-limit raise {text!r} has no integer size")
        return Action(kind, _read_int(match.group(1), "raise size")), match.end()
    return Action(kind), 1


def parse_action(text: str, game: GameDef) -> Action:
    """Parse a whole action string such as ``'r250'``, ``'c'`` or ``'K'``."""
    action, used = read_action(text, game)
    if action is None:
        raise WireFormatError(f"{text!r} is not an action (f, c, r, or the aliases k and b)")
    if used != len(text) and game.is_nolimit:
        raise WireFormatError(f"unexpected text after the action in {text!r}")
    return action


# --- states ----------------------------------------------------------------------


def _read_betting(text: str, pos: int, state: State) -> tuple[State, int]:
    """Apply the actions in ``text[pos:]`` up to ``:`` (consumed), ignoring ``/``."""
    game = state.game
    while pos < len(text):
        ch = text[pos]
        if ch == ":":
            return state, pos + 1
        if ch == "/":
            pos += 1
            continue
        action, used = read_action(text[pos:], game)
        if action is None:
            raise WireFormatError(f"unknown action {ch!r} in the betting")
        try:
            state = state.apply(action)
        except IllegalActionError as exc:
            raise WireFormatError(f"illegal betting: {exc}") from None
        pos += used
    raise WireFormatError("the betting is not followed by ':' and the cards")


# Every text parse_card accepts: a look-up that misses, unlike parse_card, raises nothing.
_CARD_AT = {
    r + s: parse_card(r + s) for r in RANK_CHARS + RANK_CHARS.lower() for s in SUIT_CHARS + SUIT_CHARS.upper()
}


def _read_cards(text: str, pos: int, limit: int) -> tuple[tuple[int, ...], int]:
    """Read up to ``limit`` cards at ``pos``; stop at the first non-card."""
    cards = []
    while len(cards) < limit:
        card = _CARD_AT.get(text[pos : pos + 2])
        if card is None:
            break
        cards.append(card)
        pos += 2
    return tuple(cards), pos


def _read_state_body(text: str, pos: int, game: GameDef, hand_number: int) -> tuple[State, int]:
    """Read ``betting:holes/board`` starting at ``pos``; returns state and end."""
    state, pos = _read_betting(text, pos, initial_state(game, hand_number))
    return _read_cards_section(text, pos, state)


def _read_cards_section(text: str, pos: int, state: State) -> tuple[State, int]:
    """Read ``holes/board`` at ``pos`` for the betting ``state``; returns it with the cards."""
    game = state.game
    holes = []
    for p in range(game.num_players):
        if p and text.startswith("|", pos):
            pos += 1
        cards, pos = _read_cards(text, pos, game.num_hole_cards)
        if cards and len(cards) != game.num_hole_cards:
            raise WireFormatError(f"position {p} has {len(cards)} hole cards, the game deals {game.num_hole_cards}")
        holes.append(cards)
    board: tuple[int, ...] = ()
    for r in range(state.round + 1):
        if r and text.startswith("/", pos):
            pos += 1
        cards, pos = _read_cards(text, pos, game.num_board_cards[r])
        if len(cards) != game.num_board_cards[r]:
            raise WireFormatError(f"round {r + 1} needs {game.num_board_cards[r]} board cards, found {len(cards)}")
        board += cards
    return with_cards(state, tuple(holes), board), pos


def read_matchstate(text: str, game: GameDef) -> tuple[MatchState, int]:
    """Read a MATCHSTATE at the start of ``text`` (a reply may follow it).

    Returns the match state and how many characters it used.

    Raises:
        WireFormatError: if no valid match state starts ``text``.
    """
    header = _HEADER_RE.match(text)
    if header is None:
        raise WireFormatError("expected 'MATCHSTATE:<position>:<hand>:'")
    position, hand = _read_header(header, game)
    state, pos = _read_state_body(text, header.end(), game, hand)
    return MatchState(position, state), pos


def _read_header(header: re.Match[str], game: GameDef) -> tuple[int, int]:
    """Position and hand number of a matched ``MATCHSTATE:<position>:<hand>:``."""
    position = _read_int(header.group(1), "position")
    if position >= game.num_players:
        raise WireFormatError(f"position {position} does not exist in a {game.num_players}-player game")
    return position, _read_int(header.group(2), "hand number")


def parse_matchstate(line: str, game: GameDef) -> MatchState:
    """Parse a whole MATCHSTATE line (without line ending) as a seat receives it.

    Stricter than :func:`read_matchstate` (which reads the echo in a reply as leniently
    as the reference dealer does): the line must be a view a dealer can send, see
    :func:`check_view`.
    """
    if not line.isascii():
        raise WireFormatError("the line holds characters outside ASCII")
    match, used = read_matchstate(line, game)
    if used != len(line):
        raise WireFormatError(f"unexpected text {line[used:]!r} after the match state")
    # The betting holds no ':', so the cards are what follows the fourth.
    _check_cards(line.split(":", 4)[4], match.state, _deck_cards(game))
    check_view(match)
    return match


# --- what a seat may be sent -------------------------------------------------------

#: Rank letters only upper case and suit letters only lower case: the dealer's spelling.
_NOT_CANONICAL = frozenset("tjqkaCDHS")


@cache
def _deck_cards(game: GameDef) -> frozenset[int]:
    return frozenset(deck(game))


def _check_cards(text: str, state: State, deck_cards: frozenset[int]) -> None:
    """The cards a dealer can send: spelled as it spells them, from the game's deck, none twice.

    ``text`` is the line's (already parsed) cards section, ``state`` holds its cards,
    ``deck_cards`` is :func:`_deck_cards` of its game (passed in: hashing a game costs
    more than the whole check).

    Raises:
        WireFormatError: naming the first card that breaks a rule.
    """
    if not _NOT_CANONICAL.isdisjoint(text):
        raise WireFormatError(f"cards {text!r} are not spelled as a dealer spells them (e.g. 'Td', not 'tD')")
    cards = sum(state.hole_cards, state.board)
    distinct = set(cards)
    if len(distinct) != len(cards):
        twice = next(card for i, card in enumerate(cards) if card in cards[:i])
        raise WireFormatError(f"card {card_str(twice)} appears twice in {text!r}")
    if not distinct <= deck_cards:
        raise WireFormatError(f"card {card_str(min(distinct - deck_cards))} is not in this game's deck")


def check_view(match: MatchState) -> None:
    """Refuse a match state no dealer sends this seat.

    The seat's own hole cards are there whenever it is to act, and another
    position's only when the hand has ended at a showdown that position reached
    (as the reference shows them).  Card spelling, deck and duplicates are checked
    by the parsers, which see the text.

    Raises:
        WireFormatError: if ``match`` breaks one of these rules.
    """
    state = match.state
    position = match.position
    for p, cards in enumerate(state.hole_cards):
        if cards and p != position and not (state.is_showdown and not state.folded[p]):
            when = "though it folded" if state.folded[p] else "before a showdown"
            raise WireFormatError(f"position {p}'s hole cards are shown {when}")
    if not state.finished and state.current_player == position and not state.hole_cards[position]:
        raise WireFormatError(f"position {position} is to act but the line gives it no hole cards")


class MatchStateReader:
    """Parses one seat's successive MATCHSTATE lines, replaying only new actions.

    A dealer sends each seat the same hand again after every action; when a line's
    betting extends the previous line's, the previous betting state is reused.
    Results equal :func:`parse_matchstate`'s.
    """

    def __init__(self, game: GameDef) -> None:
        self.game = game
        self._deck = _deck_cards(game)
        self._hand = -1
        self._betting = ""
        self._state: State | None = None
        self._cards_key: tuple[str, int] | None = None
        self._cards: tuple[tuple[tuple[int, ...], ...], tuple[int, ...]] = ((), ())

    def parse(self, line: str) -> MatchState:
        """Parse one line; see :func:`parse_matchstate` for what is refused.

        Raises:
            WireFormatError: if ``line`` is no view a dealer could send this seat.
        """
        if not line.isascii():
            raise WireFormatError("the line holds characters outside ASCII")
        header = _HEADER_RE.match(line)
        if header is None:
            raise WireFormatError("expected 'MATCHSTATE:<position>:<hand>:'")
        position, hand = _read_header(header, self.game)
        start = header.end()
        end = line.find(":", start)
        betting = line[start:end] if end >= 0 else line[start:]
        known = self._betting
        replaying = (
            self._state is not None
            and hand == self._hand
            and betting.startswith(known)
            # The old betting must end on an action boundary ("r30" is no prefix of "r300").
            and betting[len(known) : len(known) + 1] not in _DIGIT_CHARS
        )
        if replaying:
            state, pos = _read_betting(line, start + len(known), self._state)  # type: ignore[arg-type]
        else:
            state, pos = _read_betting(line, start, initial_state(self.game, hand))
        # The cards change only with the round and at the end: reuse the last parse.
        key = (line[pos:], state.round)
        if key != self._cards_key:
            state, end = _read_cards_section(line, pos, state)
            if end != len(line):
                raise WireFormatError(f"unexpected text {line[end:]!r} after the match state")
            _check_cards(line[pos:], state, self._deck)
            self._cards_key, self._cards = key, (state.hole_cards, state.board)
        elif not replaying:
            state = with_cards(state, *self._cards)
        # (A replayed state carries the last line's cards: the kept state always has them.)
        match = MatchState(position, state)
        # Whose cards may show depends on the betting and the position, not only on the
        # cards text: checked on every line.  A refused line leaves the kept state as it was.
        check_view(match)
        self._hand, self._betting, self._state = hand, betting, state
        return match


_CARD_TEXT = [card_str(c) for c in range(52)]


def _cards_text(cards: tuple[int, ...]) -> str:
    return "".join([_CARD_TEXT[c] for c in cards])


def _cards_section(state: State, holes: tuple[tuple[int, ...], ...]) -> str:
    game = state.game
    out = "|".join([_cards_text(h) for h in holes])
    start = 0
    for r in range(state.round + 1):
        end = start + game.num_board_cards[r]
        if r:
            out += "/"
        out += _cards_text(state.board[start:end])
        start = end
    return out


def format_matchstate(match: MatchState) -> str:
    """``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` as ``match`` shows it.

    Prints the hole cards the state holds; use :func:`view_for` (or
    :func:`format_view`) to show a seat only what it may see.
    """
    state = match.state
    return (
        f"MATCHSTATE:{match.position}:{state.hand_number}:{state.betting}:"
        f"{_cards_section(state, state.hole_cards)}"
    )


def view_cards(state: State, position: int) -> str:
    """The cards section of ``position``'s view: its hole cards, any showdown reveals, the board so far."""
    return _cards_section(state, state.visible_hole_cards(position))


def format_view(state: State, position: int) -> str:
    """The line the dealer sends ``position`` for ``state``: only cards it may see.

    Equal to ``format_matchstate(view_for(state, position))`` without building the
    view.
    """
    return f"MATCHSTATE:{position}:{state.hand_number}:{state.betting}:{view_cards(state, position)}"


class HandViews:
    """:func:`format_view` for every state of one dealt hand, its card text built once.

    A seat's cards section changes only with the round and at a showdown, so the
    dealer need not print cards after every action.  Made from any state of the
    hand holding all its cards; ``line(state, p) == format_view(state, p)`` for
    every state of that hand.
    """

    def __init__(self, state: State) -> None:
        game = state.game
        holes = [_cards_text(h) for h in state.hole_cards]
        positions = range(game.num_players)
        self._prefix = [f"MATCHSTATE:{p}:{state.hand_number}:" for p in positions]
        self._holes = ["|".join([holes[q] if q == p else "" for q in positions]) for p in positions]
        self._boards = []  # the board section through each round
        text, start = "", 0
        for r, count in enumerate(game.num_board_cards):
            text += ("/" if r else "") + _cards_text(state.board[start : start + count])
            start += count
            self._boards.append(text)

    def line(self, state: State, position: int) -> str:
        if state.finished and state.is_showdown:
            return format_view(state, position)  # reveals: once per hand
        return f"{self._prefix[position]}{state.betting}:{self._holes[position]}{self._boards[state.round]}"


def view_for(state: State, position: int) -> MatchState:
    """The match state the dealer sends to ``position``: only cards it may see."""
    return MatchState(position, state.visible_to(position))


def format_reply(match_line: str, action: Action) -> str:
    """The reply to ``match_line``: the exact state text, ``:``, the action."""
    return f"{match_line}:{action}"


# --- log lines ---------------------------------------------------------------------


def format_value(value: float) -> str:
    """A chip value as the reference logs it: ``%.6f`` without trailing zeros."""
    text = f"{value:.6f}".rstrip("0")
    return text[:-1] if text.endswith(".") else text


@dataclass(frozen=True, slots=True)
class LoggedHand:
    """One ``STATE:`` line of a dealer log: the finished hand, values and names by position."""

    state: State
    values: tuple[float, ...]
    names: tuple[str, ...]


def format_state_line(state: State, values: tuple[float, ...], names: tuple[str, ...]) -> str:
    """``STATE:<hand>:<betting>:<all hole cards>/<board>:<values>:<names>``."""
    return (
        f"STATE:{state.hand_number}:{state.betting}:{_cards_section(state, state.hole_cards)}:"
        f"{'|'.join(format_value(v) for v in values)}:{'|'.join(names)}"
    )


def parse_state_line(line: str, game: GameDef) -> LoggedHand:
    """Parse a log ``STATE:`` line.

    Raises:
        WireFormatError: if malformed, or if the values or names do not match the game.
    """
    header = _STATE_HEADER_RE.match(line)
    if header is None:
        raise WireFormatError("expected 'STATE:<hand>:'")
    state, pos = _read_state_body(line, header.end(), game, _read_int(header.group(1), "hand number"))
    parts = line[pos:].split(":")
    if len(parts) != 3 or parts[0] != "":
        raise WireFormatError("expected ':<values>:<names>' after the cards")
    values = _parse_values(parts[1], game.num_players)
    names = tuple(parts[2].split("|"))
    if len(names) != game.num_players:
        raise WireFormatError(f"expected {game.num_players} names, got {len(names)}")
    return LoggedHand(state, values, names)


def _parse_values(text: str, count: int) -> tuple[float, ...]:
    items = text.split("|")
    # float() reads other scripts' digits too; a log line is ASCII.
    if not text.isascii():
        raise WireFormatError(f"values {text!r} hold characters outside ASCII")
    if len(items) != count:
        raise WireFormatError(f"expected {count} values, got {len(items)}")
    try:
        return tuple(float(v) for v in items)
    except ValueError:
        raise WireFormatError(f"values {text!r} are not numbers") from None


def format_score_line(totals: tuple[float, ...], names: tuple[str, ...]) -> str:
    """``SCORE:<totals in seat order>:<names in seat order>``."""
    return f"SCORE:{'|'.join(format_value(v) for v in totals)}:{'|'.join(names)}"


def parse_score_line(line: str, num_players: int) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """Parse ``SCORE:<totals>:<names>`` into totals and names (seat order)."""
    parts = line.split(":")
    if len(parts) != 3 or parts[0] != "SCORE":
        raise WireFormatError("expected 'SCORE:<totals>:<names>'")
    names = tuple(parts[2].split("|"))
    if len(names) != num_players:
        raise WireFormatError(f"expected {num_players} names, got {len(names)}")
    return _parse_values(parts[1], num_players), names
