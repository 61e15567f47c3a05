"""Why Table 1's safe rows stay far from 4x: the measurements behind the README's findings.

    .venv/bin/python docs/investigations/table1_diagnostics.py --game small2 --parts pinned,ranges
    .venv/bin/python docs/investigations/table1_diagnostics.py --game small2 --parts sweep --iterations 150,600,2000
    .venv/bin/python docs/investigations/table1_diagnostics.py --game small2 --buckets none,12 --parts floor,pinned \
        --methods unsafe,maxmargin,maxmargin-unsafe

Parts, for one game of ``solver experiment subgames``:

* ``pinned``: how many re-solves hold an opponent hand (not negligible) whose
  blueprint CBV is already the value of folding (minus what it has put in): no
  re-solve can lower it, so Maxmargin's minimum margin is pinned at 0 there and
  Maxmargin has nothing left to optimize.
* ``ranges``: how much the opponent's range into the subgames matters.  The floor's
  own solves (per player: the whole game with that player's first round frozen)
  give the opponent's equilibrium range against the best completion; we print how
  far the blueprint's range is from it (total variation, per re-solve), then
  re-solve every subgame ``unsafe`` with that range, and ``maxmargin-unsafe`` with the
  opponent's best-response path against the blueprint (hands whose exact gifts on
  the way are 0) in place of its blueprint range.
* ``floor``: the floor row of Table 1 (with ``--buckets``: for another blueprint).
* ``sweep``: Maxmargin and Resolve at each iteration count, Reach-Maxmargin with the
  ``exact`` gift form, and the spread of Maxmargin's smallest margin over re-solves.

CPU time and load are printed (the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from functools import partial

import numpy as np

from solver.bestresponse import exploitability
from solver.bets import parse_abstraction
from solver.experiments import TABLE1, TABLE1_QUICK
from solver.experiments.blueprint import best_completion, bucketed_cfr, player_rows
from solver.experiments.buckets import strength_buckets
from solver.experiments.subgames import combined_strategy, resolve_round, subgame_roots
from solver.ranges import tabular_game
from solver.subgame.blueprint_values import BlueprintValues
from solver.subgame.gadgets import make_gadget
from solver.subgame.safe import NEGLIGIBLE_WEIGHT, build_gadget, margin_summary, solve_subgame


def public_states(bv: BlueprintValues, roots: list[int], round_: int):
    """(root, board, re-solver) of every re-solve the experiment makes."""
    for player in (0, 1):
        for root in roots:
            for board in range(bv.game.space.n_boards[round_]):
                if bv.reach(root, board, player).any() and (bv.weight(root, board, 1 - player) > 0).any():
                    yield root, board, player


def pinned(bv: BlueprintValues, roots: list[int], round_: int) -> None:
    spent = bv.game.tree.spent
    count = stuck = 0
    for root, board, player in public_states(bv, roots, round_):
        opponent = 1 - player
        w = bv.weight(root, board, opponent)
        held = w >= NEGLIGIBLE_WEIGHT * w.max()
        chips = bv.values(root, board, opponent, best=True)[held] / w[held]
        fold = -float(spent[root, opponent])
        count += 1
        stuck += bool(np.isclose(chips, fold, rtol=0, atol=1e-6 * max(abs(fold), 1.0)).any())
    print(f"pinned: {stuck} of {count} re-solves ({stuck / count:.1%}) hold a non-negligible opponent hand whose "
          f"blueprint CBV is its fold value", flush=True)


def equilibrium_ranges(bv: BlueprintValues, round_: int, iterations: int) -> list[np.ndarray]:
    """Per re-solver p, the opponent's strategy in the floor's solve for p (p's earlier
    rounds frozen to the blueprint, everything else free)."""
    tg = bv.game
    out = []
    for p in range(2):
        early = player_rows(tg, p, range(round_))
        out.append(bucketed_cfr(tg, [None] * tg.game.num_rounds, iterations, frozen=(early, bv.strategy[early])))
    return out


def ranges(bv: BlueprintValues, roots: list[int], round_: int, iterations: int, floor_iterations: int) -> None:
    tg = bv.game
    mbb_per_chip = 1000.0 / tg.game.big_blind
    solved = equilibrium_ranges(bv, round_, floor_iterations)
    distance = []
    for root, board, player in public_states(bv, roots, round_):
        w = bv.weight(root, board, 1 - player)
        a, b = bv.reach(root, board, 1 - player) * w, bv.reach(root, board, 1 - player, solved[player]) * w
        if a.sum() > 0 and b.sum() > 0:
            distance.append(0.5 * np.abs(a / a.sum() - b / b.sum()).sum())
    q = np.quantile(distance, [0.5, 0.9])
    print(f"ranges: total variation between the opponent's blueprint range and its floor-solve range over "
          f"{len(distance)} re-solves: mean {np.mean(distance):.3f}, median {q[0]:.3f}, 90% {q[1]:.3f}", flush=True)

    def floor_range(root: int, board: int, player: int):
        g = build_gadget(bv, root, board, player, "unsafe")
        return make_gadget("unsafe", g.alternatives, g.weight, bv.reach(root, board, 1 - player, solved[player]))

    def best_response_path(root: int, board: int, player: int):
        g = build_gadget(bv, root, board, player, "maxmargin-unsafe")
        gifts = bv.gifts(root, board, 1 - player, form="exact")
        scale = max(float(np.abs(g.alternatives).max()), 1e-300)
        return make_gadget(g.name, g.alternatives, g.weight, (gifts <= 1e-9 * scale) * (g.weight > 0.0))

    for label, method, gadget_for in (
        ("unsafe, opponent range from the floor's solve", "maxmargin", floor_range),
        ("maxmargin-unsafe, opponent range = its best-response path", "maxmargin", best_response_path),
    ):
        started = time.process_time()
        c = combined_strategy(bv, roots, round_, method, iterations, gadget_for=gadget_for)
        mbb = exploitability(tg, c.strategy).exploitability_mbb
        print(f"ranges: {label}: {mbb:.2f} mbb/hand (excess {c.excess * mbb_per_chip:.3g} mbb/hand), "
              f"CPU {time.process_time() - started:.1f} s", flush=True)


def per_subgame_margins(bv: BlueprintValues, roots: list[int], round_: int, iterations: int) -> np.ndarray:
    """Maxmargin's smallest non-negligible margin (chips) in every re-solve."""
    maxmargin = partial(build_gadget, bv, name="maxmargin")
    solve = partial(solve_subgame, bv, iterations=iterations)
    out = []
    for player in (0, 1):
        strategy = bv.strategy.copy()
        solutions = resolve_round(bv, strategy, roots, round_, player, maxmargin, solve)
        out += [margin_summary(bv, s, strategy)[0] for s in solutions]
    return np.array(out)


