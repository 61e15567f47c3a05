"""Training a blueprint (``precompute blueprint``): card abstraction, MCCFR, export — all resumable.

Into one output folder OUT:

1. ``OUT/cards/``: the card abstraction's bucket maps for preflop, flop and turn
   (:func:`precompute.bucketing.build_abstraction`, preset ``blueprint``, or
   ``blueprint-quick`` for ``--quick``); river buckets are hand strength on the fly.
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

The progress bar shows iterations/s and an exploitability proxy, the *mean positive
regret*: the sum of positive cumulative regrets over every (infoset, action) entry
with a nonzero regret, divided by the number of such entries and by the iterations
run, in milli-big-blinds.  CFR's bound makes exploitability at most the sum over
infosets of the positive regret per iteration, so the proxy falls as training
converges; it is a trend to watch (discounting and pruning scale it), not an
exploitability.
"""

from __future__ import annotations

import re
import resource
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import structlog

from precompute.blueprint import BLUEPRINT_KIND, cache_dir, quantize
from precompute.bucketing import PRESETS, build_abstraction
from precompute.cardbuckets import BlueprintCards
from precompute.treecache import cached_tree
from protocol.cards import deck
from protocol.gamedef import GameDef
from protocol.progress import Progress
from solver.artifacts import load_artifact, read_header, save_artifact
from solver.bets import parse_abstraction
from solver.cfr.mccfr import CHECKPOINT_KIND, MCCFRConfig, pluribus_schedule
from solver.cfr.mccfr_parallel import ParallelMCCFRSolver

#: Dense preflop and flop, one size on turn and river (the agent re-solves those).
DEFAULT_ACTIONS = "0.5,1,2,4/0.5,1/1/1;allin;cap=4,3,2,2"
QUICK_ITERATIONS = 4096
log = structlog.get_logger("precompute.blueprint")


@dataclass(frozen=True)
class TrainConfig:
    """What to train.  ``schedule_iterations`` (default ``iterations``) fixes the Pluribus
    schedule in absolute iterations, so a run continues to more ``iterations`` with the
    same schedule; ``stop_at`` ends the run early (a multiple of ``block``);
    ``threads`` never changes the result."""

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

    @property
    def schedule_length(self) -> int:
        """The iterations the Pluribus schedule is scaled to."""
        return self.schedule_iterations or self.iterations

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
        if self.stop_at is not None and (self.stop_at < 1 or self.stop_at % self.block):
            raise ValueError(f"--stop-at must be a positive multiple of the block ({self.block}), got {self.stop_at}")


def regret_proxy(solver: ParallelMCCFRSolver) -> float:
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


def train_blueprint(game: GameDef, out: str | Path, config: TrainConfig, *, command: str = "",
                    show_progress: bool = True) -> Path:
    """Build or resume everything in ``out`` and write ``out/blueprint.art``; returns its path.

    Raises:
        AbstractionError, ArtifactError: if ``out`` holds work made with other settings.
        TreeError: if the action abstraction builds too big a tree.
    """
    out = Path(out)
    schedule = pluribus_schedule(config.schedule_length, average_rounds=config.average_rounds)
    checkpoint = out / "checkpoint.mccfr"
    if checkpoint.exists():  # refuse a wrong continuation before minutes of building
        _check_resumable(checkpoint, schedule, config.iterations, out / "blueprint.art")
    # The betting tree first: a wrong or too large --actions is refused before minutes of card work.
    tree = cached_tree(game, parse_abstraction(config.actions), cache_dir() / "trees")
    card_config = PRESETS[config.cards]
    build_abstraction(game, out / "cards", card_config, show_progress=show_progress)
    cards = BlueprintCards.load_built(out / "cards", game, card_config.buckets[3])
    solver = ParallelMCCFRSolver(tree, deck(game), cards.abstraction(config.cards), schedule, config.seed,
                                 block=config.block, threads=config.threads)
    if checkpoint.exists():
        solver.resume(checkpoint)
        log.info("resumed", path=str(checkpoint), iterations=solver.iterations)
    target = min(config.iterations, config.stop_at or config.iterations)
    log.info("training", nodes=tree.n_nodes, entries=solver.layout.size, target=target, threads=config.threads)
    started = time.perf_counter()
    last_save = time.monotonic()
    last_proxy = 0.0
    with _StopSignal() as stop, Progress("blueprint", target, done=solver.iterations, unit="it",
                                         enabled=show_progress) as bar:

        def progress(iterations: int, seconds: float) -> None:
            nonlocal last_save, last_proxy
            if time.monotonic() - last_proxy > 5 or iterations >= target:
                bar.status = f"regret {regret_proxy(solver):.4g} mbb"
                last_proxy = time.monotonic()
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
        "card_config": card_config.params(),
        "schedule": list(schedule),
        "seconds_this_run": round(seconds, 1),
        "threads": config.threads,
        "peak_rss_mb": round(peak),
    }
    return export_blueprint(out / "blueprint.art", solver, cards, params)


