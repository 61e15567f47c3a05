"""Heads-up showdown margins of every private hand against one known hand.

For a seat holding private hand ``h`` (:func:`protocol.decisions.private_hands`) and an
opponent holding known cards, the *margin* is P(win) − P(lose) over every completion
of the board dealt so far, both hands' cards removed.  With chips ``c`` called by each
player, the check-down value of that seat (:class:`dealer.evaluation.values.CheckDownValue`)
is ``margin · min(c)``, so one margin vector per board gives the value of every node of a
hand for every private hand at once (:mod:`dealer.evaluation.rangeaivat`).

* Any game: exact pattern counts per hand (:func:`dealer.evaluation.showdown.outcome_counts`).
* Hold'em from the flop on: one pass over the run-outs, ranking the 91 rank pairs (and
  only the hands that could make a flush card by card) per run-out.
* Hold'em before the flop: a table of exact pairwise margins over the 1,712,304 boards,
  computed from one pattern count per suit-isomorphism class of the two matchups (47,008
  classes, about 70 s of CPU) and shipped (:data:`SHIPPED_PREFLOP`, 296 KB).
"""

from __future__ import annotations

import hashlib
import lzma
from functools import lru_cache
from itertools import permutations
from pathlib import Path

import numpy as np
import structlog
from numba import njit

from dealer.evaluation.showdown import outcome_counts
from dealer.evaluation.values import AivatError
from protocol.cards import deck
from protocol.decisions import private_hands
from protocol.fasteval import (
    HOLE_PAIRS,
    NUM_CARDS,
    NUM_HOLE_PAIRS,
    EvalTables,
    eval_tables,
    rank_of_multiset,
    rank_of_sums,
)
from protocol.gamedef import GameDef

log = structlog.get_logger("dealer.evaluation.margins")
#: Pattern codes of two players (``level_0 + 2 * level_1``): who has the better hand.
_TIE, _SECOND_WINS, _FIRST_WINS = 0, 1, 2


def is_holdem(game: GameDef) -> bool:
    """Whether ``game`` deals hold'em cards (52 cards, 2 hole cards, a 3-1-1 board)."""
    return (
        game.num_suits * game.num_ranks == NUM_CARDS and game.num_hole_cards == 2 and game.total_board_cards == 5
        and game.num_board_cards[: 4] == (0, 3, 1, 1)[: game.num_rounds]
    )  # fmt: skip


class ShowdownMargins:
    """Margins of every private hand of ``game`` (heads-up) against a known opponent hand."""

    def __init__(self, game: GameDef) -> None:
        if game.num_players != 2:
            raise AivatError("AIVAT over a seat's whole range handles two-player games")
        self.game = game
        self.hands = np.array(private_hands(game), dtype=np.int64)
        self._deck = tuple(deck(game))
        self._holdem = is_holdem(game)

    def compatible(self, dead: tuple[int, ...]) -> np.ndarray:
        """bool ``(hands,)``: private hands sharing no card with ``dead``."""
        if not dead:
            return np.ones(len(self.hands), dtype=bool)
        return ~np.isin(self.hands, np.array(dead, dtype=np.int64)).any(axis=1)

    def margins(self, opponent: tuple[int, ...], board: tuple[int, ...]) -> np.ndarray:
        """float64 ``(hands,)``: P(win) − P(lose) of each private hand; 0 where it meets
        ``opponent`` or ``board``."""
        if self._holdem:
            if board:
                return _holdem_postflop(opponent, board)
            return preflop_table()[_pair_index(opponent)]
        out = np.zeros(len(self.hands))
        total = self.game.total_board_cards
        for i in np.flatnonzero(self.compatible(opponent + board)):
            counts = outcome_counts(self._deck, (tuple(self.hands[i]), opponent), board, total)
            out[i] = (counts[_FIRST_WINS] - counts[_SECOND_WINS]) / counts.sum()
        return out


def _pair_index(cards: tuple[int, ...]) -> int:
    low, high = sorted(cards)
    return high * (high - 1) // 2 + low


# --- hold'em after the flop ------------------------------------------------------------


def _holdem_postflop(opponent: tuple[int, ...], board: tuple[int, ...]) -> np.ndarray:
    dead = set(opponent) | set(board)
    rest = np.array([c for c in range(NUM_CARDS) if c not in dead], dtype=np.int64)
    out = np.zeros(NUM_HOLE_PAIRS)
    _postflop_kernel(eval_tables(), np.array(opponent, np.int64), np.array(board, np.int64), rest, out)
    return out


