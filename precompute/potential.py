"""Potential-aware imperfect-recall card abstraction (Ganzfried & Sandholm, AAAI 2014).

Built backwards from the river, each round clustered by where its hands go next:

* river: OCHS vectors (equity against each of C preflop clusters) of the hands of
  seeded random river boards, k-means (L2) into K centers; buckets are computed on
  the fly from the centers (:mod:`precompute.riverochs`), so nothing is mapped;
* turn: each canonical turn hand's histogram over the 46 river cards of its river
  bucket, k-means under EMD whose ground distance is the L2 distance between river
  centers;
* flop: each canonical flop hand's histogram over the 47 turn cards of its turn
  bucket, k-means under EMD whose ground distance is the EMD between turn centers.

EMD is the greedy approximation of :mod:`precompute.emd`.  Preflop is as in
:mod:`precompute.bucketing` (169 buckets: lossless).  Training sets, chunked
assignment passes, checkpoints and progress bars are those of
:func:`precompute.bucketing.build_round`; :func:`build_card_abstraction` builds
either kind of abstraction.  Written into OUT: ``preflop.buckets``,
``river.ochs`` (kind ``river_ochs``: centers, the cluster of each opponent pair),
``turn.buckets`` and ``flop.buckets`` (buckets, centers, ground distance).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import structlog

from precompute.bucketing import (
    KIND,
    ROUND_NAMES,
    AbstractionConfig,
    AbstractionError,
    RoundFeatures,
    build_abstraction,
    build_round,
    check_game,
    load_round,
    ochs_points,
    preflop_cdfs,
    preflop_clusters,
    preflop_round,
    round_indexer,
    round_params,
)
from precompute.emd import center_ground, ground_order, kmeans_emd, nearest_emd
from precompute.kmeans import kmeans
from precompute.nextround import flop_histograms, turn_histograms
from precompute.riverochs import RiverOCHS
from protocol.fasteval import HOLE_PAIRS, eval_tables
from protocol.gamedef import GameDef
from protocol.progress import Progress
from solver.artifacts import ArtifactError, load_artifact, save_artifact

RIVER_KIND = "river_ochs"
RIVER_FILE = "river.ochs"
_CHUNKS = {1: 16, 2: 128}  # boards per assignment chunk (flop, turn): a few seconds, under 100 MB
log = structlog.get_logger("precompute.potential")


def river_ground(centers: np.ndarray) -> np.ndarray:
    """L2 distance between river centers: float64 (K, K)."""
    c = np.asarray(centers, np.float64)
    return np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2))


class NextRoundFeatures(RoundFeatures):
    """A flop or turn hand's histogram over the next round's buckets, clustered by EMD."""

    def __init__(
        self,
        round_: int,
        config: AbstractionConfig,
        river: RiverOCHS,
        turn_map: np.ndarray | None,
        ground: np.ndarray,
        embed: np.ndarray,
    ) -> None:
        super().__init__(round_, config, river.pair_cluster)
        self.river = river
        self.turn_map = turn_map
        self.ground = ground
        self.embed = embed
        self.order = ground_order(ground)
        self.next_indexer = round_indexer(round_ + 1)

    @property
    def dim(self) -> int:
        return self.ground.shape[0]

    @property
    def metric(self) -> str:
        return "emd-ground"

    @property
    def chunk(self) -> int:
        return _CHUNKS[self.round]

    def points(self, board_ids: np.ndarray, sample_key: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        boards = self.boards[board_ids]
        out_idx = np.empty(len(boards) * self.pairs_per_board, np.int64)
        out = np.empty((len(out_idx), self.dim), np.float32)
        cards = self._next_cards(boards, sample_key)
        if self.round == 2:
            turn_histograms(self.tables, self.indexer.tables, boards, cards, self.river.centers,
                            self.river.pair_cluster, out_idx, out)  # fmt: skip
        else:
            assert self.turn_map is not None
            flop_histograms(self.indexer.tables, self.next_indexer.tables, self.turn_map, boards, cards, out_idx, out)
        return out_idx, out

    def _next_cards(self, boards: np.ndarray, sample_key: tuple[int, int]) -> np.ndarray:
        """The next round's cards used per board: all that miss it, or a seeded sample of them."""
        wanted = self.config.flop_runouts if self.round == 1 else self.config.turn_runouts
        free = np.array([np.setdiff1d(np.arange(52), board) for board in boards], np.int64).reshape(len(boards), -1)
        if wanted == 0 or wanted >= free.shape[1]:
            return free
        rng = np.random.default_rng([self.config.seed, self.round, *sample_key])
        return np.sort(rng.permuted(free, axis=1)[:, :wanted], axis=1)

    def nearest(self, points: np.ndarray, centers: np.ndarray, labels: np.ndarray, dists: np.ndarray) -> None:
        nearest_emd(points, centers, self.ground, self.order, self.embed, labels, dists)

    def cluster(self, points: np.ndarray, k: int, on_iteration: Callable[[int, float, float], None]) -> np.ndarray:
        config = self.config
        return kmeans_emd(
            points,
            k,
            self.ground,
            self.embed,
            seed=config.seed + self.round,
            max_iter=config.max_iter,
            tol=config.tol,
            on_iteration=on_iteration,
        ).centers


