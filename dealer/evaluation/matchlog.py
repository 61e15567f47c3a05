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

from dataclasses import dataclass
from pathlib import Path

from protocol.errors import ProtocolError
from protocol.gamedef import GameDef, bundled_game_names, load_game
from protocol.wire import LoggedHand, parse_score_line, parse_state_line

HEADER_TAG = "# name/game/hands/seed"
#: Values are printed with six decimals; sums of them may differ by rounding.
VALUE_TOLERANCE = 1e-5


class EvaluationError(Exception):
    """Base of every error that stops a match evaluation; the message is one sentence."""


class MatchLogError(EvaluationError):
    """A match log is unreadable or disagrees with the rules (message names file and line)."""


@dataclass(frozen=True, slots=True)
class MatchLog:
    """One match log: header facts, finished hands in order, and the SCORE line if present.

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
    hands: tuple[LoggedHand, ...]
    seats: tuple[str, ...]
    score: tuple[float, ...] | None
    notes: tuple[str, ...]

    def seat_values(self, seat: str) -> list[float]:
        """Chips ``seat`` won in each hand, in hand order."""
        return [h.values[h.names.index(seat)] for h in self.hands]


def resolve_game(game_file: str, log_path: Path) -> GameDef:
    """Find the game a header names: as a path, next to the log, or as a bundled game.

    Raises:
        MatchLogError: if none of those is a readable game file.
    """
    candidates = [Path(game_file), log_path.parent / game_file, log_path.parent / Path(game_file).name]
    for candidate in candidates:
        if candidate.is_file():
            try:
                return load_game(candidate)
            except ProtocolError as exc:
                raise MatchLogError(f"{log_path}: the game file its header names is invalid: {exc}") from None
    short = Path(game_file).name.removesuffix(".game")
    if short in bundled_game_names():
        return load_game(short)
    raise MatchLogError(
        f"{log_path}: cannot find the game file {game_file!r} named in its header; pass the game explicitly"
    )


def read_match_log(path: str | Path, game: GameDef | None = None) -> MatchLog:
    """Read and check a match log.

    Args:
        path: the ``.log`` file.
        game: the game it was played in; by default found from the header
            (see :func:`resolve_game`).

    Raises:
        MatchLogError: one sentence naming the file, the line and the problem.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MatchLogError(f"cannot read match log {path} ({exc.__class__.__name__})") from None
    lines = text.split("\n")
    complete_tail = lines[-1] == ""
    if complete_tail:
        lines.pop()
    if not lines or not lines[0].startswith(HEADER_TAG):
        raise MatchLogError(f"{path}:1: not a match log (expected a first line '{HEADER_TAG} NAME GAME HANDS SEED')")
    fields = lines[0][len(HEADER_TAG) :].split()
    if len(fields) != 4 or not fields[2].isdigit() or not fields[3].isdigit():
        raise MatchLogError(f"{path}:1: the header must read '{HEADER_TAG} NAME GAME HANDS SEED'")
    name, game_file, planned, seed = fields[0], fields[1], int(fields[2]), int(fields[3])
    if game is None:
        game = resolve_game(game_file, path)

    options: list[str] = []
    hands: list[LoggedHand] = []
    score: tuple[tuple[float, ...], tuple[str, ...]] | None = None
    notes: list[str] = []
    totals: dict[str, float] = {}
    for number, line in enumerate(lines[1:], start=2):
        if number == len(lines) and not complete_tail:
            # A line without its line ending was cut off by a crash; even if it
            # parses (a value missing digits), it cannot be trusted.
            notes.append(f"{path}:{number}: skipped the last line, which was cut off (the match was interrupted)")
            break
        if score is not None:
            raise MatchLogError(f"{path}:{number}: nothing may follow the SCORE line")
        try:
            if line.startswith("#"):
                options.append(line[1:])
            elif line.startswith("STATE:"):
                hand = parse_state_line(line, game)
                _check_hand(hand, len(hands))
                hands.append(hand)
                for seat, value in zip(hand.names, hand.values):
                    totals[seat] = totals.get(seat, 0.0) + value
            elif line.startswith("SCORE:"):
                score = parse_score_line(line, game.num_players)
            else:
                raise ProtocolError("expected a '#' header line, a STATE: line or the SCORE: line")
        except ProtocolError as exc:
            raise MatchLogError(f"{path}:{number}: {exc}") from None
    if not hands:
        raise MatchLogError(f"{path}: the log holds no finished hand")
    if score is None:
        notes.append(f"{path}: no SCORE line (the match was interrupted after {len(hands)} hands)")
        seats = hands[0].names
    else:
        seats = score[1]
        for seat, total in zip(*reversed(score)):
            if abs(totals.get(seat, 0.0) - total) > VALUE_TOLERANCE * max(1, len(hands)):
                raise MatchLogError(
                    f"{path}:{len(lines)}: SCORE gives {seat} {total:g} but its hands sum to {totals.get(seat, 0.0):g}"
                )
    if set(seats) != set(hands[0].names):
        raise MatchLogError(f"{path}: the SCORE line's players {seats} are not the players of the hands")
    return MatchLog(
        path=path,
        name=name,
        game_file=game_file,
        game=game,
        planned_hands=planned,
        seed=seed,
        options=tuple(options),
        hands=tuple(hands),
        seats=tuple(seats),
        score=score[0] if score else None,
        notes=tuple(notes),
    )


def _check_hand(hand: LoggedHand, expected_number: int) -> None:
    """The hand must be the next one, finished, with the values the rules give."""
    state = hand.state
    if state.hand_number != expected_number:
        raise ProtocolError(f"expected hand {expected_number}, found hand {state.hand_number}")
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
