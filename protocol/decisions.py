"""Decision logs: what a seat that knows its own strategy was drawing from.

An append-only file of msgpack records, each flushed as it is written, so a crash
loses nothing already decided.  The first record is a header; every other record
is one decision.  Version 2 (written now) adds the ``strategy`` header field and the
optional ``range`` of a decision; a version 1 file is read exactly as before.

``header``   ``{"type": "header", "format": "acpc-decisions", "version": 2,
               "seat": <name>, "match": <match name>, "game": <.game text>,
               "policy": <baseline name> | None,
               "strategy": "baseline" | "card-dependent" | None}``

``decision`` ``{"type": "decision", "match": str, "hand": int, "position": int,
               "state": <the MATCHSTATE line acted on>,
               "probs": [[<action>, <probability>], ...],
               "uniform_raise": [<probability>, <low>, <high>] | None,
               "taken": <action sent>,
               "range": {"hands": n, "strategy": <bytes>, "weights": <bytes>},
               "seconds": <time from the state's arrival to the reply>,
               "detail": {<where the row came from: str -> str | int | float | bool>}}``
               (``range``, ``seconds`` and ``detail``: version 2, only when the seat logs them;
               ``detail`` is free-form, for people reading hands, never for evaluation)

``probs`` lists actions in wire form (``f``, ``c``, ``r`` in limit, ``r<N>`` in
no-limit) with the probability each had.  ``uniform_raise`` is the compact form of
"a raise-to amount drawn uniformly from the integers low..high", carrying that total
probability; it may be combined with ``probs`` (whose raises then lie outside that
range).  All probabilities together sum to 1.

``policy`` is optional: a seat that plays one of the baseline policies of
:mod:`dealer.bots` in full (``random``, ``call``, ...) names it (and ``strategy`` is
``"baseline"``), so an evaluator knows what it would have done at any node and with
any cards, not just the distributions it logged.  Readers of version 1 files without
it lose nothing.

``strategy: "card-dependent"`` declares a seat whose play depends on its private
cards (our agent): ``policy`` is None, and its decisions may carry a ``range``, the
seat's strategy at that node for every private hand it could hold:

* hands are :func:`private_hands` of the game (every ``num_hole_cards``-subset of the
  deck, sorted by highest card, then the next: for hold'em exactly
  :data:`protocol.fasteval.HOLE_PAIRS`, 1,326 hands);
* ``strategy``: zlib-compressed little-endian ``uint16`` counts, shape
  ``(hands, len(probs))``, columns in the order of ``probs``; a row is the hand's
  distribution times 65,535 (each row sums to exactly 65,535), and is all zeros for a
  hand blocked by a card the seat sees on the board;
* ``weights``: zlib-compressed little-endian ``float32`` of shape ``(hands,)``, the
  seat's own probability of having played this hand's earlier actions this way (its
  range before this decision, unnormalised; 0 for blocked hands).

A seat that logs ranges samples from the quantised row of the hand it holds, so
``probs`` equals that row divided by 65,535 exactly.  About 3–6 KB per decision.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import BinaryIO

import msgpack
import numpy as np

from protocol.cards import deck
from protocol.gamedef import GameDef, format_gamedef

FORMAT = "acpc-decisions"
VERSION = 2
#: The sum of every row of a logged range strategy (the unit of its ``uint16`` counts).
ROW_TOTAL = 65535
#: ``strategy`` header values: the seat plays a named baseline, or depends on its cards.
BASELINE, CARD_DEPENDENT = "baseline", "card-dependent"


@cache
def _private_hands(game: GameDef) -> tuple[tuple[int, ...], ...]:
    return tuple(sorted(combinations(sorted(deck(game)), game.num_hole_cards), key=lambda h: h[::-1]))


def private_hands(game: GameDef) -> tuple[tuple[int, ...], ...]:
    """Every private hand of ``game`` in the order logged ranges use (cards ascending,
    hands sorted by their highest card, then the next)."""
    return _private_hands(game)


@dataclass(frozen=True, slots=True)
class LoggedRange:
    """A decision's strategy for every private hand, kept compressed until asked for."""

    hands: int
    actions: int
    strategy_bytes: bytes
    weights_bytes: bytes

    def counts(self) -> np.ndarray:
        """uint16 ``(hands, actions)``: each row sums to :data:`ROW_TOTAL` (0 if blocked)."""
        return np.frombuffer(zlib.decompress(self.strategy_bytes), dtype="<u2").reshape(self.hands, self.actions)

    def strategy(self) -> np.ndarray:
        """float64 ``(hands, actions)``: each unblocked hand's distribution over ``probs``' actions."""
        return self.counts() / ROW_TOTAL

    def weights(self) -> np.ndarray:
        """float32 ``(hands,)``: the seat's own reach of each hand on this line (unnormalised)."""
        return np.frombuffer(zlib.decompress(self.weights_bytes), dtype="<f4")

    @staticmethod
    def pack(counts: np.ndarray, weights: np.ndarray) -> LoggedRange:
        """Compress ``counts`` (uint16 ``(hands, actions)``) and ``weights`` (``(hands,)``).

        Raises:
            ValueError: if a row of ``counts`` sums neither to :data:`ROW_TOTAL` nor to 0,
                or the shapes disagree.
        """
        counts = np.ascontiguousarray(counts, dtype="<u2")
        weights = np.ascontiguousarray(weights, dtype="<f4")
        if counts.ndim != 2 or weights.shape != (counts.shape[0],):
            raise ValueError(f"range strategy {counts.shape} and weights {weights.shape} do not match")
        sums = counts.sum(axis=1, dtype=np.int64)
        if not np.all((sums == ROW_TOTAL) | (sums == 0)):
            raise ValueError(f"every row of a range strategy must sum to {ROW_TOTAL} (or be 0 for a blocked hand)")
        return LoggedRange(
            counts.shape[0], counts.shape[1], zlib.compress(counts.tobytes(), 1), zlib.compress(weights.tobytes(), 1)
        )


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
    range: LoggedRange | None = None
    seconds: float | None = None
    detail: dict | None = None


