"""Tournament rankings as the ACPC published them: crosstable, Total Bankroll, Bankroll Instant Run-off.

Each lineup's matches are evaluated by :func:`dealer.evaluation.report.report_match`
(duplicate pairing and AIVAT as the logs allow); a lineup result is each seat's mean
in mbb/hand and its standard error.  From those:

- **crosstable**: the row bot's mbb/hand against the column bot (for 3-player games,
  averaged over the lineups holding both, and tested as the row bot's value minus the
  column bot's there), with a 95% confidence interval;
- **Total Bankroll**: each bot's mbb/hand averaged over all its lineups;
- **Bankroll Instant Run-off**: repeatedly drop the bot with the lowest Total Bankroll
  counted only over lineups of the bots still in; the ranking is the reverse order of
  elimination (the last lineup's bots ordered by their bankroll in it).

Significance: every comparison is a one-tailed test that the higher bot's value is
really higher, and each family of tests (crosstable pairs; Total Bankroll neighbours;
run-off eliminations) is corrected by Holm's step-down method at 5%.  Lineups are
independent samples (each has its own seeds); within a lineup the difference of two
seats' values has variance at most (s_a + s_b)² (exact for two players, whose values
are opposite; an upper bound, hence conservative, for three).
"""

from __future__ import annotations

import io
import itertools
import json
import math
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from scipy import stats

from dealer.evaluation.render import fmt_number, fmt_p, print_table, write_json
from dealer.evaluation.report import report_match
from dealer.evaluation.summary import MatchReport, SeatReport

ALPHA = 0.05
Z95 = float(stats.norm.ppf(0.975))


@dataclass(frozen=True, slots=True)
class SeatValue:
    """One seat's result in a lineup, in mbb/hand; ``p_value``: one-tailed, the seat wins."""

    mean: float
    se: float
    p_value: float
    hands: int


@dataclass(frozen=True, slots=True)
class LineupResult:
    """The evaluated matches of one lineup."""

    seats: tuple[str, ...]
    values: dict[str, SeatValue]
    estimator: str


# --- the rankings (pure functions of lineup results) ----------------------------------------------


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (monotone, capped at 1; NaN stays NaN)."""
    finite = sorted((p, i) for i, p in enumerate(p_values) if math.isfinite(p))
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(finite):
        running = max(running, min(1.0, (len(finite) - rank) * p))
        adjusted[i] = running
    return adjusted


def one_tailed(diff: float, se: float) -> float:
    """p that a value measured as ``diff`` ± ``se`` is really above 0 (normal); an exact
    estimate (``se`` 0, e.g. AIVAT between two known strategies) gives 0, 1 or 0.5."""
    if not (math.isfinite(diff) and math.isfinite(se)):
        return math.nan
    if se == 0:
        return 0.0 if diff > 0 else 1.0 if diff < 0 else 0.5
    return float(stats.norm.sf(diff / se))


def bankroll(results: Sequence[LineupResult], bot: str, among: frozenset[str]) -> tuple[float, float, int]:
    """``bot``'s mean mbb/hand over the lineups of bots in ``among`` it plays in: (mean, s.e., lineups)."""
    mine = [r.values[bot] for r in results if bot in r.seats and set(r.seats) <= among]
    if not mine:
        return math.nan, math.nan, 0
    return sum(v.mean for v in mine) / len(mine), math.sqrt(sum(v.se**2 for v in mine)) / len(mine), len(mine)


def difference(results: Sequence[LineupResult], a: str, b: str, among: frozenset[str]) -> tuple[float, float, float]:
    """Bankroll of ``a`` minus that of ``b`` over ``among``: (difference, s.e., one-tailed p that it is > 0)."""
    ta, _, na = bankroll(results, a, among)
    tb, _, nb = bankroll(results, b, among)
    if not na or not nb:
        return math.nan, math.nan, math.nan
    variance = 0.0
    for r in results:
        if not set(r.seats) <= among:
            continue
        sa = r.values[a].se / na if a in r.seats else 0.0
        sb = r.values[b].se / nb if b in r.seats else 0.0
        variance += (sa + sb) ** 2 if a in r.seats and b in r.seats else sa**2 + sb**2
    se = math.sqrt(variance)
    return ta - tb, se, one_tailed(ta - tb, se)


