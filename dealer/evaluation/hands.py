"""``dealer hands``: chosen hands of match logs, every decision with what the seat held
and the probability it gave each action, and for our agent where that row came from.

The hands come from the match logs (cards, betting, chips won); the decisions from
the decision logs beside them (``decisions/`` next to each log, as ``dealer report``
finds them).  A decision's ``detail`` (written by ``agent connect``) names the
blueprint node and card bucket, how many real actions were translated onto the tree,
or the subgame solve with its iterations, seconds and exploitability.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from dealer.evaluation.arguments import add_hands_arguments as add_hands_arguments
from dealer.evaluation.matchlog import EvaluationError, read_match_log
from protocol.cards import cards_str
from protocol.decisions import Decision, read_decision_log
from protocol.wire import LoggedHand

ROUND_NAMES = ("preflop", "flop", "turn", "river")


@dataclass(frozen=True, slots=True)
class ChosenHand:
    """One hand to print: its match log's name and path, and the hand."""

    match: str
    path: Path
    hand: LoggedHand


def run_hands(args: argparse.Namespace) -> int:
    try:
        chosen = choose_hands(args.logs, args.seat, args.hand, args.biggest, args.won)
        decisions = decisions_of(chosen, args.decisions)
    except EvaluationError as exc:
        print(f"dealer hands: {exc}", file=sys.stderr)
        return 1
    for item in chosen:
        print_hand(item, decisions, args.seat, sys.stdout)
    return 0


def choose_hands(
    logs: Sequence[Path], seat: str | None, numbers: Sequence[int] | None, biggest: int | None, won: bool
) -> list[ChosenHand]:
    """The hands to print: those numbered ``numbers``, else the ``biggest`` (default 5) by
    ``seat``'s loss (or win, ``won``), else by pot size when no seat is named.

    Raises:
        EvaluationError: a log cannot be read, ``seat`` plays in none of them, or a hand number is not there.
    """
    for path in logs:
        if not path.is_file():
            raise EvaluationError(f"{path}: no such match log")
    found: list[ChosenHand] = []
    seen_seat = seat is None
    for path in logs:
        log = read_match_log(path)
        seen_seat = seen_seat or seat in log.seats
        for hand in log.hands:
            if numbers is None or hand.state.hand_number in numbers:
                found.append(ChosenHand(log.name, path, hand))
    if not seen_seat:
        raise EvaluationError(f"no log has a seat named {seat!r}")
    if numbers is not None:
        missing = sorted(set(numbers) - {c.hand.state.hand_number for c in found})
        if missing:
            raise EvaluationError(f"hand {missing[0]} is in none of the logs")
        return found

    def key(c: ChosenHand) -> float:
        if seat is None:
            return -max(abs(v) for v in c.hand.values)
        value = c.hand.values[c.hand.names.index(seat)] if seat in c.hand.names else 0.0
        return -value if won else value

    return sorted(found, key=key)[: biggest if biggest is not None else 5]


def decisions_of(chosen: Sequence[ChosenHand], folder: Path | None) -> dict[tuple[Path, int, int], tuple[str, list[Decision]]]:
    """The logged decisions of the chosen hands by (match log, hand, position): (seat, decisions).

    Each log's decisions come from its own ``decisions/`` folder (or ``folder``): runs
    name their matches alike (``match.1``, ``match.2``), so a hand's decisions are never
    looked up in another run's logs.

    Raises:
        EvaluationError: if a decision log is unreadable.
    """
    by_folder: dict[Path, list[ChosenHand]] = {}
    for c in chosen:
        by_folder.setdefault(folder if folder is not None else c.path.parent / "decisions", []).append(c)
    out: dict[tuple[Path, int, int], tuple[str, list[Decision]]] = {}
    for where, items in by_folder.items():
        wanted = {(c.match, c.hand.state.hand_number) for c in items}
        found: dict[tuple[str, int, int], tuple[str, list[Decision]]] = {}
        for path in _dlogs([where]):
            try:
                header, records = read_decision_log(path)
                for d in records:
                    if (d.match, d.hand) in wanted:
                        found.setdefault((d.match, d.hand, d.position), (header["seat"], []))[1].append(d)
            except (ValueError, KeyError) as exc:
                raise EvaluationError(f"{path}: {exc}") from None
        for c in items:
            number = c.hand.state.hand_number
            for position in range(len(c.hand.names)):
                if (c.match, number, position) in found:
                    out[c.path, number, position] = found[c.match, number, position]
    return out


