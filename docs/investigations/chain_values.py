"""Join two saved comparisons through the arm they share: X − M and M − Y give X − Y.

    .venv/bin/python docs/investigations/chain_values.py \\
        docs/results/data/flopbp-vs-flop-seed301.json.gz docs/results/data/flop2-vs-river-seed301.json.gz \\
        --out docs/results/data/flopbp-vs-river-seed301.json.gz

A values file of ``dealer compare --save-values`` holds each paired hand's value for both
arms (candidate, baseline).  When the first file's baseline is the second file's
candidate and both were computed from the same logs of that arm, the first file's
candidate column and the second file's baseline column are the two other arms on the
same deals: an exact comparison of them, with no log replayed.  The script refuses
unless the shared arm's deals and per-hand values are identical in every estimator (its
logs may be two plays of a deterministic seat, such as ``agent-blueprint``: the values,
not the file names, decide).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from dealer.evaluation.comparison import PairedLogs
from dealer.evaluation.matchlog import EvaluationError
from dealer.evaluation.pooled import Chunk, load_values, save_values


def chain(first: Chunk, second: Chunk) -> Chunk:
    """``first`` (X − M) and ``second`` (M − Y) as X − Y.  Raises ValueError naming what differs."""
    if first.baseline != second.candidate:
        raise ValueError(f"the first file's baseline is {first.baseline!r} and the second's candidate "
                         f"{second.candidate!r}: they share no arm")  # fmt: skip
    for name in ("game", "big_blind", "value_function", "guard"):
        if getattr(first, name) != getattr(second, name):
            raise ValueError(f"the files differ in {name}: {getattr(first, name)!r} and {getattr(second, name)!r}")
    if len(first.pairs) != len(second.pairs):
        raise ValueError(f"the files pair {len(first.pairs)} and {len(second.pairs)} logs")
    pairs = []
    for a, b in zip(first.pairs, second.pairs):
        if (a.hands, a.seed) != (b.hands, b.seed):
            raise ValueError(f"the shared arm's logs differ: {a.baseline_log} ({a.hands} hands, seed {a.seed}) "
                             f"and {b.log} ({b.hands} hands, seed {b.seed})")  # fmt: skip
        pairs.append(PairedLogs(a.log, b.baseline_log, a.hands, a.seed, a.seats))
    if set(first.values) != set(second.values):
        raise ValueError(f"the files hold the estimators {sorted(first.values)} and {sorted(second.values)}")
    values = {}
    for name, a in first.values.items():
        b = second.values[name]
        if a.shape != b.shape or not np.array_equal(a[:, 1], b[:, 0]):
            raise ValueError(f"the shared arm's {name} values differ between the files: not the same evaluation")
        values[name] = np.column_stack([a[:, 0], b[:, 1]])
    shared = set(first.decision_logs) & set(second.decision_logs)
    return Chunk(
        candidate=first.candidate, baseline=second.baseline,
        opponents=sorted(set(first.opponents) | set(second.opponents)), game=first.game, big_blind=first.big_blind,
        value_function=first.value_function, guard=first.guard, pairs=pairs,
        hands_alike=int(np.count_nonzero(values["raw"][:, 0] == values["raw"][:, 1])), values=values,
        decision_logs=[d for d in first.decision_logs + second.decision_logs if d not in shared],
        notes=list(dict.fromkeys([*first.notes, *second.notes,
                                  f"chained through {first.baseline}'s values: {first.source} and {second.source}"])),
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("first", type=Path, help="values file X − M (dealer compare --save-values)")
    p.add_argument("second", type=Path, help="values file M − Y")
    p.add_argument("--out", type=Path, required=True, help="values file X − Y to write")
    args = p.parse_args(argv)
    try:
        joined = chain(load_values(args.first), load_values(args.second))
        save_values(args.out, joined)
    except (ValueError, EvaluationError) as exc:
        print(f"chain_values: {exc}", file=sys.stderr)
        return 2
    print(f"{joined.candidate} − {joined.baseline}: {len(joined.values['raw'])} paired hands, "
          f"{joined.hands_alike} alike; written to {args.out}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