def total_bankroll(results: Sequence[LineupResult], bots: Sequence[str]) -> list[dict[str, Any]]:
    """Bots by Total Bankroll, each with its value, 95% CI half-width, lineups counted and
    the Holm-adjusted p that it is above the next bot."""
    among = frozenset(bots)
    rows = []
    for bot in bots:
        mean, se, n = bankroll(results, bot, among)
        rows.append({"bot": bot, "mbb_per_hand": mean, "ci95": Z95 * se, "lineups": n})
    rows.sort(key=lambda r: (-r["mbb_per_hand"] if math.isfinite(r["mbb_per_hand"]) else math.inf, r["bot"]))
    raw = [difference(results, hi["bot"], lo["bot"], among)[2] for hi, lo in itertools.pairwise(rows)] + [math.nan]
    for row, p, adj in zip(rows, raw, holm(raw)):
        row["p_above_next"], row["p_above_next_holm"] = p, adj
        row["significant"] = math.isfinite(adj) and adj < ALPHA
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows


def instant_runoff(results: Sequence[LineupResult], bots: Sequence[str], players: int) -> list[dict[str, Any]]:
    """Bots by Bankroll Instant Run-off (best first); an eliminated bot's row gives the round,
    its bankroll among the bots then left, and the Holm-adjusted p that the bot just above
    it (the next-lowest) was better."""
    left = frozenset(b for b in bots if bankroll(results, b, frozenset(bots))[2])
    eliminated = []
    while len(left) > players:
        scores = {b: bankroll(results, b, left)[0] for b in left}
        order = sorted(left, key=lambda b: (scores[b], b))
        low, next_low = order[0], order[1]
        p = difference(results, next_low, low, left)[2]
        eliminated.append({"bot": low, "round": len(bots) - len(left) + 1, "mbb_per_hand": scores[low], "p_below_next": p})
        left = left - {low}
    final = sorted(left, key=lambda b: (-bankroll(results, b, left)[0], b))
    final_rows = [
        {"bot": b, "round": None, "mbb_per_hand": bankroll(results, b, left)[0], "p_below_next": math.nan} for b in final
    ]
    # In the last lineup the order itself is a test: each bot against the one below it.
    for hi, lo in itertools.pairwise(final_rows):
        lo["p_below_next"] = difference(results, hi["bot"], lo["bot"], left)[2]
    rows = final_rows + eliminated[::-1]
    for row, adj in zip(rows, holm([r["p_below_next"] for r in rows])):
        row["p_below_next_holm"] = adj
        row["significant"] = math.isfinite(adj) and adj < ALPHA
    missing = [b for b in bots if b not in {r["bot"] for r in rows}]
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows + [{"bot": b, "rank": None, "round": None, "mbb_per_hand": math.nan, "p_below_next": math.nan,
                    "p_below_next_holm": math.nan, "significant": False} for b in missing]  # fmt: skip


def crosstable(results: Sequence[LineupResult], bots: Sequence[str]) -> dict[str, Any]:
    """Row bot's mbb/hand against each column bot, 95% CI half-widths, and Holm-corrected
    significance over the pairs (the winner's one-tailed p)."""
    n = len(bots)
    mean = np.full((n, n), np.nan)
    half = np.full((n, n), np.nan)
    p_row = np.full((n, n), np.nan)
    for i, a in enumerate(bots):
        for j, b in enumerate(bots):
            shared = [r for r in results if a in r.seats and b in r.seats and a != b]
            if not shared:
                continue
            mean[i, j] = sum(r.values[a].mean for r in shared) / len(shared)
            se = math.sqrt(sum(r.values[a].se ** 2 for r in shared)) / len(shared)
            half[i, j] = Z95 * se
            if len(shared[0].seats) == 2:  # heads-up: the report's t test that the row bot wins
                p_row[i, j] = shared[0].values[a].p_value
            else:  # 3 players: did the row bot win more than the column bot in their lineups?
                gap = sum(r.values[a].mean - r.values[b].mean for r in shared) / len(shared)
                spread = math.sqrt(sum((r.values[a].se + r.values[b].se) ** 2 for r in shared)) / len(shared)
                p_row[i, j] = one_tailed(gap, spread)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if math.isfinite(p_row[i, j])]
    winner_p = [min(p_row[i, j], p_row[j, i]) for i, j in pairs]
    significant = np.zeros((n, n), dtype=bool)
    for (i, j), adj in zip(pairs, holm(winner_p)):
        if adj < ALPHA:
            significant[i, j] = significant[j, i] = True
    return {"bots": list(bots), "mbb_per_hand": mean, "ci95": half, "p_row_wins": p_row, "significant": significant}


# --- evaluating a tournament's folder ------------------------------------------------------------


