"""Figures: how much AIVAT's default value function cuts the standard deviation.

    nice -n 10 .venv/bin/python tests/bench/bench_aivat.py [--leduc-hands N] [--nolimit-hands N] [--seed S]
        [--range-only] [--range-seeds K] [--range-hands N]

(a) limit Leduc, baseline bots: first with both decision logs only, then with both
strategies known (which adds imaginary observations over the private cards); (b)
heads-up no-limit hold'em, ``random`` vs ``call`` with both decision logs: first using
only the distributions they logged, then also the baseline policy their headers name
(what ``dealer report`` does: imaginary observations in closed form), and ``random`` vs
``random`` the same way, whose folds make the lines worth different amounts.  For one
pair of each, also the mirrored match: duplicate pairing alone and with AIVAT.  For each: the
standard deviation of raw chips and of AIVAT values per hand (mbb), the reduction
with a bootstrap 95% interval, both means, and the hands each needs for a 95%
one-tailed result, at a 100 mbb/hand edge and at the edge AIVAT measures (infinite
when that is 0, as for bots whose lines are all worth 0).  Simulated matches deal the
dealer's cards for the seed; every figure is computed here, nothing is stored.

(c), first (alone with ``--range-only``): Leduc, limit and no-limit, a seat that logs its
whole range (a card-dependent strategy) against a card-dependent bot the estimator does not
know, over seeds: the AIVAT mean against the exact value of the game tree (z per seed), and
the std-dev cut with the full range and with the hands held only.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import repo_root  # noqa: F401  (the repository on sys.path, for tests.*)

from dealer.bots import POLICIES
from dealer.evaluation.aivat import declared_strategies
from dealer.evaluation.stats import duplicate_groups, duplicate_values, hands_needed, std_reduction
from protocol.gamedef import load_game
from tests.dealer.evaluation.simulate import evaluate_match, simulate_match

#: A fixed edge (mbb/hand) at which to compare the hands each estimator needs.
EDGE = 100.0
LEDUC_PAIRS = [("random", "call"), ("random", "random"), ("random", "raise"), ("raise", "call")]


def bootstrap_reduction(raw: np.ndarray, aivat: np.ndarray, seed: int, rounds: int = 1000) -> tuple[float, float]:
    """95% interval of the std-dev reduction, resampling hands (raw and AIVAT together)."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, raw.size, (rounds, raw.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        cuts = 1 - aivat[picks].std(axis=1) / raw[picks].std(axis=1)
    return float(np.quantile(cuts, 0.025)), float(np.quantile(cuts, 0.975))


#: What the estimator knows of the seats: the distributions their decision logs give, also
#: the policies those logs' headers declare (as ``dealer report`` uses them), or the strategies.
SOURCES = ("logged", "declared", "known")


def measure(game_name: str, kinds: tuple[str, str], hands: int, seed: int, *, source: str) -> dict[str, float]:
    game = load_game(game_name)
    seats = [(f"{kinds[0]}-A", POLICIES[kinds[0]]), (f"{kinds[1]}-B", POLICIES[kinds[1]])]
    sim = simulate_match(game, seats, hands, seed)
    match, index = sim.match_log(), sim.decision_index()
    declared = declared_strategies(match.name, match.game, match.seats, index)[0]
    strategies = {"logged": None, "declared": declared, "known": dict(seats)}[source]
    started = time.perf_counter()
    result = evaluate_match(match, index, strategies=strategies)
    seconds = time.perf_counter() - started
    scale = 1000 / game.big_blind
    raw, aivat = result.raw[:, 0] * scale, result.aivat[:, 0] * scale
    low, high = bootstrap_reduction(raw, aivat, seed)
    effect = aivat.mean()
    return {
        "hands": hands,
        "raw_mean": raw.mean(),
        "raw_se": raw.std(ddof=1) / np.sqrt(hands),
        "aivat_mean": effect,
        "aivat_se": aivat.std(ddof=1) / np.sqrt(hands),
        "raw_std": raw.std(ddof=1),
        "aivat_std": aivat.std(ddof=1),
        "reduction": std_reduction(raw.std(ddof=1), aivat.std(ddof=1)),
        "reduction_low": low,
        "reduction_high": high,
        "raw_needed": hands_needed(effect, raw.std(ddof=1)),
        "aivat_needed": hands_needed(effect, aivat.std(ddof=1)),
        "raw_needed_100": hands_needed(EDGE, raw.std(ddof=1)),
        "aivat_needed_100": hands_needed(EDGE, aivat.std(ddof=1)),
        "seconds_per_hand": seconds / hands,
    }


def measure_mirrored(game_name: str, kinds: tuple[str, str], hands: int, seed: int) -> str:
    """Std-dev cuts per hand played when the mirrored match is played too (same cards, seats swapped)."""
    game = load_game(game_name)
    seats = [(f"{kinds[0]}-A", POLICIES[kinds[0]]), (f"{kinds[1]}-B", POLICIES[kinds[1]])]
    sims = [simulate_match(game, order, hands, seed, name=f"m{i}") for i, order in enumerate((seats, seats[::-1]))]
    logs = [s.match_log() for s in sims]
    results = [evaluate_match(m, s.decision_index()) for m, s in zip(logs, sims)]
    (group,) = duplicate_groups(logs)
    first = group.seats.index(seats[0][0])
    raw = np.concatenate([r.raw[:, m.seats.index(seats[0][0])] for r, m in zip(results, logs)])
    cuts = {}
    for name in ("raw", "aivat"):
        paired = duplicate_values(group, [getattr(r, name) for r in results], [m.seats for m in logs])[:, first]
        cuts[f"{name} paired"] = std_reduction(raw.std(ddof=1), paired.std(ddof=1) * np.sqrt(2))
    aivat = np.concatenate([r.aivat[:, m.seats.index(seats[0][0])] for r, m in zip(results, logs)])
    cuts["aivat"] = std_reduction(raw.std(ddof=1), aivat.std(ddof=1))
    return ", ".join(f"{k} {100 * v:.1f}%" for k, v in cuts.items())


