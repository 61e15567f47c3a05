"""``dealer report``: did A beat B, by how much, and how sure are we?

Reads match logs (ours or the reference dealer's) and any decision logs, and reports
for every lineup (the players of a match, in one game) and every seat: raw chips,
duplicate-paired values when mirrored matches are present, and AIVAT values, each
with mbb/hand, spread, a 95% confidence interval and a one-tailed t test that the
seat wins; and how much AIVAT and duplicate pairing cut the standard deviation.

The work is done by :mod:`dealer.evaluation.estimates` (reading and valuing the logs,
then the statistics), :mod:`dealer.evaluation.summary` (the result as data) and
:mod:`dealer.evaluation.render` (text, JSON, plot); this module ties them to the command.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from dealer.evaluation.estimates import default_decisions, evaluate_logs, summarize_report
from dealer.evaluation.matchlog import EvaluationError
from dealer.evaluation.render import plot_report, print_report, write_json
from dealer.evaluation.summary import MatchReport
from dealer.evaluation.terms import TermSums, print_terms
from protocol.errors import ProtocolError
from protocol.gamedef import GameDef, load_game


def run_report(args: argparse.Namespace) -> int:
    """Run ``dealer report`` from parsed arguments; returns the exit code."""
    try:
        decisions = default_decisions(args.logs, args.decisions)
        game = load_game(args.game) if args.game else None
        report_match(
            args.logs, decisions, out=sys.stdout, json_path=args.json, plot_path=args.plot, game=game, progress=True,
            full_range=args.full_range, guard=args.guard, value=args.value, blueprint=args.blueprint, jobs=args.jobs,
            by_term=args.by_term,
        )  # fmt: skip
    except (EvaluationError, ProtocolError) as exc:
        print(f"dealer report: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader left (`dealer report ... | head`): stop quietly, as Unix tools do,
        # and keep Python from complaining when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    return 0


def report_match(
    log_paths: Sequence[Path],
    decisions: Path | Sequence[Path | None] | None,
    *,
    out: TextIO = sys.stdout,
    json_path: Path | None = None,
    plot_path: Path | None = None,
    game: GameDef | None = None,
    progress: bool = False,
    full_range: bool = True,
    guard: bool = True,
    value: str = "check-down",
    blueprint: Path | None = None,
    jobs: int = 1,
    by_term: bool = False,
) -> MatchReport:
    """Evaluate match logs, print the report to ``out``, and return it.

    Logs are read hand by hand, so memory grows only by a few dozen bytes per hand.

    Args:
        log_paths: match logs; mirrored ones (same game and seed) are paired.
        decisions: a decision log (``.dlog``), or a folder whose ``*.dlog`` files
            (searched recursively) give the decisions AIVAT corrects; or a list of
            those, one per log (see :func:`~dealer.evaluation.estimates.default_decisions`);
            None or a missing folder means none.
        json_path: also write the report there as JSON (folders are created).
        plot_path: also draw cumulative winnings there (needs matplotlib).
        game: the game of every log, instead of the one each header names.
        progress: show a progress bar on a terminal once the report takes a few seconds.
        full_range: average over the whole range of a seat whose decisions carry it
            (two-player matches; see :mod:`dealer.evaluation.rangeaivat`).
        guard: per seat, give a hand its raw chips when AIVAT's values had the larger
            spread on the log's earlier hands (:mod:`dealer.evaluation.guard`).
        value: ṽ, the value function of the whole-range estimator, one of
            :data:`dealer.evaluation.arguments.VALUES`
            (:mod:`dealer.evaluation.blueprintvalue` for ``blueprint``).
        blueprint: the blueprint ``value="blueprint"`` loads (None: the shipped one).
        jobs: evaluate up to this many logs at once, each in its own process (which
            loads its own ṽ: worth it for ``value="blueprint"`` on long logs).
        by_term: also print AIVAT's corrections term by term, each against zero
            (:mod:`dealer.evaluation.terms`; the logs are then read in this process).

    Raises:
        EvaluationError: (one sentence) for unreadable or inconsistent logs, or a plot
            or JSON file that cannot be written.
    """
    terms = TermSums() if by_term else None
    evaluated = evaluate_logs(
        log_paths, decisions, game=game, progress=progress, full_range=full_range, guard=guard, value=value,
        blueprint=blueprint, jobs=jobs, terms=terms,
    )  # fmt: skip
    report = summarize_report(evaluated)
    print_report(report, out)
    if terms is not None:
        print_terms(terms, evaluated.logs[0].game.big_blind, out)
    if json_path is not None:
        write_json(json_path, report.as_dict())
    if plot_path is not None:
        plot_report(evaluated, plot_path)
    return report