def sweep(bv: BlueprintValues, roots: list[int], round_: int, counts: list[int], iterations: int) -> None:
    tg = bv.game
    mbb_per_chip = 1000.0 / tg.game.big_blind
    runs = [(m, n, "lower-bound") for m in ("maxmargin", "resolve") for n in counts]
    for method, n, form in [*runs, ("reach-maxmargin", iterations, "exact")]:
        started = time.process_time()
        c = combined_strategy(bv, roots, round_, method, n, gift_form=form)
        mbb = exploitability(tg, c.strategy).exploitability_mbb
        print(f"sweep: {method} ({form} gifts) {n} iterations: {mbb:.2f} mbb/hand, min margin {c.min_margin:.4g} "
              f"chips ({c.min_margin_all:.4g} over all), excess {c.excess * mbb_per_chip:.4g} mbb/hand, "
              f"CPU {time.process_time() - started:.1f} s", flush=True)
    mins = per_subgame_margins(bv, roots, round_, max(counts))
    q = np.nanquantile(mins, [0.1, 0.5, 0.9])
    print(f"sweep: maxmargin {max(counts)} iterations, smallest margin per re-solve ({len(mins)}): 10/50/90% "
          f"{q[0]:.3g} / {q[1]:.3g} / {q[2]:.3g} chips; share <= 0.1 chip {np.mean(mins <= 0.1):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="small2", help="a game of solver experiment subgames (or quick2)")
    parser.add_argument("--parts", default="pinned,ranges,sweep", help="comma-separated: floor, pinned, ranges, sweep")
    parser.add_argument("--iterations", default="150,600,2000", help="sweep: comma-separated re-solve iteration counts")
    parser.add_argument("--buckets", default=None,
                        help="the blueprint's buckets per round instead of the game's, e.g. 'none,12'")
    parser.add_argument("--methods", default="", help="also run these Table 1 methods (comma-separated)")
    args = parser.parse_args()
    spec = next(s for s in (*TABLE1, *TABLE1_QUICK) if s.key == args.game)
    if args.buckets:
        spec = replace(spec, buckets=tuple(None if b == "none" else int(b) for b in args.buckets.split(",")))
    parts = {p.strip() for p in args.parts.split(",")}
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    started = time.process_time()
    tg = tabular_game(spec.game(), parse_abstraction(spec.abstraction))
    bv = BlueprintValues(tg, bucketed_cfr(tg, strength_buckets(tg.space, spec.buckets), spec.blueprint_iterations))
    print(f"{spec.key}: buckets {spec.buckets}, blueprint {exploitability(tg, bv.strategy).exploitability_mbb:.2f} "
          f"mbb/hand", flush=True)
    roots, round_ = subgame_roots(tg, spec.subgame_round), spec.subgame_round
    if "floor" in parts:
        print(f"floor: {best_completion(tg, bv.strategy, round_, spec.blueprint_iterations)[1]:.2f} mbb/hand", flush=True)
    for method in filter(None, args.methods.split(",")):
        c = combined_strategy(bv, roots, round_, method, spec.subgame_iterations)
        print(f"{method}: {exploitability(tg, c.strategy).exploitability_mbb:.2f} mbb/hand", flush=True)
    if "pinned" in parts:
        pinned(bv, roots, round_)
    if "ranges" in parts:
        ranges(bv, roots, round_, spec.subgame_iterations, spec.blueprint_iterations)
    if "sweep" in parts:
        sweep(bv, roots, round_, [int(x) for x in args.iterations.split(",")], spec.subgame_iterations)
    print(f"CPU {time.process_time() - started:.1f} s; load average after: {os.getloadavg()[0]:.2f} (machine shared)")


if __name__ == "__main__":
    main()