def _evaluate_lineup(logs: list[str], decisions: str, json_path: str) -> MatchReport:
    """Run the report on one lineup's logs (in a worker process); returns the report."""
    text = io.StringIO()
    report = report_match([Path(p) for p in logs], Path(decisions), out=text, json_path=Path(json_path))
    Path(json_path).with_suffix(".txt").write_text(text.getvalue())
    return report


def _cached(json_path: Path, logs: list[str]) -> MatchReport | None:
    """The report an earlier run wrote for exactly these logs, or None."""
    try:
        report = json.loads(json_path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if not isinstance(report, dict) or sorted(m["path"] for m in report.get("logs", [])) != sorted(logs):
        return None
    try:
        return MatchReport.from_json(report)
    except (KeyError, TypeError):  # written by an older version: evaluate again
        return None


def lineup_result(report: MatchReport, estimator: str) -> LineupResult:
    """The figures ranked from one lineup's report: AIVAT (paired when duplicate) or raw chips."""
    (lineup,) = report.lineups
    paired = lineup.duplicate_hands > 0
    name = {"aivat": "aivat+duplicate" if paired else "aivat", "raw": "duplicate" if paired else "raw"}[estimator]

    def value(r: SeatReport) -> SeatValue:
        stats = r.estimates[name].stats
        mean, se, p, hands = float(stats.mbb_per_hand), float(stats.mbb_stderr), float(stats.p_value), int(stats.hands)
        if hands >= 2 and not math.isfinite(se):
            # Every hand gave the same value (the report leaves spread and t test undefined):
            # the estimate is exact, as AIVAT is between two strategies it knows in full.
            se, p = 0.0, one_tailed(mean, 0.0)
        return SeatValue(mean, se, p, hands)

    return LineupResult(tuple(lineup.seats), {s: value(r) for s, r in lineup.results.items()}, name)


def rank_tournament(
    out: Path, tasks: Sequence[Any], outcomes: dict[str, dict[str, Any]], settings: dict[str, Any], *,
    estimator: str = "aivat", workers: int = 1, stream: TextIO = sys.stdout,
) -> dict[str, Any]:  # fmt: skip
    """Evaluate every lineup with complete match sets, rank, print, and write
    ``out/rankings.json`` and ``out/crosstable.png`` (when matplotlib is installed).

    A match set (one seed: every seat order with ``--duplicate``) counts only if all its
    matches finished; what is left out is listed in the notes.
    """
    bots = [b["name"] for b in settings["bots"]]
    players = len(tasks[0].order) if tasks else 2
    notes: list[str] = []
    jobs: dict[str, list[str]] = {}
    for lineup in dict.fromkeys(t.lineup for t in tasks):
        sets: dict[int, list[Any]] = {}
        for t in tasks:
            if t.lineup == lineup:
                sets.setdefault(t.group, []).append(t)
        for k, members in sets.items():
            bad = [outcomes[t.match] for t in members if outcomes[t.match].get("status") != "ok"]
            if bad:
                reason = (bad[0].get("message") or "failed").splitlines()[0]
                notes.append(f"{lineup}: match set {k + 1} left out ({bad[0]['match']} failed: {reason})")
            else:
                jobs.setdefault(lineup, []).extend(str(t.folder(out) / f"{t.match}.log") for t in members)
        if lineup not in jobs:
            notes.append(f"{lineup}: no complete match set, so it is missing from every ranking")
    reports: dict[str, MatchReport] = {}
    todo = {}
    for lineup, logs in jobs.items():
        cached = _cached(out / lineup / "report.json", logs)
        if cached is not None:
            reports[lineup] = cached
        else:
            todo[lineup] = logs
    if todo:
        with ProcessPoolExecutor(max_workers=max(1, min(workers, len(todo)))) as pool:
            futures = {
                lineup: pool.submit(_evaluate_lineup, logs, str(out / lineup), str(out / lineup / "report.json"))
                for lineup, logs in todo.items()
            }
            for lineup, future in futures.items():
                try:
                    reports[lineup] = future.result()
                except Exception as exc:  # an EvaluationError from the report, pickled back
                    notes.append(f"{lineup}: cannot be evaluated ({exc}), so it is missing from every ranking")
    results = [lineup_result(reports[lineup], estimator) for lineup in jobs if lineup in reports]
    for note in (n for r in reports.values() for n in r.notes):
        notes.append(note)
    members = {t.lineup: {name for name, _ in t.order} for t in tasks}
    for bot in bots:
        have = sum(1 for r in results if bot in r.seats)
        expected = sum(1 for names in members.values() if bot in names)
        if have < expected:
            notes.append(f"{bot}: ranked over {have} of its {expected} lineups")
    table = crosstable(results, bots)
    ranking = {
        "game": settings["game"],
        "hands_per_match": settings["hands"],
        "estimator": results[0].estimator if results else None,
        "correction": "Holm step-down at 5% within each family (crosstable pairs; Total Bankroll neighbours; run-off rounds)",
        "crosstable": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in table.items()},
        "total_bankroll": total_bankroll(results, bots),
        "instant_runoff": instant_runoff(results, bots, players),
        "lineups": {lineup: reports[lineup].lineups[0].as_dict() for lineup in jobs if lineup in reports},
        "notes": notes,
    }
    print_rankings(ranking, table, stream)
    write_json(out / "rankings.json", ranking)
    plot = out / "crosstable.png"
    if draw_crosstable(table, plot, f"{Path(settings['game']).name}, {ranking['estimator']} mbb/hand (row vs column)"):
        print(f"crosstable heat map: {plot}", file=stream)
    else:
        print("(no crosstable heat map: it needs matplotlib, pip install 'acpc-agent[plot]')", file=stream)
    return ranking


