"""Decision logs as AIVAT reads them: decisions by ``(match, hand, position)``.

:func:`load_decision_logs` holds every decision in memory (:class:`DecisionIndex`);
:func:`stream_decision_logs` gives the same index over files read in hand order, as
:func:`dealer.evaluation.aivat.evaluate_hands` asks for hands, keeping only the hand at
hand: memory does not grow with the length of the logs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dealer.bots import POLICIES
from dealer.evaluation.values import AivatError
from protocol.decisions import Decision, read_decision_log

Node = tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class DecisionIndex:
    """Decisions by ``(match, hand, position)``, in the order they were made, and who made them.

    ``policies``: by ``(match, seat)``, the baseline policy (a :data:`dealer.bots.POLICIES`
    name) a seat declared it plays in that match.
    """

    by_node: Mapping[Node, tuple[str, tuple[Decision, ...]]]
    files: tuple[Path, ...] = ()
    policies: Mapping[tuple[str, str], str] = field(default_factory=dict)

    @staticmethod
    def of(
        records: Iterable[tuple[str, Decision]],
        files: Sequence[Path] = (),
        policies: Mapping[tuple[str, str], str] | None = None,
    ) -> DecisionIndex:
        """Index ``(seat, decision)`` pairs."""
        grouped: dict[Node, tuple[str, list[Decision]]] = {}
        for seat, d in records:
            _add(grouped, seat, d)
        return DecisionIndex({k: (s, tuple(v)) for k, (s, v) in grouped.items()}, tuple(files), dict(policies or {}))


def _add(grouped: dict[Node, tuple[str, list[Decision]]], seat: str, d: Decision) -> None:
    owner, found = grouped.setdefault((d.match, d.hand, d.position), (seat, []))
    if owner != seat:
        raise AivatError(
            f"both {owner} and {seat} logged decisions for position {d.position} of hand {d.hand} of match {d.match}"
        )
    found.append(d)


def _headers(paths: Iterable[Path]) -> tuple[list[tuple[Path, str, str]], dict[tuple[str, str], str]]:
    """Each file's (path, seat, match) and the policies the headers declare.

    Raises:
        AivatError: if a file is not a decision log or declares an unknown or contradictory policy.
    """
    files, policies = [], {}
    for path in sorted(paths):
        try:
            header, decisions = read_decision_log(path)
            next(decisions, None)  # enters the reader, so that closing it closes the file
            decisions.close()
            seat, match, policy = header["seat"], header["match"], header.get("policy")
            if policy is not None:
                if policy not in POLICIES:
                    raise ValueError(f"the header names policy {policy!r}, which is not a baseline ({', '.join(POLICIES)})")
                if policies.setdefault((match, seat), policy) != policy:
                    raise ValueError(
                        f"the header says {seat} plays {policy} in {match}, another log says {policies[match, seat]}"
                    )
        except (ValueError, KeyError) as exc:
            raise AivatError(f"{path}: {exc}") from None
        files.append((path, seat, match))
    return files, policies


def _decisions(path: Path) -> Iterator[Decision]:
    try:
        yield from read_decision_log(path)[1]
    except (ValueError, KeyError) as exc:
        raise AivatError(f"{path}: {exc}") from None


def load_decision_logs(paths: Iterable[Path]) -> DecisionIndex:
    """Read decision logs (``*.dlog``) into memory.

    Raises:
        AivatError: if a file is not a decision log.
    """
    files, policies = _headers(paths)
    records = ((seat, d) for path, seat, _ in files for d in _decisions(path))
    return DecisionIndex.of(records, [f for f, _, _ in files], policies)


def stream_decision_logs(paths: Iterable[Path]) -> DecisionIndex:
    """Decision logs (``*.dlog``) read lazily, for evaluating each match's hands in order.

    Raises:
        AivatError: if a file is not a decision log (now), or, while the index is read,
            is unreadable or not in hand order.
    """
    files, policies = _headers(paths)
    return DecisionIndex(_StreamedNodes(files), tuple(f for f, _, _ in files), policies)


class _StreamedNodes(Mapping[Node, tuple[str, tuple[Decision, ...]]]):
    """``by_node`` over files read in hand order: asking for hand h of a match reads each of
    its files up to h and forgets its earlier hands.  Asking for an earlier hand again
    (the same log twice) starts that match's files over."""

    def __init__(self, files: Sequence[tuple[Path, str, str]]) -> None:
        self._files = files
        self._hand: dict[str, int] = {}
        self._readers: dict[str, list[tuple[str, Iterator[Decision]]]] = {}
        self._ahead: dict[str, list[Decision | None]] = {}
        self._held: dict[Node, tuple[str, list[Decision]]] = {}

    def _open(self, match: str) -> None:
        self._readers[match] = [(seat, _decisions(path)) for path, seat, m in self._files if m == match]
        self._ahead[match] = [None] * len(self._readers[match])
        self._hand[match] = -1
        self._held = {k: v for k, v in self._held.items() if k[0] != match}

    def _read_through(self, match: str, hand: int) -> None:
        if match not in self._readers or hand < self._hand[match]:
            self._open(match)
        if hand == self._hand[match]:
            return
        self._held = {k: v for k, v in self._held.items() if k[0] != match or k[1] >= hand}
        for i, (seat, reader) in enumerate(self._readers[match]):
            d = self._ahead[match][i]
            while True:
                if d is None:
                    d = next(reader, None)
                    if d is None:
                        break
                if d.match != match:  # a record of another match: not this index's
                    d = None
                    continue
                if d.hand > hand:
                    break
                if d.hand < self._hand[match]:
                    raise AivatError(f"{seat}'s decision log of match {match} is not in hand order (hand {d.hand} comes late)")
                if d.hand == hand:
                    _add(self._held, seat, d)
                d = None
            self._ahead[match][i] = d
        self._hand[match] = hand

    def get(self, key: Node, default: object = None):  # type: ignore[override]
        self._read_through(key[0], key[1])
        found = self._held.get(key)
        return (found[0], tuple(found[1])) if found is not None else default

    def __getitem__(self, key: Node) -> tuple[str, tuple[Decision, ...]]:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[Node]:
        return iter(dict(self._held))

    def __len__(self) -> int:
        return len(self._held)
