"""Action abstraction: which no-limit bet sizes a betting tree offers.

Sizes are fractions of the pot after calling (1 = a pot-sized raise), per round,
plus optional all-in and minimum raises, with an optional cap on raises per round.
Optionally a round lists separate sizes for raises (once someone has bet or raised in
the round; a preflop raise of the blinds counts as a first bet), and raises putting in
more than a given fraction of the raiser's chips behind become all-in.
The legal range always comes from :meth:`protocol.rules.State.raise_bounds`; a size
above the stack becomes all-in and a size below the minimum raise is dropped.
Limit games need no abstraction: their trees hold every legal action.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from protocol.rules import State


class AbstractionError(ValueError):
    """An action abstraction specification is malformed."""


@dataclass(frozen=True)
class ActionAbstraction:
    """Raise sizes per round for no-limit trees.

    Attributes:
        pot_fractions: per round, the raise sizes as pot fractions; later rounds reuse
            the last entry.
        all_in: offer the all-in raise.
        min_raise: offer the minimum legal raise.
        max_raises: per round, raises allowed by the abstraction (later rounds reuse
            the last entry); empty means the game's own limit.
        raise_fractions: per round, the sizes once the round has a bet or raise (later
            rounds reuse the last entry); empty means ``pot_fractions`` throughout.
        all_in_above: if positive, a raise adding more than this fraction of the
            raiser's chips behind (stack minus chips already in) becomes all-in.
    """

    pot_fractions: tuple[tuple[float, ...], ...] = ((1.0,),)
    all_in: bool = True
    min_raise: bool = False
    max_raises: tuple[int, ...] = ()
    raise_fractions: tuple[tuple[float, ...], ...] = ()
    all_in_above: float = 0.0

    def __post_init__(self) -> None:
        if not self.pot_fractions or any(f <= 0 for fs in self.pot_fractions + self.raise_fractions for f in fs):
            raise AbstractionError("pot fractions must be positive and given for at least one round")
        if any(m < 0 for m in self.max_raises):
            raise AbstractionError("raise caps must not be negative")
        if not 0 <= self.all_in_above <= 1:
            raise AbstractionError(f"the all-in threshold must be a fraction of the stack in [0, 1], got {self.all_in_above}")

    def raise_sizes(self, state: State, scale: float = 1.0) -> list[int]:
        """Raise-to amounts offered in ``state`` (ascending, distinct, all legal).

        ``scale`` multiplies every pot-fraction size (bet-size randomization); the
        results are still whole chips inside :meth:`State.raise_bounds`.
        """
        bounds = state.raise_bounds()
        if bounds is None:
            return []
        r = state.round
        if self.max_raises and state.num_raises_this_round >= self.max_raises[min(r, len(self.max_raises) - 1)]:
            return []
        low, high = bounds
        after_call = state.pot + state.amount_to_call()
        table = self.raise_fractions if self.raise_fractions and state.num_raises_this_round else self.pot_fractions
        p = state.current_player
        assert p is not None
        behind = state.game.stack[p] - state.spent[p]
        sizes = set()
        for fraction in table[min(r, len(table) - 1)]:
            target = state.max_spent + round(scale * fraction * after_call)
            if self.all_in_above and target - state.spent[p] > self.all_in_above * behind:
                target = high
            if target >= low:
                sizes.add(min(target, high))
        if self.all_in:
            sizes.add(high)
        if self.min_raise:
            sizes.add(low)
        return sorted(sizes)

    def spec(self) -> str:
        """The text :func:`parse_abstraction` reads back into this abstraction."""
        parts = [_fractions_spec(self.pot_fractions)]
        if self.raise_fractions:
            parts.append("raise=" + _fractions_spec(self.raise_fractions))
        if self.all_in:
            parts.append("allin")
        if self.min_raise:
            parts.append("minraise")
        if self.max_raises:
            parts.append("cap=" + ",".join(map(str, self.max_raises)))
        if self.all_in_above:
            parts.append(f"allinabove={self.all_in_above:g}")
        return ";".join(parts)


def _fractions_spec(fractions: tuple[tuple[float, ...], ...]) -> str:
    return "/".join(",".join(f"{f:g}" for f in fs) for fs in fractions)


def _parse_fractions(text: str) -> tuple[tuple[float, ...], ...]:
    try:
        return tuple(tuple(float(x) for x in part.split(",")) for part in text.split("/"))
    except ValueError:
        raise AbstractionError(f"pot fractions {text!r} must be numbers like '0.5,1/1'") from None


def parse_abstraction(text: str) -> ActionAbstraction:
    """Read an abstraction such as ``"0.5,1/1;allin;cap=3,2"``.

    The first field lists pot fractions, rounds separated by ``/``; then any of
    ``allin``, ``minraise``, ``cap=N[,N...]`` (raises per round), ``raise=F,F/F``
    (sizes once the round has a bet, same layout as the first field) and
    ``allinabove=X`` (raises adding more than X of the chips behind become all-in),
    e.g. ``"0.33,0.67,1,1.5;raise=0.5,1;allin;allinabove=0.67"``.

    Raises:
        AbstractionError: naming the part that cannot be read.
    """
    fields = [f.strip() for f in text.split(";") if f.strip()]
    if not fields:
        raise AbstractionError("the abstraction is empty; expected e.g. '0.5,1/1;allin'")
    fractions = _parse_fractions(fields[0])
    options: dict = {"all_in": False, "min_raise": False, "max_raises": ()}
    for field in fields[1:]:
        if field == "allin":
            options["all_in"] = True
        elif field == "minraise":
            options["min_raise"] = True
        elif field.startswith("cap="):
            try:
                options["max_raises"] = tuple(int(x) for x in field[4:].split(","))
            except ValueError:
                raise AbstractionError(f"raise cap {field!r} must be whole numbers like 'cap=3,2'") from None
        elif field.startswith("raise="):
            options["raise_fractions"] = _parse_fractions(field[6:])
        elif field.startswith("allinabove="):
            try:
                options["all_in_above"] = float(field[11:])
            except ValueError:
                raise AbstractionError(f"all-in threshold {field!r} must be a number like 'allinabove=0.67'") from None
        else:
            raise AbstractionError(
                f"unknown abstraction option {field!r} (expected allin, minraise, cap=N,..., raise=F,... or allinabove=X)"
            )
    return ActionAbstraction(pot_fractions=fractions, **options)


def draw_size_scale(rng: np.random.Generator, spread: float = 0.08) -> float:
    """One bet-size scale factor for a hand: ``1 ± u``, u uniform in [0, spread], random sign.

    Libratus (note 49) moves every bet size of a hand's subgames up or down by a
    percentage uniform in [0, 8%]; we read that as one magnitude and one sign per hand,
    applied to every size of that hand (:meth:`ActionAbstraction.raise_sizes`'s ``scale``).

    Raises:
        AbstractionError: if ``spread`` is not in [0, 1).
    """
    if not 0 <= spread < 1:
        raise AbstractionError(f"the size spread must be a fraction in [0, 1), got {spread}")
    magnitude = rng.uniform(0.0, spread)
    return float(1.0 + magnitude if rng.random() < 0.5 else 1.0 - magnitude)
