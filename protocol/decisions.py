"""Decision logs: what a seat that knows its own strategy was drawing from.

An append-only file of msgpack records, each flushed as it is written, so a crash
loses nothing already decided.  The first record is a header; every other record
is one decision:

``header``   ``{"type": "header", "format": "acpc-decisions", "version": 1,
               "seat": <name>, "match": <match name>, "game": <.game text>,
               "policy": <baseline name> | None}``

``decision`` ``{"type": "decision", "match": str, "hand": int, "position": int,
               "state": <the MATCHSTATE line acted on>,
               "probs": [[<action>, <probability>], ...],
               "uniform_raise": [<probability>, <low>, <high>] | None,
               "taken": <action sent>}``

``probs`` lists actions in wire form (``f``, ``c``, ``r`` in limit, ``r<N>`` in
no-limit) with the probability each had.  ``uniform_raise`` is the compact form of
"a raise-to amount drawn uniformly from the integers low..high", carrying that total
probability; it may be combined with ``probs`` (whose raises then lie outside that
range).  All probabilities together sum to 1.

``policy`` is optional: a seat that plays one of the baseline policies of
:mod:`dealer.bots` in full (``random``, ``call``, ...) names it, so an evaluator
knows what it would have done at any node and with any cards, not just the
distributions it logged.  Readers of version 1 files without it lose nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import msgpack

from protocol.gamedef import GameDef, format_gamedef

FORMAT = "acpc-decisions"
VERSION = 1


@dataclass(frozen=True, slots=True)
class Decision:
    """One logged decision (see the module docstring for the fields)."""

    match: str
    hand: int
    position: int
    state: str
    probs: tuple[tuple[str, float], ...]
    uniform_raise: tuple[float, int, int] | None
    taken: str

    def probability_of(self, action: str) -> float:
        """Probability the seat had of sending ``action`` (wire form)."""
        total = sum(p for a, p in self.probs if a == action)
        if self.uniform_raise is not None and action.startswith("r") and action[1:].lstrip("-").isdigit():
            mass, low, high = self.uniform_raise
            if low <= int(action[1:]) <= high:
                total += mass / (high - low + 1)
        return total


class DecisionLogWriter:
    """Appends decisions to a log, flushing each one."""

    def __init__(self, path: str | Path, *, seat: str, match: str, game: GameDef, policy: str | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.match = match
        self._file: BinaryIO = open(self.path, "ab")  # noqa: SIM115 (open until close())
        if self._file.tell() == 0:
            self._write(
                {"type": "header", "format": FORMAT, "version": VERSION, "seat": seat, "match": match,
                 "game": format_gamedef(game), "policy": policy}
            )

    def _write(self, record: dict) -> None:
        self._file.write(msgpack.packb(record, use_bin_type=True))
        self._file.flush()

    def record(
        self,
        *,
        hand: int,
        position: int,
        state: str,
        probs: list[tuple[str, float]],
        taken: str,
        uniform_raise: tuple[float, int, int] | None = None,
    ) -> None:
        """Log one decision; ``state`` is the MATCHSTATE line the seat answered.

        Raises:
            ValueError: if ``hand`` or ``position`` is negative or needs more than 64 bits
                (msgpack stores no larger integer).
        """
        for what, value in (("hand", hand), ("position", position)):
            if not 0 <= value < 2**64:
                raise ValueError(f"decision log {self.path}: {what} {value} is not between 0 and 2**64 - 1")
        self._write(
            {
                "type": "decision",
                "match": self.match,
                "hand": hand,
                "position": position,
                "state": state,
                "probs": [[a, float(p)] for a, p in probs],
                "uniform_raise": list(uniform_raise) if uniform_raise is not None else None,
                "taken": taken,
            }
        )

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> DecisionLogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def truncate_decision_log(path: str | Path, hands: int) -> None:
    """Drop every decision of hand ``hands`` and later (and any cut-off record at the end).

    A seat logs its decisions in hand order, so this keeps those of hands ``0..hands-1``.

    Raises:
        ValueError: if the file is not a decision log.
    """
    with open(path, "r+b") as handle:
        unpacker = msgpack.Unpacker(handle, raw=False)
        keep = 0
        try:
            for number, record in enumerate(unpacker):
                if number == 0 and not (isinstance(record, dict) and record.get("format") == FORMAT):
                    raise ValueError(f"{path} is not a decision log (wrong header)")
                if record.get("type") == "decision" and record.get("hand", 0) >= hands:
                    break
                keep = unpacker.tell()
        except (msgpack.UnpackException, ValueError) as exc:
            if keep == 0:
                raise ValueError(f"{path} is not a decision log ({exc})") from None
        handle.truncate(keep)


def read_decision_log(path: str | Path) -> tuple[dict, Iterator[Decision]]:
    """The header of a decision log and an iterator over its decisions.

    A record cut off by a crash at the end of the file is ignored.

    Raises:
        ValueError: if the file is not a decision log.
    """
    handle = open(path, "rb")  # noqa: SIM115 (the returned iterator closes it)
    unpacker = msgpack.Unpacker(handle, raw=False)
    try:
        header = next(unpacker)
    except (StopIteration, msgpack.UnpackException, ValueError):
        handle.close()
        raise ValueError(f"{path} is not a decision log (no header record)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        handle.close()
        raise ValueError(f"{path} is not a decision log (wrong header)")

    def decisions() -> Iterator[Decision]:
        with handle:
            for record in unpacker:
                if record.get("type") != "decision":
                    continue
                u = record.get("uniform_raise")
                yield Decision(
                    match=record["match"],
                    hand=record["hand"],
                    position=record["position"],
                    state=record["state"],
                    probs=tuple((a, p) for a, p in record["probs"]),
                    uniform_raise=(u[0], u[1], u[2]) if u else None,
                    taken=record["taken"],
                )

    return header, decisions()

