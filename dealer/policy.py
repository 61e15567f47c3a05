"""What a bot is: a :data:`Policy`, a function from the state it must act in to the exact
:class:`Distribution` it samples from.

Kept apart from :mod:`dealer.bots` (the registry of baseline bots, which loads the
equity bot on first use) so that a bot module such as :mod:`dealer.equitybot` can
build distributions without importing the registry that imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.rules import Action, State, raise_to

if TYPE_CHECKING:  # numpy loads on first use: `dealer --help` must stay fast
    import numpy as np


@dataclass(frozen=True, slots=True)
class Distribution:
    """A distribution over actions: discrete ``probs`` plus an optional uniform raise range.

    ``uniform_raise = (mass, low, high)`` means each raise-to amount in
    ``low..high`` has probability ``mass / (high - low + 1)``.
    """

    probs: tuple[tuple[Action, float], ...]
    uniform_raise: tuple[float, int, int] | None = None

    def sample(self, rng: np.random.Generator) -> Action:
        u = rng.random()
        for action, p in self.probs:
            if u < p:
                return action
            u -= p
        if self.uniform_raise is not None:
            _, low, high = self.uniform_raise
            return raise_to(int(rng.integers(low, high + 1)))
        # Rounding left u just above the total: the last listed action.
        return self.probs[-1][0]

    def wire_probs(self) -> list[tuple[str, float]]:
        """``probs`` with actions in wire form, for decision logs."""
        return [(str(a), p) for a, p in self.probs]


Policy = Callable[[State], Distribution]
