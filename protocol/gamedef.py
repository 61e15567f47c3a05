"""Game definitions: the ``.game`` file format of the ACPC server, and the bundled games.

A :class:`GameDef` is validated on construction.  :func:`parse_gamedef` reads the
reference format (keys case-insensitive, ``=`` optional, ``#`` comments) but is
stricter than the reference where that protects users: unknown or repeated keys,
wrong value counts, blinds above stacks and decks too small for the deal are errors
naming the file and line.  :func:`format_gamedef` prints what the reference's
``printGame`` prints, so ``parse_gamedef(format_gamedef(g)) == g``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from protocol.errors import GameDefError

MAX_PLAYERS = 10
MAX_ROUNDS = 4
MAX_SUITS = 4
MAX_RANKS = 13
MAX_HOLE_CARDS = 3
MAX_BOARD_CARDS = 7
#: The reference stores an unlimited stack as INT32_MAX and unlimited raises as 255.
UNLIMITED_STACK = 2**31 - 1
UNLIMITED_RAISES = 255

LIMIT = "limit"
NOLIMIT = "nolimit"


@dataclass(frozen=True, slots=True)
class GameDef:
    """The rules of one poker game, as a ``.game`` file states them.

    Per-position tuples have ``num_players`` entries, per-round tuples ``num_rounds``.
    ``first_player`` is 0-based here (the file is 1-based).  ``raise_size`` is all
    zeros in no-limit games.
    """

    betting: str
    num_players: int
    num_rounds: int
    stack: tuple[int, ...]
    blind: tuple[int, ...]
    raise_size: tuple[int, ...]
    first_player: tuple[int, ...]
    max_raises: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int
    num_board_cards: tuple[int, ...]

    def __post_init__(self) -> None:
        found = _validation_problem(self)
        if found is not None:
            key, problem = found
            error = GameDefError(problem)
            error.key = key  # lets the parser point at the offending line
            raise error

    @property
    def is_nolimit(self) -> bool:
        return self.betting == NOLIMIT

    @property
    def big_blind(self) -> int:
        """The largest blind (the unit of mbb/hand); 1 if there are no blinds."""
        return max(max(self.blind), 1)

    @property
    def deck_size(self) -> int:
        return self.num_suits * self.num_ranks

    @property
    def total_board_cards(self) -> int:
        return sum(self.num_board_cards)

    def board_cards_through(self, round_: int) -> int:
        """Number of board cards visible once round ``round_`` has been reached."""
        return sum(self.num_board_cards[: round_ + 1])


def _validation_problem(g: GameDef) -> tuple[str, str] | None:
    """Return (file key at fault, sentence) describing what is wrong with ``g``, or None."""
    if g.betting not in (LIMIT, NOLIMIT):
        return "betting", f"betting type must be 'limit' or 'nolimit', not {g.betting!r}"
    if not 2 <= g.num_players <= MAX_PLAYERS:
        return "numplayers", f"numPlayers must be between 2 and {MAX_PLAYERS}, not {g.num_players}"
    if not 1 <= g.num_rounds <= MAX_ROUNDS:
        return "numrounds", f"numRounds must be between 1 and {MAX_ROUNDS}, not {g.num_rounds}"
    per_player = {"stack": g.stack, "blind": g.blind}
    per_round = {
        "raiseSize": g.raise_size,
        "firstPlayer": g.first_player,
        "maxRaises": g.max_raises,
        "numBoardCards": g.num_board_cards,
    }
    for key, values in per_player.items():
        if len(values) != g.num_players:
            return key.lower(), f"{key} needs {g.num_players} values (one per player), got {len(values)}"
    for key, values in per_round.items():
        if len(values) != g.num_rounds:
            return key.lower(), f"{key} needs {g.num_rounds} values (one per round), got {len(values)}"
    for key, values in {**per_player, **per_round}.items():
        if any(v < 0 for v in values):
            return key.lower(), f"{key} values must not be negative"
    for p in range(g.num_players):
        if g.stack[p] < 1:
            return "stack", f"stack for player {p + 1} must be at least 1"
        if g.blind[p] > g.stack[p]:
            return "blind", f"blind for player {p + 1} ({g.blind[p]}) is greater than its stack ({g.stack[p]})"
    for r in range(g.num_rounds):
        if not 0 <= g.first_player[r] < g.num_players:
            return "firstplayer", f"firstPlayer on round {r + 1} must be between 1 and {g.num_players}"
        if g.max_raises[r] > UNLIMITED_RAISES:
            return "maxraises", f"maxRaises on round {r + 1} must be at most {UNLIMITED_RAISES}"
        if g.betting == LIMIT and g.raise_size[r] < 1:
            return "raisesize", f"raiseSize on round {r + 1} must be at least 1 in a limit game"
    if g.betting == NOLIMIT and any(g.raise_size):
        return "raisesize", "raiseSize applies to limit games only"
    if not 1 <= g.num_suits <= MAX_SUITS:
        return "numsuits", f"numSuits must be between 1 and {MAX_SUITS}, not {g.num_suits}"
    if not 1 <= g.num_ranks <= MAX_RANKS:
        return "numranks", f"numRanks must be between 1 and {MAX_RANKS}, not {g.num_ranks}"
    if not 1 <= g.num_hole_cards <= MAX_HOLE_CARDS:
        return "numholecards", f"numHoleCards must be between 1 and {MAX_HOLE_CARDS}, not {g.num_hole_cards}"
    if sum(g.num_board_cards) > MAX_BOARD_CARDS:
        return "numboardcards", f"at most {MAX_BOARD_CARDS} board cards in total are supported"
    needed = g.num_hole_cards * g.num_players + sum(g.num_board_cards)
    if needed > g.deck_size:
        return "numranks", (
            f"the deal needs {needed} cards but the deck has only "
            f"{g.num_suits} suits x {g.num_ranks} ranks = {g.deck_size}"
        )
    return None


# --- parsing -------------------------------------------------------------------

_SINGLE_KEYS = ("numplayers", "numrounds", "numsuits", "numranks", "numholecards")
_LIST_KEYS = ("stack", "blind", "raisesize", "firstplayer", "maxraises", "numboardcards")
_KEY_RE = re.compile(r"\s*([A-Za-z]+)\s*(.*)$")


def parse_gamedef(text: str, source: str = "<string>") -> GameDef:
    """Parse the text of a ``.game`` file.

    Raises:
        GameDefError: naming ``source``, the line and the problem.
    """
    lines = text.splitlines()
    values: dict[str, tuple[tuple[int, ...], int]] = {}
    betting: tuple[str, int] | None = None
    started = ended = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        lowered = line.lower()
        if re.fullmatch(r"end\s+gamedef", lowered):
            if not started:
                raise GameDefError("END GAMEDEF before GAMEDEF", source=source, line=number)
            ended = True
            break
        if lowered == "gamedef":
            if started:
                raise GameDefError("GAMEDEF appears twice", source=source, line=number)
            started = True
            continue
        if not started:
            raise GameDefError(f"expected GAMEDEF before {line!r}", source=source, line=number)
        if lowered in (LIMIT, NOLIMIT):
            if betting is not None:
                raise GameDefError(
                    f"betting type given twice (first on line {betting[1]})", source=source, line=number
                )
            betting = (lowered, number)
            continue
        match = _KEY_RE.match(line)
        key = match.group(1).lower() if match else ""
        if key not in _SINGLE_KEYS and key not in _LIST_KEYS:
            raise GameDefError(f"unknown key {line.split()[0]!r}", source=source, line=number)
        if key in values:
            raise GameDefError(
                f"key {match.group(1)!r} given twice (first on line {values[key][1]})",
                source=source,
                line=number,
            )
        rest = match.group(2).strip()
        if rest.startswith("="):
            rest = rest[1:]
        tokens = rest.split()
        if not tokens:
            raise GameDefError(f"key {match.group(1)!r} has no values", source=source, line=number)
        try:
            numbers = tuple(int(t) for t in tokens)
        except ValueError:
            raise GameDefError(
                f"values of {match.group(1)!r} must be whole numbers, got {rest.strip()!r}",
                source=source,
                line=number,
            ) from None
        if key in _SINGLE_KEYS and len(numbers) != 1:
            raise GameDefError(
                f"key {match.group(1)!r} takes one value, got {len(numbers)}", source=source, line=number
            )
        values[key] = (numbers, number)
    if not started:
        raise GameDefError("no GAMEDEF section found", source=source)
    if not ended:
        raise GameDefError("missing END GAMEDEF (is the file truncated?)", source=source, line=len(lines))
    return _build(values, betting, source)


def _build(
    values: dict[str, tuple[tuple[int, ...], int]], betting: tuple[str, int] | None, source: str
) -> GameDef:
    """Turn the parsed key/value pairs into a GameDef, checking counts per line."""
    if betting is None:
        raise GameDefError("betting type missing: add a line 'limit' or 'nolimit'", source=source)
    required = ("numplayers", "numrounds", "numsuits", "numranks", "numholecards", "blind", "numboardcards")
    for key in required:
        if key not in values:
            raise GameDefError(f"required key {_camel(key)!r} is missing", source=source)
    if betting[0] == LIMIT and "raisesize" not in values:
        raise GameDefError("limit games need a 'raiseSize' line", source=source)
    n_players = values["numplayers"][0][0]
    n_rounds = values["numrounds"][0][0]

    def listed(key: str, count: int, default: int, what: str) -> tuple[int, ...]:
        if key not in values:
            return (default,) * count
        numbers, line = values[key]
        if len(numbers) != count:
            raise GameDefError(
                f"{_camel(key)!r} needs {count} values ({what}), got {len(numbers)}", source=source, line=line
            )
        return numbers

    if not 2 <= n_players <= MAX_PLAYERS or not 1 <= n_rounds <= MAX_ROUNDS:
        key = "numplayers" if not 2 <= n_players <= MAX_PLAYERS else "numrounds"
        raise GameDefError(
            f"{_camel(key)} must be between {1 + (key == 'numplayers')} and "
            f"{MAX_PLAYERS if key == 'numplayers' else MAX_ROUNDS}, not {values[key][0][0]}",
            source=source,
            line=values[key][1],
        )
    fields = dict(
        betting=betting[0],
        num_players=n_players,
        num_rounds=n_rounds,
        stack=listed("stack", n_players, UNLIMITED_STACK, "one per player"),
        blind=listed("blind", n_players, 0, "one per player"),
        raise_size=listed("raisesize", n_rounds, 0, "one per round"),
        first_player=tuple(f - 1 for f in listed("firstplayer", n_rounds, 1, "one per round")),
        max_raises=listed("maxraises", n_rounds, UNLIMITED_RAISES, "one per round"),
        num_suits=values["numsuits"][0][0],
        num_ranks=values["numranks"][0][0],
        num_hole_cards=values["numholecards"][0][0],
        num_board_cards=listed("numboardcards", n_rounds, 0, "one per round"),
    )
    try:
        game = GameDef(**fields)  # type: ignore[arg-type]
    except GameDefError as exc:
        key = getattr(exc, "key", None)
        line = values[key][1] if key in values else None
        raise GameDefError(exc.problem, source=source, line=line) from None
    return game


def _camel(key: str) -> str:
    names = {
        "numplayers": "numPlayers",
        "numrounds": "numRounds",
        "numsuits": "numSuits",
        "numranks": "numRanks",
        "numholecards": "numHoleCards",
        "numboardcards": "numBoardCards",
        "raisesize": "raiseSize",
        "firstplayer": "firstPlayer",
        "maxraises": "maxRaises",
    }
    return names.get(key, key)


def format_gamedef(game: GameDef) -> str:
    """Print ``game`` the way the reference ``printGame`` does (defaults omitted)."""
    out = ["GAMEDEF", game.betting]
    out.append(f"numPlayers = {game.num_players}")
    out.append(f"numRounds = {game.num_rounds}")
    if any(s < UNLIMITED_STACK for s in game.stack):
        out.append("stack = " + " ".join(map(str, game.stack)))
    out.append("blind = " + " ".join(map(str, game.blind)))
    if not game.is_nolimit:
        out.append("raiseSize = " + " ".join(map(str, game.raise_size)))
    if any(game.first_player):
        out.append("firstPlayer = " + " ".join(str(f + 1) for f in game.first_player))
    if any(m != UNLIMITED_RAISES for m in game.max_raises):
        out.append("maxRaises = " + " ".join(map(str, game.max_raises)))
    out.append(f"numSuits = {game.num_suits}")
    out.append(f"numRanks = {game.num_ranks}")
    out.append(f"numHoleCards = {game.num_hole_cards}")
    out.append("numBoardCards = " + " ".join(map(str, game.num_board_cards)))
    out.append("END GAMEDEF")
    return "\n".join(out) + "\n"


# --- bundled games ---------------------------------------------------------------


#: The game files the ACPC reference dealer ships, by file name, and the bundled game
#: each one is (the same rules; the tests compare them).
REFERENCE_GAME_FILES = {
    "holdem.limit.2p.reverse_blinds.game": "holdem.limit.2p",
    "holdem.nolimit.2p.reverse_blinds.game": "holdem.nolimit.2p",
    "holdem.limit.3p.game": "holdem.limit.3p",
    "holdem.nolimit.3p.game": "holdem.nolimit.3p",
    "kuhn.limit.3p.game": "kuhn.limit.3p",
}


def bundled_game_names() -> list[str]:
    """Short names of the games shipped in ``protocol/games`` (e.g. ``holdem.nolimit.2p``)."""
    folder = resources.files("protocol") / "games"
    return sorted(p.name[: -len(".game")] for p in folder.iterdir() if p.name.endswith(".game"))


def bundled_game_path(name: str) -> Path:
    """Filesystem path of a bundled game (usable by the reference dealer too)."""
    return Path(str(resources.files("protocol") / "games" / f"{name}.game"))


def bundled_name(name: str) -> str | None:
    """The bundled game a name denotes: a short name (``holdem.nolimit.2p``), its file
    name (``holdem.nolimit.2p.game``) or a reference dealer game file name
    (``holdem.nolimit.2p.reverse_blinds.game``), with or without a folder; else None."""
    base = Path(name).name
    short = REFERENCE_GAME_FILES.get(base, base.removesuffix(".game"))
    return short if short in bundled_game_names() else None


def load_game(name_or_path: str | Path) -> GameDef:
    """Load a game by ``.game`` path, or by a name :func:`bundled_name` knows.

    A bundled short name wins over a file of that name in the working folder; an
    existing file wins over a file name that denotes a bundled game, so a user's own
    ``holdem.limit.3p.game`` is read as written.

    Raises:
        GameDefError: if neither a readable file nor a known name, or malformed.
    """
    text = str(name_or_path)
    path = Path(text)
    if text in bundled_game_names():
        path = bundled_game_path(text)
    elif not path.is_file():
        short = bundled_name(text)
        if short is None:
            names = ", ".join(bundled_game_names())
            raise GameDefError(
                f"no such game file or bundled game (bundled: {names}; the reference dealer's game file names work too)",
                source=text,
            )
        path = bundled_game_path(short)
    try:
        content = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GameDefError(f"cannot read the game file ({exc.__class__.__name__})", source=str(path)) from None
    return parse_gamedef(content, source=str(path))