@njit(cache=True)
def _postflop_kernel(t: EvalTables, opponent: np.ndarray, board: np.ndarray, rest: np.ndarray, out: np.ndarray) -> None:
    """Margins of every hole pair against ``opponent`` (int64 (2,)) over every run-out.

    board: int64 (3..5,); rest: int64 (R,) the cards neither on the board nor held by the
    opponent; out: float64 (1326,), written (0 for pairs meeting the board or opponent).

    A pair that cannot make a flush ranks as its two ranks do, whatever its suits, so
    each run-out ranks the 91 rank pairs once and scores each against the opponent: a
    pair's total is its rank pair's sum over all run-outs, minus the run-outs holding
    either of its cards, plus the one holding both (inclusion-exclusion); then the
    pairs that could make a flush on a run-out (at most one suit has three board cards)
    are ranked card by card and their score corrected.
    """
    n = board.shape[0]
    need = 5 - n
    river = np.empty(5, np.int64)
    river[:n] = board
    five = np.array([5**r for r in range(13)], np.int64)
    scores = np.empty(169, np.int64)  # by rank pair low * 13 + high, this run-out
    total = np.zeros(169, np.int64)
    holding = np.zeros((169, NUM_CARDS), np.int64)  # run-outs holding a card, by rank pair
    extra = np.zeros(NUM_HOLE_PAIRS, np.int64)  # both cards held, and flush corrections
    suits = np.zeros(4, np.int64)
    rank_pair = np.empty(NUM_HOLE_PAIRS, np.int64)
    mask = np.empty(NUM_HOLE_PAIRS, np.int64)
    for p in range(NUM_HOLE_PAIRS):
        a, b = HOLE_PAIRS[p, 0], HOLE_PAIRS[p, 1]
        rank_pair[p] = (a // 4) * 13 + b // 4  # a < b, so rank(a) <= rank(b)
        mask[p] = (1 << a) | (1 << b)
    # Pairs that can flush with three (two cards of the suit) or four (one) of a suit on the board.
    suits_of = HOLE_PAIRS % 4
    suited = [np.flatnonzero((suits_of[:, 0] == x) & (suits_of[:, 1] == x)) for x in range(4)]
    touching = [np.flatnonzero((suits_of[:, 0] == x) | (suits_of[:, 1] == x)) for x in range(4)]
    everyone = np.arange(NUM_HOLE_PAIRS)
    blocked = (1 << opponent[0]) | (1 << opponent[1])
    for c in board:
        blocked |= 1 << c
    r = rest.shape[0]
    idx = np.arange(need)
    while True:
        for j in range(need):
            river[n + j] = rest[idx[j]]
        key = 0
        bits = 0
        used = blocked
        suits[:] = 0
        for c in river:
            key += t.card_key[c]
            bits |= t.card_bit[c]
            used |= 1 << c
            suits[c % 4] += 1
        theirs = rank_of_sums(
            t, key + t.card_key[opponent[0]] + t.card_key[opponent[1]],
            bits | t.card_bit[opponent[0]] | t.card_bit[opponent[1]],
        )  # fmt: skip
        ranks = key >> 16  # the board's rank multiset, base 5 (see protocol.fasteval)
        for low in range(13):
            for high in range(low, 13):
                # A rank pair the deck cannot give here only meets pairs the run-out blocks,
                # whose counts inclusion-exclusion removes again.
                mine = rank_of_multiset(t, ranks + five[low] + five[high])
                v = (mine > theirs) - (mine < theirs)
                scores[low * 13 + high] = v
                total[low * 13 + high] += v
                for j in range(need):
                    holding[low * 13 + high, river[n + j]] += v
        if need == 2:
            x, y = min(river[3], river[4]), max(river[3], river[4])
            p = y * (y - 1) // 2 + x
            extra[p] += scores[rank_pair[p]]
        flush_suit = -1
        for x in range(4):
            if suits[x] >= 3:
                flush_suit = x
        if flush_suit >= 0:
            # Three of the suit on the board: only pairs of two of it can flush; four: one is
            # enough; five: every pair plays the board's flush at least.
            count = suits[flush_suit]
            candidates = suited[flush_suit] if count == 3 else touching[flush_suit] if count == 4 else everyone
            for p in candidates:
                if used & mask[p]:
                    continue
                a, b = HOLE_PAIRS[p, 0], HOLE_PAIRS[p, 1]
                held = (a % 4 == flush_suit) + (b % 4 == flush_suit)
                if suits[flush_suit] + held >= 5:
                    mine = rank_of_sums(t, key + t.card_key[a] + t.card_key[b], bits | t.card_bit[a] | t.card_bit[b])
                    extra[p] += (mine > theirs) - (mine < theirs) - scores[rank_pair[p]]
        # Next run-out (combinations of `need` cards of `rest`, odometer order).
        i = need - 1
        while i >= 0 and idx[i] == r - need + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, need):
            idx[j] = idx[j - 1] + 1
    # Run-outs avoiding a pair's two cards, both among `rest`.
    seen = 1.0
    for j in range(need):
        seen = seen * (r - 2 - j) / (j + 1)
    for p in range(NUM_HOLE_PAIRS):
        if blocked & mask[p]:
            out[p] = 0.0
        else:
            a, b = HOLE_PAIRS[p, 0], HOLE_PAIRS[p, 1]
            k = rank_pair[p]
            out[p] = (total[k] - holding[k, a] - holding[k, b] + extra[p]) / seen


