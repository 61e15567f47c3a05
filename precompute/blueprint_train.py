"""Training a blueprint (``precompute blueprint``): card abstraction, MCCFR, export — all resumable.

Into one output folder OUT:

1. ``OUT/cards/``: the card abstraction's bucket maps for preflop, flop and turn
   (:func:`precompute.potential.build_card_abstraction`, preset ``blueprint``, or
   ``blueprint-quick`` for ``--quick``; ``potential`` or ``potential-quick`` for the
   potential-aware one); river buckets are computed on the fly (hand strength, or the
   nearest OCHS center the potential-aware build wrote into ``OUT/cards/river.ochs``).
2. ``OUT/checkpoint.mccfr``: external-sampling MCCFR
   (:class:`solver.cfr.mccfr_parallel.ParallelMCCFRSolver`: two threads, deterministic
   blocks) with the Pluribus schedule scaled to ``schedule_iterations`` (default:
   ``iterations``) and the average strategy kept on preflop and flop (turn and river
   play the current strategy, as Pluribus does after its first round).  A checkpoint
   is written every ``checkpoint_minutes`` and when the run stops (Ctrl-C or SIGTERM
   stop it between two blocks); running the same command again resumes exactly.
   The schedule is fixed in absolute iterations by ``schedule_iterations`` (its
   discounting ends and its pruning starts within the first 4% of them), so a
   finished run continues to more ``iterations`` with the same
   ``schedule_iterations``, exactly as one run to that many iterations would.
3. ``OUT/blueprint.art`` (and ``blueprint.art.xz`` if asked): the blueprint
   artifact :class:`precompute.blueprint.Blueprint` loads.

With ``workers`` (local processes) or ``ray`` (tasks on a Ray cluster) step 2 runs
instead on :class:`solver.cfr.mccfr_distributed.DistributedMCCFRSolver`: rounds of one
block per worker against a snapshot of the regrets, merged by this process, which keeps
the schedule and the checkpoints (reproducible for a given seed, worker count and
block; see that module).  Each worker builds its solver once from a
:class:`WorkerSpec` (the card maps and the betting tree's arrays, shipped with it), so
a Ray worker needs the package installed and nothing else.

The progress bar shows iterations/s and an exploitability proxy, the *mean positive
regret*: the sum of positive cumulative regrets over every (infoset, action) entry
with a nonzero regret, divided by the number of such entries and by the iterations
run, in milli-big-blinds.  CFR's bound makes exploitability at most the sum over
infosets of the positive regret per iteration, so the proxy falls as training
converges; it is a trend to watch (discounting and pruning scale it), not an
exploitability.
"""

from __future__ import annotations

import lzma
import os
import re
import resource
import shutil
import signal
import statistics
import time
from contextlib import ExitStack
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import structlog

from precompute.blueprint import BLUEPRINT_KIND, cache_dir, quantize
from precompute.bucketing import KIND as CARDS_KIND
from precompute.bucketing import PRESETS, ROUND_NAMES, AbstractionConfig, load_round, round_params
from precompute.cardbuckets import BlueprintCards
from precompute.potential import build_card_abstraction
from precompute.riverochs import RiverOCHS
from precompute.treecache import cached_tree, tree_arrays, tree_from_arrays
from protocol.cards import deck
from protocol.cluster import cluster_cpus, connect_ray
from protocol.gamedef import GameDef
from protocol.progress import Progress
from solver.artifacts import ArtifactError, decompressed, load_artifact, read_header, save_artifact
from solver.bets import parse_abstraction
from solver.cfr.block_pools import LocalBlockPool, RayBlockPool
from solver.cfr.mccfr import CHECKPOINT_KIND, MCCFRConfig, MCCFRSolver, pluribus_schedule
from solver.cfr.mccfr_distributed import BlockPool, BlockWorker, DistributedMCCFRSolver, RoundStats
from solver.cfr.mccfr_parallel import ParallelMCCFRSolver

