"""Hold'em ranges in the notation range solvers share, as weights over the 1,326 hole pairs.

A range is comma-separated tokens (whitespace around them is ignored), each optionally
followed by ``:WEIGHT`` (a number in [0, 1], default 1):

===========================  ==================================================
``AA``                       a pair (6 combos)
``22+`` / ``TT-77``          pairs from 22 up to AA / from TT down to 77
``AKs`` ``AKo`` ``AK``       suited (4), offsuit (12), both (16)
``A2s+`` ``KTo+`` ``K9+``    the second rank up to one below the first: A2s..AKs
``A9s-A6s``                  the second rank between the ends, the first fixed
``T9s-65s``                  both ranks stepping down together (the same gap)
``AhKh``                     one combo
``random`` / ``all``         every combo
===========================  ==================================================

Ranks and suit letters are read in either case; ``KAs`` is ``AKs``.  A combo given by
two tokens must get the same weight from both (``AKs,AhKh:0.5`` is refused): a range
that says two things about one hand is a typo more often than a wish, and no
precedence rule would be obvious.  Combos holding a board card are removed
(:func:`parse_range`'s ``board``), silently, unless nothing is left.

The 169 hand classes (:data:`CLASS_NAMES`) are in the order of the usual 13 x 13 grid
read row by row: ``AA AKs AQs ... A2s AKo KK KQs ...``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from protocol.cards import RANK_CHARS, SUIT_CHARS, card_rank, card_suit, cards_str, make_card
from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS

#: The words that mean every combo.
EVERY = ("random", "all")
_RANK = {c: i for i, c in enumerate(RANK_CHARS)} | {c.lower(): i for i, c in enumerate(RANK_CHARS)}
_SUIT = {c: i for i, c in enumerate(SUIT_CHARS)} | {c.upper(): i for i, c in enumerate(SUIT_CHARS)}
_CLASS = re.compile(r"^(.)(.)(.?)$")
_COMBO = re.compile(r"^(.)(.)(.)(.)$")
EXAMPLES = "e.g. AA, 22+, TT-77, AKs, AKo, AK, A2s+, T9s-65s, AhKh, QJo:0.5, random"


class RangeError(ValueError):
    """A range cannot be read: the message names the token and what is wrong with it."""


def _grid_index(high: int, low: int, suited: bool) -> int:
    """The grid cell of ranks ``high >= low`` (0..12, 2..A)."""
    a, b = 12 - high, 12 - low
    if high == low:
        return a * 13 + a
    return a * 13 + b if suited else b * 13 + a  # suited right of the diagonal, offsuit left


def _class_name(index: int) -> str:
    a, b = divmod(index, 13)
    if a == b:
        return RANK_CHARS[12 - a] * 2
    if b > a:
        return RANK_CHARS[12 - a] + RANK_CHARS[12 - b] + "s"
    return RANK_CHARS[12 - b] + RANK_CHARS[12 - a] + "o"


#: The 169 classes in grid order (AA AKs ... A2s AKo KK ...).
CLASS_NAMES: tuple[str, ...] = tuple(_class_name(i) for i in range(169))


def _pair_class(lo: int, hi: int) -> int:
    rh, rl = card_rank(hi), card_rank(lo)
    high, low = max(rh, rl), min(rh, rl)
    return _grid_index(high, low, card_suit(hi) == card_suit(lo))


#: (1,326,) int64: the class (index into :data:`CLASS_NAMES`) of each hole pair.
PAIR_CLASS = np.array([_pair_class(int(a), int(b)) for a, b in HOLE_PAIRS], np.int64)


def pair_index(a: int, b: int) -> int:
    """The row of cards ``a != b`` in :data:`protocol.fasteval.HOLE_PAIRS`."""
    lo, hi = min(a, b), max(a, b)
    return hi * (hi - 1) // 2 + lo


def combo_str(index: int) -> str:
    """Hole pair ``index`` with the higher card first, e.g. ``AhKh``."""
    a, b = (int(c) for c in HOLE_PAIRS[index])
    return cards_str(sorted((a, b), reverse=True))


def parse_range(text: str, board: Iterable[int] = ()) -> np.ndarray:
    """The weights (1,326,) float64 in HOLE_PAIRS order of range ``text`` (see the module
    docstring), 0 for combos not named or holding a card of ``board``.

    Raises:
        RangeError: naming the bad token (1-based) and why, or saying the range is empty.
    """
    board = tuple(board)
    weights = np.zeros(NUM_HOLE_PAIRS)
    source: dict[int, tuple[float, int, str]] = {}  # combo -> (weight, token number, token)
    tokens = text.split(",")
    named = 0
    for number, raw in enumerate(tokens, start=1):
        token = raw.strip()
        if not token:
            if len(tokens) > 1 and number < len(tokens):  # a trailing comma is harmless; an empty middle token is a typo
                raise RangeError(f"token {number} of the range {text.strip()!r} is empty (two commas in a row?)")
            continue
        named += 1
        body, weight = _weight(token, number)
        for combo in _combos(body, token, number):
            earlier = source.get(combo)
            if earlier is not None and earlier[0] != weight:
                raise RangeError(
                    f"{token!r} in token {number} gives {combo_str(combo)} weight {weight:g}, but token {earlier[1]} "
                    f"({earlier[2]!r}) gave it {earlier[0]:g}; give each combo one weight"
                )
            source[combo] = (weight, number, token)
            weights[combo] = weight
    if not named:
        raise RangeError(f"the range {text!r} names no hands ({EXAMPLES})")
    if board:
        weights[blocked_by(board)] = 0.0
    if not weights.sum() > 0:
        where = f" once the combos holding a board card ({cards_str(board)}) are removed" if board else ""
        raise RangeError(f"the range {text.strip()!r} is empty{where}")
    return weights


def blocked_by(board: Iterable[int]) -> np.ndarray:
    """(1,326,) bool: the hole pairs holding a card of ``board``."""
    cards = np.array(list(board), np.int64)
    return np.isin(HOLE_PAIRS[:, 0], cards) | np.isin(HOLE_PAIRS[:, 1], cards)


def format_weights(weights: np.ndarray) -> dict[str, float]:
    """The combos of ``weights`` (1,326,) with a positive weight: ``{"AhKh": 1.0, ...}``."""
    return {combo_str(int(i)): float(weights[i]) for i in np.flatnonzero(weights > 0)}


def weights_from_combos(combos: dict, where: str) -> np.ndarray:
    """The inverse of :func:`format_weights`.

    Raises:
        RangeError: naming the bad combo or weight (``where`` says whose range it is).
    """
    weights = np.zeros(NUM_HOLE_PAIRS)
    for name, weight in combos.items():
        match = _COMBO.match(str(name))
        cards = _cards(match, str(name), where) if match else None
        if cards is None or not isinstance(weight, int | float) or not 0 <= weight <= 1:
            raise RangeError(f"{where}: {name!r}: {weight!r} is not a combo (e.g. AhKh) with a weight in [0, 1]")
        weights[pair_index(*cards)] = float(weight)
    return weights


def _weight(token: str, number: int) -> tuple[str, float]:
    if ":" not in token:
        return token, 1.0
    body, text = (part.strip() for part in token.rsplit(":", 1))
    try:
        weight = float(text)
    except ValueError:
        raise RangeError(f"{token!r}: the weight {text!r} is not a number in token {number}") from None
    if not 0 <= weight <= 1:  # also refuses NaN
        raise RangeError(f"{token!r}: the weight {text} is outside [0, 1] in token {number}")
    return body, weight


def _combos(body: str, token: str, number: int) -> list[int]:
    """The hole-pair rows one token's body names."""
    if body.lower() in EVERY:
        return list(range(NUM_HOLE_PAIRS))
    if "-" in body:
        first, last = (_class(part.strip(), token, number) for part in body.split("-", 1))
        return _span(first, last, token, number)
    if body.endswith("+"):
        high, low, kind = _class(body[:-1], token, number)
        if high == low:
            return [c for r in range(high, 13) for c in _class_combos(r, r, kind)]
        return [c for r in range(low, high) for c in _class_combos(high, r, kind)]
    combo = _COMBO.match(body)
    if combo:
        return [pair_index(*_cards(combo, token, f"token {number}"))]
    high, low, kind = _class(body, token, number)
    return _class_combos(high, low, kind)


