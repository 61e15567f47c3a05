"""Where river solving and the blueprint part on the same deals, and how each bets when
it opens the river.

    .venv/bin/python docs/investigations/river_open.py split docs/results/data/river-vs-blueprint-seed30[23].json.gz \\
        --logs docs/results/data/logs
    .venv/bin/python docs/investigations/river_open.py bets --candidate RUN_A/decisions/match.*.agent.dlog \\
        --baseline RUN_B/decisions/match.*.agent-blueprint.dlog [--csv OUT.csv.gz]
    .venv/bin/python docs/investigations/river_open.py bets --from-csv docs/results/data/river-open-bets-seed302-303.csv.gz

``split``: for every hand of a ``dealer compare --save-values`` file whose two arms first
differ on the river, the spot where they parted: whether the seat acting there faced a
bet (``facing``) or opened the river's betting (``open``, first to act or after a
check), its position (``IP``: acts last), and the action each arm took there (``c``
check or call, ``f``, ``r`` any bet or raise; candidate/baseline).  Per spot, the hands,
the candidate's mean difference on them and their share of the whole mean (mbb/hand),
for the AIVAT and raw estimators; the rows add up to the river's share of
``divergence.py``.  Then, where one arm bet or raised at the parting and the other did
not, how the opponent answered that bet, with the raw difference on those hands.
``--logs DIR``: read each arm's log from ``DIR/RUN/match.N.log.gz`` (``RUN`` the log's
folder name) instead of the path the file records.

``bets``: at every river decision with no bet to face that both arms' decision logs
(given in the same match order) hold with the same state (same deal, same betting so
far), the held hand's bet probability
(any size) in each arm, and the held hand's strength (its showdown percentile against
every live hand); printed per position and strength bin.  ``--csv`` keeps those rows,
``--from-csv`` reads them back instead of the logs.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import itertools
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from divergence import first_divergence, load_values  # this folder: run as a script

BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0001)


def _open(path: Path):
    return gzip.open(path, "rt") if path.suffix == ".gz" else open(path)


def states(log: Path) -> list[tuple[str, list[str]]]:
    """(betting, seat names) of every hand of an ACPC log, in hand order."""
    out = []
    with _open(log) as f:
        for line in f:
            if line.startswith("STATE:"):
                fields = line.rstrip().split(":")
                out.append((fields[2], fields[5].split("|")))
    return out


def actions(street: str) -> list[str]:
    return re.findall(r"r\d+|c|f", street)


def river_parting(bet_a: str, bet_b: str) -> tuple[list[str], list[str], int]:
    """Two bettings' river actions and the index of the first one where they differ."""
    ra, rb = actions(bet_a.split("/")[3]), actions(bet_b.split("/")[3])
    j = 0
    while j < min(len(ra), len(rb)) and ra[j] == rb[j]:
        j += 1
    return ra, rb, j


def _kind(token: str) -> str:
    return "r" if token.startswith("r") else token


def locate(path: str, logs: Path | None) -> Path:
    """A recorded log path, or its copy ``logs/RUN/NAME.gz``."""
    if logs is None:
        return Path(path)
    p = Path(path)
    return logs / p.parent.name / (p.name + ".gz")


def split(files: list[Path], logs: Path | None) -> None:
    groups: dict[tuple[str, str, str], list[tuple[float, float]]] = defaultdict(list)
    answers: dict[tuple[str, ...], list[float]] = defaultdict(list)
    total = 0
    names = ("", "")
    for path in files:
        data = load_values(path)
        names = (data["candidate"], data["baseline"])
        aivat = np.asarray(data["values"]["aivat"], float)
        raw = np.asarray(data["values"]["raw"], float)
        k = 0
        for pair in data["pairs"]:
            a = states(locate(pair["log"], logs))
            b = states(locate(pair["baseline_log"], logs))
            if len(a) != len(b) or len(a) != pair["hands"]:
                raise SystemExit(f"river_open: {pair['log']} and {pair['baseline_log']} differ in hands")
            for (bet_a, seats), (bet_b, _) in zip(a, b, strict=True):
                i, k = k, k + 1
                if first_divergence(bet_a, bet_b) != "river":
                    continue
                ra, rb, j = river_parting(bet_a, bet_b)
                # Position 0 acts first after the flop: the j-th river action is position j % 2's.
                seat = seats[j % 2]
                if seat != names[0]:
                    raise SystemExit(f"river_open: hand {i} of {path} parts at {seat}'s action, not {names[0]}'s")
                spot = "facing" if j and ra[j - 1].startswith("r") else "open"
                pos = "IP" if j % 2 == 1 else "OOP"
                take = f"{_kind(ra[j]) if j < len(ra) else '-'}/{_kind(rb[j]) if j < len(rb) else '-'}"
                diff = ((aivat[i, 0] - aivat[i, 1]) * 10, (raw[i, 0] - raw[i, 1]) * 10)
                groups[(spot, pos, take)].append(diff)
                # The opponent's answer to the bet or raise one arm made where the other did not.
                for arm, line in (("candidate", ra), ("baseline", rb)):
                    other = rb if arm == "candidate" else ra
                    if j < len(line) and line[j].startswith("r") and not (j < len(other) and other[j].startswith("r")):
                        answer = _kind(line[j + 1]) if j + 1 < len(line) else "-"
                        answers[(spot, pos, take, arm, answer)].append(diff[1])
        total += len(aivat)
    print(f"{names[0]} - {names[1]}, {total} hands; hands first parting on the river, by spot "
          f"(mbb/hand; share = sum / all hands; chips per big blind 100)")
    print(f"{'spot':8s} {'pos':4s} {'cand/base':10s} {'hands':>6s} {'aivat mean':>11s} {'share':>8s} "
          f"{'raw mean':>10s} {'share':>8s}")
    whole = np.zeros(2)
    for key in sorted(groups, key=lambda g: (g[0], g[1], g[2])):
        d = np.asarray(groups[key])
        whole += d.sum(axis=0) / total
        print(f"{key[0]:8s} {key[1]:4s} {key[2]:10s} {len(d):6d} {d[:, 0].mean():11.1f} {d[:, 0].sum() / total:8.1f} "
              f"{d[:, 1].mean():10.1f} {d[:, 1].sum() / total:8.1f}")
    print(f"{'river':24s} {sum(len(v) for v in groups.values()):6d} {'':11s} {whole[0]:8.1f} {'':10s} {whole[1]:8.1f}")
    print("(aivat: a row is a subset chosen by the sampled actions, where AIVAT's corrections need not average "
          "to zero; only the whole comparison is unbiased, so raw is the cleaner split)")
    print("\nwhere one arm bet or raised and the other did not: the opponent's answer to that bet "
          "(f, c, r), hands and the raw mean difference on them")
    for key in sorted(answers):
        d = answers[key]
        print(f"{key[0]:8s} {key[1]:4s} {key[2]:10s} {key[3]:9s} bet, answered {key[4]}: {len(d):4d} hands, "
              f"raw mean {np.mean(d):10.1f}")


