"""Subgame solving speed on heads-up no-limit hold'em public states (issue 11, item 8; issue 25).

    .venv/bin/python tests/bench/bench_subgame.py [--skip-turn] [--boards 50] [--dtype float64] [--turn-agent 600]
    .venv/bin/python tests/bench/bench_subgame.py --case turn --baseline ec476c2
    .venv/bin/python tests/bench/bench_subgame.py --spot tests/bench/spots/river.toml [--threads 2] [--quick] [--json]
    .venv/bin/python tests/bench/bench_subgame.py --spot tests/bench/spots/turn.toml --compare checks --reps 3
    .venv/bin/python tests/bench/bench_subgame.py --board QsJh2h8d3c --pot 100 --stack 400 --bet-sizes ip,river,allin

**Spot mode** (``--spot FILE`` and/or the spot flags): one spot given in the terms the
common range solvers use (board, pot, effective stack, bet and raise sizes in % of the
pot per street and player, the ranges, all-in threshold, accuracy, threads, max iterations; a TOML
or JSON file, see ``tests/bench/spots/`` and :mod:`solver.spot` for how each term maps
onto our trees); flags override the file's values.  Prints the spot as solved (sizes
that never produced a bet of their own in the tree are listed), the tree's size, the
build time (the spot is built twice: the first build in a process also loads the
evaluator's tables and card kernels, and is printed apart), then the solve: wall and
CPU seconds, iterations, exploitability in % of the pot, the solver's arrays and the
process's peak memory, threads.  ``--compare checks|storage|split|threads|dcfr`` solves
the spot by today's path and by the new one alternately (``--reps`` times each) and
prints both medians and their ratio: ``checks`` a check every 10 iterations against
:class:`solver.subgame.range_solver.CheckSchedule`, ``storage``
float64 against float32 regrets and sums, ``split`` the static split of the parts
below the first chance nodes over the threads against the atomic-counter one,
``threads`` one thread against the spot's (the second core's gain), ``dcfr`` the DCFR
paper's average discount (gamma 2) against the solver's default (gamma 3).  With
``--lockstep N`` (split, threads: the same iterates) the two run side by side, one
iteration each in turn, for N iterations.  ``--quick`` caps
the solve at a few iterations and prints the exploitability after 10, 20 and 40 (what
``tests/solver/test_spot.py`` runs); ``--json`` prints one JSON object instead.

**Baseline** (``--baseline COMMIT``, default :data:`BASELINE_COMMIT`, today's solver before
issue 25's speed work; ``none`` skips it): each case of the default mode, and the spot
of spot mode, is solved again on the code of COMMIT, and both figures and the ratio are
printed.  The commit is checked out once as a git worktree under ``$ACPC_CACHE_DIR``
(``tests/bench/frozen.py``) and measured by this same script in a subprocess that
imports that checkout's solver (``repo_root.py``'s ``ACPC_BENCH_CODE``), one run after
the other, never at the same time; each solver runs its own default configuration.

**Default mode** (no spot given; ``--case river|turn|agent`` runs one case).  Cases
(times exclude building the subgame, printed separately; kernels are compiled and
cached by a warm-up solve first):

1. river, ``tests/bench/spots/river.toml``: board Qs Jh 2h 8d 3c, pot 100, 400 behind,
   full ranges, bets 67/100/150% + all-in, raises 50/100% + all-in, a bet or raise
   adding more than 0.67 of the bettor's chips behind becomes all-in (so the 100%
   raise never appears: it is always all-in), to 0.1% of the pot, 1 thread.  Also CFR+
   in the same run, as a baseline.  (Until issue 25 the comment here listed a 33% bet
   as well; with the old game's big blind of 50 it was below the minimum bet and never
   in the tree.  ``spots/river33.toml`` has it.)
2. turn + river, ``tests/bench/spots/turn.toml``: board Qs Jh 2h 8d, bets 50/100% +
   all-in, raise 100% + all-in on both streets, same threshold, to 0.5% of the pot,
   2 threads.
3. agent-sized river solves (bets 50/100% + all-in, raise 100% + all-in) to 1% of the
   pot over random boards and random non-uniform ranges: median and p99; each board is
   also solved checking every 10 and every 50 iterations (the agent's ``CHECK_EVERY``),
   for the schedule's ratio against both.
4. with ``--turn-agent SECONDS``: turn + river solves of the sizes an agent would use
   from the turn (``0.5,1,2;allin;cap=2``, and ``1;allin;cap=0,0,2,1``: two raises on the
   turn, one on the river, the agent's since 2026-11-28), board
   Qs Jh 2h 8d, uniform ranges, to 1% of the pot, 2 threads, at most SECONDS each:
   seconds per iteration (without the checks) and to the target.

The spots' trees are node for node those of the earlier cases (a game with stacks 450
and blinds 50/50 checked to the river or turn; ``tests/solver/test_spot.py`` checks
it).  The C++ range-solver figures are issue 25's (TexasSolver on these same trees,
median of 3, quiet machine); they are not rerun here.  The "before" figures are this
script's on main before the kernel rework (float64 storage, one terminal call per
terminal), measured on 2026-11-24 on a quiet machine (load 0.4); they are constants,
not rerun.  The machine is shared: the load average is printed before and after, and
CPU seconds beside wall seconds.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import repo_root  # noqa: F401  (the repository on sys.path, for tests.*)
from frozen import CheckoutError, frozen_worktree

from protocol.cards import cards_str, deck, parse_cards
from protocol.gamedef import GameDef, parse_gamedef
from protocol.rules import CALL, State, initial_state, with_cards
from solver.bets import parse_abstraction
from solver.cfr.fullwidth import CFR_PLUS, DCFR, CFRConfig
from solver.subgame.range_solver import Subgame, SubgameResult, SubgameSolver, build_subgame
from solver.tree import DECISION

try:
    from solver.spot import STREETS, Spot, SpotError, apply_size_flags, load_spot, read_spot_file, spot_from_mapping
except ModuleNotFoundError:  # a --baseline commit from before solver.spot (ec476c2) keeps it in the tests
    from tests.solver.spot import STREETS, Spot, SpotError, apply_size_flags, load_spot, read_spot_file, spot_from_mapping

SPOTS = Path(__file__).resolve().parent / "spots"
GAME = parse_gamedef(
    """GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 450 450