def _dlogs(folders: Iterable[Path]) -> list[Path]:
    paths: list[Path] = []
    for f in folders:
        if f.is_file():
            paths.append(f)
        elif f.is_dir():
            paths.extend(sorted(f.rglob("*.dlog")))
    return paths


def print_hand(item: ChosenHand, decisions: dict, seat: str | None, out: TextIO) -> None:
    """One hand: result, cards, then each logged decision in order."""
    hand = item.hand
    state = hand.state
    game = state.game
    number = state.hand_number
    results = ", ".join(f"{n} {v:+,.0f}" for n, v in zip(hand.names, hand.values))
    print(f"hand {number} of {item.match} ({item.path}): {results}", file=out)
    for position, name in enumerate(hand.names):
        print(f"  position {position} {name}: {cards_str(state.hole_cards[position]) or '--'}", file=out)
    if state.board:
        print(f"  board {_board(state.board, game)}", file=out)
    print(f"  betting {state.betting}", file=out)
    rows = []
    for position, name in enumerate(hand.names):
        if seat is not None and name != seat:
            continue
        _, found = decisions.get((item.path, number, position), (name, []))
        rows.extend((position, name, d) for d in found)
    if not rows:
        print("  (no logged decisions for this hand)", file=out)
    for position, name, d in sorted(rows, key=lambda r: _order(r[2].state)):
        print("  " + format_decision(name, state.hole_cards[position], d, game), file=out)
    print(file=out)


def _board(board: Sequence[int], game) -> str:
    parts, start = [], 0
    for r in range(1, game.num_rounds):
        end = game.board_cards_through(r)
        if end > start and len(board) >= end:
            parts.append(cards_str(board[start:end]))
        start = end
    return " ".join(parts)


def _order(line: str) -> int:
    """Decisions in the order they were taken: by the length of the betting they answered."""
    fields = line.split(":")
    return len(fields[3]) if len(fields) > 3 else 0


def format_decision(name: str, hole: Sequence[int], d: Decision, game) -> str:
    """``round  seat  cards  after BETTING: probabilities -> taken  [source ...]``."""
    fields = d.state.split(":")
    betting = fields[3] if len(fields) > 3 else "?"
    round_ = betting.count("/")
    label = ROUND_NAMES[round_] if round_ < len(ROUND_NAMES) else f"round {round_}"
    probs = "  ".join(f"{a} {p:.3f}" for a, p in d.probs)
    if d.uniform_raise is not None:
        mass, low, high = d.uniform_raise
        probs += f"  r{low}..r{high} {mass:.3f}"
    text = f"{label:<7} {name} {cards_str(hole)} after '{betting}': {probs} -> {d.taken}"
    if d.seconds is not None:
        text += f" ({d.seconds:.2f} s)"
    if d.detail:
        text += f"\n           {describe_detail(d.detail)}"
    return text


def describe_detail(detail: dict) -> str:
    """Where the agent's row came from, in words."""
    source = detail.get("source", "?")
    if "solve" in detail:
        parts = [f"{source} solve ({detail['solve']})", f"root '{detail.get('root', '')}'", f"node {detail.get('node')}",
                 f"{detail.get('iterations')} iterations", f"{detail.get('seconds', 0):.3f} s of {detail.get('budget', 0):.2f}"]
        if "exploitability_pct" in detail:
            parts.append(f"exploitability {detail['exploitability_pct']:.2f}% of the pot (modelled ranges)")
        return "[" + ", ".join(parts) + "]"
    if "node" in detail:
        parts = [f"{source} node {detail['node']}", f"abstract '{detail.get('abstract', '')}'"]
        if "bucket" in detail:
            parts.append(f"bucket {detail['bucket']}")
        if detail.get("translated"):
            parts.append(f"{detail['translated']} action(s) translated")
        return "[" + ", ".join(parts) + "]"
    return f"[{source}]"
