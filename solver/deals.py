"""Private hands and boards of a game as integer indices, for kernels that vectorize over them.

A *hand* is a set of ``num_hole_cards`` cards from the deck; hands are numbered by
the colex rank of their deck positions, so a kernel can index a dealt hand without a
lookup table.  A *board at round r* is the sequence of board-card sets dealt up to
round ``r``; its index is mixed-radix, one digit per round, each digit the colex rank
of that round's cards among the cards not yet on the board.  The boards extending
board ``b`` of round ``r`` to round ``s > r`` are therefore the contiguous range
``b * E .. (b + 1) * E - 1`` with ``E = extensions(r, s)``.

Hand/board conflicts are not removed from the numbering; kernels mask them with
:attr:`CardSpace.compat`.  Round ``-1`` means "before any board card".

A space may be rooted at a known board (subgame solving): its deck is then the cards
not on that board, so hands and later boards are numbered among those, and every
round whose cards are known has the single known board.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations
from math import comb, factorial, perm, prod

import numpy as np
from numba import njit

from protocol.cards import deck
from protocol.gamedef import GameDef
from protocol.handrank import rank_cards

#: Range kernels support one- and two-card hands (card removal by inclusion-exclusion).
MAX_RANGE_HOLE_CARDS = 2
#: Above this many (board, hand) rows a game is too big to enumerate.
MAX_ROWS = 20_000_000

_BINOM = np.array([[comb(n, k) for k in range(8)] for n in range(53)], dtype=np.int64)


class CardSpaceError(ValueError):
    """A game's hands and boards cannot be enumerated by these kernels."""


@dataclass(frozen=True, eq=False)
class CardSpace:
    """Hands and boards of one game.

    Attributes:
        deck: the cards in the reference order, shape (N,), less the known board.
        known_board: the board cards fixed before the space starts (subgames), shape (K,).
        hands: (n_hands, k) cards of each hand, ascending deck position.
        n_boards: boards per round, length num_rounds.
        boards: per round, (n_boards[r], cards through r) board cards.
        compat: per round, (n_boards[r], n_hands) uint8, 1 if the hand avoids the board.
        final_rank: (n_final_boards, n_hands) showdown rank with the full board, -1 on conflict.
        final_order: (n_final_boards, n_hands) hands sorted by ``final_rank`` ascending.
    """

    game: GameDef
    deck: np.ndarray
    known_board: np.ndarray
    hands: np.ndarray
    n_boards: tuple[int, ...]
    boards: tuple[np.ndarray, ...]
    compat: tuple[np.ndarray, ...]
    final_rank: np.ndarray
    final_order: np.ndarray

    @property
    def n_hands(self) -> int:
        return len(self.hands)

    def rows(self, round_: int) -> int:
        """(board, hand) rows at round ``round_``: the tabular infoset rows per betting node."""
        return self.n_boards[round_] * self.n_hands

    def extensions(self, from_round: int, to_round: int) -> int:
        """How many boards of ``to_round`` extend one board of ``from_round``."""
        return self.n_boards[to_round] // (self.n_boards[from_round] if from_round >= 0 else 1)

    def deal_probability(self, from_round: int, to_round: int) -> float:
        """Probability of one board extension given every player's hand (all players dealt)."""
        g = self.game
        dealt = g.num_players * g.num_hole_cards
        p = 1.0
        for r in range(from_round + 1, to_round + 1):
            # Cards not yet seen when round r is dealt; known rounds have one board.
            unseen = len(self.deck) + len(self.known_board) - dealt - (g.board_cards_through(r - 1) if r > 0 else 0)
            if self.n_boards[r] > (self.n_boards[r - 1] if r > 0 else 1):
                p /= comb(unseen, g.num_board_cards[r])
        return p

    def hand_probability(self) -> float:
        """Probability of one particular assignment of hands to all players."""
        n, k = len(self.deck), self.game.num_hole_cards
        return 1.0 / prod(comb(n - i * k, k) for i in range(self.game.num_players))

    def hand_index(self, cards: tuple[int, ...]) -> int:
        """Index of the hand made of ``cards`` (any order)."""
        pos = sorted(int(np.flatnonzero(self.deck == c)[0]) for c in cards)
        return sum(int(_BINOM[p, i + 1]) for i, p in enumerate(pos))

    def board_index(self, board: tuple[int, ...] | list[int]) -> tuple[int, int]:
        """(round, index) of a board given as its cards in dealing order (known board first).

        Raises:
            CardSpaceError: if the cards do not extend the known board by whole rounds.
        """
        g, cards = self.game, [int(c) for c in board]
        known = self.known_board.tolist()
        rounds = [r for r in range(g.num_rounds) if g.board_cards_through(r) == len(cards)]
        if cards[: len(known)] != known or not rounds or len(set(cards)) != len(cards) or not set(cards) <= set(
            self.deck.tolist()
        ) | set(known):
            raise CardSpaceError(f"board {cards} does not extend the known board {known} by whole rounds of this game")
        index = 0
        for r in range(rounds[-1] + 1):
            lo, hi = g.board_cards_through(r - 1) if r > 0 else 0, g.board_cards_through(r)
            if hi <= len(known):
                continue
            rest = [c for c in self.deck.tolist() if c not in cards[:lo]]
            pos = sorted(rest.index(c) for c in cards[lo:hi])
            index = index * self.extensions(r - 1, r) + sum(comb(p, i + 1) for i, p in enumerate(pos))
        return rounds[-1], index

    def board_at(self, final_board: int, round_: int) -> int:
        """Index at ``round_`` of the board that final board ``final_board`` starts with."""
        return final_board // self.extensions(round_, self.game.num_rounds - 1)