blind = 50 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
""",
    source="bench-subgame",
)
#: The river case's sizes in GAME (the spot file river.toml gives the same tree): no
#: 33% bet, since with a big blind of 50 it was always below the minimum bet.
RIVER = parse_abstraction("0.67,1,1.5;raise=0.5,1;allin;allinabove=0.67")
COARSE = parse_abstraction("0.5,1;raise=1;allin;allinabove=0.67")
#: Issue 25's TexasSolver figures on the same trees (median of 3, quiet machine), seconds.
CPP_RIVER, CPP_TURN = 0.658, 15.7
#: (wall s, CPU s) on main before the kernel rework, quiet machine (see the docstring).
BEFORE_RIVER, BEFORE_TURN = (0.623, 0.590), (40.4, 48.4)
BEFORE_AGENT_MEDIAN, BEFORE_AGENT_P99 = 0.099, 0.123
#: Issue 25's targets: river to 0.1% on 1 thread (it counts the build too), turn to 0.5% on 2 threads.
TARGET_RIVER, TARGET_TURN = 0.15, 2.0
TURN_AGENT = ("0.5,1,2;allin;cap=2", "1;allin;cap=0,0,2,1")
#: --baseline's default: today's solver, main before issue 25's speed work (item 1).
BASELINE_COMMIT = "ec476c2"
#: The default mode's cases, each runnable alone with --case (what --baseline's subprocess runs).
CASES = ("river", "turn", "agent")
#: --quick: the exploitability is printed after these many iterations.
QUICK_CHECKPOINTS = (10, 20, 40)


def checked_to(game: GameDef, round_: int, board: tuple[int, ...]) -> State:
    """Check/call every action until ``round_`` starts; pot 100, 400 behind."""
    state = initial_state(game)
    while state.round < round_:
        state = state.apply(CALL)
    return with_cards(state, ((), ()), board[: game.board_cards_through(round_)])


def timed_solve(
    sg: Subgame, ranges: np.ndarray, target: float, threads: int, config: CFRConfig | None = None,
    dtype: type = np.float32, **solve_options,
) -> tuple[float, float, SubgameResult, SubgameSolver]:
    """One solve, timed: wall and CPU seconds, the result, the solver (``config``: the
    solver's default unless given, so that a baseline run measures its own default)."""
    solver = SubgameSolver(sg, ranges, *(() if config is None else (config,)), threads=threads, dtype=dtype)
    wall, cpu = time.perf_counter(), time.process_time()
    result = solver.solve(target, **solve_options)
    return time.perf_counter() - wall, time.process_time() - cpu, result, solver


def spot_ranges(spot: Spot, sg: Subgame) -> np.ndarray:
    """The spot's ranges over the subgame's hands (full ranges for a --baseline commit
    whose spots had no ranges yet)."""
    if hasattr(spot, "hand_ranges"):
        return spot.hand_ranges(sg)
    return np.ones((2, sg.n_hands))


def warm_up(sg: Subgame, ranges: np.ndarray, threads: int, dtype: type) -> None:
    """Compile or load every kernel a timed solve calls (an iteration, a check, the
    evaluation and the average strategy): loading one from numba's cache the first time
    a process calls it takes milliseconds, which a river solve would count."""
    SubgameSolver(sg, ranges, threads=threads, dtype=dtype).solve(100.0, max_iterations=1)


def report(
    name: str, sg: Subgame, build: float, wall: float, cpu: float, result, cpp: float | None, target: float | None,
    before: tuple[float, float] | None = None,
) -> None:
    nodes, infosets = sg.size()
    print(
        f"{name}: {wall:.3f} s wall, {cpu:.3f} s CPU, {result.iterations} iterations, "
        f"exploitability {result.exploitability_pct:.4f}% of the pot | tree {nodes:,} nodes, {infosets:,} infoset rows, "
        f"{result.memory_bytes / 1e6:.1f} MB | build {build:.3f} s"
    )
    if cpp is not None:
        print(
            f"    vs C++ range solver {cpp:.3f} s: {cpp / wall:.2f}x (wall), {cpp / cpu:.2f}x (CPU); "
            f"solve + build {wall + build:.3f} s wall, target <= {target} s"
        )
    if before is not None:
        print(
            f"    vs before the rework ({before[0]:.3f} s wall / {before[1]:.3f} s CPU, quiet machine): "
            f"{before[0] / wall:.2f}x (wall), {before[1] / cpu:.2f}x (CPU)"
        )


def peak_rss_mb() -> float:
    """The process's peak resident memory so far, MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def build_spot(spot: Spot) -> tuple[Subgame, float, float, list[str]]:
    """The spot's subgame, the build's wall seconds, the first build's in this process,
    and the sizes never offered in its tree.

    The spot is built twice: the first build in a process also loads the evaluator's
    tables and the card kernels (about 0.25 s, once per process), which is start-up,
    not the cost of building a tree.
    """
    start = time.perf_counter()
    build_subgame(spot.root(), spot.abstraction())
    first = time.perf_counter() - start
    start = time.perf_counter()
    abstraction = spot.abstraction()
    sg = build_subgame(spot.root(), abstraction)
    build = time.perf_counter() - start
    oop = spot.game().first_player[1]
    missing = [
        f"{STREETS[r - 1]} {'OOP' if p == oop else 'IP'} {kind} {100 * f:g}%"
        for r, p, kind, f in abstraction.never_offered()
    ]
    return sg, build, first, missing


def spot_tree(sg: Subgame) -> dict:
    """Counts of the spot's tree: nodes, decision nodes, infoset rows, the root's actions."""
    nodes, infosets = sg.size()
    return {
        "nodes": nodes, "decisions": int((sg.tree.kind == DECISION).sum()), "infoset_rows": infosets,
        "hands": sg.n_hands, "root_actions": [str(a) for a in sg.tree.actions(0)],
    }


def run_spot(
    spot: Spot, *, quick: bool, as_json: bool, dtype: type, baseline: str | None = None, baseline_argv: list[str] | None = None
) -> dict:
    """Spot mode: build, warm the kernels up, solve, and print (see the module docstring);
    with ``baseline_argv``, the same spot solved again on the code of ``baseline``."""
    load_before = os.getloadavg()
    rss_start = peak_rss_mb()
    sg, build, first, missing = build_spot(spot)
    out = {"spot": spot.describe(), "tree": spot_tree(sg), "never_offered": missing, "build_seconds": build,
           "first_build_seconds": first,
           "threads": spot.threads, "storage": np.dtype(dtype).name, "load_before": load_before}
    ranges = spot_ranges(spot, sg)
    warm_up(sg, ranges, spot.threads, dtype)
    if quick:
        solver = SubgameSolver(sg, ranges, threads=spot.threads, dtype=dtype)
        curve = []
        for n in QUICK_CHECKPOINTS:
            solver.iterate(n - solver.iterations)
            curve.append((n, solver.exploitability()))
        out["curve"] = curve
        out["memory_bytes"] = solver.memory_bytes()
    else:
        # The solve is final, as `solver spot`'s is (its strategy takes the regrets' memory);
        # a --baseline commit from before 2026-11-29 has no such option.
        final = {"final": True} if "final" in inspect.signature(SubgameSolver.solve).parameters else {}
        wall, cpu, result, solver = timed_solve(
            sg, ranges, spot.accuracy, spot.threads, dtype=dtype, max_iterations=spot.max_iterations,
            check_every=spot.check_every, **final,
        )
        out.update(seconds_wall=wall, seconds_cpu=cpu, iterations=result.iterations,
                   exploitability_pct=result.exploitability_pct, memory_bytes=result.memory_bytes)
    out["peak_rss_mb"] = peak_rss_mb()
    out["peak_rss_mb_at_start"] = rss_start
    out["load_after"] = os.getloadavg()
    if baseline_argv is not None:
        out["baseline"] = {"commit": baseline, **baseline_run(baseline, baseline_argv)}
    if as_json:
        print(json.dumps(out))
        return out
    t = out["tree"]
    print(out["spot"])
    print(
        f"tree: {t['nodes']:,} nodes, {t['decisions']:,} decisions, {t['infoset_rows']:,} infoset rows, {t['hands']:,} hands "
        f"| root actions (raise-to chips) {' '.join(t['root_actions'])} | build {build:.3f} s "
        f"(the first in this process {first:.3f} s, with loading the tables and kernels)"
    )
    if missing:
        print(f"sizes never offered as a bet of their own (below the minimum, or all-in by the threshold): {', '.join(missing)}")
    if quick:
        print("quick: exploitability " + ", ".join(f"{e:.4f}% after {n}" for n, e in out["curve"]))
    else:
        print(
            f"solve: {out['seconds_wall']:.3f} s wall, {out['seconds_cpu']:.3f} s CPU, {out['iterations']} iterations, "
            f"exploitability {out['exploitability_pct']:.4f}% of the pot, solve + build {out['seconds_wall'] + build:.3f} s wall "
            f"({'met' if out['exploitability_pct'] <= spot.accuracy else 'not met'}: {spot.accuracy:g}%)"
        )
    print(
        f"memory: solver arrays {out['memory_bytes'] / 1e6:.1f} MB, process peak {out['peak_rss_mb']:.0f} MB "
        f"({out['peak_rss_mb_at_start']:.0f} MB before the build); "
        f"{out['memory_bytes'] / out['tree']['infoset_rows']:.1f} bytes per infoset row "
        f"| threads {spot.threads} | storage {out['storage']} "
        f"| load average before {load_before}, after {out['load_after']}"
    )
    if "baseline" in out:
        print_ratio(baseline, out, out["baseline"])
    return out


#: --compare: (A, today's path; B, the new one), each (label, SubgameSolver options,
#: solver attributes, solve options); a "threads" of None is the spot's.
COMPARISONS = {
    "checks": (("checks every 10 (fixed)", {}, {}, {"check_every": 10}), ("checks as scheduled", {}, {}, {"check_every": None})),
    "storage": (("float64 storage", {"dtype": np.float64}, {}, {}), ("float32 storage", {"dtype": np.float32}, {}, {})),
    "split": (
        ("static split", {}, {"dynamic_split": False}, {}), ("atomic-counter split", {}, {"dynamic_split": True}, {}),
    ),
    "threads": (("1 thread", {"threads": 1}, {}, {}), ("the spot's threads", {}, {}, {})),
    "dcfr": (("DCFR(1.5, 0, 2), the paper's", {"config": DCFR}, {}, {}), ("SUBGAME_DCFR, the default", {}, {}, {})),
}


def compare_spot(spot: Spot, what: str, reps: int) -> None:
    """Spot mode with ``--compare``: the A and B paths of ``COMPARISONS[what]`` solved
    alternately ``reps`` times each on one subgame; medians and the A/B ratio."""
    print(f"load average before: {os.getloadavg()}")
    sg, build, _, _ = build_spot(spot)
    print(spot.describe())
    print(f"tree: {sg.size()[0]:,} nodes, {sg.size()[1]:,} infoset rows | build {build:.3f} s")
    ranges = spot_ranges(spot, sg)
    variants = COMPARISONS[what]

    def make(options: dict, attributes: dict) -> SubgameSolver:
        solver = SubgameSolver(sg, ranges, **{"threads": spot.threads, **options})
        for name, value in attributes.items():
            setattr(solver, name, value)
        return solver

    for _, options, attributes, _ in variants:
        make(options, attributes).solve(spot.accuracy, max_iterations=1)  # compile / load the kernels
    figures: list[list[tuple[float, float, SubgameResult]]] = [[], []]
    for _ in range(reps):
        for i, (_, options, attributes, solve_options) in enumerate(variants):
            solver = make(options, attributes)
            wall, cpu = time.perf_counter(), time.process_time()
            result = solver.solve(spot.accuracy, max_iterations=spot.max_iterations, **solve_options)
            figures[i].append((time.perf_counter() - wall, time.process_time() - cpu, result))
    medians = []
    for (label, *_), runs in zip(variants, figures, strict=True):
        wall, cpu = float(np.median([r[0] for r in runs])), float(np.median([r[1] for r in runs]))
        medians.append((wall, cpu))
        its = sorted({r[2].iterations for r in runs})
        worst = max(r[2].exploitability_pct for r in runs)
        print(
            f"{label}: median {wall:.3f} s wall / {cpu:.3f} s CPU over {reps} (each: "
            f"{', '.join(f'{r[0]:.3f}' for r in runs)} s wall), iterations {its}, exploitability <= {worst:.4f}% "
            f"| {runs[0][2].memory_bytes / 1e6:.1f} MB"
        )
    (wall_a, cpu_a), (wall_b, cpu_b) = medians
    print(
        f"{variants[1][0]} vs {variants[0][0]}: {wall_a / wall_b:.3f}x (wall), {cpu_a / cpu_b:.3f}x (CPU) "
        f"| threads {spot.threads} | load average after: {os.getloadavg()}"
    )


def lockstep_spot(spot: Spot, what: str, iterations: int) -> None:
    """``--compare split|threads --lockstep N``: the A and B paths give bitwise the same
    iterates, so instead of whole solves they run side by side, one iteration each in
    turn (the order swapped every iteration), for N iterations: load changes over the
    run then hit both alike.  Prints per-iteration medians, totals and the ratios."""
    print(f"load average before: {os.getloadavg()}")
    sg, build, _, _ = build_spot(spot)
    print(spot.describe())
    print(f"tree: {sg.size()[0]:,} nodes, {sg.size()[1]:,} infoset rows | build {build:.3f} s")
    ranges = spot_ranges(spot, sg)
    solvers = []
    for _, options, attributes, _ in COMPARISONS[what]:
        solver = SubgameSolver(sg, ranges, **{"threads": spot.threads, **options})
        for name, value in attributes.items():
            setattr(solver, name, value)
        solver.iterate(1)  # compile / load the kernels
        solvers.append(solver)
    times = np.zeros((2, iterations, 2))  # variant, iteration, (wall, CPU)
    for t in range(iterations):
        for i in (0, 1) if t % 2 == 0 else (1, 0):
            wall, cpu = time.perf_counter(), time.process_time()
            solvers[i].iterate(1)
            times[i, t] = time.perf_counter() - wall, time.process_time() - cpu
    same = all(np.array_equal(getattr(solvers[0], a), getattr(solvers[1], a)) for a in ("regret", "avg"))
    for (label, *_), x in zip(COMPARISONS[what], times, strict=True):
        print(
            f"{label}: per iteration median {np.median(x[:, 0]) * 1e3:.1f} ms wall / {np.median(x[:, 1]) * 1e3:.1f} ms CPU, "
            f"total {x[:, 0].sum():.2f} s wall / {x[:, 1].sum():.2f} s CPU over {iterations} iterations"
        )
    a, b = times
    print(
        f"{COMPARISONS[what][1][0]} vs {COMPARISONS[what][0][0]}: {a[:, 0].sum() / b[:, 0].sum():.3f}x (total wall), "
        f"{np.median(a[:, 0]) / np.median(b[:, 0]):.3f}x (median wall), {a[:, 1].sum() / b[:, 1].sum():.3f}x (CPU) "
        f"| regrets and sums bitwise equal: {same} | threads {spot.threads} | load average after: {os.getloadavg()}"
    )


def turn_agent(board: tuple[int, ...], spec: str, limit: float, dtype: type) -> None:
    """Case 4: one agent-sized turn solve to 1%, iterations and checks timed apart."""
    start = time.perf_counter()
    sg = build_subgame(checked_to(GAME, 2, board), parse_abstraction(spec))
    build = time.perf_counter() - start
    solver = SubgameSolver(sg, np.ones((2, sg.n_hands)), threads=2, dtype=dtype)
    iter_wall = iter_cpu = check_wall = check_cpu = 0.0
    exploitability = float("inf")
    while exploitability > 1.0 and iter_wall + check_wall < limit:
        wall, cpu = time.perf_counter(), time.process_time()
        solver.iterate(10)
        iter_wall += time.perf_counter() - wall
        iter_cpu += time.process_time() - cpu
        wall, cpu = time.perf_counter(), time.process_time()
        exploitability = solver.exploitability()
        check_wall += time.perf_counter() - wall
        check_cpu += time.process_time() - cpu
    t = solver.iterations
    nodes, infosets = sg.size()
    print(
        f"turn agent-size '{spec}', 2 threads, to 1%: {iter_wall + check_wall:.1f} s wall, {iter_cpu + check_cpu:.1f} s CPU, "
        f"{t} iterations, exploitability {exploitability:.3f}% of the pot"
        f"{'' if exploitability <= 1.0 else f' (stopped at the {limit:g} s limit)'} | "
        f"per iteration {iter_wall / t:.3f} s wall / {iter_cpu / t:.3f} s CPU, per check {check_wall / (t // 10):.3f} s wall / "
        f"{check_cpu / (t // 10):.3f} s CPU | tree {nodes:,} nodes, {infosets:,} infoset rows, "
        f"{solver.memory_bytes() / 1e6:.1f} MB | build {build:.3f} s"
    )


#: Case 3's check cadences, solved on the same boards one after another (the order rotated):
#: the solver's schedule (today's default), every 10 (the default before it), every 50
#: (agent.solving.CHECK_EVERY).
AGENT_CADENCES = (("scheduled", None), ("every 10", 10), ("every 50", 50))


def agent_rivers(boards: int, dtype: type, *, cadences: bool = True, as_json: bool = False) -> dict:
    """Case 3: agent-sized river solves to 1% on random boards and ranges (with
    ``cadences``, each also solved checking every 10 and every 50 iterations); its figures."""
    rng = np.random.default_rng(11)
    cards = np.array(deck(GAME))
    builds = []
    cadence_list = AGENT_CADENCES if cadences else AGENT_CADENCES[:1]
    figures: dict[str, list[tuple[float, float, int]]] = {name: [] for name, _ in cadence_list}
    for n in range(boards):
        dealt = tuple(int(c) for c in rng.choice(cards, 5, replace=False))
        start = time.perf_counter()
        sg = build_subgame(checked_to(GAME, 3, dealt), COARSE)
        builds.append(time.perf_counter() - start)
        ranges = rng.random((2, sg.n_hands)) ** 3  # skewed, non-uniform weights
        for k in range(len(cadence_list)):
            name, every = cadence_list[(n + k) % len(cadence_list)]
            wall, cpu, result, _ = timed_solve(sg, ranges, 1.0, 1, dtype=dtype, check_every=every)
            figures[name].append((wall, cpu, result.iterations))
    walls, cpus, sizes = (np.array(x) for x in zip(*figures["scheduled"], strict=True))
    out = {
        "case": "agent", "boards": boards, "median_wall": float(np.median(walls)), "p99_wall": float(np.percentile(walls, 99)),
        "median_cpu": float(np.median(cpus)), "p99_cpu": float(np.percentile(cpus, 99)),
        "median_iterations": float(np.median(sizes)), "build_median": float(np.median(builds)),
    }
    if as_json:
        return out
    print(
        f"agent river solves to 1% ({boards} random boards, e.g. {cards_str(dealt)}; random ranges), 1 thread: "
        f"median {out['median_wall']:.3f} s wall / {out['median_cpu']:.3f} s CPU, "
        f"p99 {out['p99_wall']:.3f} s wall / {out['p99_cpu']:.3f} s CPU, "
        f"median {int(np.median(sizes))} iterations | build median {np.median(builds):.3f} s, "
        f"p99 {np.percentile(builds, 99):.3f} s | tree {sg.size()[0]:,} nodes"
    )
    print(
        f"    vs before the rework (median {BEFORE_AGENT_MEDIAN} s, p99 {BEFORE_AGENT_P99} s wall, quiet machine): "
        f"median {BEFORE_AGENT_MEDIAN / np.median(walls):.2f}x, p99 {BEFORE_AGENT_P99 / np.percentile(walls, 99):.2f}x (wall)"
    )
    for name, _ in cadence_list[1:]:
        w, c, it = (np.array(x) for x in zip(*figures[name], strict=True))
        print(
            f"    checks {name}: median {np.median(w):.3f} s wall / {np.median(c):.3f} s CPU, p99 {np.percentile(w, 99):.3f} s, "
            f"median {int(np.median(it))} iterations; scheduled is {c.sum() / cpus.sum():.3f}x faster in total CPU, "
            f"{np.median(w) / np.median(walls):.3f}x in median wall"
        )
    return out


def spot_case(
    name: str, dtype: type, cpp: float, target: float, before: tuple[float, float], *, cfr_plus: bool, as_json: bool = False
) -> dict:
    """Cases 1 and 2: a shipped spot file, printed as solved (CFR+ beside DCFR with
    ``cfr_plus``); the DCFR solve's figures."""
    spot = load_spot(SPOTS / name)
    load_before = os.getloadavg()
    sg, build, _, missing = build_spot(spot)
    ranges = spot_ranges(spot, sg)
    warm_up(sg, ranges, spot.threads, dtype)
    wall, cpu, result, _ = timed_solve(sg, ranges, spot.accuracy, spot.threads, dtype=dtype, check_every=spot.check_every)
    out = {
        "case": name, "seconds_wall": wall, "seconds_cpu": cpu, "iterations": result.iterations,
        "exploitability_pct": result.exploitability_pct, "build_seconds": build, "memory_bytes": result.memory_bytes,
        "threads": spot.threads, "load_before": load_before, "load_after": os.getloadavg(),
    }
    if as_json:
        return out
    print(spot.describe().replace("\n", "\n    "))
    if missing:
        print(f"    never offered as a bet of their own: {', '.join(missing)}")
    label = f"{spot.street}{'' if spot.street == 'river' else '+river'} DCFR, {spot.threads} thread(s), to {spot.accuracy:g}%"
    report(label, sg, build, wall, cpu, result, cpp, target, before)
    if cfr_plus:
        wall, cpu, result, _ = timed_solve(sg, ranges, spot.accuracy, spot.threads, CFR_PLUS, dtype, check_every=spot.check_every)
        report(f"{spot.street} CFR+ (baseline), {spot.threads} thread(s), to {spot.accuracy:g}%", sg, build, wall, cpu, result,
               None, None)
    return out


def run_case(case: str, args: argparse.Namespace, dtype: type, *, as_json: bool = False) -> dict:
    """One case of the default mode (see the module docstring); its figures."""
    if case == "river":
        return spot_case("river.toml", dtype, CPP_RIVER, TARGET_RIVER, BEFORE_RIVER, cfr_plus=not as_json, as_json=as_json)
    if case == "turn":
        return spot_case("turn.toml", dtype, CPP_TURN, TARGET_TURN, BEFORE_TURN, cfr_plus=False, as_json=as_json)
    return agent_rivers(args.boards, dtype, cadences=not as_json, as_json=as_json)


class BaselineError(Exception):
    """The baseline commit could not be checked out or measured."""


def baseline_run(commit: str, argv: list[str]) -> dict:
    """This script with ``argv`` (plus ``--json``) run on the code of ``commit``, checked out
    once under ``$ACPC_CACHE_DIR`` (:func:`frozen.frozen_worktree`), in a subprocess: its JSON.

    The subprocess runs today's script, so both sides are measured the same way; only the
    solver they import differs.  Raises BaselineError.
    """
    try:
        code = frozen_worktree(commit)
    except CheckoutError as error:
        raise BaselineError(f"--baseline {commit}: {error}") from None
    env = {**os.environ, "ACPC_BENCH_CODE": str(code), "PYTHONPATH": str(code)}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *argv, "--json", "--baseline", "none"],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise BaselineError(f"the baseline run on {commit} failed: {(done.stderr or done.stdout).strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def print_ratio(commit: str, ours: dict, theirs: dict) -> None:
    """The figures of ``theirs`` (the baseline) and ours over them, one line."""
    if "median_wall" in ours:
        print(
            f"    vs {commit} in the same run: median {theirs['median_wall']:.3f} s wall, p99 {theirs['p99_wall']:.3f} s, "
            f"median {theirs['median_iterations']:g} iterations | ours {theirs['median_wall'] / ours['median_wall']:.2f}x "
            f"faster (median wall), {theirs['p99_wall'] / ours['p99_wall']:.2f}x (p99), "
            f"{theirs['median_cpu'] / ours['median_cpu']:.2f}x (median CPU)"
        )
        return
    per_ours = ours["seconds_cpu"] / ours["iterations"]
    per_theirs = theirs["seconds_cpu"] / theirs["iterations"]
    print(
        f"    vs {commit} in the same run: {theirs['seconds_wall']:.3f} s wall, {theirs['seconds_cpu']:.3f} s CPU, "
        f"{theirs['iterations']} iterations, {theirs['exploitability_pct']:.4f}%, {theirs['memory_bytes'] / 1e6:.1f} MB | "
        f"ours {theirs['seconds_wall'] / ours['seconds_wall']:.2f}x faster (wall), "
        f"{theirs['seconds_cpu'] / ours['seconds_cpu']:.2f}x (CPU), {per_theirs / per_ours:.2f}x per iteration (CPU)"
    )


def spot_arguments(parser: argparse.ArgumentParser) -> None:
    """The spot flags (each overrides the --spot file's key of the same meaning)."""
    group = parser.add_argument_group("spot mode (terms as in solver.spot; flags override --spot FILE)")
    group.add_argument("--spot", type=Path, help="a spot file (.toml or .json), e.g. tests/bench/spots/river.toml")
    group.add_argument("--board", help="e.g. QsJh2h8d3c (3, 4 or 5 cards: flop, turn or river)")
    group.add_argument("--pot", type=int, help="chips in the pot (even)")
    group.add_argument("--stack", type=int, dest="effective_stack", help="effective stack behind, chips")
    group.add_argument(
        "--bet-sizes", action="append", default=[], metavar="SEAT,STREET,KIND[,SIZES]",
        help="as TexasSolver's set_bet_sizes: oop,river,bet,33,67 / ip,turn,raise,100 / oop,river,allin (repeat)",
    )
    group.add_argument("--allin-threshold", type=float, help="a bet adding more than this of the chips behind is all-in")
    group.add_argument("--raise-cap", type=int, help="bets and raises per street, the first bet counted")
    group.add_argument("--accuracy", type=float, help="target exploitability, %% of the pot")
    group.add_argument("--check-every", type=int, help="iterations between exploitability checks")
    group.add_argument("--threads", type=int, help="numba threads")
    group.add_argument("--max-iterations", type=int, help="iteration cap")
    group.add_argument("--quick", action="store_true", help="a few iterations only; prints the exploitability after 10, 20, 40")
    group.add_argument("--json", action="store_true", help="print one JSON object")
    group.add_argument(
        "--compare", choices=sorted(COMPARISONS),
        help="solve the spot by today's path (A) and the new one (B) alternately --reps times; medians and the ratio",
    )
    group.add_argument("--reps", type=int, default=3, help="--compare: solves of each path (default 3)")
    group.add_argument(
        "--lockstep", type=int, default=0, metavar="N",
        help="--compare split|threads: N iterations of both paths side by side instead of whole solves",
    )


def spot_from_args(args: argparse.Namespace) -> Spot | None:
    """The spot the flags describe, or None in the default mode."""
    keys = ("board", "pot", "effective_stack", "allin_threshold", "raise_cap", "accuracy", "check_every", "threads",
            "max_iterations")
    overrides = {k: getattr(args, k) for k in keys}
    if args.spot is None and all(v is None for v in overrides.values()) and not args.bet_sizes:
        if args.compare:
            raise SpotError("--compare needs a spot (--spot FILE or the spot flags)")
        return None
    data: dict = {}
    if args.spot is not None:
        data = read_spot_file(args.spot)
    return spot_from_mapping(apply_size_flags(data, args.bet_sizes), overrides)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  " + "\n  ".join(line.strip() for line in __doc__.split("\n\n")[1].splitlines()),
    )
    parser.add_argument("--skip-turn", action="store_true", help="skip the turn + river case")
    parser.add_argument("--boards", type=int, default=50, help="random boards for the agent-sized case (default 50)")
    parser.add_argument(
        "--dtype", choices=("float32", "float64"), default="float32", help="regret and average storage (default float32)"
    )
    parser.add_argument(
        "--turn-agent", type=float, default=0.0, metavar="SECONDS",
        help="also run the agent-sized turn solves, at most SECONDS each (e.g. --turn-agent 600; default: skip)",
    )
    parser.add_argument(
        "--baseline", default=BASELINE_COMMIT, metavar="COMMIT",
        help=f"also run each case on the code of COMMIT (a subprocess) and print the ratio (default {BASELINE_COMMIT}, "
        "today's solver; 'none' to skip)",
    )
    parser.add_argument("--case", choices=CASES, help="run only this case of the default mode")
    spot_arguments(parser)
    args = parser.parse_args()
    dtype = np.dtype(args.dtype).type
    baseline = None if args.baseline == "none" else args.baseline
    try:
        spot = spot_from_args(args)
    except SpotError as error:
        parser.error(str(error))
    try:
        if spot is not None:
            if spot.threads > numba.config.NUMBA_NUM_THREADS:
                parser.error(f"--threads {spot.threads}: numba has {numba.config.NUMBA_NUM_THREADS} threads here")
            if args.compare and args.lockstep:
                if args.compare not in ("split", "threads"):
                    parser.error("--lockstep needs paths with the same iterates: --compare split or threads")
                lockstep_spot(spot, args.compare, args.lockstep)
            elif args.compare:
                compare_spot(spot, args.compare, args.reps)
            else:
                child = None if args.quick or baseline is None else _baseline_argv(sys.argv[1:])
                run_spot(spot, quick=args.quick, as_json=args.json, dtype=dtype, baseline=baseline, baseline_argv=child)
            return
        if args.json and not args.case:
            parser.error("--json in the default mode needs --case")
        default_mode(args, dtype, baseline)
    except BaselineError as error:
        sys.exit(f"bench_subgame: {error}")


