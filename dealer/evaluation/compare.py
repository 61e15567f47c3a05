"""``dealer compare``: did bot X win more than bot Y against the same opponents, on the same deals?

Two sets of match logs played with the same game, seeds and seat orders differ in one
seat: the first set has the *candidate* where the *baseline* set has the baseline.
Hand h of a log and of its partner dealt the same cards, so the difference of the two
seats' values in hand h removes the luck of the cards.  Seats that draw their random
numbers per hand (:mod:`protocol.seeding`: ``dealer bot`` and ``agent`` do) also play
alike until the compared seat first acts differently, so a hand in which the two bots
would act alike cancels exactly (common random numbers).

Whatever the bots, the mean difference is an unbiased estimate of the candidate's
expected winnings minus the baseline's against those opponents; pairing only shrinks
its spread.  Per estimator (raw chips, duplicate-averaged, AIVAT, AIVAT + duplicate)
it is printed with a 95% confidence interval and a one-tailed t test that the
candidate wins more.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from dealer.evaluation.comparison import CompareError, Comparison, PairedEstimate, PairedLogs
from dealer.evaluation.estimates import Evaluated, default_decisions, evaluate_logs
from dealer.evaluation.matchlog import EvaluationError, LogSummary
from dealer.evaluation.pooled import Chunk, load_values, pool, save_values
from dealer.evaluation.render import fmt_number, fmt_p, print_table, write_json
from dealer.evaluation.stats import check_same_deals, duplicate_groups, std_reduction, summarize
from dealer.evaluation.summary import ESTIMATORS
from protocol.errors import ProtocolError
from protocol.gamedef import load_game


@dataclass(frozen=True, slots=True)
class Pair:
    """Log ``a`` of the first set and log ``b`` of the baseline set, paired on their first ``hands``."""

    a: int
    b: int
    hands: int


def compared_seats(a: Sequence[LogSummary], b: Sequence[LogSummary], seat: str | None) -> tuple[str, str]:
    """The candidate's and the baseline's seat names (``seat`` for both when given)."""
    names_a = {s for m in a for s in m.seats}
    names_b = {s for m in b for s in m.seats}
    if seat is not None:
        for label, names in (("first", names_a), ("baseline", names_b)):
            if seat not in names:
                raise CompareError(f"--seat {seat}: no log of the {label} set has a seat of that name")
        return seat, seat
    only_a, only_b = sorted(names_a - names_b), sorted(names_b - names_a)
    if len(only_a) != 1 or len(only_b) != 1:
        raise CompareError(
            "the two sets must differ in exactly one seat name (only in the first: "
            f"{', '.join(only_a) or 'none'}; only in the baseline set: {', '.join(only_b) or 'none'}); "
            "give --seat NAME when the compared seat has the same name in both"
        )
    return only_a[0], only_b[0]


def pair_logs(a: Sequence[LogSummary], b: Sequence[LogSummary], candidate: str, baseline: str) -> list[Pair]:
    """Pair every log of ``a`` with the log of ``b`` of the same game, seed and seat order
    (``candidate`` read as ``baseline``), checking that they dealt the same cards."""
    by_key = {(m.game, m.seed, m.seats): j for j, m in enumerate(b)}
    pairs = []
    for i, m in enumerate(a):
        if candidate not in m.seats:
            raise CompareError(f"{m.path} has no seat named {candidate} (its seats: {', '.join(m.seats)})")
        key = (m.game, m.seed, tuple(baseline if s == candidate else s for s in m.seats))
        j = by_key.pop(key, None)
        if j is None:
            raise CompareError(f"no baseline log has the game, seed ({m.seed}) and seat order ({', '.join(key[2])}) of {m.path}")
        hands = min(m.num_hands, b[j].num_hands)
        check_same_deals(m, b[j], hands)
        pairs.append(Pair(i, j, hands))
    return pairs


def _per_hand(first: Evaluated, base: Evaluated, pairs: Sequence[Pair], candidate: str, baseline: str) -> dict[str, np.ndarray]:
    """``float64[hands, 2]`` per estimator: the candidate's and the baseline's values per
    paired hand (duplicate estimators average over each mirrored group of the first set)."""
    columns = {}
    for source in ("raw", "aivat"):
        columns[source] = [
            np.column_stack(
                [
                    getattr(first.results[p.a], source)[: p.hands, first.logs[p.a].seats.index(candidate)],
                    getattr(base.results[p.b], source)[: p.hands, base.logs[p.b].seats.index(baseline)],
                ]
            )
            for p in pairs
        ]
    values = {name: np.concatenate(arrays) for name, arrays in columns.items()}
    by_log = {p.a: k for k, p in enumerate(pairs)}
    groups = duplicate_groups(first.logs)
    if groups:
        for source in ("raw", "aivat"):
            mirrored = []
            for g in groups:
                hands = min(pairs[by_log[i]].hands for i in g.members)
                mirrored.append(np.mean([columns[source][by_log[i]][:hands] for i in g.members], axis=0))
            values["duplicate" if source == "raw" else "aivat+duplicate"] = np.concatenate(mirrored)
    return {name: values[name] for name in ESTIMATORS if name in values}


def compare_matches(
    first_logs: Sequence[Path],
    baseline_logs: Sequence[Path],
    *,
    decisions: Path | None = None,
    baseline_decisions: Path | None = None,
    seat: str | None = None,
    out: TextIO = sys.stdout,
    json_path: Path | None = None,
    progress: bool = False,
    guard: bool = False,
    value: str = "check-down",
    blueprint: Path | None = None,
    game_file: str | None = None,
    jobs: int = 1,
    pool_files: Sequence[Path] = (),
    save_values_path: Path | None = None,
) -> Comparison:
    """Pair the logs, print the comparison to ``out`` and return it.

    ``guard`` is off by default: it picks raw chips or AIVAT per log from that log's
    past, and a paired difference cancels only when both logs used the same one.
    ``pool_files``: per-hand values saved by earlier comparisons (``--save-values``),
    pooled with the logs' (no logs: those files alone); ``save_values_path``: save the
    (pooled) per-hand values there.

    Raises:
        EvaluationError: (one sentence) for unreadable logs or logs that cannot be paired.
    """
    chunks = [load_values(Path(f)) for f in pool_files]
    if first_logs or baseline_logs:
        chunks.insert(0, _chunk_from_logs(
            first_logs, baseline_logs, decisions=decisions, baseline_decisions=baseline_decisions, seat=seat,
            progress=progress, guard=guard, value=value, blueprint=blueprint, game_file=game_file, jobs=jobs,
        ))  # fmt: skip
    if not chunks:
        raise CompareError("nothing to compare: give match logs and --baseline logs, or --pool values files")
    chunk = pool(chunks) if len(chunks) > 1 else chunks[0]
    result = _comparison(chunk)
    print_comparison(result, out)
    if len(chunks) > 1:
        print(f"  pooled: {chunk.source}", file=out)
    if json_path is not None:
        write_json(json_path, result.as_dict())
    if save_values_path is not None:
        save_values(save_values_path, chunk)
    return result


def _chunk_from_logs(
    first_logs: Sequence[Path], baseline_logs: Sequence[Path], *, decisions: Path | None,
    baseline_decisions: Path | None, seat: str | None, progress: bool, guard: bool, value: str,
    blueprint: Path | None, game_file: str | None, jobs: int,
) -> Chunk:  # fmt: skip
    """Evaluate and pair the two sets of logs: their per-hand values."""
    game = load_game(game_file) if game_file else None
    options = dict(game=game, progress=progress, full_range=True, guard=guard, blueprint=blueprint, jobs=jobs)
    options["prog"] = "dealer compare"
    first = evaluate_logs(first_logs, default_decisions(first_logs, decisions), value=value, **options)
    # The ṽ the first set loaded (None when worker processes held it) values the baseline set too.
    base = evaluate_logs(
        baseline_logs, default_decisions(baseline_logs, baseline_decisions), value=value, loaded=first.seat_values, **options
    )
    games = {m.game for m in first.logs + base.logs}
    if len(games) != 1:
        raise CompareError("the logs play more than one game; compare one game at a time")
    candidate, baseline = compared_seats(first.logs, base.logs, seat)
    pairs = pair_logs(first.logs, base.logs, candidate, baseline)
    values = _per_hand(first, base, pairs, candidate, baseline)
    raw = values["raw"]
    return Chunk(
        candidate=candidate,
        baseline=baseline,
        opponents=sorted({s for m in first.logs for s in m.seats} - {candidate}),
        game=first.logs[0].game_file,
        big_blind=first.logs[0].game.big_blind,
        value_function=first.value_function,
        guard=guard,
        pairs=[_paired(first.logs[p.a], base.logs[p.b], p.hands) for p in pairs],
        hands_alike=int(np.count_nonzero(raw[:, 0] == raw[:, 1])),
        values=values,
        decision_logs=[str(p) for p in first.decision_files + base.decision_files],
        notes=list(dict.fromkeys(first.notes + base.notes)),  # both sets often say the same
    )


def _paired(log: LogSummary, baseline_log: LogSummary, hands: int) -> PairedLogs:
    return PairedLogs(str(log.path), str(baseline_log.path), hands, log.seed, log.seats)


def _comparison(chunk: Chunk) -> Comparison:
    """The statistics of a chunk's paired values."""
    results = {}
    for name, v in chunk.values.items():
        diff = summarize(v[:, 0] - v[:, 1], chunk.big_blind)
        own = [summarize(v[:, k], chunk.big_blind) for k in (0, 1)]
        independent = math.sqrt(own[0].std ** 2 + own[1].std ** 2)
        results[name] = PairedEstimate(diff, own[0], own[1], std_reduction(independent, diff.std))
    return Comparison(
        candidate=chunk.candidate, baseline=chunk.baseline, opponents=chunk.opponents, game=chunk.game,
        big_blind=chunk.big_blind, pairs=chunk.pairs, hands=int(chunk.values["raw"].shape[0]),
        hands_alike=chunk.hands_alike, value_function=chunk.value_function, guard=chunk.guard,
        decision_logs=chunk.decision_logs, results=results, notes=chunk.notes,
    )  # fmt: skip


