"""The ``precompute`` command: evaluator tables, equities, canonical indices, card abstractions."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from dataclasses import replace
from pathlib import Path

from protocol.arguments import add_command, command_line, run_command
from protocol.errors import ProtocolError
from protocol.gamedef import load_game

# The builders (numpy, numba) load when a command runs, not for --help; these copies of
# their constants are checked against them in tests/precompute/test_cli_help.py.
#: precompute.bucketing.PRESETS.
PRESET_NAMES = ("blueprint", "blueprint-quick", "full", "potential", "potential-quick", "small")
#: The presets a blueprint trains on (no river map).
BLUEPRINT_CARDS = ("blueprint", "blueprint-quick", "potential", "potential-quick")
#: precompute.blueprint_train.DEFAULT_ACTIONS and QUICK_ITERATIONS.
DEFAULT_ACTIONS = "0.5,1,2,4/0.5,1/1/1;allin;cap=4,3,2,2"
QUICK_ITERATIONS = 4096

EPILOG = """examples:
  precompute tables                          # build the evaluator tables into the cache
  precompute equity AsAd                     # preflop, sampled
  precompute equity AsAd Kh7c2d              # exact from the flop on
  precompute index --rounds 2,3 AsAdKh7c2d   # canonical flop index, and back
  precompute abstraction --game holdem.nolimit.2p --buckets 169,200,200,200 --out abs/full
  precompute abstraction --game holdem.nolimit.2p --preset small --out abs/small
  precompute abstraction --game holdem.nolimit.2p --preset potential --out abs/potential
  precompute blueprint --game holdem.nolimit.2p --iterations 4194304 --out bp/main
  precompute blueprint --game holdem.nolimit.2p --quick --out bp/quick
  precompute health                          # is the shipped blueprint trained enough? (exit 1 if not)

Tables are cached in $ACPC_CACHE_DIR (default ~/.cache/acpc-agent).  An interrupted
abstraction build resumes from OUT/checkpoints when run again with the same options;
an interrupted blueprint (Ctrl-C) resumes from OUT/checkpoint.mccfr the same way."""

BLUEPRINT_EPILOG = """examples:
  precompute blueprint --game holdem.nolimit.2p --quick --out bp/quick      # a check: ~22 s of CPU time
  precompute blueprint --game holdem.nolimit.2p --iterations 134217728 --schedule-iterations 8388608 \
      --average-rounds 4 --out bp/main --compress    # the shipped recipe (about 100 minutes on 2 cores)
  precompute blueprint --game holdem.nolimit.2p --iterations 536870912 --schedule-iterations 8388608 \
      --average-rounds 4 --out bp/main --compress --cards-from precompute/data/holdem.nolimit.2p.blueprint.xz \
      --resume-from precompute/data/training/holdem.nolimit.2p.checkpoint.xz   # the shipped run to 4x, on its own maps
  precompute blueprint --game holdem.nolimit.2p --iterations 67108864 --out bp/strong --compress
      --actions '0.5,1,2,4/0.33,0.75,1.5/0.75/0.75;allin;cap=4,3,2,2'   # (one line) stronger: hours
  precompute blueprint --game holdem.nolimit.2p --quick --cards potential-quick --out bp/pq   # potential-aware
  precompute blueprint --game holdem.nolimit.2p --cards potential --iterations 8388608 --out bp/potential
  precompute blueprint --game holdem.nolimit.2p --quick --workers 2 --out bp/w2   # 2 local worker processes
  precompute blueprint --game holdem.nolimit.2p --quick --workers 2 --ray auto --out bp/r2
      # the same arrays as bp/w2 as Ray tasks, after `ray start --head --num-cpus 2` (or --ray HOST:6379)

