"""Card abstraction for heads-up hold'em: a bucket for every canonical hand of every round.

* preflop: k-means (EMD) on the 169 hands' histograms of river equity over sampled
  boards; with 169 buckets every hand keeps its own bucket;
* flop and turn: k-means (EMD) on each canonical hand's histogram of river equity
  over the run-outs (all of them, or a seeded sample per board);
* river: k-means (L2) on opponent-cluster hand strength: equity against each of a
  few clusters of preflop hands (k-means on the preflop histograms).

The potential-aware variant (flop and turn over the next round's buckets, OCHS river
buckets on the fly) builds on this module: :mod:`precompute.potential`.

Per postflop round, the centers are trained on the hands of a seeded sample of
boards (drawn in proportion to how often each canonical board is dealt), then a
pass over every canonical board gives each of its hands the nearest center.  Both
steps checkpoint into ``OUT/checkpoints`` (the centers once trained, the bucket map
every minute), so an interrupted build resumes where it stopped.  Each round's
result is an artifact ``OUT/<round>.buckets`` (:mod:`solver.artifacts`) holding the
bucket of every index of the round's :class:`~precompute.isomorphism.HandIndexer`
(board as a set) and the centers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import structlog
from numba import njit, prange

from precompute.blocks import block_span, n_blocks
from precompute.equity import cluster_equities, runout_histograms
from precompute.isomorphism import WORK_SIZE, HandIndexer, IndexerTables, index_hand
from precompute.kmeans import kmeans, nearest_centers
from protocol.cards import next_combination
from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS, EvalTables, eval_tables
from protocol.gamedef import GameDef
from protocol.progress import Progress
from solver.artifacts import ArtifactError, load_artifact, save_artifact

ROUND_NAMES = ("preflop", "flop", "turn", "river")
BOARD_CARDS = (0, 3, 4, 5)
KIND = "buckets"
CLUSTERINGS = ("equity", "potential")
_CENTERS_KIND = "kmeans_centers"
CHUNK_BOARDS = (0, 32, 512, 2048)  # boards per assignment chunk: a second or two of work
_CHECKPOINT_SECONDS = 60.0
log = structlog.get_logger("precompute.bucketing")


class AbstractionError(Exception):
    """The abstraction cannot be built or loaded as asked."""


@dataclass(frozen=True)
class AbstractionConfig:
    """What to build.  ``*_runouts`` = 0 means every run-out (exact histograms).

    buckets: per round, preflop first.
    bins: histogram bins of equity (flop, turn, preflop).
    ochs_clusters: clusters of opponent preflop hands for the river features.
    preflop_boards: random boards scoring the preflop histograms.
    flop_runouts / turn_runouts: run-outs per board for the histograms (0 = all).
    train_points: k-means training points per postflop round (whole boards' hands).
    max_iter, tol: Lloyd iterations; stop when fewer than ``tol`` of points move.
    seed: every random choice derives from it.
    river_map: build the river's bucket map (123M entries).  Without it the river
        has ``buckets[3]`` hand-strength buckets computed on the fly
        (:mod:`precompute.handstrength`), which is what blueprints ship with.
    clustering: ``"equity"`` (the above) or ``"potential"``: potential-aware flop and
        turn buckets over the next round's buckets, OCHS river buckets on the fly
        (:mod:`precompute.potential`); there ``bins`` serves the preflop histograms
        only and ``*_runouts`` count next-round cards per board (0 = all).
    """

    buckets: tuple[int, int, int, int] = (169, 200, 200, 200)
    bins: int = 50
    ochs_clusters: int = 8
    preflop_boards: int = 20_000
    flop_runouts: int = 0
    turn_runouts: int = 0
    train_points: int = 400_000
    max_iter: int = 30
    tol: float = 1e-3
    seed: int = 0
    river_map: bool = True
    clustering: str = "equity"

    def __post_init__(self) -> None:
        if self.clustering not in CLUSTERINGS:
            raise AbstractionError(f"clustering must be one of {', '.join(CLUSTERINGS)}, got {self.clustering!r}")
        if self.clustering == "potential" and self.river_map:
            raise AbstractionError("the potential-aware abstraction computes river buckets on the fly (river_map=False)")
        if self.clustering == "potential" and any(0 < n < 3 for n in (self.flop_runouts, self.turn_runouts)):
            # A hand holding two of the sampled cards keeps fewer; it must keep at least one.
            raise AbstractionError("a potential-aware build samples 0 (all) or at least 3 next-round cards per board")
        if len(self.buckets) != 4:
            raise AbstractionError(f"need 4 bucket counts (preflop, flop, turn, river), got {len(self.buckets)}")
        if not 1 <= self.buckets[0] <= 169:
            raise AbstractionError(f"preflop buckets must be 1..169, got {self.buckets[0]}")
        if min(self.buckets) < 1 or max(self.buckets) > 65_535:
            raise AbstractionError(f"bucket counts must be 1..65535, got {self.buckets}")
        if not 1 <= self.ochs_clusters <= 169 or self.bins < 2:
            raise AbstractionError("ochs_clusters must be 1..169 and bins at least 2")
        positive = min(self.preflop_boards, self.train_points, self.max_iter) >= 1
        if not positive or min(self.flop_runouts, self.turn_runouts) < 0:
            raise AbstractionError("preflop_boards, train_points and max_iter must be positive, run-outs not negative")
        if max(self.buckets[1:]) > self.train_points:
            raise AbstractionError(f"train_points ({self.train_points}) must be at least the number of buckets")

    def params(self) -> dict[str, Any]:
        """The configuration as artifact parameters (msgpack-serialisable).

        ``clustering`` appears only when it is not the default, so builds made before
        it existed still resume and load.
        """
        params = {**asdict(self), "buckets": list(self.buckets)}
        if self.clustering == "equity":
            del params["clustering"]
        return params


PRESETS = {
    # Pluribus-sized: exact histograms, minutes to an hour on two cores.
    "full": AbstractionConfig(),
    # For tests and demos: sampled run-outs, fewer buckets, a few minutes.
    "small": AbstractionConfig(
        buckets=(169, 30, 30, 30),
        preflop_boards=3_000,
        flop_runouts=60,
        turn_runouts=8,
        train_points=40_000,
        max_iter=15,
    ),
    # Blueprints: resolution on the flop, exact histograms, no river map (minutes).
    "blueprint": AbstractionConfig(buckets=(169, 128, 32, 24), river_map=False),
    # The same bucket counts from sampled, coarse features in seconds (tests, demos).
    "blueprint-quick": AbstractionConfig(
        buckets=(169, 128, 32, 24),
        bins=10,
        preflop_boards=1_000,
        flop_runouts=20,
        turn_runouts=6,
        train_points=20_000,
        max_iter=4,
        river_map=False,
    ),
    # Potential-aware at the blueprint's bucket counts (tens of minutes on two cores).
    "potential": AbstractionConfig(
        buckets=(169, 128, 32, 24), train_points=200_000, max_iter=20, river_map=False, clustering="potential"
    ),
    # The same kind from a few sampled next-round cards per board and fewer flop and turn
    # buckets (tests, demos; the nearest-center searches over every flop and turn hand
    # grow with the bucket counts: 16 and 8 since 2026-11-29, for the test suite's time).
    "potential-quick": AbstractionConfig(
        buckets=(169, 16, 8, 24),
        bins=10,
        preflop_boards=500,
        flop_runouts=3,
        turn_runouts=3,
        train_points=10_000,
        max_iter=4,
        river_map=False,
        clustering="potential",
    ),
}


def check_game(game: GameDef) -> None:
    """Raise unless ``game`` deals hold'em cards: 2 hole cards, boards 0/3/1/1, 52 cards."""
    if (game.num_suits, game.num_ranks, game.num_hole_cards, tuple(game.num_board_cards)) != (4, 13, 2, (0, 3, 1, 1)):
        raise AbstractionError(
            "card abstraction covers hold'em (52 cards, 2 hole cards, boards of 0/3/1/1 cards); this game deals "
            f"{game.num_hole_cards} hole cards and boards {'/'.join(map(str, game.num_board_cards))} "
            f"from {game.deck_size} cards"
        )


def round_indexer(round_: int) -> HandIndexer:
    """The indexer of round ``round_``: hole cards, then the board as a set."""
    return HandIndexer((2, BOARD_CARDS[round_]) if round_ else (2,))


# ---------------------------------------------------------------- kernels


@njit(cache=True)
def combinations(k: int) -> np.ndarray:
    """Every k-subset of the 52 cards, in lexicographic order: int64 (C(52, k), k)."""
    count = 1
    for i in range(k):
        count = count * (52 - i) // (i + 1)
    out = np.empty((count, k), np.int64)
    idx = np.arange(k)
    for row in range(count):
        out[row] = idx
        if not next_combination(idx, 52):
            break
    return out


@njit(cache=True)
def hands_of_board(it: IndexerTables, board: np.ndarray, out_idx: np.ndarray, out_pair: np.ndarray) -> int:
    """Index of every hole pair that misses ``board``; fills ``out_idx``/``out_pair``, returns the count."""
    n = len(board)
    hand = np.empty(n + 2, np.int64)
    hand[2:] = board
    work = np.empty(WORK_SIZE, np.int64)
    used = 0
    for c in board:
        used |= 1 << c
    m = 0
    for p in range(NUM_HOLE_PAIRS):
        a, b = HOLE_PAIRS[p, 0], HOLE_PAIRS[p, 1]
        if (used >> a) & 1 or (used >> b) & 1:
            continue
        hand[0], hand[1] = a, b
        out_idx[m] = index_hand(it, hand, work)
        out_pair[m] = p
        m += 1
    return m


@njit(cache=True, parallel=True)
def _histogram_points(
    t: EvalTables,
    it: IndexerTables,
    boards: np.ndarray,
    runouts: np.ndarray,
    choice: np.ndarray,
    bins: int,
    out_idx: np.ndarray,
    out_cdf: np.ndarray,
) -> None:
    """Equity-histogram CDFs of every hand of each flop or turn board (boards split
    between the threads).

    Args:
        boards: int64 (B, n), runouts: int64 (R, 5 - n), read.
        choice: int64 (B, m), the rows of ``runouts`` used for each board, read.
        out_idx: int64 (B * P,), out_cdf: float32 (B * P, bins), written, P = C(52 - n, 2):
            board-major, one row per hole pair that misses the board.
    """
    n_pairs = out_idx.shape[0] // boards.shape[0]
    blocks = n_blocks(boards.shape[0])
    for block in prange(blocks):
        start, stop = block_span(boards.shape[0], blocks, block)
        hist = np.zeros((NUM_HOLE_PAIRS, bins), np.float64)
        total = np.zeros(NUM_HOLE_PAIRS)
        pairs = np.empty(NUM_HOLE_PAIRS, np.int64)
        for b in range(start, stop):
            hist[:] = 0
            runout_histograms(t, boards[b], runouts[choice[b]], bins, hist, total)
            m = hands_of_board(it, boards[b], out_idx[b * n_pairs : (b + 1) * n_pairs], pairs)
            for i in range(m):
                row = hist[pairs[i]]
                weight = row.sum()
                acc = 0.0
                for j in range(bins):
                    acc += row[j]
                    out_cdf[b * n_pairs + i, j] = acc / weight


@njit(cache=True, parallel=True)
def ochs_points(
    t: EvalTables,
    it: IndexerTables,
    boards: np.ndarray,
    pair_cluster: np.ndarray,
    n_clusters: int,
    out_idx: np.ndarray,
    out_ochs: np.ndarray,
) -> None:
    """OCHS vectors of every hand of each river board (see :func:`_histogram_points`).

    ``pair_cluster`` int64 (1326,) labels opponent pairs; ``out_ochs`` float32
    (B * 1081, n_clusters) is written.
    """
    n_pairs = out_idx.shape[0] // boards.shape[0]
    blocks = n_blocks(boards.shape[0])
    for block in prange(blocks):
        start, stop = block_span(boards.shape[0], blocks, block)
        eq = np.empty((NUM_HOLE_PAIRS, n_clusters), np.float64)
        ranks = np.empty(NUM_HOLE_PAIRS, np.int32)
        keys = np.empty(NUM_HOLE_PAIRS, np.int64)
        pairs = np.empty(NUM_HOLE_PAIRS, np.int64)
        for b in range(start, stop):
            cluster_equities(t, boards[b], pair_cluster, n_clusters, ranks, keys, eq)
            m = hands_of_board(it, boards[b], out_idx[b * n_pairs : (b + 1) * n_pairs], pairs)
            for i in range(m):
                for c in range(n_clusters):
                    out_ochs[b * n_pairs + i, c] = eq[pairs[i], c]


# ---------------------------------------------------------------- features


class RoundFeatures:
    """Feature extraction for one postflop round: canonical boards and their hands' features."""

    def __init__(self, round_: int, config: AbstractionConfig, pair_cluster: np.ndarray) -> None:
        self.round = round_
        self.config = config
        self.n_board = BOARD_CARDS[round_]
        self.indexer = round_indexer(round_)
        board_indexer = HandIndexer((self.n_board,))
        self.boards = board_indexer.unindex(np.arange(board_indexer.size))
        # How many raw boards each canonical board stands for.
        self.weights = np.bincount(board_indexer.index(combinations(self.n_board)), minlength=board_indexer.size)
        self.pairs_per_board = math.comb(52 - self.n_board, 2)
        self.pair_cluster = pair_cluster
        self.runouts = combinations(5 - self.n_board) if self.n_board < 5 else None
        self.tables = eval_tables()

    @property
    def dim(self) -> int:
        return self.config.ochs_clusters if self.n_board == 5 else self.config.bins

    @property
    def metric(self) -> str:
        return "l2" if self.n_board == 5 else "emd"

    @property
    def chunk(self) -> int:
        """Boards per assignment chunk: a second or two of work."""
        return CHUNK_BOARDS[self.round]

    def nearest(self, points: np.ndarray, centers: np.ndarray, labels: np.ndarray, dists: np.ndarray) -> None:
        """The nearest center of every point into ``labels`` (and its distance into ``dists``)."""
        nearest_centers(points, centers, self.metric == "emd", labels, dists)

    def cluster(self, points: np.ndarray, k: int, on_iteration: Callable[[int, float, float], None]) -> np.ndarray:
        """k-means centers of the training points."""
        config = self.config
        return kmeans(points, k, metric=self.metric, seed=config.seed + self.round, max_iter=config.max_iter,
                      tol=config.tol, on_iteration=on_iteration).centers

    def points(self, board_ids: np.ndarray, sample_key: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """(indices int64 (B*P,), features float32 (B*P, dim)) of every hand of these boards.

        ``sample_key`` seeds the run-out sample, so a chunk gets the same run-outs
        whether or not the build was interrupted before it.
        """
        boards = self.boards[board_ids]
        out_idx = np.empty(len(boards) * self.pairs_per_board, np.int64)
        out = np.empty((len(out_idx), self.dim), np.float32)
        if self.runouts is None:
            ochs_points(self.tables, self.indexer.tables, boards, self.pair_cluster, self.dim, out_idx, out)
        else:
            _histogram_points(
                self.tables,
                self.indexer.tables,
                boards,
                self.runouts,
                self._choice(boards, sample_key),
                self.config.bins,
                out_idx,
                out,
            )
        return out_idx, out

    def _choice(self, boards: np.ndarray, sample_key: tuple[int, int]) -> np.ndarray:
        """Run-outs used per board: all of them, or a seeded sample of those missing the board."""
        wanted = self.config.flop_runouts if self.round == 1 else self.config.turn_runouts
        if wanted == 0 or wanted >= math.comb(52 - self.n_board, 5 - self.n_board):
            return np.broadcast_to(np.arange(len(self.runouts)), (len(boards), len(self.runouts)))
        rng = np.random.default_rng([self.config.seed, self.round, *sample_key])
        choice = np.empty((len(boards), wanted), np.int64)
        for b, board in enumerate(boards):
            free = np.flatnonzero(~np.isin(self.runouts, board).any(axis=1))
            choice[b] = rng.choice(free, wanted, replace=False)
        return choice


def preflop_cdfs(config: AbstractionConfig) -> np.ndarray:
    """Each canonical preflop hand's CDF of river equity over sampled boards: float32 (169, bins)."""
    rng = np.random.default_rng([config.seed, 0])
    boards = np.argsort(rng.random((config.preflop_boards, 52)), axis=1)[:, :5].astype(np.int64)
    hist = np.zeros((NUM_HOLE_PAIRS, config.bins), np.float64)
    runout_histograms(eval_tables(), np.empty(0, np.int64), boards, config.bins, hist, np.zeros(NUM_HOLE_PAIRS))
    by_hand = np.zeros((169, config.bins))
    np.add.at(by_hand, round_indexer(0).index(HOLE_PAIRS), hist)
    cdf = np.cumsum(by_hand, axis=1)
    return (cdf / cdf[:, -1:]).astype(np.float32)


# ---------------------------------------------------------------- build


def build_abstraction(
    game: GameDef,
    out_dir: str | Path,
    config: AbstractionConfig,
    *,
    show_progress: bool = True,
    stop_after_chunks: int | None = None,
) -> list[Path]:
    """Build (or resume) the abstraction into ``out_dir``; returns the artifact paths
    (four, or three without ``config.river_map``).  Equity-based configurations only:
    :func:`precompute.potential.build_card_abstraction` builds either kind.

    ``stop_after_chunks`` interrupts the run after that many assignment chunks (with a
    checkpoint), as a crash would; used to test resuming.

    Raises:
        AbstractionError: if the game is not hold'em or ``out_dir`` holds a build with
            other parameters.
    """
    check_game(game)
    if config.clustering != "equity":
        raise AbstractionError("a potential-aware abstraction is built by precompute.potential.build_card_abstraction")
    out_dir = Path(out_dir)
    pre = preflop_cdfs(config)
    ochs = preflop_clusters(pre, config)
    pair_cluster = ochs[round_indexer(0).index(HOLE_PAIRS)]
    budget = [stop_after_chunks]
    paths = [out_dir / f"{name}.buckets" for name in ROUND_NAMES[: 4 if config.river_map else 3]]
    for round_, path in enumerate(paths):
        params = round_params(config, round_)
        if path.exists():
            load_round(path, game, params)  # raises if built with other parameters
            log.info("round_done_already", round=ROUND_NAMES[round_], path=str(path))
            continue
        if round_ == 0:
            arrays = preflop_round(pre, config)
        else:
            features = RoundFeatures(round_, config, pair_cluster)
            arrays = build_round(features, game, out_dir, params, show_progress, budget)
            if arrays is None:
                return paths
            if round_ == 3:
                arrays["ochs_of_preflop"] = ochs.astype(np.uint8)
        save_artifact(path, KIND, arrays, game=game, params=params)
        log.info("round_written", round=ROUND_NAMES[round_], path=str(path))
    checkpoints = out_dir / "checkpoints"
    if checkpoints.is_dir() and not any(checkpoints.iterdir()):
        checkpoints.rmdir()
    return paths


def preflop_clusters(pre: np.ndarray, config: AbstractionConfig) -> np.ndarray:
    """The OCHS cluster (int64 (169,)) of each preflop hand: k-means (EMD) on its CDF ``pre``."""
    return kmeans(pre, config.ochs_clusters, metric="emd", seed=config.seed).labels.astype(np.int64)


def preflop_round(pre: np.ndarray, config: AbstractionConfig) -> dict[str, np.ndarray]:
    """The preflop round's arrays: k-means (EMD) on the 169 hands' CDFs."""
    result = kmeans(pre, config.buckets[0], metric="emd", seed=config.seed)
    return {"buckets": result.labels.astype(np.uint8), "centers": result.centers}


def round_params(config: AbstractionConfig, round_: int) -> dict[str, Any]:
    return {"round": ROUND_NAMES[round_], "config": config.params()}


def _rebuild_hint(path: Path) -> str:
    return f"precompute abstraction --out {path.parent} (with the same options)"


def load_round(path: Path, game: GameDef, params: dict[str, Any]) -> np.ndarray:
    try:
        return load_artifact(path, KIND, game=game, params=params, rebuild=_rebuild_hint(path)).arrays["buckets"]
    except ArtifactError as exc:
        raise AbstractionError(str(exc)) from None


def build_round(
    features: RoundFeatures,
    game: GameDef,
    out_dir: Path,
    params: dict[str, Any],
    show_progress: bool,
    budget: list[int | None],
) -> dict[str, np.ndarray] | None:
    """Train the round's centers and assign every canonical hand; None if stopped early."""
    name = ROUND_NAMES[features.round]
    k = features.config.buckets[features.round]
    ckpt = out_dir / "checkpoints"
    centers_path = ckpt / f"{name}.centers"
    partial_path = ckpt / f"{name}.partial"
    if centers_path.exists():
        centers = _load_checkpoint(centers_path, _CENTERS_KIND, game, params).arrays["centers"]
        log.info("resuming_with_centers", round=name, path=str(centers_path))
    else:
        centers = _train(features, k, show_progress)
        save_artifact(centers_path, _CENTERS_KIND, {"centers": centers}, game=game, params=params)
    dtype = np.uint8 if k < 255 else np.uint16
    unset = np.iinfo(dtype).max
    chunk = features.chunk
    n_chunks = -(-len(features.boards) // chunk)
    if partial_path.exists():
        partial = _load_checkpoint(partial_path, KIND, game, params)
        buckets = np.array(partial.arrays["buckets"])
        first = int(partial.header["params"]["next_chunk"])
        log.info("resuming_assignment", round=name, chunk=first, chunks=n_chunks)
    else:
        buckets = np.full(features.indexer.size, unset, dtype)
        first = 0
    labels = np.empty(chunk * features.pairs_per_board, np.int32)
    dists = np.empty(len(labels), np.float64)
    last_save = time.monotonic()
    with Progress(f"{name} buckets", n_chunks, done=first, enabled=show_progress) as bar:
        for c in range(first, n_chunks):
            idx, points = features.points(np.arange(c * chunk, min((c + 1) * chunk, len(features.boards))), (0, c))
            features.nearest(points, centers, labels[: len(idx)], dists[: len(idx)])
            buckets[idx] = labels[: len(idx)]
            bar.advance()
            if budget[0] is not None:
                budget[0] -= 1
            stop = budget[0] is not None and budget[0] <= 0 and c + 1 < n_chunks
            if stop or (c + 1 < n_chunks and time.monotonic() - last_save > _CHECKPOINT_SECONDS):
                state = {**params, "next_chunk": c + 1}
                save_artifact(partial_path, KIND, {"buckets": buckets}, game=game, params=state)
                last_save = time.monotonic()
            if stop:
                log.info("stopped", round=name, chunks_done=c + 1, chunks=n_chunks, hint="run again to resume")
                return None
    missing = int(np.count_nonzero(buckets == unset))
    if missing:
        raise AbstractionError(f"{name}: {missing} canonical hands got no bucket (a bug in the board enumeration)")
    partial_path.unlink(missing_ok=True)
    centers_path.unlink(missing_ok=True)
    return {"buckets": buckets, "centers": centers}


def _train(features: RoundFeatures, k: int, show_progress: bool) -> np.ndarray:
    """k-means centers from the hands of boards drawn in proportion to how often they are dealt."""
    config = features.config
    name = ROUND_NAMES[features.round]
    rng = np.random.default_rng([config.seed, features.round, 2])
    n_boards = min(-(-config.train_points // features.pairs_per_board), len(features.boards))
    p = features.weights / features.weights.sum()
    chosen = np.sort(rng.choice(len(features.boards), n_boards, replace=False, p=p))
    parts = []
    with Progress(f"{name} training set", n_boards, enabled=show_progress) as bar:
        step = features.chunk
        for start in range(0, n_boards, step):
            parts.append(features.points(chosen[start : start + step], (1, start))[1])
            bar.advance(len(parts[-1]) // features.pairs_per_board)
    points = np.concatenate(parts)
    log.info("kmeans_start", round=name, k=k, metric=features.metric, points=len(points), boards=n_boards)
    with Progress(f"{name} k-means", config.max_iter, enabled=show_progress) as bar:

        def report(i: int, inertia: float, changed: float) -> None:
            bar.advance()
            moved = round(changed, 5)
            log.info("kmeans_iteration", round=name, iteration=i, mean_distance=round(inertia, 6), moved=moved)

        return features.cluster(points, k, report)


def _load_checkpoint(path: Path, kind: str, game: GameDef, params: dict[str, Any]) -> Any:
    try:
        return load_artifact(path, kind, game=game, params=params, rebuild=_rebuild_hint(path))
    except ArtifactError as exc:
        raise AbstractionError(f"{exc} (or delete {path.parent} to start over)") from None


# ---------------------------------------------------------------- loading


@dataclass(frozen=True)
class CardAbstraction:
    """Bucket lookup for a built abstraction (arrays memory-mapped from the artifacts)."""

    indexers: tuple[HandIndexer, ...]
    maps: tuple[np.ndarray, ...]
    config: AbstractionConfig

    @classmethod
    def load(cls, out_dir: str | Path, game: GameDef, *, config: AbstractionConfig | None = None) -> CardAbstraction:
        """Load ``out_dir``'s four rounds, checking they were built for ``game`` (and ``config``).

        Raises:
            AbstractionError: if a round is missing, corrupt, or built for something else.
        """
        check_game(game)
        out_dir = Path(out_dir)
        maps = []
        found: dict[str, Any] | None = None
        for name in ROUND_NAMES:
            path = out_dir / f"{name}.buckets"
            params = {"round": name} | ({"config": config.params()} if config else {})
            try:
                artifact = load_artifact(path, KIND, game=game, params=params, rebuild=_rebuild_hint(path))
            except ArtifactError as exc:
                raise AbstractionError(str(exc)) from None
            if found is None:
                found = artifact.params["config"]
            elif artifact.params["config"] != found:
                raise AbstractionError(f"{path} was built with other options than {ROUND_NAMES[0]}.buckets")
            maps.append(artifact.arrays["buckets"])
        assert found is not None
        loaded = AbstractionConfig(**{**found, "buckets": tuple(found["buckets"])})
        return cls(tuple(round_indexer(r) for r in range(4)), tuple(maps), loaded)

    def bucket(self, round_: int, hole: list[int] | np.ndarray, board: list[int] | np.ndarray = ()) -> int:
        """Bucket of a hand in ``round_`` (0 = preflop) given its hole cards and the visible board."""
        board = list(board)[: BOARD_CARDS[round_]]
        if len(board) != BOARD_CARDS[round_]:
            raise AbstractionError(f"{ROUND_NAMES[round_]} needs {BOARD_CARDS[round_]} board cards, got {len(board)}")
        return int(self.maps[round_][self.indexers[round_].index([*hole, *board])])
