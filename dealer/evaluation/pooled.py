"""Per-hand values of a ``dealer compare``, saved and pooled (``--save-values``, ``--pool``).

A comparison that needs more hands than one sitting can play is run in chunks (a seed
per chunk); each chunk's paired per-hand values are saved, and later chunks pool them
with their own.  The file holds exactly the numbers the comparison's statistics are
computed from (JSON floats round-trip exactly), so a pooled comparison equals the one
the logs of every chunk would give together.  Two chunks that played the same deals
(the same seed and seat order) are refused: they would count those hands twice.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dealer.evaluation.comparison import CompareError, PairedLogs

VALUES_KIND = "dealer-compare-values"
VALUES_VERSION = 1
#: What must agree between chunks for their hands to be pooled.
_SAME = ("candidate", "baseline", "game", "big_blind", "value_function", "guard")


@dataclass
class Chunk:
    """One comparison's paired values: per estimator ``float64[hands, 2]`` (candidate, baseline)."""

    candidate: str
    baseline: str
    opponents: list[str]
    game: str
    big_blind: int
    value_function: str
    guard: bool
    pairs: list[PairedLogs]
    hands_alike: int
    values: dict[str, np.ndarray]
    decision_logs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source: str = "the logs given"

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": VALUES_KIND, "version": VALUES_VERSION, "candidate": self.candidate, "baseline": self.baseline,
            "opponents": self.opponents, "game": self.game, "big_blind": self.big_blind,
            "value_function": self.value_function, "guard": self.guard, "pairs": [p.as_dict() for p in self.pairs],
            "hands_alike": self.hands_alike, "decision_logs": self.decision_logs, "notes": self.notes,
            "values": {k: v.tolist() for k, v in self.values.items()},
        }  # fmt: skip


def save_values(path: Path, chunk: Chunk) -> None:
    """Write ``chunk`` to ``path`` (gzip-compressed when the name ends in ``.gz``).

    Raises:
        CompareError: (one sentence) if the file cannot be written.
    """
    text = json.dumps(chunk.as_dict(), separators=(",", ":")) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".gz":
            path.write_bytes(gzip.compress(text.encode(), mtime=0))
        else:
            path.write_text(text)
    except OSError as exc:
        raise CompareError(f"cannot write the per-hand values to {path} ({exc.strerror or exc})") from None


def load_values(path: Path) -> Chunk:
    """Read a file :func:`save_values` wrote.

    Raises:
        CompareError: (one sentence naming the file) if it is missing, unreadable or not such a file.
    """
    try:
        raw = path.read_bytes()
        data = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    except FileNotFoundError:
        raise CompareError(f"{path}: no such values file") from None
    except (OSError, EOFError, ValueError) as exc:
        raise CompareError(f"{path} is not a values file written by dealer compare --save-values ({exc})") from None
    if not isinstance(data, dict) or data.get("kind") != VALUES_KIND:
        raise CompareError(f"{path} is not a values file written by dealer compare --save-values")
    if data.get("version") != VALUES_VERSION:
        raise CompareError(f"{path} is a values file of version {data.get('version')}; this dealer reads {VALUES_VERSION}")
    try:
        values = {k: np.asarray(v, np.float64).reshape(-1, 2) for k, v in data["values"].items()}
        pairs = [PairedLogs(p["log"], p["baseline_log"], int(p["hands"]), int(p["seed"]), tuple(p["seats"]))
                 for p in data["pairs"]]  # fmt: skip
        return Chunk(
            candidate=str(data["candidate"]), baseline=str(data["baseline"]), opponents=list(data["opponents"]),
            game=str(data["game"]), big_blind=int(data["big_blind"]), value_function=str(data["value_function"]),
            guard=bool(data["guard"]), pairs=pairs, hands_alike=int(data["hands_alike"]), values=values,
            decision_logs=[str(d) for d in data.get("decision_logs", [])], notes=[str(n) for n in data.get("notes", [])],
            source=str(path),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError) as exc:
        raise CompareError(f"{path}: a values file missing or garbling its {exc} field") from None