# --- hold'em before the flop ------------------------------------------------------------------


#: The exact pre-flop margins, shipped: little-endian int32, boards won minus boards lost (of
#: the 1,712,304 avoiding both hands) by pair j against pair i, for i < j in row order.
SHIPPED_PREFLOP = Path(__file__).parent / "data" / "preflop-margins.xz"
_PREFLOP_BOARDS = 1_712_304
_PREFLOP_SHA256 = "9e50d848e5c26179589f64c8bc6ee364ac1ae4a6a4d3f831b3c91214fb73d68a"


@lru_cache(maxsize=1)
def preflop_table() -> np.ndarray:
    """float64 ``(1326, 1326)``: ``[opponent pair, pair]`` margin of ``pair`` before the flop
    (0 where they share a card), from :data:`SHIPPED_PREFLOP`; rebuilt from scratch (about a
    minute) if that file is missing or damaged."""
    try:
        raw = lzma.decompress(SHIPPED_PREFLOP.read_bytes())
        if hashlib.sha256(raw).hexdigest() != _PREFLOP_SHA256:
            raise ValueError("checksum mismatch")
    except (OSError, ValueError, lzma.LZMAError) as exc:
        log.warning("rebuilding the pre-flop margin table", file=str(SHIPPED_PREFLOP), reason=str(exc))
        return build_preflop_table()
    table = np.zeros((NUM_HOLE_PAIRS, NUM_HOLE_PAIRS))
    upper = np.triu_indices(NUM_HOLE_PAIRS, 1)
    table[upper] = np.frombuffer(raw, dtype="<i4") / _PREFLOP_BOARDS
    return table - table.T


def write_preflop_table(path: Path = SHIPPED_PREFLOP) -> str:
    """Compute the table from scratch and write it as shipped; returns the SHA-256 of its contents."""
    counts = np.rint(build_preflop_table()[np.triu_indices(NUM_HOLE_PAIRS, 1)] * _PREFLOP_BOARDS).astype("<i4")
    raw = counts.tobytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(lzma.compress(raw, preset=9))
    return hashlib.sha256(raw).hexdigest()


def canonical_matchups(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Key of the suit-isomorphism class of each ordered pair ``(a[i], b[i])`` of hole pairs
    (int64 ``(n, 2)`` cards each): the smallest ``index(a) * 1326 + index(b)`` over the 24
    relabellings of the suits."""
    key = np.full(a.shape[0], np.iinfo(np.int64).max)
    for perm in permutations(range(4)):
        relabel = np.array([(c // 4) * 4 + perm[c % 4] for c in range(NUM_CARDS)], dtype=np.int64)
        pa, pb = np.sort(relabel[a], axis=1), np.sort(relabel[b], axis=1)
        ia = pa[:, 1] * (pa[:, 1] - 1) // 2 + pa[:, 0]
        ib = pb[:, 1] * (pb[:, 1] - 1) // 2 + pb[:, 0]
        np.minimum(key, ia * NUM_HOLE_PAIRS + ib, out=key)
    return key


def build_preflop_table() -> np.ndarray:
    """The exact pre-flop margins (see :func:`preflop_table`), computed from scratch.

    A pair and its swap have opposite margins, so one count serves both orders: a
    class is keyed by the smaller of the two orders' keys.
    """
    first, second = np.meshgrid(np.arange(NUM_HOLE_PAIRS), np.arange(NUM_HOLE_PAIRS), indexing="ij")
    first, second = first.ravel(), second.ravel()
    a, b = HOLE_PAIRS[first], HOLE_PAIRS[second]
    disjoint = ~((a[:, :, None] == b[:, None, :]).any(axis=(1, 2)))
    first, second, a, b = first[disjoint], second[disjoint], a[disjoint], b[disjoint]
    forward, backward = canonical_matchups(a, b), canonical_matchups(b, a)
    classes, inverse = np.unique(np.minimum(forward, backward), return_inverse=True)
    full_deck = tuple(range(NUM_CARDS))
    margin = np.empty(classes.shape[0])
    for k, code in enumerate(classes):
        mine, theirs = HOLE_PAIRS[code // NUM_HOLE_PAIRS], HOLE_PAIRS[code % NUM_HOLE_PAIRS]
        # Unwrapped: tens of thousands of one-off counts would only churn the cache.
        counts = outcome_counts.__wrapped__(full_deck, (tuple(mine), tuple(theirs)), (), 5)
        margin[k] = (counts[_FIRST_WINS] - counts[_SECOND_WINS]) / counts.sum()
    sign = np.where(forward <= backward, 1.0, -1.0)
    table = np.zeros((NUM_HOLE_PAIRS, NUM_HOLE_PAIRS))
    table[second, first] = sign * margin[inverse]
    return table