Writes OUT/cards (bucket maps, or a blueprint's with --cards-from; a run never continues on
other maps), OUT/checkpoint.mccfr (every few minutes and on Ctrl-C;
the same command resumes exactly; a larger --iterations with the same
--schedule-iterations continues a finished run) and OUT/blueprint.art, which
precompute.blueprint.Blueprint.load(path) plays from.  Results do not depend on --threads.
With --workers N (local processes) or --ray ADDRESS (tasks on a Ray cluster; every node
needs the package installed) training runs in rounds of one block per worker; the
arrays depend on --seed, --workers and --block only, not on where the workers run."""


def _buckets(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated bucket counts, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser, sub = command_line(
        "precompute", "Offline builds for the agent: hand-rank tables, equities, card abstractions.", EPILOG
    )

    p = add_command(
        sub, "tables", "build (or check) the cached hand-evaluator tables",
        "Builds the lookup tables the fast hand evaluator reads (a few seconds, once) into the cache "
        "folder, or checks that the cached ones are intact.",
        "examples:\n  precompute tables\n  precompute tables --rebuild",
    )  # fmt: skip
    p.add_argument("--rebuild", action="store_true", help="rebuild even if the cache is valid")
    p.set_defaults(func=_tables)

    p = add_command(
        sub, "equity", "all-in equity of a hand against a random hand",
        "The probability of winning (ties count half) when both hands are shown down against a "
        "uniformly random opponent hand: sampled over boards preflop, exact over every run-out after.",
        "examples:\n  precompute equity AsAd\n  precompute equity AsAd Kh7c2d",
    )  # fmt: skip
    p.add_argument("hole", help="two hole cards, e.g. AsAd")
    p.add_argument("board", nargs="?", default="", help="0, 3, 4 or 5 board cards, e.g. Kh7c2d")
    p.add_argument("--samples", type=int, default=20_000, help="random boards preflop (default 20000)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_equity)

    p = add_command(
        sub, "index", "canonical (suit-isomorphic) index of a hand, and its canonical form",
        "Hands that differ only by a renaming of suits play alike; the card abstraction gives each "
        "such class one index.  Prints the index, the number of classes and the class's canonical hand.",
        "examples:\n  precompute index AsAd\n  precompute index --rounds 2,3,1 AsAdKh7c2d9s",
    )  # fmt: skip
    p.add_argument("cards", help="the cards round by round, e.g. AsAdKh7c2d")
    p.add_argument("--rounds", type=_buckets, default=None, help="cards per round (default: 2 then the board)")
    p.set_defaults(func=_index)

    p = add_command(
        sub, "abstraction", "build a card abstraction (bucket maps per round)",
        "k-means buckets: EMD on equity histograms preflop, flop and turn; L2 on OCHS on the river.  Presets "
        "potential and potential-quick: flop and turn by EMD over histograms of the next round's buckets, river "
        "buckets by OCHS computed on the fly (blueprints train on them with --cards).", EPILOG,
    )  # fmt: skip
    p.add_argument("--game", required=True, help="a .game file or bundled name (hold'em only)")
    p.add_argument("--out", type=Path, required=True, help="output folder (holds checkpoints while building)")
    p.add_argument("--preset", choices=PRESET_NAMES, default="full", help="starting configuration (default full)")
    p.add_argument("--buckets", type=_buckets, help="per round, e.g. 169,200,200,200")
    p.add_argument("--seed", type=int, help="random seed (default 0)")
    p.add_argument("--bins", type=int, help="equity histogram bins (default 50)")
    p.add_argument("--ochs-clusters", type=int, help="opponent clusters for the river (default 8)")
    p.add_argument("--preflop-boards", type=int, help="random boards for the preflop histograms")
    p.add_argument("--train-points", type=int, help="k-means training hands per round")
    p.add_argument("--flop-runouts", type=int, help="run-outs per flop board (0 = all)")
    p.add_argument("--turn-runouts", type=int, help="run-outs per turn board (0 = all)")
    p.add_argument("--max-iter", type=int, help="k-means iterations")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_abstraction)

    p = add_command(
        sub, "blueprint", "train a blueprint strategy by MCCFR (resumable)",
        "External-sampling MCCFR with the Pluribus schedule on the blueprint card abstraction.", BLUEPRINT_EPILOG,
    )  # fmt: skip
    p.add_argument("--game", required=True, help="a .game file or bundled name (two-player hold'em)")
    p.add_argument("--out", type=Path, required=True, help="output folder (abstraction, checkpoint, blueprint)")
    p.add_argument("--iterations", type=int, help=f"MCCFR iterations; the schedule scales to them (--quick: {QUICK_ITERATIONS})")
    p.add_argument("--quick", action="store_true", help="coarse card features and few iterations: a check in about a minute")
    p.add_argument("--actions", default=DEFAULT_ACTIONS, help=f"action abstraction (default {DEFAULT_ACTIONS!r})")
    p.add_argument("--cards", choices=BLUEPRINT_CARDS,
                   help="card abstraction preset (default blueprint; blueprint-quick with --quick); potential: "
                        "potential-aware flop and turn, opponent-cluster hand strength on the river")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--threads", type=int, default=2, help="threads (1 or 2; same result either way, default 2)")
    p.add_argument("--block", type=int, default=1024, help="iterations per deterministic parallel block (default 1024)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="train on N worker processes, one block each per round (with --ray: tasks; default its CPUs)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="run the workers' blocks as tasks on this Ray cluster ('auto', HOST:PORT)")
    p.add_argument("--checkpoint-minutes", type=float, default=5.0, help="minutes between checkpoints (default 5)")
    p.add_argument("--stop-at", type=int, help="stop after this many iterations (a multiple of --block), keeping the schedule")
    p.add_argument("--schedule-iterations", type=int,
                   help="scale the Pluribus schedule to this many iterations (default --iterations); keep it to continue "
                        "a run to more --iterations")
    p.add_argument("--average-rounds", type=int, default=2,
                   help="rounds that play the average strategy; later ones play the current one (default 2)")
    p.add_argument("--compress", action="store_true", help="also write OUT/GAME.blueprint.xz and OUT/RECIPE.md for shipping")
    p.add_argument("--resume-from", type=Path, metavar="CHECKPOINT",
                   help="start OUT (which must hold no checkpoint yet) from this saved checkpoint (.mccfr, or .xz "
                        "compressed), e.g. the shipped run's: precompute/data/training/")
    p.add_argument("--cards-from", type=Path, metavar="BLUEPRINT",
                   help="train on the card maps stored in this blueprint (.art or .xz) instead of building them: "
                        "how a run continues exactly on its own maps, e.g. the shipped blueprint's run")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_blueprint)

    p = add_command(
        sub, "health", "is a blueprint trained enough to play from? (untrained infosets, probes; exit 1 if not)",
        "Near-uniform infosets per round weighted by self-play reach, sanity probes with exact answers, "
        "and the LBR command; exit 0 only if every probe passes and flop and turn are <= 5% near uniform.",
        "examples:\n  precompute health\n  precompute health --floor 0.05    # the rows as the agent plays them\n"
        "  precompute health bp/main/blueprint.art --checkpoint bp/main/checkpoint.mccfr",
    )  # fmt: skip
    p.add_argument("blueprint", nargs="?", type=Path, help="blueprint artifact (default: the shipped one)")
    p.add_argument("--checkpoint", type=Path, help="the run's OUT/checkpoint.mccfr: also untouched / tiny-regret shares")
    p.add_argument("--hands", type=int, default=20_000, help="self-play hands for the reach weights (default 20000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and boards (default 0)")
    p.add_argument("--json", type=Path, help="also write the report as JSON here")
    p.add_argument("--floor", type=float, default=0.0, metavar="F",
                   help="report on the rows as the agent plays them: actions below probability F dropped (the agent's "
                        "--action-floor, default 0.05 there); default 0, the raw blueprint")
    p.add_argument("--lbr-hands", type=int, help="also run the blueprint-only LBR command for this many hands (slow)")
    p.add_argument("--lbr-out", type=Path, help="the LBR run's folder (default: a temporary one)")
    p.set_defaults(func=_health)
    return parser


def _tables(args: argparse.Namespace) -> int:
    from protocol import fasteval

    path = fasteval.cache_path()
    if args.rebuild:
        path.unlink(missing_ok=True)
    start = time.monotonic()
    fasteval.eval_tables()
    print(f"evaluator tables ready in {path} ({time.monotonic() - start:.2f}s)")
    return 0


def _equity(args: argparse.Namespace) -> int:
    from precompute.equity import equity_vs_random
    from protocol.cards import parse_cards

    if args.samples < 1:
        raise ValueError(f"--samples must be at least 1, not {args.samples}")
    if args.seed < 0:
        raise ValueError(f"--seed must be 0 or more, not {args.seed}")
    equity = equity_vs_random(parse_cards(args.hole), parse_cards(args.board), samples=args.samples, seed=args.seed)
    how = "sampled" if not args.board else "exact"
    print(f"{equity:.6f} ({how}, against a uniformly random hand)")
    return 0


def _index(args: argparse.Namespace) -> int:
    from precompute.isomorphism import HandIndexer
    from protocol.cards import cards_str, parse_cards

    cards = parse_cards(args.cards)
    rounds = args.rounds or ((2, len(cards) - 2) if len(cards) > 2 else (2,))
    indexer = HandIndexer(rounds)
    index = indexer.index(cards)
    canonical = cards_str(indexer.unindex(index))
    print(f"{index} of {indexer.size} (rounds {','.join(map(str, rounds))}); canonical {canonical}")
    return 0


def _abstraction(args: argparse.Namespace) -> int:
    from precompute.bucketing import PRESETS, AbstractionConfig
    from precompute.potential import build_card_abstraction

    if args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out} is a file, not a folder")
    game = load_game(args.game)
    overrides = {
        key: value
        for key, value in {
            "buckets": args.buckets,
            "seed": args.seed,
            "bins": args.bins,
            "ochs_clusters": args.ochs_clusters,
            "preflop_boards": args.preflop_boards,
            "train_points": args.train_points,
            "flop_runouts": args.flop_runouts,
            "turn_runouts": args.turn_runouts,
            "max_iter": args.max_iter,
        }.items()
        if value is not None
    }
    config: AbstractionConfig = replace(PRESETS[args.preset], **overrides)
    start = time.monotonic()
    paths = build_card_abstraction(game, args.out, config, show_progress=not args.quiet)
    if all(p.exists() for p in paths):
        print(f"abstraction written to {args.out} in {time.monotonic() - start:.0f}s")
    return 0


def _blueprint(args: argparse.Namespace) -> int:
    from precompute.blueprint_train import TrainConfig, seed_cards, seed_checkpoint, train_blueprint, write_recipe
    from precompute.bucketing import PRESETS
    from solver.artifacts import compress
    from solver.bets import parse_abstraction

    if args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out} is a file, not a folder")
    parse_abstraction(args.actions)  # a wrong --actions is refused now, not after the card abstraction is built
    game = load_game(args.game)
    if game.num_players != 2:
        raise ValueError(f"blueprints are for two-player games; {args.game} has {game.num_players} players")
    iterations = args.iterations if args.iterations is not None else (QUICK_ITERATIONS if args.quick else None)
    if iterations is None:
        raise ValueError("give --iterations (or --quick)")
    config = TrainConfig(
        iterations=iterations, actions=args.actions, cards=args.cards or ("blueprint-quick" if args.quick else "blueprint"),
        seed=args.seed, block=args.block, threads=args.threads, checkpoint_minutes=args.checkpoint_minutes,
        stop_at=args.stop_at, schedule_iterations=args.schedule_iterations, average_rounds=args.average_rounds,
        workers=args.workers, ray=args.ray,
    )
    if args.cards_from is not None:  # before the checkpoint: a wrong file leaves the folder as it was
        seed_cards(args.cards_from, args.out / "cards", game, PRESETS[config.cards])
    if args.resume_from is not None:
        seed_checkpoint(args.resume_from, args.out)
    command = "precompute " + shlex.join(args.argv)
    start = time.monotonic()
    path = train_blueprint(game, args.out, config, command=command, show_progress=not args.quiet)
    print(f"blueprint written to {path} in {time.monotonic() - start:.0f}s")
    if args.compress:
        shipped = compress(path, args.out / f"{Path(args.game).name.removesuffix('.game')}.blueprint.xz")
        recipe = write_recipe(path, shipped, args.out / "RECIPE.md")
        print(f"compressed copy: {shipped}; recipe: {recipe}")
    return 0


def _health(args: argparse.Namespace) -> int:
    import tempfile

    from precompute.blueprint import Blueprint
    from precompute.health import format_report, health_report, run_lbr

    bp = Blueprint.load(args.blueprint)
    report = health_report(bp, hands=args.hands, seed=args.seed, checkpoint=args.checkpoint,
                           default_blueprint=args.blueprint is None, floor=args.floor)  # fmt: skip
    if args.lbr_hands is not None:
        with tempfile.TemporaryDirectory(prefix="health-lbr-") as tmp:
            report.lbr = run_lbr(args.blueprint, args.lbr_hands, args.lbr_out or tmp)
    print(format_report(report))
    if args.json is not None:
        args.json.write_text(report.to_json())
    return 0 if report.passed else 1


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)  # --help and usage errors end here, before any builder loads
    args.argv = argv
    from precompute.bucketing import AbstractionError
    from protocol.cluster import ClusterError
    from solver.artifacts import ArtifactError
    from solver.cfr.mccfr_distributed import WorkerError

    errors = (AbstractionError, ArtifactError, ClusterError, ProtocolError, ValueError, WorkerError)
    return run_command(
        lambda: args.func(args), f"precompute {args.command}", errors,
        file_errors=True, interrupted="interrupted (an abstraction build resumes when run again)",
    )


if __name__ == "__main__":
    sys.exit(main())
