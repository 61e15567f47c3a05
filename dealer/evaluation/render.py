"""How evaluations are shown: numbers and p-values as the tables print them, aligned text
tables, JSON files, and the report's text and plot.

``dealer report`` draws a :class:`~dealer.evaluation.summary.MatchReport` here;
``dealer compare`` and the tournament's rankings print their own tables with the same
cells, columns and JSON writer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from dealer.evaluation.aivat import LOGGED_RANGE
from dealer.evaluation.estimates import Evaluated, group_lineups
from dealer.evaluation.matchlog import EvaluationError
from dealer.evaluation.summary import ESTIMATORS, MatchReport, SeatReport


class PlotError(EvaluationError):
    """The plot cannot be drawn (matplotlib missing, or the file cannot be written)."""


# --- cells, tables, JSON --------------------------------------------------------------------


def fmt_number(x: float, digits: int = 1) -> str:
    """``x`` with thousands separators and ``digits`` decimals; '-' if it is not finite."""
    return f"{x:,.{digits}f}" if math.isfinite(x) else "-"


def fmt_p(p: float) -> str:
    """A p-value in three decimals, clipped to '<0.001' and '>0.999'; '-' if undefined."""
    if not math.isfinite(p):
        return "-"
    return "<0.001" if p < 0.001 else ">0.999" if p > 0.999 else f"{p:.3f}"


def print_table(rows: Sequence[Sequence[str]], out: TextIO, *, left: int = 1) -> None:
    """Rows (the first is the header) in columns indented by two spaces: the first ``left``
    columns aligned left, the others right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = (c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
        print("  " + "  ".join(cells), file=out)


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinity inside dicts and lists replaced by None: JSON has neither."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` as indented JSON (non-finite numbers as null), creating folders.

    Raises:
        EvaluationError: (one sentence) if the file cannot be written.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(finite(data), indent=2) + "\n")
    except OSError as exc:
        raise EvaluationError(f"cannot write the JSON summary to {path} ({exc.strerror or exc})") from None


# --- the report as text ----------------------------------------------------------------------

_CUT_LABELS = {"aivat": "AIVAT", "duplicate": "duplicate pairing", "aivat+duplicate": "AIVAT with pairing"}


def print_report(report: MatchReport, out: TextIO) -> None:
    """The report as ``dealer report`` prints it: per lineup a table of every seat and
    estimator, then what AIVAT corrected and how much each technique cut the spread."""
    hands = sum(m.hands for m in report.logs)
    print(f"Match report: {len(report.logs)} log(s), {hands:,} hands", file=out)
    for lineup in report.lineups:
        print(file=out)
        print(
            f"{' vs '.join(lineup.seats)} - {lineup.game} (big blind {lineup.big_blind}), {len(lineup.logs)} log(s)",
            file=out,
        )
        header = [
            "seat", "estimator", "hands", "chips", "mbb/hand", "95% CI (mbb/hand)", "std (mbb)", "s.e.", "p(win)", "hands needed",
        ]  # fmt: skip
        rows = [header]
        for seat, results in lineup.results.items():
            for name in ESTIMATORS:
                if name not in results.estimates:
                    continue
                e = results.estimates[name]
                r = e.stats
                rows.append([
                    seat, name, f"{r.hands:,}", fmt_number(r.total, 0) if name == "raw" else "", fmt_number(r.mbb_per_hand),
                    f"[{fmt_number(r.mbb_ci_low)}, {fmt_number(r.mbb_ci_high)}]", fmt_number(r.mbb_std, 0),
                    fmt_number(r.mbb_stderr), fmt_p(r.p_value), fmt_number(e.hands_needed_95, 0),
                ])  # fmt: skip
        print_table(rows, out, left=2)
        _print_aivat_lines(report, lineup.results, out)
        # Two players' results mirror each other: one figure says it all.
        shown = lineup.seats[:1] if len(lineup.seats) == 2 else lineup.seats
        for name in ESTIMATORS[1:]:
            cuts = [(seat, lineup.results[seat].std_reduction.get(name, math.nan)) for seat in shown]
            if not any(math.isfinite(c) for _, c in cuts):
                continue
            text = ", ".join(
                (f"{seat} " if len(shown) > 1 else "") + f"{100 * c:.1f}% (variance {100 * (1 - (1 - c) ** 2):.1f}%)"
                for seat, c in cuts
            )
            print(f"  {_CUT_LABELS[name]} cut the standard deviation by {text}", file=out)
    if report.lineups:
        print(
            "  (hands needed: for a one-tailed 95% result at the measured mbb/hand; paired values count every"
            " hand played)",
            file=out,
        )
    for note in report.notes:
        print(f"note: {note}", file=out)