def show(label: str, r: dict[str, float]) -> None:
    print(
        f"{label:<38} {r['hands']:>6,} hands   std raw {r['raw_std']:>8,.0f}  AIVAT {r['aivat_std']:>7,.0f} mbb   "
        f"cut {100 * r['reduction']:5.1f}% [{100 * r['reduction_low']:.1f}, {100 * r['reduction_high']:.1f}]   "
        f"({1000 * r['seconds_per_hand']:.1f} ms/hand)"
    )
    print(
        f"{'':<38} mean raw {r['raw_mean']:+,.0f} ± {r['raw_se']:,.0f}, "
        f"AIVAT {r['aivat_mean']:+,.0f} ± {r['aivat_se']:,.0f} mbb/hand;"
        f" hands for 95%: at {EDGE:.0f} mbb/hand raw {r['raw_needed_100']:,.0f} AIVAT {r['aivat_needed_100']:,.0f},"
        f" at AIVAT's edge raw {r['raw_needed']:,.0f} AIVAT {r['aivat_needed']:,.0f}"
    )


def measure_range(seeds: int, hands: int) -> None:
    """Leduc, a seat logging its whole range (card-dependent) against a card-dependent bot the
    estimator does not know (the policies of ``tests/dealer/evaluation/test_rangeaivat.py``):
    the AIVAT mean against the exact value of the game tree, and the std-dev cut, with the
    full range and with the hands held only."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for tests.*
    from tests.dealer.evaluation import test_rangeaivat as known

    for game in (known.LEDUC, known.NL_LEDUC):
        truth = known.exact_value(game, (known.ranged_policy, known.opponent_policy))
        found: dict[str, list[np.ndarray]] = {"raw": [], "full range": [], "held hand only": []}
        for seed in range(seeds):
            sim = known.ranged_match(game, hands, seed)
            match, index = sim.match_log(), sim.decision_index()
            found["raw"].append(evaluate_match(match, index).raw[:, 0])
            found["full range"].append(evaluate_match(match, index).aivat[:, 0])
            found["held hand only"].append(evaluate_match(match, index, full_range=False).aivat[:, 0])
        raw_std = np.concatenate(found["raw"]).std(ddof=1)
        print(f"    {game.betting} Leduc, exact value {truth:+.4f} chips/hand, {seeds} seeds x {hands:,} hands")
        for name, runs in found.items():
            values = np.concatenate(runs)
            z = [known.z_score(v, truth) for v in runs]
            print(
                f"      {name:<15} mean {values.mean():+.4f} ± {1.96 * values.std(ddof=1) / np.sqrt(values.size):.4f}"
                f"  std {values.std(ddof=1):.3f} (cut {100 * std_reduction(raw_std, values.std(ddof=1)):5.1f}%)"
                f"  z per seed {', '.join(f'{x:+.2f}' for x in z)}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leduc-hands", type=int, default=10000)
    parser.add_argument("--nolimit-hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--range-only", action="store_true", help="only (c): a seat logging its range, exact truth")
    parser.add_argument("--range-seeds", type=int, default=10)
    parser.add_argument("--range-hands", type=int, default=1000)
    args = parser.parse_args()
    print("(c) Leduc, a seat logging its whole range against an unknown card-dependent bot")
    measure_range(args.range_seeds, args.range_hands)
    if args.range_only:
        return
    print("(a) limit Leduc (leduc.limit.2p), default value function; figures for the first seat")
    for source, how in (("logged", "decision logs"), ("known", "strategies known")):
        for kinds in LEDUC_PAIRS:
            measured = measure("leduc.limit.2p", kinds, args.leduc_hands, args.seed, source=source)
            show(f"    {kinds[0]} vs {kinds[1]}, {how}", measured)
    mirrored = measure_mirrored("leduc.limit.2p", ("random", "raise"), args.leduc_hands, args.seed)
    print(f"    random vs raise, decision logs, with the mirrored match: std-dev cut per hand played: {mirrored}")
    print("(b) heads-up no-limit hold'em (holdem.nolimit.2p), both decision logs, default value function")
    for kinds, source, how in (
        (("random", "call"), "logged", "logged σ only"),
        (("random", "call"), "declared", "policies declared"),
        (("random", "random"), "declared", "policies declared"),
    ):
        measured = measure("holdem.nolimit.2p", kinds, args.nolimit_hands, args.seed, source=source)
        show(f"    {kinds[0]} vs {kinds[1]}, {how}", measured)
    mirrored = measure_mirrored("holdem.nolimit.2p", ("random", "call"), args.nolimit_hands, args.seed)
    print(f"    random vs call, logged σ only, with the mirrored match: std-dev cut per hand played: {mirrored}")


if __name__ == "__main__":
    main()