def pool(chunks: list[Chunk]) -> Chunk:
    """One chunk of all ``chunks``' hands.

    Raises:
        CompareError: if they compare different seats, games or estimators, or two of
            them played the same deals.
    """
    first = chunks[0]
    seen: dict[tuple[int, tuple[str, ...]], str] = {}
    for c in chunks:
        for name in _SAME:
            if getattr(c, name) != getattr(first, name):
                raise CompareError(f"{c.source} has {name} {getattr(c, name)!r} where {first.source} has "
                                f"{getattr(first, name)!r}; only comparisons of the same seats, game and "
                                "estimators pool")  # fmt: skip
        if set(c.values) != set(first.values):
            raise CompareError(f"{c.source} has the estimators {sorted(c.values)} where {first.source} has "
                            f"{sorted(first.values)}; play every chunk --duplicate or none")  # fmt: skip
        for p in c.pairs:
            key = (p.seed, p.seats)
            if key in seen:
                raise CompareError(f"{c.source} and {seen[key]} both hold the deals of seed {p.seed} with seats "
                                f"{','.join(p.seats)}; pooling them would count those hands twice")  # fmt: skip
            seen[key] = c.source
    return Chunk(
        candidate=first.candidate, baseline=first.baseline,
        opponents=sorted({o for c in chunks for o in c.opponents}), game=first.game, big_blind=first.big_blind,
        value_function=first.value_function, guard=first.guard, pairs=[p for c in chunks for p in c.pairs],
        hands_alike=sum(c.hands_alike for c in chunks),
        values={k: np.concatenate([c.values[k] for c in chunks]) for k in first.values},
        decision_logs=[d for c in chunks for d in c.decision_logs],
        notes=list(dict.fromkeys(n for c in chunks for n in c.notes)),
        source=" + ".join(c.source for c in chunks),
    )  # fmt: skip


def with_stored_baseline(own: Chunk, stored: Chunk, source: str) -> Chunk:
    """``own``'s candidate values beside ``stored``'s baseline values for the same deals.

    ``own`` is a comparison of the candidate's logs with themselves (``dealer compare
    LOGS --baseline LOGS --seat NAME``); ``stored`` an earlier comparison whose baseline
    played the same deals against the same opponents (``source`` names it in the notes).
    The baseline's per-hand values depend only on its own logs, so a saved chunk stands
    for playing it again.

    Raises:
        CompareError: (one sentence) if the two did not play the same deals the same way.
    """
    for name in ("game", "big_blind", "value_function", "guard", "opponents"):
        if getattr(own, name) != getattr(stored, name):
            raise CompareError(f"{source} has {name} {getattr(stored, name)!r} where this chunk has {getattr(own, name)!r}")
    if len(own.pairs) != len(stored.pairs):
        raise CompareError(f"{source} pairs {len(stored.pairs)} logs where this chunk has {len(own.pairs)}")
    for mine, theirs in zip(own.pairs, stored.pairs, strict=True):
        # A pair's seats are its first log's (the candidate's) order.
        seats = tuple(own.candidate if s == stored.candidate else s for s in theirs.seats)
        if (mine.seed, mine.seats, mine.hands) != (theirs.seed, seats, theirs.hands):
            raise CompareError(
                f"{source} holds seed {theirs.seed}, seats {','.join(seats)}, {theirs.hands} hands where "
                f"this chunk has seed {mine.seed}, seats {','.join(mine.seats)}, {mine.hands} hands"
            )
    if set(own.values) != set(stored.values):
        raise CompareError(f"{source} has the estimators {sorted(stored.values)} where this chunk has {sorted(own.values)}")
    values = {k: np.column_stack([v[:, 0], stored.values[k][:, 1]]) for k, v in own.values.items()}
    return Chunk(
        candidate=own.candidate, baseline=stored.baseline, opponents=own.opponents, game=own.game,
        big_blind=own.big_blind, value_function=own.value_function, guard=own.guard,
        pairs=[PairedLogs(m.log, t.baseline_log, m.hands, m.seed, m.seats) for m, t in zip(own.pairs, stored.pairs)],
        hands_alike=int(np.count_nonzero(values["raw"][:, 0] == values["raw"][:, 1])), values=values,
        decision_logs=own.decision_logs[: len(own.decision_logs) // 2],
        notes=[*own.notes, f"the baseline's values are {source}'s"],
    )  # fmt: skip
