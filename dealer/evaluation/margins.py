"""Heads-up showdown margins of every private hand against one known hand.

For a seat holding private hand ``h`` (:func:`protocol.decisions.private_hands`) and an
opponent holding known cards, the *margin* is P(win) − P(lose) over every completion
of the board dealt so far, both hands' cards removed.  With chips ``c`` called by each
player, the check-down value of that seat (:class:`dealer.evaluation.values.CheckDownValue`)
is ``margin · min(c)``, so one margin vector per board gives the value of every node of a
hand for every private hand at once (:mod:`dealer.evaluation.rangeaivat`).

* Any game: exact pattern counts per hand (:func:`dealer.evaluation.showdown.outcome_counts`).
* Hold'em from the flop on: one pass over the run-outs ranks all 1,326 hands per run-out.
* Hold'em before the flop: a table of exact pairwise margins over the 1,712,304 boards,
  built once from one pattern count per suit-isomorphism class of the two hands (about
  50,000 classes, a minute of CPU) and cached on disk beside the evaluator's tables.
"""

from __future__ import annotations

import os
from functools import lru_cache
from itertools import permutations
from pathlib import Path

import numpy as np
from numba import njit

from dealer.evaluation.showdown import outcome_counts
from dealer.evaluation.values import AivatError
from protocol.cards import deck
from protocol.decisions import private_hands
from protocol.fasteval import HOLE_PAIRS, NUM_CARDS, NUM_HOLE_PAIRS, EvalTables, cache_path, eval_tables, fast_rank, range_ranks
from protocol.gamedef import GameDef

_PREFLOP_FORMAT = 1
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
    """
    n = board.shape[0]
    need = 5 - n
    river = np.empty(5, np.int64)
    river[:n] = board
    seven = np.empty(7, np.int64)
    ranks = np.empty(NUM_HOLE_PAIRS, np.int32)
    score = np.zeros(NUM_HOLE_PAIRS, np.int64)
    seen = np.zeros(NUM_HOLE_PAIRS, np.int64)
    r = rest.shape[0]
    idx = np.arange(need)
    while True:
        for j in range(need):
            river[n + j] = rest[idx[j]]
        range_ranks(t, river, 5, ranks)
        seven[:5] = river
        seven[5] = opponent[0]
        seven[6] = opponent[1]
        mine = fast_rank(t, seven, 7)
        for p in range(NUM_HOLE_PAIRS):
            if ranks[p] > 0:
                seen[p] += 1
                if ranks[p] > mine:
                    score[p] += 1
                elif ranks[p] < mine:
                    score[p] -= 1
        # Next run-out (combinations of `need` cards of `rest`, odometer order).
        i = need - 1
        while i >= 0 and idx[i] == r - need + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, need):
            idx[j] = idx[j - 1] + 1
    for p in range(NUM_HOLE_PAIRS):
        a, b = HOLE_PAIRS[p, 0], HOLE_PAIRS[p, 1]
        blocked = a == opponent[0] or a == opponent[1] or b == opponent[0] or b == opponent[1]
        out[p] = 0.0 if blocked or seen[p] == 0 else score[p] / seen[p]


# --- hold'em before the flop ------------------------------------------------------------------


def preflop_path() -> Path:
    """Where the pre-flop margin table is cached (beside the evaluator's tables)."""
    return cache_path().with_name(f"preflop-margins-v{_PREFLOP_FORMAT}.npy")


@lru_cache(maxsize=1)
def preflop_table() -> np.ndarray:
    """float64 ``(1326, 1326)``: ``[opponent pair, pair]`` margin of ``pair`` before the flop
    (0 where they share a card); built and cached on first use."""
    path = preflop_path()
    if path.is_file():
        table = np.load(path)
        if table.shape == (NUM_HOLE_PAIRS, NUM_HOLE_PAIRS):
            return table
    table = build_preflop_table()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp.npy")
    np.save(partial, table)
    os.replace(partial, path)
    return table


def _canonical(a: np.ndarray, b: np.ndarray) -> np.ndarray:
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
    forward, backward = _canonical(a, b), _canonical(b, a)
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
