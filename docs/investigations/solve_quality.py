"""Whether the river solves that part from the blueprint lose more when they answer less
converged: the hands whose two arms first differ on the river, binned by the exploitability
the candidate's solve reported at that decision.

    .venv/bin/python docs/investigations/solve_quality.py docs/results/data/agent-avg4-vs-bp-seed43*.json.gz

Reads ``dealer compare --save-values`` files (candidate: a river-solving agent; baseline:
the blueprint alone, on the same deals) and the candidate's decision logs they name.  For
every hand first parting on the river (always at a candidate decision: the opponent is
deterministic per state), the decision's row source and ``exploitability_pct`` (the plain
subgame's exploitability at the answer, % of the pot; for a safe solve a hint, since it
optimises the gadget's margins).  Per bin: hands, the mean difference on them and their
share of the whole (mbb/hand), raw chips and AIVAT.  Raw is the cleaner split: AIVAT's
corrections need not average to zero over a subset chosen by the sampled actions.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from divergence import first_divergence, load_values  # this folder: run as a script
from river_open import river_parting, states

from protocol.decisions import read_decision_log

EDGES = (0.0, 2.0, 5.0, 10.0, 20.0, 40.0, float("inf"))


def _bin(x: float | None) -> str:
    if x is None:
        return "none"
    for lo, hi in itertools.pairwise(EDGES):
        if lo <= x < hi:
            return f"[{lo:g}, {hi:g})"
    return "?"


def decisions_by_state(paths: list[str]) -> dict[tuple[str, int, str], dict]:
    """(match, hand, betting) -> the decision's detail, over the candidate's decision logs."""
    out = {}
    for p in paths:
        _, ds = read_decision_log(Path(p))
        for d in ds:
            betting = d.state.split(":")[3]
            out[(d.match, d.hand, betting)] = d.detail or {}
    return out


def rows(files: list[Path]) -> tuple[list[tuple[str, float, float, float | None]], int]:
    """(bin, aivat diff, raw diff, exploitability) of every hand parting on the river, and the hands in all."""
    out = []
    total = 0
    for path in files:
        data = load_values(path)
        cand = data["candidate"]
        logs = [p for p in data["decision_logs"] if p.endswith(f".{cand}.dlog")]
        detail = decisions_by_state(logs)
        aivat = np.asarray(data["values"]["aivat"], float)
        raw = np.asarray(data["values"]["raw"], float)
        k = 0
        for pair in data["pairs"]:
            match = Path(pair["log"]).name.removesuffix(".log")
            a, b = states(Path(pair["log"])), states(Path(pair["baseline_log"]))
            for hand, ((bet_a, _), (bet_b, _)) in enumerate(zip(a, b, strict=True)):
                i, k = k, k + 1
                if first_divergence(bet_a, bet_b) != "river":
                    continue
                ra, _, j = river_parting(bet_a, bet_b)
                prefix = "/".join(bet_a.split("/")[:3]) + "/" + "".join(ra[:j])
                d = detail.get((match, hand, prefix))
                if d is None:
                    raise SystemExit(f"solve_quality: no {cand} decision at {match} hand {hand} {prefix!r}")
                x = d.get("exploitability_pct")
                key = f"{d.get('source', '?')} {_bin(x)}"
                out.append((key, (aivat[i, 0] - aivat[i, 1]) * 10, (raw[i, 0] - raw[i, 1]) * 10, x))
        total += len(aivat)
    return out, total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    found, total = rows(args.files)
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for key, av, rw, _ in found:
        groups[key].append((av, rw))
    print(f"{total} hands; {len(found)} first part on the river at the candidate's decision (mbb/hand; "
          "share = sum over all hands)")
    print(f"{'source and exploitability %':45s} {'hands':>6s} {'raw mean':>9s} {'s.e.':>7s} {'share':>7s} "
          f"{'aivat mean':>10s} {'share':>7s}")
    for key in sorted(groups, key=lambda g: (g.split(" ")[0], EDGES.index(float(g.split("[")[1].split(",")[0]))
                                            if "[" in g else -1)):
        d = np.asarray(groups[key])
        se = d[:, 1].std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
        print(f"{key:45s} {len(d):6d} {d[:, 1].mean():9.1f} {se:7.1f} {d[:, 1].sum() / total:7.1f} "
              f"{d[:, 0].mean():10.1f} {d[:, 0].sum() / total:7.1f}")
    x = np.array([(f[3], f[2]) for f in found if f[3] is not None])
    if len(x) > 2:
        r = np.corrcoef(x[:, 0], x[:, 1])[0, 1]
        print(f"\ncorrelation of exploitability % with the raw difference: {r:+.3f} over {len(x)} hands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
