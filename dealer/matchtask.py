"""One match of a tournament as data: what :mod:`dealer.tournament` plans and what
:mod:`dealer.backends` plays.

It lives in a module of its own (standard library only) so that both may import it
without importing each other.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class MatchTask:
    """One match of the tournament: everything a worker needs to play it."""

    lineup: str
    match: str
    order: tuple[tuple[str, str], ...]  # (name, seat) in seat order
    game: str  # a bundled game's name, or the .game file's name inside the match folder
    hands: int
    seed: int
    group: int  # index of the seed (match set) within the lineup
    t_response: int
    t_per_hand: int
    start_timeout: int

    def folder(self, out: Path) -> Path:
        """The match's folder inside the tournament folder ``out``."""
        return out / self.lineup / self.match

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> MatchTask:
        # JSON has no tuples: the seat order comes back as lists.
        return MatchTask(**{**data, "order": tuple(tuple(x) for x in data["order"])})