def card_space(game: GameDef, board: tuple[int, ...] = (), last_round: int | None = None) -> CardSpace:
    """Enumerate the hands and boards of ``game``, after the known ``board`` if any.

    Args:
        board: board cards already dealt, in dealing order, whole rounds only.
        last_round: deal no board after this round (a depth-limited subgame's space):
            later rounds keep its boards, and no showdown ranks are computed (its tree
            has no showdown past the cut).

    Raises:
        CardSpaceError: if hands have more than two cards, there are too many rows,
            or ``board`` is not whole rounds of distinct cards of the game's deck.
    """
    k = game.num_hole_cards
    if k > MAX_RANGE_HOLE_CARDS:
        raise CardSpaceError(f"hands of {k} hole cards are not supported (at most {MAX_RANGE_HOLE_CARDS})")
    full = np.array(deck(game), dtype=np.int64)
    known = np.array(board, dtype=np.int64)
    whole_rounds = {0} | {game.board_cards_through(r) for r in range(game.num_rounds)}
    if len(known) not in whole_rounds or len(set(board)) != len(known) or not np.isin(known, full).all():
        raise CardSpaceError(f"known board {list(board)} is not whole rounds of distinct cards of this game's deck")
    cards = full[~np.isin(full, known)]
    hands = _colex_combinations(cards, k)
    boards = [np.zeros((1, 0), np.int64)]  # the empty board before round 0
    for r in range(game.num_rounds):
        if last_round is not None and r > last_round:
            boards.append(boards[-1])
            continue
        if game.board_cards_through(r) <= len(known):
            boards.append(known[None, : game.board_cards_through(r)])
            continue
        rows = []
        for board in boards[-1]:
            rest = cards[~np.isin(cards, board)]
            rows.extend(np.concatenate([board, new]) for new in _colex_combinations(rest, game.num_board_cards[r]))
        boards.append(np.array(rows, dtype=np.int64).reshape(len(rows), -1))
        if len(rows) * len(hands) > MAX_ROWS:
            raise CardSpaceError(
                f"round {r + 1} has {len(rows)} boards x {len(hands)} hands, more than {MAX_ROWS} rows to enumerate"
            )
    boards = boards[1:]
    compat = tuple(_compat(b, hands) for b in boards)
    if last_round is not None and last_round < game.num_rounds - 1:
        final_rank = np.zeros((len(boards[-1]), len(hands)), np.int64)
    else:
        final_rank = _final_ranks(boards[-1], hands, compat[-1])
    final_order = np.argsort(final_rank, axis=1, kind="stable").astype(np.int64)
    return CardSpace(
        game=game,
        deck=cards,
        known_board=known,
        hands=hands,
        n_boards=tuple(len(b) for b in boards),
        boards=tuple(boards),
        compat=compat,
        final_rank=final_rank,
        final_order=final_order,
    )