#: Dense preflop and flop, one size on turn and river (the agent re-solves those).
DEFAULT_ACTIONS = "0.5,1,2,4/0.5,1/1/1;allin;cap=4,3,2,2"
QUICK_ITERATIONS = 4096
log = structlog.get_logger("precompute.blueprint")


@dataclass(frozen=True)
class TrainConfig:
    """What to train.  ``schedule_iterations`` (default ``iterations``) fixes the Pluribus
    schedule in absolute iterations, so a run continues to more ``iterations`` with the
    same schedule; ``stop_at`` ends the run early (a multiple of ``block``, or of a
    round of ``workers`` blocks); ``threads`` never changes the result.  ``workers``
    local processes, or ``ray`` (a cluster address; ``workers`` defaults to its CPUs),
    train in rounds of blocks instead of threads."""

    iterations: int
    actions: str = DEFAULT_ACTIONS
    cards: str = "blueprint"
    seed: int = 0
    block: int = 1024
    threads: int = 2
    average_rounds: int = 2
    checkpoint_minutes: float = 5.0
    stop_at: int | None = None
    schedule_iterations: int | None = None
    workers: int | None = None
    ray: str | None = None

    @property
    def schedule_length(self) -> int:
        """The iterations the Pluribus schedule is scaled to."""
        return self.schedule_iterations or self.iterations

    @property
    def distributed(self) -> bool:
        """Rounds of blocks on worker processes or Ray, not threads."""
        return self.workers is not None or self.ray is not None

    @property
    def round_size(self) -> int:
        """Iterations per round (per block without workers)."""
        return self.block * (self.workers or 1)

    def __post_init__(self) -> None:
        if self.iterations < 1 or self.block < 1 or self.threads < 1:
            got = f"{self.iterations}, {self.block}, {self.threads}"
            raise ValueError(f"iterations, block and threads must be positive, got {got}")
        if self.cards not in PRESETS or PRESETS[self.cards].river_map:
            blueprint_presets = sorted(k for k, v in PRESETS.items() if not v.river_map)
            raise ValueError(f"card preset {self.cards!r} is not a blueprint preset (one of {', '.join(blueprint_presets)})")
        if self.schedule_iterations is not None and self.schedule_iterations < 1:
            raise ValueError(f"--schedule-iterations must be positive, got {self.schedule_iterations}")
        if not 1 <= self.average_rounds <= 4:
            raise ValueError(f"--average-rounds must be between 1 and 4, got {self.average_rounds}")
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {self.workers}")
        if self.stop_at is not None and (self.stop_at < 1 or self.stop_at % self.round_size):
            unit = f"a round (--block {self.block} x --workers {self.workers})" if self.workers else "the block"
            raise ValueError(f"--stop-at must be a positive multiple of {unit} ({self.round_size}), got {self.stop_at}")


def regret_proxy(solver: MCCFRSolver) -> float:
    """Mean positive regret per touched (infoset, action) entry and iteration, in mbb (see the module docstring)."""
    regret = solver.regret
    touched = np.count_nonzero(regret)
    if not touched or not solver.iterations:
        return float("nan")
    positive = float(np.maximum(regret, 0).sum(dtype=np.float64))
    return 1000.0 * positive / int(touched) / solver.iterations / solver.tree.game.big_blind


class _StopSignal:
    """Turns SIGINT/SIGTERM into a flag checked between blocks (a block is never cut)."""

    def __enter__(self) -> _StopSignal:
        self.raised = False
        self._old = {s: signal.signal(s, self._handle) for s in (signal.SIGINT, signal.SIGTERM)}
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        self.raised = True

    def __exit__(self, *exc: object) -> None:
        for s, handler in self._old.items():
            signal.signal(s, handler)


