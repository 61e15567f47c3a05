"""The blueprint's card abstraction: bucket maps for preflop, flop and turn, river buckets on the fly.

Preflop, flop and turn buckets are looked up in maps over canonical hands (built by
``precompute abstraction --preset blueprint`` or ``potential``; 169, 1,286,792 and
13,960,050 entries, uint8).  River buckets are computed on the fly, so nothing of the
river's 123M hands is stored: equal-width hand-strength percentiles
(:mod:`precompute.handstrength`), or with the potential-aware abstraction the nearest
opponent-cluster hand-strength center (:mod:`precompute.riverochs`).
:class:`BlueprintCards` serves MCCFR batches (one kernel call per batch of deals) and
single lookups or whole ranges for the agent.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from numba import njit

from precompute.bucketing import BOARD_CARDS, KIND, ROUND_NAMES, AbstractionError, check_game, round_indexer
from precompute.handstrength import hand_strength, range_strength, strength_bucket, strength_buckets
from precompute.isomorphism import WORK_SIZE, IndexerTables, index_hand
from precompute.potential import RIVER_FILE, load_river
from precompute.riverochs import RiverOCHS, range_river_buckets, river_buckets
from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS, EvalTables, eval_tables, range_ranks, rank_range
from protocol.gamedef import GameDef
from solver.artifacts import ArtifactError, load_artifact
from solver.cfr.mccfr import CardAbstraction, SampledDeals


@njit(cache=True, nogil=True)
def _deal_buckets(
    pre: IndexerTables, flop: IndexerTables, turn: IndexerTables, pre_map: np.ndarray, flop_map: np.ndarray,
    turn_map: np.ndarray, n_river: int, t: EvalTables, cards: np.ndarray, out: np.ndarray,
) -> None:
    """Buckets of two-player hold'em deals.

    ``cards`` int64 (N, 9): player 0's hole cards, player 1's, then the board in
    dealing order; ``out`` int64 (N, 2, 4) is written (player, round), the river only
    if ``n_river`` (hand-strength buckets) is not 0.  The maps are indexed by the
    rounds' canonical indices (hole cards, board as a set).
    """
    hand = np.empty(7, np.int64)
    work = np.empty(WORK_SIZE, np.int64)
    ranks = np.empty(NUM_HOLE_PAIRS, np.int32)
    for i in range(cards.shape[0]):
        hand[2:] = cards[i, 4:9]
        if n_river:
            range_ranks(t, cards[i, 4:9], 5, ranks)
        for p in range(2):
            a, b = cards[i, 2 * p], cards[i, 2 * p + 1]
            hand[0], hand[1] = a, b
            out[i, p, 0] = pre_map[index_hand(pre, hand, work)]
            out[i, p, 1] = flop_map[index_hand(flop, hand, work)]
            out[i, p, 2] = turn_map[index_hand(turn, hand, work)]
            if n_river:
                out[i, p, 3] = strength_bucket(hand_strength(ranks, a, b), n_river)


#: How many boards' :meth:`BlueprintCards.range_buckets` answers are kept.
RANGE_CACHE = 64


class BlueprintCards:
    """Buckets per round: maps for rounds 0-2 (read-only arrays, memory maps welcome),
    ``n_river`` hand-strength buckets on the river, or with ``river`` its OCHS centers
    (``n_river`` must then be their number).

    Raises:
        AbstractionError: if a map does not cover its round's canonical hands, or the
            river's bucket count is not positive (or not the number of OCHS centers).
    """

    def __init__(
        self, maps: tuple[np.ndarray, np.ndarray, np.ndarray], n_river: int, river: RiverOCHS | None = None
    ) -> None:
        self.indexers = tuple(round_indexer(r) for r in range(3))
        for r, (m, ix) in enumerate(zip(maps, self.indexers)):
            if m.shape != (ix.size,):
                raise AbstractionError(f"the {ROUND_NAMES[r]} map has shape {m.shape}, expected ({ix.size},)")
        if n_river < 1:
            raise AbstractionError(f"the river needs at least one bucket, got {n_river}")
        if river is not None and len(river.centers) != n_river:
            raise AbstractionError(f"the river has {len(river.centers)} OCHS centers, not {n_river} buckets")
        self.maps = maps
        self.river = river
        self._ranges: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
        self.n_buckets = (*(int(m.max()) + 1 if m.size else 0 for m in maps), int(n_river))

    def content_hash(self) -> str:
        """SHA-256 of the buckets every deal gets: the preflop, flop and turn maps (as
        uint16, whatever their stored type), the river's bucket count and its OCHS centers
        if any.  A run's checkpoints record it, so that a run never continues on other maps."""
        digest = hashlib.sha256()
        for m in self.maps:
            digest.update(np.ascontiguousarray(m, np.uint16).tobytes())
        digest.update(np.int64(self.n_buckets[3]).tobytes())
        if self.river is not None:
            digest.update(np.ascontiguousarray(self.river.centers, np.float32).tobytes())
            digest.update(np.ascontiguousarray(self.river.pair_cluster, np.uint16).tobytes())
        return digest.hexdigest()

    @classmethod
    def load_built(cls, folder: str | Path, game: GameDef, n_river: int) -> BlueprintCards:
        """The maps ``precompute abstraction`` wrote into ``folder`` (preflop, flop, turn),
        and its river centers if the build was potential-aware (it wrote ``river.ochs``).

        Raises:
            AbstractionError: if a map is missing or was built for another game.
        """
        check_game(game)
        maps = []
        for name in ROUND_NAMES[:3]:
            path = Path(folder) / f"{name}.buckets"
            try:
                rebuild = f"precompute abstraction --preset blueprint --out {folder}"
                art = load_artifact(path, KIND, game=game, params={"round": name}, rebuild=rebuild)
            except ArtifactError as exc:
                raise AbstractionError(str(exc)) from None
            maps.append(art.arrays["buckets"])
        river = load_river(folder, game) if (Path(folder) / RIVER_FILE).exists() else None
        return cls((maps[0], maps[1], maps[2]), n_river, river)

    def abstraction(self, name: str) -> CardAbstraction:
        """The :class:`solver.cfr.mccfr.CardAbstraction` MCCFR samples deals through."""
        tables = eval_tables()
        ix = [i.tables for i in self.indexers]

        river = self.river
        n_strength = self.n_buckets[3] if river is None else 0

        def buckets(deals: SampledDeals) -> np.ndarray:
            cards = np.ascontiguousarray(deals.cards, np.int64)
            out = np.empty((len(cards), 2, 4), np.int64)
            _deal_buckets(*ix, *self.maps, n_strength, tables, cards, out)
            if river is not None:
                hands = cards[:, :4].reshape(-1, 2, 2)
                river_buckets(tables, river.centers, river.pair_cluster, cards[:, 4:9], hands, out[:, :, 3])
            return out

        return CardAbstraction(name, self.n_buckets, buckets)

    def bucket(self, round_: int, hole: list[int] | np.ndarray, board: list[int] | np.ndarray = ()) -> int:
        """Bucket of ``hole`` in ``round_`` (0 = preflop) given the board seen so far.

        Raises:
            AbstractionError: if the board has the wrong number of cards for the round.
        """
        board = [int(c) for c in board][: BOARD_CARDS[round_]]
        if len(board) != BOARD_CARDS[round_]:
            raise AbstractionError(f"{ROUND_NAMES[round_]} needs {BOARD_CARDS[round_]} board cards, got {len(board)}")
        if round_ < 3:
            return int(self.maps[round_][self.indexers[round_].index([*hole, *board])])
        if self.river is not None:
            out = np.empty((1, 1), np.int64)
            hands = np.array([[[int(hole[0]), int(hole[1])]]], np.int64)
            river_buckets(eval_tables(), *self.river, np.array([board], np.int64), hands, out)
            return int(out[0, 0])
        ranks = rank_range(board)
        return int(strength_bucket(hand_strength(ranks, int(hole[0]), int(hole[1])), self.n_buckets[3]))

    def range_buckets(self, round_: int, board: list[int] | np.ndarray = ()) -> np.ndarray:
        """Bucket (int64 (1326,), read-only) of every ``HOLE_PAIRS`` hand in ``round_``; -1 where the board blocks it.

        The last :data:`RANGE_CACHE` boards' answers are kept: an agent's decision and
        AIVAT's blueprint values ask for the same board at many betting nodes (a flop's
        costs about 25 ms).

        Raises:
            AbstractionError: if the board has the wrong number of cards for the round.
        """
        key = (round_, tuple(int(c) for c in board)[: BOARD_CARDS[round_]])
        found = self._ranges.get(key)
        if found is None:
            found = self._range_buckets(round_, np.asarray(key[1], np.int64))
            found.setflags(write=False)
            if len(self._ranges) >= RANGE_CACHE:
                del self._ranges[next(iter(self._ranges))]
            self._ranges[key] = found
        return found

    def _range_buckets(self, round_: int, board: np.ndarray) -> np.ndarray:
        if len(board) != BOARD_CARDS[round_]:
            raise AbstractionError(f"{ROUND_NAMES[round_]} needs {BOARD_CARDS[round_]} board cards, got {len(board)}")
        free = ~np.isin(HOLE_PAIRS, board).any(axis=1)
        out = np.full(NUM_HOLE_PAIRS, -1, np.int64)
        if round_ == 3 and self.river is not None:
            return range_river_buckets(self.river, board)
        if round_ == 3:
            strength_buckets(range_strength(board), self.n_buckets[3], out)
            return out
        hands = np.concatenate([HOLE_PAIRS[free], np.broadcast_to(board, (int(free.sum()), len(board)))], axis=1)
        out[free] = self.maps[round_][self.indexers[round_].index(hands)]
        return out
