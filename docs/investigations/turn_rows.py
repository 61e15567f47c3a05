"""A blueprint's later rounds from the last iterate instead of the average.

    .venv/bin/python docs/investigations/turn_rows.py RUN/blueprint.art RUN/checkpoint.mccfr OUT.art [--from-round 2]

A run trained with ``precompute blueprint --average-rounds 4`` exports the average
strategy on every round.  This writes the same artifact with the rows of every round from
``--from-round`` on (default 2: the turn and the river) replaced by the regret matching of
the checkpoint's regrets (uniform where they are all at most 0) — what the same run would
have exported with ``--average-rounds 2`` (``solver.cfr.mccfr.MCCFRSolver.strategy``) —
so that the two can be played against each other and against local best response at
exactly equal training.  The checkpoint must be the one the blueprint was exported from.
Question and result: docs/results/2026-11-30-turn-rows.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from precompute.blueprint import BLUEPRINT_KIND, Blueprint, quantize
from precompute.health import load_regrets
from solver.artifacts import load_artifact, save_artifact
from solver.ranges import normalized


def last_iterate_rows(bp: Blueprint, regret: np.ndarray, from_round: int) -> np.ndarray:
    """``bp``'s quantized table with the rows of rounds >= ``from_round`` from ``regret``."""
    table = np.array(bp.table)
    current = quantize(normalized(bp.layout, bp.tree, regret.astype(np.float64), positive_part=True))
    for p in range(bp.game.num_players):
        for r in range(from_round, bp.game.num_rounds):
            start, end = (int(x) for x in bp.layout.block[p, r])
            table[start:end] = current[start:end]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("blueprint", type=Path, help="the run's blueprint.art (trained with --average-rounds 4)")
    parser.add_argument("checkpoint", type=Path, help="the run's checkpoint.mccfr at the same iterations")
    parser.add_argument("out", type=Path, help="the artifact to write")
    parser.add_argument("--from-round", type=int, default=2, help="first round taken from the last iterate (default 2)")
    args = parser.parse_args()
    bp = Blueprint.load(args.blueprint)
    regret, iterations = load_regrets(args.checkpoint, bp)
    if iterations != bp.params.get("iterations"):
        raise SystemExit(f"the checkpoint has {iterations:,} iterations, the blueprint {bp.params.get('iterations')}")
    art = load_artifact(args.blueprint, BLUEPRINT_KIND)
    arrays = {k: np.asarray(v) for k, v in art.arrays.items()}
    arrays["strategy"] = last_iterate_rows(bp, regret, args.from_round)
    changed = np.count_nonzero(arrays["strategy"] != bp.table)
    params = {**art.params, "rows": f"last iterate from round {args.from_round} ({args.checkpoint.name})"}
    save_artifact(args.out, BLUEPRINT_KIND, arrays, game=bp.game, params=params)
    print(f"wrote {args.out}: {changed:,} of {bp.table.size:,} entries changed (rounds {args.from_round}+ from the last iterate)")


if __name__ == "__main__":
    main()