@dataclass(frozen=True)
class WorkerSpec:
    """What a block worker builds its solver from, shipped to it once per run: the card
    maps (15 MB for the blueprint preset; with a potential-aware abstraction also the
    river centers, 1 KB) and the betting tree's arrays (8 MB for the default actions),
    so a worker reads no file of the run."""

    game: GameDef
    actions: str
    tree: dict[str, np.ndarray]
    maps: tuple[np.ndarray, np.ndarray, np.ndarray]
    n_river: int
    cards: str
    schedule: MCCFRConfig
    seed: int
    river: RiverOCHS | None = None  # the OCHS river of a potential-aware abstraction


def build_block_worker(spec: WorkerSpec) -> BlockWorker:
    """The worker of a distributed run (runs in the worker's process)."""
    tree = tree_from_arrays(spec.game, parse_abstraction(spec.actions), spec.tree)
    abstraction = BlueprintCards(spec.maps, spec.n_river, spec.river).abstraction(spec.cards)
    return BlockWorker(tree, deck(spec.game), abstraction, spec.schedule, spec.seed)


def train_blueprint(game: GameDef, out: str | Path, config: TrainConfig, *, command: str = "",
                    show_progress: bool = True) -> Path:
    """Build or resume everything in ``out`` and write ``out/blueprint.art``; returns its path.

    Raises:
        AbstractionError, ArtifactError: if ``out`` holds work made with other settings.
        TreeError: if the action abstraction builds too big a tree.
        ClusterError: if ``config.ray`` names no reachable cluster.
        WorkerError: if a worker cannot run its block.
    """
    out = Path(out)
    checkpoint = out / "checkpoint.mccfr"
    cleanup = ExitStack()  # the pool's processes and the Ray connection end with the run
    try:
        ray = None
        if config.ray is not None:  # an unreachable cluster is refused before anything is built
            ray = connect_ray(config.ray)
            cleanup.callback(ray.shutdown)
            if config.workers is None:  # a resumed run keeps its count: the arrays depend on it
                config = replace(config, workers=_trained_workers(checkpoint) or cluster_cpus(ray))
        schedule = pluribus_schedule(config.schedule_length, average_rounds=config.average_rounds)
        if checkpoint.exists():  # refuse a wrong continuation before minutes of building
            _check_resumable(checkpoint, schedule, config, out / "blueprint.art")
        # The betting tree first: a wrong or too large --actions is refused before minutes of card work.
        tree = cached_tree(game, parse_abstraction(config.actions), cache_dir() / "trees")
        card_config = PRESETS[config.cards]
        build_card_abstraction(game, out / "cards", card_config, show_progress=show_progress)
        cards = BlueprintCards.load_built(out / "cards", game, card_config.buckets[3])
        cards_hash = cards.content_hash()
        if checkpoint.exists():
            _check_cards(checkpoint, cards_hash, out / "cards")
        solver: MCCFRSolver
        if config.distributed:
            spec = WorkerSpec(game, config.actions, tree_arrays(tree), tuple(np.array(m) for m in cards.maps),
                              cards.n_buckets[3], config.cards, schedule, config.seed, cards.river)  # type: ignore[arg-type]
            factory = partial(build_block_worker, spec)
            workers = config.workers or 1
            pool: BlockPool = RayBlockPool(factory, workers, ray) if ray is not None else LocalBlockPool(factory, workers)
            cleanup.callback(pool.close)
            solver = DistributedMCCFRSolver(tree, deck(game), cards.abstraction(config.cards), schedule, config.seed,
                                            block=config.block, pool=pool)
            how = {"workers": workers, "backend": pool.describe()}
        else:
            solver = ParallelMCCFRSolver(tree, deck(game), cards.abstraction(config.cards), schedule, config.seed,
                                         block=config.block, threads=config.threads)
            how = {"threads": config.threads}
        solver.header_params["cards_hash"] = cards_hash
        return _train(solver, out, config, cards, schedule, how, command=command, show_progress=show_progress)
    finally:
        cleanup.close()


