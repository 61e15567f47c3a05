"""Reading match logs, ours or the ACPC reference dealer's.

A log is a header of ``#`` lines (the first is ``# name/game/hands/seed NAME GAME
HANDS SEED``, the rest are the dealer's options), one ``STATE:`` line per finished
hand and a ``SCORE:`` line last.  Every hand is replayed through
:mod:`protocol.rules` and its logged values are checked against the rules.

A match that crashed leaves no ``SCORE:`` line and may leave its last line cut off
(no line ending): such a line is skipped and a note says so.  Anything else that is
wrong raises :class:`MatchLogError` with one sentence naming the file and line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from protocol.errors import ProtocolError
from protocol.gamedef import GameDef, bundled_name, load_game
from protocol.wire import LoggedHand, parse_score_line, parse_state_line

HEADER_TAG = "# name/game/hands/seed"
#: Hand counts and seeds longer than this are refused (Python reads at most 4,300 digits).
MAX_DIGITS = 30
#: Values are printed with six decimals; sums of them may differ by rounding.
VALUE_TOLERANCE = 1e-5


class EvaluationError(Exception):
    """Base of every error that stops a match evaluation; the message is one sentence."""


class MatchLogError(EvaluationError):
    """A match log is unreadable or disagrees with the rules (message names file and line)."""


@dataclass(frozen=True, slots=True)
class LogFacts:
    """What a match log says besides its hands: the header, the seats, the SCORE line.

    ``seats`` are the player names in seat order (the SCORE line's order; without one,
    hand 0's order, since positions rotate from it).  ``notes`` are sentences about
    anything skipped.
    """

    path: Path
    name: str
    game_file: str
    game: GameDef
    planned_hands: int
    seed: int
    options: tuple[str, ...]
    seats: tuple[str, ...]
    score: tuple[float, ...] | None
    notes: tuple[str, ...]

    def facts(self) -> dict[str, Any]:
        """These fields by name (to build a :class:`MatchLog` or :class:`LogSummary` from them)."""
        return {f.name: getattr(self, f.name) for f in fields(LogFacts)}


@dataclass(frozen=True, slots=True)
class MatchLog(LogFacts):
    """One match log: its :class:`LogFacts` and its finished hands in order."""

    hands: tuple[LoggedHand, ...]

    def seat_values(self, seat: str) -> list[float]:
        """Chips ``seat`` won in each hand, in hand order."""
        return [h.values[h.names.index(seat)] for h in self.hands]

    @property
    def deals(self) -> np.ndarray:
        """The cards of every hand, ``int8[hands, D]`` (see :func:`deal_row`)."""
        return np.array([deal_row(h) for h in self.hands], np.int8).reshape(len(self.hands), -1)


@dataclass(frozen=True, slots=True)
class LogSummary(LogFacts):
    """What a report keeps of a match log read hand by hand: its :class:`LogFacts`,
    the number of hands and their cards (``deals``, for pairing mirrored matches)."""

    num_hands: int
    deals: np.ndarray


def deal_row(hand: LoggedHand) -> np.ndarray:
    """A hand's cards as ``int8[D]``: every position's hole cards, then the board padded
    with -1 to the game's full board (boards of one deal agree where both are shown)."""
    state = hand.state
    cards = [c for h in state.hole_cards for c in h] + list(state.board)
    return np.array(cards + [-1] * (state.game.total_board_cards - len(state.board)), np.int8)


def resolve_game(game_file: str, log_path: Path) -> GameDef:
    """Find the game a header names: a game file in the log's own folder, or by name
    (a bundled game, or a game file the reference dealer ships: :func:`protocol.gamedef.bundled_name`).

    A log may come from anyone, so its header never makes the report read a file
    elsewhere (a header naming a system file would have its first line quoted in the
    error); a game file kept anywhere else is given with ``--game``.

    Raises:
        MatchLogError: if none of those is a readable game file.
    """
    folder = log_path.parent.resolve()
    for candidate in (log_path.parent / game_file, log_path.parent / Path(game_file).name):
        try:
            inside = candidate.resolve().is_relative_to(folder)  # no way out through '..' or a link
        except (OSError, RuntimeError):
            continue
        if inside and candidate.is_file():
            try:
                return load_game(candidate)
            except ProtocolError as exc:
                raise MatchLogError(f"{log_path}: the game file its header names is invalid: {exc}") from None
    short = bundled_name(game_file)
    if short is not None:
        return load_game(short)
    raise MatchLogError(
        f"{log_path}: its header names the game {game_file!r}, which is neither a game this program knows by name "
        "nor a file in the log's folder; pass the game with --game"
    )


def read_match_log(path: str | Path, game: GameDef | None = None) -> MatchLog:
    """Read and check a whole match log into memory (see :class:`MatchLogReader`).

    Raises:
        MatchLogError: one sentence naming the file, the line and the problem.
    """
    reader = MatchLogReader(path, game)
    hands = tuple(reader)
    return MatchLog(**reader.summary().facts(), hands=hands)


class MatchLogReader:
    """Reads and checks a match log hand by hand, so memory stays flat in its length.

    The header is read on construction; iterating yields each finished hand
    (:class:`~protocol.wire.LoggedHand`) once, and afterwards :meth:`summary` gives
    the seats, the SCORE line, notes and every hand's cards.

    Args:
        path: the ``.log`` file.
        game: the game it was played in; by default found from the header
            (see :func:`resolve_game`).

    Raises:
        MatchLogError: (on construction or while iterating) one sentence naming the
            file, the line and the problem.
    """

    def __init__(self, path: str | Path, game: GameDef | None = None) -> None:
        self.path = Path(path)
        try:
            with self.path.open(encoding="utf-8") as f:
                first = f.readline()
        except (OSError, UnicodeDecodeError) as exc:
            raise MatchLogError(f"cannot read match log {self.path} ({exc.__class__.__name__})") from None
        if not first.startswith(HEADER_TAG):
            raise MatchLogError(f"{self.path}:1: not a match log (expected a first line '{HEADER_TAG} NAME GAME HANDS SEED')")
        fields = first[len(HEADER_TAG) :].split()
        if len(fields) != 4 or not all(f.isdigit() and len(f) <= MAX_DIGITS for f in fields[2:]):
            raise MatchLogError(
                f"{self.path}:1: the header must read '{HEADER_TAG} NAME GAME HANDS SEED' (HANDS and SEED whole numbers)"
            )
        self.name, self.game_file, self.planned_hands, self.seed = fields[0], fields[1], int(fields[2]), int(fields[3])
        self._game_given = game is not None
        self.game = game if game is not None else resolve_game(self.game_file, self.path)
        self._summary: LogSummary | None = None

    def __iter__(self) -> Iterator[LoggedHand]:
        path, game = self.path, self.game
        options: list[str] = []
        deals: list[np.ndarray] = []
        score: tuple[tuple[float, ...], tuple[str, ...]] | None = None
        notes: list[str] = []
        totals: dict[str, float] = {}
        first_names: tuple[str, ...] = ()
        number = 1
        try:
            with path.open(encoding="utf-8") as f:
                f.readline()
                for number, line in enumerate(f, start=2):
                    if not line.endswith("\n"):
                        # A line without its line ending was cut off by a crash; even if it
                        # parses (a value missing digits), it cannot be trusted.
                        notes.append(f"{path}:{number}: skipped the last line, which was cut off (the match was interrupted)")
                        break
                    line = line[:-1]
                    if score is not None:
                        raise MatchLogError(f"{path}:{number}: nothing may follow the SCORE line")
                    try:
                        if line.startswith("#"):
                            options.append(line[1:])
                        elif line.startswith("STATE:"):
                            hand = self._parse_hand(line, len(deals))
                            first_names = first_names or hand.names
                            deals.append(deal_row(hand))
                            for seat, value in zip(hand.names, hand.values):
                                totals[seat] = totals.get(seat, 0.0) + value
                            yield hand
                        elif line.startswith("SCORE:"):
                            score = parse_score_line(line, game.num_players)
                            score_line = number
                        else:
                            raise ProtocolError("expected a '#' header line, a STATE: line or the SCORE: line")
                    except (ProtocolError, ValueError) as exc:
                        raise MatchLogError(f"{path}:{number}: {_sentence(exc)}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise MatchLogError(f"cannot read match log {path} after line {number - 1} ({exc.__class__.__name__})") from None
        if not deals:
            raise MatchLogError(f"{path}: the log holds no finished hand")
        if score is None:
            notes.append(f"{path}: no SCORE line (the match was interrupted after {len(deals)} hands)")
            seats = first_names
        else:
            seats = score[1]
            for seat, total in zip(*reversed(score)):
                if abs(totals.get(seat, 0.0) - total) > VALUE_TOLERANCE * max(1, len(deals)):
                    raise MatchLogError(
                        f"{path}:{score_line}: SCORE gives {seat} {total:g} but its hands sum to {totals.get(seat, 0.0):g}"
                    )
        if set(seats) != set(first_names):
            raise MatchLogError(f"{path}: the SCORE line's players {seats} are not the players of the hands")
        self._summary = LogSummary(
            path=path,
            name=self.name,
            game_file=self.game_file,
            game=game,
            planned_hands=self.planned_hands,
            seed=self.seed,
            options=tuple(options),
            seats=tuple(seats),
            score=score[0] if score else None,
            notes=tuple(notes),
            num_hands=len(deals),
            deals=np.array(deals, np.int8),
        )

    def _parse_hand(self, line: str, expected_number: int) -> LoggedHand:
        """Parse and check one STATE line; a first hand that does not parse names the game."""
        try:
            hand = parse_state_line(line, self.game)
        except (ProtocolError, ValueError) as exc:
            if expected_number > 0:
                raise
            source = "the game given" if self._game_given else f"the game its header names ({self.game_file})"
            raise ProtocolError(
                f"its hands are not hands of {source}, {_describe(self.game)}: {_sentence(exc)}"
                + ("; is --game right?" if self._game_given else "")
            ) from None
        _check_hand(hand, expected_number)
        return hand

    def summary(self) -> LogSummary:
        """The log's facts, once every hand has been read.

        Raises:
            RuntimeError: if the log has not been read to its end yet.
        """
        if self._summary is None:
            raise RuntimeError("MatchLogReader.summary() before the log was read to its end")
        return self._summary


def _describe(game: GameDef) -> str:
    return (
        f"{game.betting} with {game.num_players} players, {game.num_hole_cards} hole card(s) and "
        f"{game.total_board_cards} board card(s)"
    )


def _sentence(exc: Exception) -> str:
    """The reason of a parse error, without Python's hints for over-long numbers."""
    text = str(exc)
    if isinstance(exc, ValueError) and "digits" in text:
        return f"a number in the line has more than {MAX_DIGITS} digits"
    return text


def _check_hand(hand: LoggedHand, expected_number: int) -> None:
    """The hand must be the next one, finished, with the values the rules give."""
    state = hand.state
    if state.hand_number != expected_number:
        found = str(state.hand_number) if len(str(state.hand_number)) <= 30 else f"a {len(str(state.hand_number))}-digit number"
        raise ProtocolError(f"expected hand {expected_number}, found hand {found}")
    if not state.finished:
        raise ProtocolError("the hand's betting is not finished")
    if len(set(hand.names)) != len(hand.names):
        raise ProtocolError("a player name appears twice in the hand")
    if any(len(h) != state.game.num_hole_cards for h in state.hole_cards):
        raise ProtocolError("a dealer's match log must show every player's hole cards, folded ones too")
    ruled = state.values()
    if any(abs(a - b) > VALUE_TOLERANCE for a, b in zip(ruled, hand.values)):
        shown = "|".join(f"{v:g}" for v in ruled)
        raise ProtocolError(f"the logged values disagree with the rules, which give {shown}")