def _check_resumable(checkpoint: Path, schedule: MCCFRConfig, iterations: int, artifact: Path) -> None:
    """Refuse to resume ``checkpoint`` with another schedule than it was trained with, or
    to fewer ``iterations`` than it has.

    Raises:
        ValueError: naming the ``--schedule-iterations`` to continue with (read from the
            blueprint the run exported last, if there is one), or the iterations it has.
    """
    trained = read_header(checkpoint)[0]["params"].get("config")
    if trained is not None and list(trained) != list(schedule):
        hint = "the --schedule-iterations (default: --iterations) it was started with"
        if artifact.exists():
            hint = f"--schedule-iterations {read_header(artifact)[0]['params'].get('schedule_iterations')}"
        raise ValueError(f"{checkpoint} was trained with another Pluribus schedule; continue it with {hint}")
    done = int(load_artifact(checkpoint, CHECKPOINT_KIND).arrays["iterations"][0])
    if done > iterations:
        raise ValueError(f"{checkpoint} has {done} iterations, more than --iterations {iterations}")


def export_blueprint(path: Path, solver: ParallelMCCFRSolver, cards: BlueprintCards, params: dict[str, Any]) -> Path:
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
    header = {
        "action_abstraction": tree.abstraction.spec() if tree.abstraction else "",
        "nodes": tree.n_nodes,
        "river_buckets": cards.n_buckets[3],
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
        "(or rerun the command above: it rebuilds the same checkpoint), then run it again with",
        "more `--iterations` and the same schedule, e.g. four times as many:",
        "",
        f"    {base} --iterations {more} --schedule-iterations {schedule}",
        "",
        "It resumes from `OUT/checkpoint.mccfr`, checkpoints every few minutes (Ctrl-C stops it,",
        "the same command resumes) and writes a new `OUT/blueprint.art`; `agent connect",
        "--blueprint OUT/blueprint.art` plays it.  The time grows about in proportion to the",
        f"iterations (the run above: {params.get('seconds_this_run', '?')} s with {params.get('threads', '?')} threads).",
        "",
        "A finer action abstraction (more flop, turn and river sizes) is a new run with",
        "`--actions` (e.g. `'0.5,1,2,4/0.33,0.75,1.5/0.75/0.75;allin;cap=4,3,2,2'`) and a",
        "schedule scaled to its own `--iterations`; a bigger tree needs more iterations to",
        "converge.  Any blueprint of the same game shape plays in the agent.",
        "",
    ]


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
        "(river: hand-strength percentiles)",
        f"- block: `{p['block']}`; average strategy kept on the first {p['average_rounds']} rounds",
        "",
        "The arrays' SHA-256 (`solver.artifacts` content hash), checked by the tests:",
        "",
        f"content_hash: {header['content_hash']}",
        "",
        *stronger_recipe(p),
    ]
    target.write_text("\n".join(lines))
    return target
