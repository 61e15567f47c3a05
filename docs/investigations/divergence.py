"""Where a paired comparison's difference comes from: each hand's difference split by the
street on which the two seats' play first diverged on its deal.

    .venv/bin/python docs/investigations/divergence.py docs/results/data/flop2-vs-river-seed301.json.gz
    .venv/bin/python docs/investigations/divergence.py docs/results/data/flop2-vs-river-seed30*.json.gz --estimator raw

Reads the per-hand values a ``dealer compare --save-values`` file keeps and the two logs
of each pair it names (the candidate's and the baseline's match on the same deals).  A
hand's betting in the two logs is compared action by action; the street of the first
differing action is where the seats parted (``alike``: the same betting throughout, so
the same chips).  Per street: hands, the candidate's mean difference on them, and their
share of the overall mean difference (their summed difference over all hands), so the
rows add up to the whole.  The per-hand estimators (``aivat``, ``raw``) are split; the
duplicate ones pair two hands and are not.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

STREETS = ("preflop", "flop", "turn", "river")


def bettings(log: Path) -> list[str]:
    """The betting of every hand of an ACPC log, in hand order."""
    out = []
    with open(log) as f:
        for line in f:
            if line.startswith("STATE:"):
                out.append(line.split(":")[2])
    return out


def first_divergence(a: str, b: str) -> str:
    """The street of the first action where two bettings differ, or ``alike``."""
    if a == b:
        return "alike"
    street = 0
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        street += a[i] == "/"
        i += 1
    # A shared prefix ending inside a bet amount ("r30" of "r300" and "r3000") parts at that action.
    return STREETS[min(street, len(STREETS) - 1)]


def load_values(path: Path) -> dict:
    """A ``dealer compare --save-values`` file's contents."""
    with gzip.open(path) as f:
        return json.load(f)


def split(files: list[Path], estimator: str) -> tuple[dict[str, list[float]], int, str, str]:
    """Per-hand differences by street of divergence, the number of hands, and the seats."""
    groups: dict[str, list[float]] = {k: [] for k in ("alike", *STREETS)}
    total = 0
    names = ("", "")
    for path in files:
        data = load_values(path)
        names = (data["candidate"], data["baseline"])
        values = np.asarray(data["values"][estimator], float)
        where: list[str] = []
        for pair in data["pairs"]:
            a, b = bettings(Path(pair["log"])), bettings(Path(pair["baseline_log"]))
            if len(a) != len(b) or len(a) != pair["hands"]:
                raise SystemExit(f"divergence: {pair['log']} and {pair['baseline_log']} differ in hands")
            where += [first_divergence(x, y) for x, y in zip(a, b, strict=True)]
        if len(where) != len(values):
            raise SystemExit(f"divergence: {path} holds {len(values)} {estimator} values for {len(where)} hands")
        for street, (cand, base) in zip(where, values, strict=True):
            groups[street].append(cand - base)
        total += len(values)
    return groups, total, *names


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("values", type=Path, nargs="+", help="dealer compare --save-values files (their logs must exist)")
    p.add_argument("--estimator", default="aivat", choices=("aivat", "raw"), help="per-hand estimator (default aivat)")
    p.add_argument("--big-blind", type=float, default=100.0, help="chips per big blind (default 100)")
    args = p.parse_args(argv)
    groups, total, cand, base = split(args.values, args.estimator)
    mbb = 1000.0 / args.big_blind
    print(f"{cand} - {base}, {args.estimator}, {total} hands, mbb/hand; by the street where the play first differed")
    print(f"{'street':<8} {'hands':>6} {'mean on them':>13} {'± 95%':>9} {'share of the whole':>19}")
    whole = 0.0
    for street, diffs in groups.items():
        d = np.asarray(diffs) * mbb
        if not len(d):
            continue
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
        share = d.sum() / total
        whole += share
        print(f"{street:<8} {len(d):>6} {d.mean():>13.1f} {half:>9.1f} {share:>19.1f}")
    print(f"{'all':<8} {total:>6} {'':>13} {'':>9} {whole:>19.1f}")
    if args.estimator == "aivat":
        # The rows are chosen by which actions were sampled; AIVAT's corrections at a
        # seat's own decisions average to zero over all hands, not over such a subset.
        print("(aivat: only the whole is unbiased; a row, 'alike' above all, is a subset chosen by the sampled "
              "actions, where the corrections need not average to zero: split with --estimator raw)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