def _train(solver: MCCFRSolver, out: Path, config: TrainConfig, cards: BlueprintCards, schedule: MCCFRConfig,
           how: dict[str, Any], *, command: str, show_progress: bool) -> Path:
    """Resume ``solver`` from ``out``'s checkpoint if there is one, train it to the
    target with checkpoints and a progress bar, and export the blueprint."""
    checkpoint = out / "checkpoint.mccfr"
    if checkpoint.exists():
        solver.resume(checkpoint)
        log.info("resumed", path=str(checkpoint), iterations=solver.iterations)
    target = min(config.iterations, config.stop_at or config.iterations)
    log.info("training", nodes=solver.tree.n_nodes, entries=solver.layout.size, target=target, **how)
    started = time.perf_counter()
    last_save = time.monotonic()
    last_proxy = 0.0
    proxy = ""
    with _StopSignal() as stop, Progress("blueprint", target, done=solver.iterations, unit="it",
                                         enabled=show_progress) as bar:

        def progress(iterations: int, seconds: float) -> None:
            nonlocal last_save, last_proxy, proxy
            if time.monotonic() - last_proxy > 5 or iterations >= target:
                proxy = f"regret {regret_proxy(solver):.4g} mbb"
                last_proxy = time.monotonic()
            rounds = solver.round_stats if isinstance(solver, DistributedMCCFRSolver) else None
            bar.status = proxy if rounds is None else f"{proxy}; {workers_status(rounds)}"
            bar.advance(iterations - bar.done)
            if time.monotonic() - last_save > 60 * config.checkpoint_minutes:
                solver.save(checkpoint)
                last_save = time.monotonic()
                log.info("checkpoint", iterations=iterations, regret_mbb=regret_proxy(solver))

        solver.run(max(0, target - solver.iterations), progress=progress, stop=lambda: stop.raised)
    seconds = time.perf_counter() - started
    solver.save(checkpoint)
    if stop.raised:
        log.info("stopped", iterations=solver.iterations, hint="run the same command again to resume")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    log.info("trained", iterations=solver.iterations, seconds=round(seconds, 1), peak_rss_mb=round(peak))
    params = {
        "command": command,
        "iterations": solver.iterations,
        "schedule_iterations": config.schedule_length,
        "seed": config.seed,
        "block": config.block,
        "average_rounds": config.average_rounds,
        "card_preset": config.cards,
        "card_config": PRESETS[config.cards].params(),
        "cards_hash": solver.header_params.get("cards_hash"),
        "schedule": list(schedule),
        "seconds_this_run": round(seconds, 1),
        **how,
        "peak_rss_mb": round(peak),
    }
    return export_blueprint(out / "blueprint.art", solver, cards, params)


def workers_status(stats: RoundStats) -> str:
    """The progress bar's words on a round: each worker's iterations/s (the range and
    median beyond four workers) and the share of the round spent communicating."""
    rates = [r.job.count / max(r.seconds + r.overhead, 1e-9) for r in stats.results]
    if len(rates) <= 4:
        per = " ".join(_short(r) for r in rates)
    else:
        per = f"{_short(min(rates))}-{_short(max(rates))} (median {_short(statistics.median(rates))})"
    return f"per worker {per} it/s, communication {stats.communication_seconds / max(stats.seconds, 1e-9):.0%}"


def _short(rate: float) -> str:
    return f"{rate / 1000:.3g}k" if rate >= 1000 else f"{rate:.0f}"