def _train_river(config: AbstractionConfig, pair_cluster: np.ndarray, show_progress: bool) -> np.ndarray:
    """River centers: k-means (L2) on the OCHS of every hand of seeded random river boards."""
    rng = np.random.default_rng([config.seed, 3, 2])
    per_board = math.comb(47, 2)
    n_boards = -(-config.train_points // per_board)
    boards = np.sort(np.argsort(rng.random((n_boards, 52)), axis=1)[:, :5], axis=1).astype(np.int64)
    out_idx = np.empty(n_boards * per_board, np.int64)
    points = np.empty((len(out_idx), config.ochs_clusters), np.float32)
    with Progress("river training set", 1, enabled=show_progress) as bar:
        ochs_points(eval_tables(), round_indexer(3).tables, boards, pair_cluster, config.ochs_clusters, out_idx, points)
        bar.advance()
    with Progress("river k-means", config.max_iter, enabled=show_progress) as bar:

        def report(i: int, inertia: float, changed: float) -> None:
            bar.advance()
            log.info("kmeans_iteration", round="river", iteration=i, mean_distance=round(inertia, 6),
                     moved=round(changed, 5))  # fmt: skip

        result = kmeans(points, config.buckets[3], metric="l2", seed=config.seed + 3, max_iter=config.max_iter,
                        tol=config.tol, on_iteration=report)  # fmt: skip
    return result.centers


def load_river(folder: str | Path, game: GameDef, params: dict[str, Any] | None = None) -> RiverOCHS:
    """The river centers a potential-aware build wrote into ``folder``.

    Raises:
        AbstractionError: if the file is missing, corrupt or built for something else.
    """
    path = Path(folder) / RIVER_FILE
    try:
        art = load_artifact(path, RIVER_KIND, game=game, params=params or {"round": "river"},
                            rebuild=f"precompute abstraction --preset potential --out {folder}")  # fmt: skip
    except ArtifactError as exc:
        raise AbstractionError(str(exc)) from None
    return RiverOCHS.checked(art.arrays["centers"], art.arrays["pair_cluster"])


def build_card_abstraction(
    game: GameDef,
    out_dir: str | Path,
    config: AbstractionConfig,
    *,
    show_progress: bool = True,
    stop_after_chunks: int | None = None,
) -> list[Path]:
    """Build (or resume) either kind of abstraction into ``out_dir``; returns the artifact paths.

    Equity-based configurations go to :func:`precompute.bucketing.build_abstraction`;
    potential-aware ones write preflop, river centers, turn, then flop (paths in the
    order preflop, flop, turn, river).  ``stop_after_chunks`` as there.

    Raises:
        AbstractionError: if the game is not hold'em or ``out_dir`` holds a build with
            other parameters.
    """
    if config.clustering != "potential":
        return build_abstraction(game, out_dir, config, show_progress=show_progress,
                                 stop_after_chunks=stop_after_chunks)  # fmt: skip
    check_game(game)
    out_dir = Path(out_dir)
    budget = [stop_after_chunks]
    pre = preflop_cdfs(config)
    ochs = preflop_clusters(pre, config)
    pair_cluster = ochs[round_indexer(0).index(HOLE_PAIRS)]
    paths = [out_dir / f"{name}.buckets" for name in ROUND_NAMES[:3]] + [out_dir / RIVER_FILE]
    if not paths[0].exists():
        save_artifact(paths[0], KIND, preflop_round(pre, config), game=game, params=round_params(config, 0))
    load_round(paths[0], game, round_params(config, 0))  # a build with other options is refused here
    river_params = round_params(config, 3)
    if not paths[3].exists():
        centers = _train_river(config, pair_cluster, show_progress)
        arrays = {"centers": centers, "pair_cluster": pair_cluster.astype(np.uint8),
                  "ochs_of_preflop": ochs.astype(np.uint8)}  # fmt: skip
        save_artifact(paths[3], RIVER_KIND, arrays, game=game, params=river_params)
    river = load_river(out_dir, game, river_params)
    # Each bin's place in OCHS space (a river center, or a turn center's barycenter of
    # river centers): the ground distances are at least the Euclidean ones (pruning).
    ground, embed = river_ground(river.centers), river.centers.astype(np.float64)
    turn_map = None
    for round_ in (2, 1):
        path, params = paths[round_], round_params(config, round_)
        if path.exists():
            try:
                arrays = load_artifact(path, KIND, game=game, params=params).arrays
            except ArtifactError as exc:
                raise AbstractionError(f"{exc} (or delete {out_dir} to start over)") from None
            log.info("round_done_already", round=ROUND_NAMES[round_], path=str(path))
        else:
            features = NextRoundFeatures(round_, config, river, turn_map, ground, embed)
            built = build_round(features, game, out_dir, params, show_progress, budget)
            if built is None:
                return paths
            arrays = {**built, "ground": ground}
            save_artifact(path, KIND, arrays, game=game, params=params)
            log.info("round_written", round=ROUND_NAMES[round_], path=str(path))
        if round_ == 2:  # the flop's bins are the turn's buckets
            turn_map, ground = arrays["buckets"], center_ground(arrays["centers"], ground)
            embed = np.asarray(arrays["centers"], np.float64) @ embed
    checkpoints = out_dir / "checkpoints"
    if checkpoints.is_dir() and not any(checkpoints.iterdir()):
        checkpoints.rmdir()
    return paths