def _print_aivat_lines(report: MatchReport, results: dict[str, SeatReport], out: TextIO) -> None:
    """What AIVAT corrected in a lineup: decisions, imaginary observations, the guard."""
    known = {seat: r.decisions_corrected for seat, r in results.items() if r.decisions_corrected}
    if known:
        print("  AIVAT action corrections: " + ", ".join(f"{s} {n:,} decisions" for s, n in known.items()), file=out)
    else:
        print("  AIVAT action corrections: none (no decision logs); chance corrections only", file=out)
    whole = {seat: r.strategy_used for seat, r in results.items() if r.strategy_used}
    if whole:
        print(
            "  AIVAT imaginary observations over the private cards of "
            + ", ".join(f"{s} ({p if p == LOGGED_RANGE else f'declares {p}'})" for s, p in whole.items()),
            file=out,
        )
        if LOGGED_RANGE in whole.values():
            print(f"  AIVAT value function over a logged range: {report.value_function}", file=out)
    guarded_seats = {seat: r.aivat_raw_hands for seat, r in results.items() if r.aivat_raw_hands}
    if guarded_seats:
        print(
            "  AIVAT guard: raw chips kept for "
            + ", ".join(f"{s} on {n:,} hands" for s, n in guarded_seats.items())
            + " (AIVAT had the larger spread on the log's earlier hands; --no-guard keeps AIVAT)",
            file=out,
        )


# --- the report as a plot ------------------------------------------------------------------------


def plot_report(evaluated: Evaluated, path: Path) -> None:
    """Cumulative winnings (big blinds) with a ±1 standard-error band, raw and AIVAT, per lineup.

    Raises:
        PlotError: without matplotlib, or if the file cannot be written.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError("--plot needs matplotlib: pip install 'acpc-agent[plot]'") from None
    logs, results = evaluated.logs, evaluated.results
    lineups = group_lineups(logs)
    # Two-player results mirror each other: one panel per lineup is enough there.
    panels = [(lu, seat) for lu in lineups for seat in (lu.seats[:1] if len(lu.seats) == 2 else lu.seats)]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 3.2 * len(panels)), squeeze=False)
    for ax, (lu, seat) in zip(axes[:, 0], panels):
        for name, label, color in (("raw", "raw chips", "tab:gray"), ("aivat", "AIVAT", "tab:blue")):
            per_hand = np.concatenate(
                [getattr(results[i], name)[:, list(logs[i].seats).index(seat)] for i in lu.members]
            ) / lu.game.big_blind
            series = cumulative_with_band(per_hand)
            ax.plot(series[0], series[1], color=color, label=f"{label} ({fmt_number(1000 * per_hand.mean())} mbb/hand)")
            ax.fill_between(series[0], series[2], series[3], color=color, alpha=0.25, linewidth=0)
        ax.axhline(0, color="black", linewidth=0.5)
        ax.set_title(f"{seat} in {' vs '.join(lu.seats)} ({lu.label})")
        ax.set_xlabel("hands")
        ax.set_ylabel("cumulative big blinds")
        ax.legend(loc="upper left")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise PlotError(f"cannot write the plot to {path} ({exc.strerror or exc})") from None
    finally:
        plt.close(fig)


def cumulative_with_band(per_hand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Hands 1..n, cumulative total, and the total ± one standard error (s·√k after k hands)."""
    n = per_hand.size
    hands = np.arange(1, n + 1)
    total = np.cumsum(per_hand)
    std = float(per_hand.std(ddof=1)) if n > 1 else 0.0
    spread = std * np.sqrt(hands)
    return hands, total, total - spread, total + spread