def seed_checkpoint(source: str | Path, out: str | Path) -> Path:
    """Copy the checkpoint ``source`` (decompressed if it ends in ``.xz``) into ``out`` as the
    run's checkpoint, which :func:`train_blueprint` then resumes (and checks against its
    settings, as any checkpoint).  A saved checkpoint carries a long run across machines
    and working sessions, where ``out`` itself is not kept.

    Raises:
        ValueError: if ``out`` already holds a checkpoint (its own run would be lost) or
            ``source`` is missing or not valid xz data.
    """
    source, out = Path(source), Path(out)
    target = out / "checkpoint.mccfr"
    if target.exists():
        raise ValueError(f"{out} already holds a checkpoint; --resume-from starts a new folder from a saved one")
    if not source.is_file():
        raise ValueError(f"--resume-from {source}: no such file")
    out.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    try:
        with (lzma.open(source) if source.suffix == ".xz" else open(source, "rb")) as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    except lzma.LZMAError as exc:
        tmp.unlink(missing_ok=True)
        raise ValueError(f"--resume-from {source} is not valid xz data ({exc})") from None
    os.replace(tmp, target)
    return target


def seed_cards(source: str | Path, folder: str | Path, game: GameDef, config: AbstractionConfig) -> list[Path]:
    """Write the card maps stored in the blueprint ``source`` (``.art``, or ``.xz`` as
    shipped) into ``folder`` as a built abstraction of ``config``, so that a run trains on
    exactly those maps instead of rebuilding them: the build is not the same on every
    machine (2026-11-30: the code that built the maps inside the blueprint shipped on
    2026-11-26 builds maps here that differ from them in 0.067% of the flop's entries),
    and a run must continue on its own.

    Raises:
        ValueError: if ``source`` is missing or not a blueprint, was trained on another
            card configuration or a potential-aware river, or ``folder`` already holds
            other maps.
    """
    source, folder = Path(source), Path(folder)
    if not source.is_file():
        raise ValueError(f"--cards-from {source}: no such file")
    try:  # unpacked where Blueprint.load unpacks shipped blueprints, so the agent reuses the copy
        path = decompressed(source, cache_dir() / "blueprints") if source.suffix == ".xz" else source
        art = load_artifact(path, BLUEPRINT_KIND, game=game)
    except ArtifactError as exc:
        raise ValueError(f"--cards-from {source}: {exc}") from None
    maps = [np.array(art.arrays[key]) for key in ("preflop_map", "flop_map", "turn_map")]
    params = art.params
    if params.get("card_config") != config.params():
        raise ValueError(f"--cards-from {source} was trained on card configuration {params.get('card_config')}, "
                         f"not this run's {config.params()}")  # fmt: skip
    if params.get("river", "strength") != "strength" or config.clustering != "equity":
        raise ValueError(f"--cards-from {source}: only equity-based card maps (hand-strength river) can be reused")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for round_, buckets in enumerate(maps):
        path = folder / f"{ROUND_NAMES[round_]}.buckets"
        if path.exists():
            if not np.array_equal(load_round(path, game, round_params(config, round_)), buckets):
                raise ValueError(f"{path} holds other {ROUND_NAMES[round_]} buckets than --cards-from {source}; "
                                 "start a new --out")  # fmt: skip
            continue
        save_artifact(path, CARDS_KIND, {"buckets": buckets}, game=game, params=round_params(config, round_))
        written.append(path)
    return written


def _check_cards(checkpoint: Path, cards_hash: str, folder: Path) -> None:
    """Refuse to resume ``checkpoint`` on card maps other than those it was trained on
    (checkpoints written before the maps' hash was recorded are resumed with a warning).

    Raises:
        ValueError: naming both hashes and how to continue on the run's own maps.
    """
    trained = read_header(checkpoint)[0]["params"].get("cards_hash")
    if trained is None:
        log.warning("cards_unchecked", checkpoint=str(checkpoint),
                    hint="this checkpoint does not record its card maps' hash; if it came from another machine, "
                         "pass --cards-from the blueprint its run exported")  # fmt: skip
    elif trained != cards_hash:
        raise ValueError(f"{checkpoint} was trained on other card maps (hash {trained[:12]}) than {folder} holds "
                         f"({cards_hash[:12]}); continue it on its own with --cards-from a blueprint its run "
                         "exported, in a new --out")  # fmt: skip


