"""Two LBR runs on the same deals, paired by hand: how much more LBR wins against A than B.

    .venv/bin/python docs/investigations/lbr_paired.py RUN_A RUN_B [RUN_A2 RUN_B2 ...] [--big-blind 100]

Each RUN is an ``agent lbr --out`` folder (its ``hands.jsonl``, or ``hands.jsonl.gz`` as
kept in ``docs/results/data/lbr/``); the runs of a pair must share ``--seed``,
``--setting`` and ``--hands`` (then LBR sees the same cards and draws its equity samples
from the same seeds, so the hands differ only where the agents' strategies do).  Per hand
the difference of LBR's showdown expectation (``expected`` in ``hands.jsonl``, chips),
in mbb/hand, with its 95% interval, per pair and pooled over every pair given, and the
one-tailed p (normal approximation, thousands of hands) that LBR wins more against A.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np
from scipy import stats


def expected_by_hand(run: Path) -> tuple[dict, dict[int, float]]:
    """A run's config and each hand's showdown expectation for LBR (chips)."""
    config: dict = {}
    out: dict[int, float] = {}
    path = run / "hands.jsonl"
    with path.open() if path.exists() else gzip.open(run / "hands.jsonl.gz", "rt") as f:
        for line in f:
            row = json.loads(line)
            if "config" in row:
                config = row["config"]
            elif "hand" in row:
                out[int(row["hand"])] = float(row["expected"])
    return config, out


def summary(d: np.ndarray) -> str:
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
    p = stats.norm.sf(d.mean() / (d.std(ddof=1) / np.sqrt(len(d))))
    return f"{len(d):,} hands, {d.mean():+.0f} ± {half:.0f} mbb/hand, one-tailed p(LBR wins more against A) = {p:.3g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, nargs="+", help="pairs of agent lbr --out folders: A B [A2 B2 ...]")
    parser.add_argument("--big-blind", type=float, default=100.0, help="chips per big blind (default 100)")
    args = parser.parse_args()
    if len(args.runs) % 2:
        parser.error("give the runs in pairs: A B [A2 B2 ...]")
    pooled = []
    for a, b in zip(args.runs[::2], args.runs[1::2], strict=True):
        (ca, ea), (cb, eb) = expected_by_hand(a), expected_by_hand(b)
        for key in ("seed", "setting", "game"):
            if ca.get(key) != cb.get(key):
                raise SystemExit(f"{a} and {b} differ in {key}: {ca.get(key)!r} against {cb.get(key)!r}")
        hands = sorted(set(ea) & set(eb))
        d = np.array([ea[h] - eb[h] for h in hands]) * 1000.0 / args.big_blind
        equal = np.mean([ea[h] == eb[h] for h in hands])
        print(f"{a.name} − {b.name} ({ca.get('setting')}, seed {ca.get('seed')}): {summary(d)}; equal hands {equal:.1%}")
        pooled.append(d)
    if len(pooled) > 1:
        print(f"pooled: {summary(np.concatenate(pooled))}")


if __name__ == "__main__":
    main()