def _span(first: tuple[int, int, str], last: tuple[int, int, str], token: str, number: int) -> list[int]:
    """``TT-77``, ``A9s-A6s``, ``T9s-65s``: every class between the two ends."""
    (h1, l1, k1), (h2, l2, k2) = first, last
    if k1 != k2 or (h1 == l1) != (h2 == l2):
        raise RangeError(f"{token!r}: both ends of a span must be the same kind of hand (pairs, s, o or both) in token {number}")
    if h1 == l1:
        return [c for r in range(min(h1, h2), max(h1, h2) + 1) for c in _class_combos(r, r, k1)]
    if h1 == h2:
        return [c for r in range(min(l1, l2), max(l1, l2) + 1) for c in _class_combos(h1, r, k1)]
    if h1 - l1 == h2 - l2:
        gap = h1 - l1
        return [c for r in range(min(h1, h2), max(h1, h2) + 1) for c in _class_combos(r, r - gap, k1)]
    raise RangeError(
        f"{token!r}: the ends of a span must share the first rank (A9s-A6s) or the gap between the ranks (T9s-65s) "
        f"in token {number}"
    )


def _class(body: str, token: str, number: int) -> tuple[int, int, str]:
    """(high rank, low rank, kind) of ``AKs``/``AKo``/``AK``/``AA``; kind is 's', 'o' or ''."""
    match = _CLASS.match(body)
    if not match:
        raise RangeError(f"{token!r}: {body!r} is not a hand, range or combo in token {number} ({EXAMPLES})")
    r1, r2 = (_rank(match.group(i), token, number) for i in (1, 2))
    kind = match.group(3).lower()
    if kind not in ("", "s", "o"):
        raise RangeError(f"{token!r}: unknown suit letter {match.group(3)!r} in token {number} (s suited, o offsuit)")
    if r1 == r2 and kind:
        raise RangeError(f"{token!r}: a pair is neither suited nor offsuit in token {number}")
    return max(r1, r2), min(r1, r2), kind