def _trained_workers(checkpoint: Path) -> int | None:
    """The worker count a checkpoint was trained with (None: threads, or no checkpoint)."""
    return read_header(checkpoint)[0]["params"].get("workers") if checkpoint.exists() else None


def _check_resumable(checkpoint: Path, schedule: MCCFRConfig, config: TrainConfig, artifact: Path) -> None:
    """Refuse to resume ``checkpoint`` with another schedule than it was trained with, to
    fewer iterations than it has, or with other workers or blocks (the arrays depend on them).

    Raises:
        ValueError: naming the ``--schedule-iterations`` to continue with (read from the
            blueprint the run exported last, if there is one), the iterations it has, or
            the ``--workers`` and ``--block`` it was trained with.
    """
    params = read_header(checkpoint)[0]["params"]
    trained = params.get("config")
    if trained is not None and list(trained)[:-1] == list(schedule)[:-1] and trained[-1] != schedule.average_rounds:
        raise ValueError(f"{checkpoint} was trained with --average-rounds {trained[-1]}; continue it with "
                         f"--average-rounds {trained[-1]}")  # fmt: skip
    if trained is not None and list(trained) != list(schedule):
        hint = "the --schedule-iterations (default: --iterations) it was started with"
        if artifact.exists():
            hint = f"--schedule-iterations {read_header(artifact)[0]['params'].get('schedule_iterations')}"
        raise ValueError(f"{checkpoint} was trained with another Pluribus schedule; continue it with {hint}")
    workers, block = params.get("workers"), params.get("block")
    if workers is None and config.distributed:
        raise ValueError(f"{checkpoint} was trained with threads on one machine; continue it without --workers and --ray")
    if workers is not None and (workers != config.workers or block != config.block):
        raise ValueError(f"{checkpoint} was trained by {workers} workers in blocks of {block}; "
                         f"continue it with --workers {workers} --block {block} (locally or with --ray)")  # fmt: skip
    done = int(load_artifact(checkpoint, CHECKPOINT_KIND).arrays["iterations"][0])
    if done > config.iterations:
        raise ValueError(f"{checkpoint} has {done} iterations, more than --iterations {config.iterations}")


def export_blueprint(path: Path, solver: MCCFRSolver, cards: BlueprintCards, params: dict[str, Any]) -> Path:
    """Write ``solver``'s strategy with ``cards``' maps as a blueprint artifact at ``path``."""
    tree = solver.tree
    arrays = {
        "strategy": quantize(solver.strategy()),
        "offset": solver.layout.offset,
        "rows": np.array(solver.layout.rows, np.int64),
        "preflop_map": np.asarray(cards.maps[0]),
        "flop_map": np.asarray(cards.maps[1]),
        "turn_map": np.asarray(cards.maps[2]),
    }
    if cards.river is not None:
        arrays["river_centers"] = cards.river.centers
        arrays["river_pair_cluster"] = cards.river.pair_cluster.astype(np.uint8)
    header = {
        "action_abstraction": tree.abstraction.spec() if tree.abstraction else "",
        "nodes": tree.n_nodes,
        "river_buckets": cards.n_buckets[3],
        "river": "strength" if cards.river is None else "ochs",
        **params,
    }
    return save_artifact(path, BLUEPRINT_KIND, arrays, game=tree.game, params=header)