# --- output ----------------------------------------------------------------------------------------


def print_rankings(ranking: dict[str, Any], table: dict[str, Any], stream: TextIO) -> None:
    """The crosstable and both rankings as terminal tables."""
    bots = table["bots"]
    print(f"\nCrosstable: row bot's {ranking['estimator']} mbb/hand against the column bot, ±95% CI", file=stream)
    print("  (* = the winner is significant, one-tailed, Holm-corrected over all pairs at 5%)", file=stream)
    rows = [["", *bots]]
    for i, a in enumerate(bots):
        cells = [a]
        for j in range(len(bots)):
            m = table["mbb_per_hand"][i, j]
            star = "*" if table["significant"][i, j] else " "
            cells.append("" if i == j else "?" if not math.isfinite(m) else
                         f"{fmt_number(m)} ±{fmt_number(table['ci95'][i, j])}{star}")  # fmt: skip
        rows.append(cells)
    print_table(rows, stream)
    print("\nTotal Bankroll (mean mbb/hand over all lineups)", file=stream)
    rows = [["rank", "bot", "mbb/hand", "95% CI", "lineups", "p(> next)", "Holm", "sig."]]
    for r in ranking["total_bankroll"]:
        rows.append([str(r["rank"]), r["bot"], fmt_number(r["mbb_per_hand"]), f"±{fmt_number(r['ci95'])}", str(r["lineups"]),
                     fmt_p(r["p_above_next"]), fmt_p(r["p_above_next_holm"]), "yes" if r["significant"] else ""])  # fmt: skip
    print_table(rows, stream)
    print("\nBankroll Instant Run-off (lowest bankroll among those left is dropped each round)", file=stream)
    rows = [["rank", "bot", "out in round", "mbb/hand then", "p(< next)", "Holm", "sig."]]
    for r in ranking["instant_runoff"]:
        out_round = "-" if r["round"] is None else str(r["round"])
        rows.append([str(r["rank"] or "-"), r["bot"], out_round, fmt_number(r["mbb_per_hand"]),
                     fmt_p(r["p_below_next"]), fmt_p(r["p_below_next_holm"]), "yes" if r["significant"] else ""])  # fmt: skip
    print_table(rows, stream)
    print(f"  ({ranking['correction']})", file=stream)
    for note in ranking["notes"]:
        print(f"note: {note}", file=stream)


def draw_crosstable(table: dict[str, Any], path: Path, title: str) -> bool:
    """Heat map of the crosstable (red loses, blue wins; * significant); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    bots, mean = table["bots"], table["mbb_per_hand"]
    n = len(bots)
    limit = float(np.nanmax(np.abs(mean))) if np.isfinite(mean).any() else 1.0
    fig, ax = plt.subplots(figsize=(1.6 + 1.15 * n, 1.2 + 0.9 * n))
    image = ax.imshow(np.ma.masked_invalid(mean), cmap="RdBu", vmin=-limit, vmax=limit)
    for i in range(n):
        for j in range(n):
            if i != j and math.isfinite(mean[i, j]):
                strong = abs(mean[i, j]) > 0.6 * limit
                text = f"{mean[i, j]:,.0f}{'*' if table['significant'][i, j] else ''}\n±{table['ci95'][i, j]:,.0f}"
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if strong else "black")
    ax.set_xticks(range(n), bots, rotation=30, ha="right")
    ax.set_yticks(range(n), bots)
    ax.set_title(title, fontsize=9)
    fig.colorbar(image, ax=ax, label="mbb/hand")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