def all_deals(space: CardSpace, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Every deal of a small game, equally likely: each player's hand and the board.

    Returns hands (deals, players) and boards (deals, rounds), the board index at
    each round; deals are hand tuples (in player order) with pairwise disjoint cards
    times the final boards avoiding them.

    Raises:
        CardSpaceError: if there are more than ``limit`` deals.
    """
    g = space.game
    last = g.num_rounds - 1
    n, k, players = len(space.deck), g.num_hole_cards, g.num_players
    count = perm(n, players * k) // factorial(k) ** players * comb(n - players * k, g.total_board_cards)
    count *= factorial(g.total_board_cards) // prod(factorial(b) for b in g.num_board_cards)  # boards are per-round sets
    if count > limit:
        raise CardSpaceError(f"the game has {count:,} deals, more than the {limit:,} deal enumeration handles")
    hand_sets = [frozenset(h) for h in space.hands.tolist()]
    combos = [c for c in permutations(range(space.n_hands), g.num_players) if _disjoint(hand_sets, c)]
    deals = [(c, b) for c in combos for b in range(space.n_boards[last]) if all(space.compat[last][b, h] for h in c)]
    hands = np.array([c for c, _ in deals], np.int64).reshape(len(deals), g.num_players)
    boards = np.array([[space.board_at(b, r) for r in range(g.num_rounds)] for _, b in deals], np.int64)
    return hands, boards.reshape(len(deals), g.num_rounds)


def _disjoint(hand_sets: list[frozenset], combo: tuple[int, ...]) -> bool:
    seen: set[int] = set()
    for h in combo:
        if seen & hand_sets[h]:
            return False
        seen |= hand_sets[h]
    return True


def _colex_combinations(cards: np.ndarray, k: int) -> np.ndarray:
    """All k-subsets of ``cards`` at their colex rank (over positions in ``cards``)."""
    out = np.zeros((comb(len(cards), k), k), np.int64)
    for pos in combinations(range(len(cards)), k):
        out[sum(comb(p, i + 1) for i, p in enumerate(pos))] = cards[list(pos)]
    return out


def _compat(boards: np.ndarray, hands: np.ndarray) -> np.ndarray:
    clash = (boards[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))
    return (~clash).astype(np.uint8)


@njit(cache=True)
def _final_ranks(boards: np.ndarray, hands: np.ndarray, compat: np.ndarray) -> np.ndarray:
    """(n_boards, n_hands) int64 showdown ranks, -1 where hand and board share a card."""
    n_b, n_h = compat.shape
    k, m = hands.shape[1], boards.shape[1]
    out = np.full((n_b, n_h), -1, np.int64)
    cards = np.empty(k + m, np.int64)
    for b in range(n_b):
        cards[k:] = boards[b]
        for h in range(n_h):
            if compat[b, h]:
                cards[:k] = hands[h]
                out[b, h] = rank_cards(cards, k + m)
    return out


# --- sampled deals (MCCFR) ---------------------------------------------------------


@njit(cache=True)
def next_random(state: np.ndarray) -> np.uint64:
    """splitmix64: advance ``state[0]`` (uint64, mutated) and return 64 random bits."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def random_unit(state: np.ndarray) -> float:
    """A uniform float in [0, 1) from ``state`` (mutated)."""
    return (next_random(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def sample_deals(state: np.ndarray, n_deck: int, n_cards: int, count: int) -> np.ndarray:
    """``count`` rows of ``n_cards`` distinct deck positions (partial Fisher-Yates).

    ``state`` is a uint64 array of one element, advanced in place.
    """
    out = np.empty((count, n_cards), np.int64)
    perm = np.empty(n_deck, np.int64)
    for i in range(count):
        perm[:] = np.arange(n_deck)  # each deal from a fresh deck: batching cannot matter
        for j in range(n_cards):
            pick = j + np.int64(next_random(state) % np.uint64(n_deck - j))
            perm[j], perm[pick] = perm[pick], perm[j]
            out[i, j] = perm[j]
    return out


@njit(cache=True)
def _colex_rank(pos: np.ndarray, lo: int, hi: int) -> int:
    """Colex rank of the positions ``pos[lo:hi]`` (sorted in place first)."""
    for i in range(lo + 1, hi):  # insertion sort: at most a few cards
        j = i
        while j > lo and pos[j - 1] > pos[j]:
            pos[j - 1], pos[j] = pos[j], pos[j - 1]
            j -= 1
    rank = 0
    for i in range(lo, hi):
        rank += _BINOM[pos[i], i - lo + 1]
    return rank


@njit(cache=True)
def deal_indices(
    positions: np.ndarray, n_players: int, k: int, board_sizes: np.ndarray, extensions: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Hand index per player and board index per round of sampled deals.

    Args:
        positions: (count, n_players * k + total board) deck positions, player-major
            hole cards then the board in dealing order (not modified).
        board_sizes: (num_rounds,) new board cards per round.
        extensions: (num_rounds,) boards extending one board of the previous round.

    Returns:
        hands (count, n_players) and boards (count, num_rounds), int64.
    """
    count = positions.shape[0]
    n_rounds = board_sizes.shape[0]
    hands = np.empty((count, n_players), np.int64)
    boards = np.empty((count, n_rounds), np.int64)
    work = np.empty(positions.shape[1], np.int64)
    start = n_players * k
    for i in range(count):
        work[:] = positions[i]
        for p in range(n_players):
            hands[i, p] = _colex_rank(work, p * k, (p + 1) * k)
        # A board digit ranks the new cards among those not yet on the board.
        for j in range(start, positions.shape[1]):
            below = 0
            for q in range(start, j):
                if positions[i, q] < positions[i, j] and not _same_round(q, j, start, board_sizes):
                    below += 1
            work[j] = positions[i, j] - below
        board, lo = 0, start
        for r in range(n_rounds):
            board = board * extensions[r] + _colex_rank(work, lo, lo + board_sizes[r])
            boards[i, r] = board
            lo += board_sizes[r]
    return hands, boards


@njit(cache=True)
def _same_round(q: int, j: int, start: int, board_sizes: np.ndarray) -> bool:
    """Whether board slots ``q`` and ``j`` are dealt in the same round."""
    lo = start
    for r in range(board_sizes.shape[0]):
        hi = lo + board_sizes[r]
        if lo <= q < hi:
            return lo <= j < hi
        lo = hi
    return False