class DecisionLogWriter:
    """Appends decisions to a log, flushing each one.

    ``policy`` names the baseline the seat plays, if any; ``strategy`` declares
    :data:`CARD_DEPENDENT` for a seat that logs ranges (default: :data:`BASELINE`
    when ``policy`` is given, else None).
    """

    def __init__(
        self, path: str | Path, *, seat: str, match: str, game: GameDef, policy: str | None = None,
        strategy: str | None = None,
    ) -> None:  # fmt: skip
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.match = match
        if strategy is None and policy is not None:
            strategy = BASELINE
        self._file: BinaryIO = open(self.path, "ab")  # noqa: SIM115 - open for the writer's lifetime
        if self._file.tell() == 0:
            self._write(
                {"type": "header", "format": FORMAT, "version": VERSION, "seat": seat, "match": match,
                 "game": format_gamedef(game), "policy": policy, "strategy": strategy}
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
        range: LoggedRange | None = None,
        seconds: float | None = None,
        detail: dict | None = None,
    ) -> None:
        """Log one decision; ``state`` is the MATCHSTATE line the seat answered,
        ``seconds`` how long the seat took to answer it, ``detail`` where its row came from.

        Raises:
            ValueError: if ``hand`` or ``position`` is negative or needs more than 64 bits
                (msgpack stores no larger integer), or ``range`` has not one column per
                entry of ``probs``.
        """
        for what, value in (("hand", hand), ("position", position)):
            if not 0 <= value < 2**64:
                raise ValueError(f"decision log {self.path}: {what} {value} is not between 0 and 2**64 - 1")
        record = {
            "type": "decision",
            "match": self.match,
            "hand": hand,
            "position": position,
            "state": state,
            "probs": [[a, float(p)] for a, p in probs],
            "uniform_raise": list(uniform_raise) if uniform_raise is not None else None,
            "taken": taken,
        }
        if range is not None:
            if range.actions != len(probs):
                raise ValueError(f"a range with {range.actions} action columns for {len(probs)} logged actions")
            record["range"] = {"hands": range.hands, "strategy": range.strategy_bytes, "weights": range.weights_bytes}
        if seconds is not None:
            record["seconds"] = float(seconds)
        if detail:
            record["detail"] = detail
        self._write(record)

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


def _logged_range(record: dict, actions: int) -> LoggedRange | None:
    r = record.get("range")
    if r is None:
        return None
    return LoggedRange(r["hands"], actions, r["strategy"], r["weights"])


def read_decision_log(path: str | Path) -> tuple[dict, Iterator[Decision]]:
    """The header of a decision log (version 1 or 2) and an iterator over its decisions.

    A record cut off by a crash at the end of the file is ignored.

    Raises:
        ValueError: if the file is not a decision log, or of a newer version.
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
    if header.get("version", 1) > VERSION:
        handle.close()
        raise ValueError(f"{path} is a version {header['version']} decision log; this reader knows versions 1..{VERSION}")

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
                    range=_logged_range(record, len(record["probs"])),
                    seconds=record.get("seconds"),
                    detail=record.get("detail"),
                )

    return header, decisions()