def _baseline_argv(argv: list[str]) -> list[str]:
    """``argv`` without --baseline and --json (the baseline's subprocess gets its own)."""
    out, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word == "--baseline":
            skip = True
        elif not word.startswith("--baseline=") and word != "--json":
            out.append(word)
    return out


def default_mode(args: argparse.Namespace, dtype: type, baseline: str | None) -> None:
    """The cases of the module docstring (``--case``: one, and with ``--json`` as JSON)."""
    if args.json:
        print(json.dumps(run_case(args.case, args, dtype, as_json=True)))
        return
    skipped = {"turn"} if args.skip_turn else set()
    cases = [args.case] if args.case else [c for c in CASES if c not in skipped and (c != "agent" or args.boards)]
    print(f"storage {args.dtype} | baseline {baseline or 'none'}")
    print(f"load average before: {os.getloadavg()}")
    for case in cases:
        if case == "agent" and args.turn_agent > 0:
            turn_agents(args.turn_agent, dtype)
        ours = run_case(case, args, dtype)
        if baseline is not None:
            print(f"    (load average {os.getloadavg()[0]:.2f}; running {case} on {baseline} ...)", flush=True)
            argv = ["--case", case, "--dtype", args.dtype, "--boards", str(args.boards)]
            print_ratio(baseline, ours, baseline_run(baseline, argv))
    if "agent" not in cases and args.turn_agent > 0:
        turn_agents(args.turn_agent, dtype)
    print(f"load average after: {os.getloadavg()}")


def turn_agents(limit: float, dtype: type) -> None:
    """Case 4 for each of the agent's turn sizes (see the module docstring)."""
    board = parse_cards("QsJh2h8d3c")
    small = build_subgame(checked_to(GAME, 2, board), parse_abstraction(TURN_AGENT[-1]))
    SubgameSolver(small, np.ones((2, small.n_hands)), threads=2, dtype=dtype).iterate(1)  # compile / load
    for spec in TURN_AGENT:
        turn_agent(board, spec, limit, dtype)

if __name__ == "__main__":
    sys.exit(main())