def _strength(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    from protocol.fasteval import HOLE_PAIRS, rank_range

    ranks = rank_range(np.array(board, np.int64)).astype(np.int64)
    held = int(np.flatnonzero((HOLE_PAIRS[:, 0] == min(hole)) & (HOLE_PAIRS[:, 1] == max(hole)))[0])
    live = (ranks > 0) & ~np.isin(HOLE_PAIRS, hole).any(axis=1)
    r = ranks[live]
    return float(((r < ranks[held]).sum() + 0.5 * (r == ranks[held]).sum()) / len(r))


def bet_rows(candidate: list[Path], baseline: list[Path]) -> list[dict]:
    from protocol.cards import parse_cards
    from protocol.decisions import read_decision_log

    def load(path: Path) -> dict:
        return {(d.hand, d.state): d for d in read_decision_log(path)[1]}

    def bet(d) -> float:
        return sum(p for a, p in d.probs if a.startswith("r"))

    if len(candidate) != len(baseline):
        raise SystemExit("river_open: give as many --baseline decision logs as --candidate ones, in the same match order")
    rows = []
    for cand, basis in zip(candidate, baseline, strict=True):
        base = load(basis)
        for key, d in load(cand).items():
            betting, cards = d.state.split(":")[3:5]
            if betting.count("/") != 3 or "r" in betting.split("/")[3] or key not in base:
                continue
            hole = parse_cards(cards.split("|")[d.position].split("/")[0])
            board = parse_cards("".join(cards.split("/")[1:]))
            rows.append({"log": f"{cand.parent.parent.name}/{cand.name}", "hand": key[0], "position": d.position,
                         "state": d.state, "source": (d.detail or {}).get("source", ""),
                         "strength": round(_strength(hole, board), 4),
                         "candidate_bet": round(bet(d), 4), "baseline_bet": round(bet(base[key]), 4)})
    return rows


def print_bets(rows: list[dict]) -> None:
    for pos, label in ((1, "IP (after a check)"), (0, "OOP (first to act)")):
        sel = [r for r in rows if int(r["position"]) == pos]
        if not sel:
            continue
        a = np.array([[float(r["strength"]), float(r["candidate_bet"]), float(r["baseline_bet"])] for r in sel])
        print(f"{label}: {len(a)} decisions; bet probability of the held hand, candidate {a[:, 1].mean():.3f}, "
              f"baseline {a[:, 2].mean():.3f}")
        print(f"  {'strength':>9s} {'n':>5s} {'candidate':>10s} {'baseline':>9s}")
        for lo, hi in itertools.pairwise(BINS):
            s = a[(a[:, 0] >= lo) & (a[:, 0] < hi)]
            if len(s):
                print(f"  {lo:.1f}-{min(hi, 1.0):.1f}   {len(s):5d} {s[:, 1].mean():10.3f} {s[:, 2].mean():9.3f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("split", help="river partings by spot, with their chips")
    s.add_argument("values", type=Path, nargs="+")
    s.add_argument("--logs", type=Path, help="folder holding RUN/match.N.log.gz copies of the arms' logs")
    b = sub.add_parser("bets", help="bet probabilities at river-open decisions, both arms")
    b.add_argument("--candidate", type=Path, nargs="*", default=[])
    b.add_argument("--baseline", type=Path, nargs="*", default=[])
    b.add_argument("--csv", type=Path, help="write the rows here (.csv.gz)")
    b.add_argument("--from-csv", type=Path, help="read the rows from a --csv file instead of decision logs")
    args = p.parse_args(argv)
    if args.command == "split":
        split(args.values, args.logs)
        return 0
    if args.from_csv:
        with gzip.open(args.from_csv, "rt") as f:
            rows = list(csv.DictReader(f))
    else:
        rows = bet_rows(args.candidate, args.baseline)
        if args.csv:
            with gzip.open(args.csv, "wt", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
    print_bets(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