def stronger_recipe(params: dict[str, Any]) -> list[str]:
    """RECIPE.md's lines on training a stronger blueprint than the one ``params`` describe."""
    command = params.get("command") or "precompute blueprint --game holdem.nolimit.2p --iterations N --out OUT"
    schedule = int(params["schedule_iterations"])
    more = 4 * int(params["iterations"])
    base = re.sub(r" --(schedule-)?iterations[ =]\d+", "", command)
    return [
        "## A stronger blueprint",
        "",
        "More iterations: the Pluribus schedule is fixed in absolute iterations by",
        f"`--schedule-iterations` (here {schedule:,}; its discounting ends and its pruning",
        "starts within the first 4% of them), so the run above continues exactly.  Keep its `--out` folder",
        "(or rerun the command above with `--cards-from` the shipped file: it rebuilds the same checkpoint",
        "on the same card maps, which a rebuild on another machine need not give), then run it again with",
        "more `--iterations` and the same schedule, e.g. four times as many:",
        "",
        f"    {base} --iterations {more} --schedule-iterations {schedule}",
        "",
        "It resumes from `OUT/checkpoint.mccfr`, checkpoints every few minutes (Ctrl-C stops it,",
        "the same command resumes) and writes a new `OUT/blueprint.art`; `agent connect",
        "--blueprint OUT/blueprint.art` plays it.  The time grows about in proportion to the",
        f"iterations ({_time_words(params)}).",
        "",
        "A finer action abstraction (more flop, turn and river sizes) is a new run with",
        "`--actions` (e.g. `'0.5,1,2,4/0.33,0.75,1.5/0.75/0.75;allin;cap=4,3,2,2'`) and a",
        "schedule scaled to its own `--iterations`; a bigger tree needs more iterations to",
        "converge.  Any blueprint of the same game shape plays in the agent.",
        "",
    ]


def _cards_line(params: dict[str, Any], shipped: Path) -> list[str]:
    if not params.get("cards_hash"):
        return []
    return [
        f"- card maps' hash: `{params['cards_hash']}`; the card build can differ by machine, so where",
        f"  `precompute abstraction` builds other maps add `--cards-from {shipped.name}` (this file) to the command",
    ]


def _time_words(params: dict[str, Any]) -> str:
    seconds = params.get("seconds_this_run")
    if isinstance(seconds, (int, float)) and seconds < 1:  # exported by a run resumed at its target
        return f"the last part of the run above trained with {_ran_on(params)}; its times are noted below"
    return f"the run above: {seconds if seconds is not None else '?'} s with {_ran_on(params)}"


def _ran_on(params: dict[str, Any]) -> str:
    if "workers" in params:
        return f"{params['workers']} workers in blocks of {params.get('block', '?')}"
    return f"{params.get('threads', '?')} threads"


_RIVER_WORDS = {"strength": "hand-strength percentiles", "ochs": "nearest opponent-cluster hand-strength center"}


def write_recipe(artifact: Path, shipped: Path, target: Path) -> Path:
    """Write ``target`` (RECIPE.md): how ``artifact`` was made and the hash to check ``shipped`` against."""
    header = read_header(artifact)[0]
    p = header["params"]
    lines = [
        "# Recipe of the shipped blueprint",
        "",
        f"File: `{shipped.name}` ({shipped.stat().st_size:,} bytes, xz; {artifact.stat().st_size:,} bytes unpacked).",
        "",
        "Rebuild it (the same arrays, whatever `--threads`) with:",
        "",
        f"    {p['command']}" if p.get("command") else "    (command not recorded)",
        "",
        f"- seed: `{p['seed']}`; iterations: `{p['iterations']:,}` (schedule scaled to `{p['schedule_iterations']:,}`)",
        f"- action abstraction: `{p['action_abstraction']}` ({p['nodes']:,} betting nodes)",
        f"- card abstraction: preset `{p['card_preset']}`, buckets {p['card_config']['buckets']} "
        f"(river: {_RIVER_WORDS[p.get('river', 'strength')]})",
        f"- block: `{p['block']}`; average strategy kept on the first {p['average_rounds']} rounds",
        *_cards_line(p, shipped),
        "",
        "The arrays' SHA-256 (`solver.artifacts` content hash), checked by the tests:",
        "",
        f"content_hash: {header['content_hash']}",
        "",
        *stronger_recipe(p),
    ]
    target.write_text("\n".join(lines))
    return target
