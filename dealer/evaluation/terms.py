"""AIVAT's corrections term by term: a check that the logged rows are what the seats drew from.

AIVAT (:mod:`dealer.evaluation.aivat`) adds to each hand's chips a sum of corrections,
one per chance event and per corrected decision.  Each term has expectation zero on its
own, over every hand of a match, *if* each decision's logged distribution is the one the
action was drawn from and, for a seat averaged over its range
(:mod:`dealer.evaluation.rangeaivat`), each logged row is what the seat would have drawn
holding that hand.  A bug in a seat's logging, or rows that depend on the cards the seat
holds beyond its own row, shows as a term whose mean is far from zero, while the raw
chips cannot show it.  ``dealer report --by-term`` prints each term's mean per hand with
its standard error and z: one term in twenty beyond |z| = 2 is luck; a |z| above 3.5 is
a lead to read.

Terms are grouped by kind (the deal, each board, each seat's decisions, the average over
private hands) and, for decisions, by the acting seat, the betting round and where the
row came from (the ``source`` of the decision's ``detail``: ``blueprint``, a solve, ...).
A hand averaged over a seat's range and one corrected at the cards held (no whole range
logged: a seat that acted once without one, or not at all) add to the same terms: which
of the two a hand gets depends on its public line, so only the sum over both keeps each
term's mean at zero.  The terms are those of the estimator itself, before ``dealer
report``'s guard: they sum to each hand's AIVAT correction.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from protocol.decisions import Decision

#: ``Term.source`` of a decision whose log says nothing of where its row came from.
UNLABELLED = "unlabelled"
#: ``Term.source`` of a decision corrected from a seat's whole known strategy (a baseline bot's).
KNOWN_STRATEGY = "known strategy"
ROUND_NAMES = ("preflop", "flop", "turn", "river")


def source_of(decision: Decision | None) -> str:
    """Where a decision's row came from, as its log's ``detail`` says."""
    source = (decision.detail or {}).get("source") if decision is not None else None
    return str(source) if source else UNLABELLED


@dataclass(frozen=True, order=True, slots=True)
class Term:
    """A group of AIVAT correction terms.

    ``kind``: ``deal``, ``board``, ``action`` or ``imaginary`` (:data:`dealer.evaluation.aivat.KINDS`);
    ``round``: the betting round of an action, or the round a board deal starts (-1: none);
    ``actor``: the seat whose decision an action term corrects; ``source``: where that
    decision's row came from.
    """

    kind: str
    round: int = -1
    actor: str = ""
    source: str = ""

    def label(self) -> str:
        parts = [self.kind]
        if self.actor:
            parts.append(self.actor)
        if self.round >= 0:
            parts.append(ROUND_NAMES[self.round] if self.round < len(ROUND_NAMES) else f"round {self.round}")
        if self.source:
            parts.append(self.source)
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class TermStat:
    """One term's mean per hand over a seat's hands (chips), its standard error and how
    many times it occurred."""

    term: Term
    count: int
    mean: float
    se: float

    @property
    def z(self) -> float:
        return self.mean / self.se if self.se > 0 else 0.0


class TermSums:
    """Per seat and term, the sum of that term's corrections in each hand the seat played."""

    def __init__(self) -> None:
        self._hands: dict[str, int] = defaultdict(int)
        self._sums: dict[tuple[str, Term], dict[int, float]] = defaultdict(lambda: defaultdict(float))
        self._counts: dict[tuple[str, Term], int] = defaultdict(int)

    def add_hand(self, seats: Iterable[str], terms: Iterable[tuple[Term, dict[str, float]]]) -> None:
        """Add one hand: the ``seats`` that played it and each term's value by seat."""
        index = {}
        for seat in seats:
            index[seat] = self._hands[seat]
            self._hands[seat] += 1
        for term, by_seat in terms:
            for seat, value in by_seat.items():
                self._sums[seat, term][index[seat]] += value
                self._counts[seat, term] += 1

    @property
    def seats(self) -> list[str]:
        return sorted(self._hands)

    def hands(self, seat: str) -> int:
        return self._hands[seat]

    def values(self, seat: str, term: Term) -> np.ndarray:
        """The term's sum in each of the seat's hands (zero where it did not occur)."""
        out = np.zeros(self._hands[seat])
        for i, v in self._sums.get((seat, term), {}).items():
            out[i] = v
        return out

    def stats(self, seat: str) -> list[TermStat]:
        """Every term of ``seat``, sorted by kind, round, actor and source; and their total last."""
        n = self._hands[seat]
        terms = sorted(t for s, t in self._sums if s == seat)
        out, total = [], np.zeros(n)
        for term in terms:
            v = self.values(seat, term)
            total += v
            out.append(_stat(term, self._counts[seat, term], v))
        out.append(_stat(Term("total"), n, total))
        return out


def _stat(term: Term, count: int, values: np.ndarray) -> TermStat:
    se = float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else 0.0
    return TermStat(term, count, float(values.mean()) if values.size else 0.0, se)


def print_terms(sums: TermSums, big_blind: float, out: TextIO) -> None:
    """Print every seat's terms in mbb/hand, each with its z against zero."""
    scale = 1000.0 / big_blind
    print("\nAIVAT's corrections term by term (before the guard), mbb/hand over each seat's hands: each has mean 0 "
          "when every logged row is what its seat drew from; one in twenty beyond |z| = 2 is luck, |z| > 3.5 a lead",
          file=out)  # fmt: skip
    for seat in sums.seats:
        stats = sums.stats(seat)
        width = max(len(s.term.label()) for s in stats)
        print(f"\n{seat} ({sums.hands(seat):,} hands)", file=out)
        print(f"  {'term':<{width}}  {'terms':>7}  {'mean':>9}  {'s.e.':>8}  {'z':>6}", file=out)
        for s in stats:
            flag = "  <- |z| > 3.5" if abs(s.z) > 3.5 and s.term.kind != "total" else ""
            print(f"  {s.term.label():<{width}}  {s.count:>7,}  {s.mean * scale:>9.1f}  {s.se * scale:>8.1f}  "
                  f"{s.z:>6.2f}{flag}", file=out)  # fmt: skip