def _rank(char: str, token: str, number: int) -> int:
    if char not in _RANK:
        raise RangeError(f"{token!r}: unknown rank {char!r} in token {number} (ranks are 23456789TJQKA)")
    return _RANK[char]


def _cards(match: re.Match, token: str, where: str) -> tuple[int, int]:
    r1, s1, r2, s2 = match.groups()
    for char in (r1, r2):
        if char not in _RANK:
            raise RangeError(f"{token!r}: unknown rank {char!r} in {where} (ranks are 23456789TJQKA)")
    for char in (s1, s2):
        if char not in _SUIT:
            raise RangeError(f"{token!r}: unknown suit letter {char!r} in {where} (suits are cdhs)")
    a, b = make_card(_RANK[r1], _SUIT[s1]), make_card(_RANK[r2], _SUIT[s2])
    if a == b:
        raise RangeError(f"{token!r}: the same card twice in {where}")
    return a, b


def _class_combos(high: int, low: int, kind: str) -> list[int]:
    """The hole-pair rows of class (high, low, kind)."""
    suits = range(4)
    if high == low:
        return [pair_index(make_card(high, s), make_card(high, t)) for s in suits for t in suits if s < t]
    out = []
    for s in suits:
        for t in suits:
            if (s == t and kind != "o") or (s != t and kind != "s"):
                out.append(pair_index(make_card(high, s), make_card(low, t)))
    return out