def print_comparison(result: Comparison, out: TextIO) -> None:
    """The comparison as a text table with its notes."""
    cand, base = result.candidate, result.baseline
    same = cand == base
    a_label, b_label = (f"{cand} (first set)", f"{base} (baseline set)") if same else (cand, base)
    print(
        f"Paired comparison: {a_label} against {b_label}, each facing {', '.join(result.opponents)} on the same "
        f"deals - {result.game} (big blind {result.big_blind}), {len(result.pairs)} pair(s) of logs",
        file=out,
    )
    header = ["estimator", "hands", f"{a_label} mbb/hand", f"{b_label} mbb/hand", "difference", "95% CI (mbb/hand)",
              "s.e.", "p(better)", "pairing cut"]  # fmt: skip
    rows = [header]
    for name, r in result.results.items():
        d, cut = r.difference, r.pairing_std_reduction
        rows.append(
            [
                name, f"{d.hands:,}", fmt_number(r.candidate.mbb_per_hand), fmt_number(r.baseline.mbb_per_hand),
                fmt_number(d.mbb_per_hand), f"[{fmt_number(d.mbb_ci_low)}, {fmt_number(d.mbb_ci_high)}]",
                fmt_number(d.mbb_stderr), fmt_p(d.p_value), f"{100 * cut:.1f}%" if math.isfinite(cut) else "-",
            ]
        )  # fmt: skip
    print_table(rows, out)
    alike, hands = result.hands_alike, result.hands
    print(f"  hands with equal chips in both sets: {alike:,} of {hands:,} ({100 * alike / max(hands, 1):.1f}%)", file=out)
    print(f"  AIVAT value function: {result.value_function}; decision logs read: {len(result.decision_logs)}", file=out)
    print(
        f"  (difference: {a_label} minus {b_label}, per paired hand; p(better): one-tailed t test that it is above 0;"
        " pairing cut: against two independent matches of this length)",
        file=out,
    )
    for note in result.notes:
        print(f"note: {note}", file=out)


def run_compare(args: argparse.Namespace) -> int:
    """Run ``dealer compare`` from parsed arguments; returns the exit code."""
    try:
        compare_matches(
            args.logs, args.baseline, decisions=args.decisions, baseline_decisions=args.baseline_decisions,
            seat=args.seat, json_path=args.json, progress=True, guard=args.guard, value=args.value,
            blueprint=args.blueprint, game_file=args.game, jobs=args.jobs, pool_files=args.pool or (),
            save_values_path=args.save_values,
        )  # fmt: skip
    except (EvaluationError, ProtocolError) as exc:
        print(f"dealer compare: {exc}", file=sys.stderr)
        return 1
    return 0
