"""Action abstraction: which no-limit bet sizes a betting tree offers.

Sizes are fractions of the pot after calling (1 = a pot-sized raise), per round,
plus optional all-in and minimum raises, with an optional cap on raises per round.
The legal range always comes from :meth:`protocol.rules.State.raise_bounds`; a size
above the stack becomes all-in and a size below the minimum raise is dropped.
Limit games need no abstraction: their trees hold every legal action.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    """

    pot_fractions: tuple[tuple[float, ...], ...] = ((1.0,),)
    all_in: bool = True
    min_raise: bool = False
    max_raises: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.pot_fractions or any(f <= 0 for fs in self.pot_fractions for f in fs):
            raise AbstractionError("pot fractions must be positive and given for at least one round")
        if any(m < 0 for m in self.max_raises):
            raise AbstractionError("raise caps must not be negative")

    def raise_sizes(self, state: State) -> list[int]:
        """Raise-to amounts offered in ``state`` (ascending, distinct, all legal)."""
        bounds = state.raise_bounds()
        if bounds is None:
            return []
        r = state.round
        if self.max_raises and state.num_raises_this_round >= self.max_raises[min(r, len(self.max_raises) - 1)]:
            return []
        low, high = bounds
        after_call = state.pot + state.amount_to_call()
        sizes = set()
        for fraction in self.pot_fractions[min(r, len(self.pot_fractions) - 1)]:
            target = state.max_spent + round(fraction * after_call)
            if target >= low:
                sizes.add(min(target, high))
        if self.all_in:
            sizes.add(high)
        if self.min_raise:
            sizes.add(low)
        return sorted(sizes)

    def spec(self) -> str:
        """The text :func:`parse_abstraction` reads back into this abstraction."""
        parts = ["/".join(",".join(f"{f:g}" for f in fs) for fs in self.pot_fractions)]
        if self.all_in:
            parts.append("allin")
        if self.min_raise:
            parts.append("minraise")
        if self.max_raises:
            parts.append("cap=" + ",".join(map(str, self.max_raises)))
        return ";".join(parts)


def parse_abstraction(text: str) -> ActionAbstraction:
    """Read an abstraction such as ``"0.5,1/1;allin;cap=3,2"``.

    The first field lists pot fractions, rounds separated by ``/``; then any of
    ``allin``, ``minraise`` and ``cap=N[,N...]`` (raises per round).

    Raises:
        AbstractionError: naming the part that cannot be read.
    """
    fields = [f.strip() for f in text.split(";") if f.strip()]
    if not fields:
        raise AbstractionError("the abstraction is empty; expected e.g. '0.5,1/1;allin'")
    try:
        fractions = tuple(tuple(float(x) for x in part.split(",")) for part in fields[0].split("/"))
    except ValueError:
        raise AbstractionError(f"pot fractions {fields[0]!r} must be numbers like '0.5,1/1'") from None
    options = {"all_in": False, "min_raise": False, "max_raises": ()}
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
        else:
            raise AbstractionError(f"unknown abstraction option {field!r} (expected allin, minraise or cap=N,...)")
    return ActionAbstraction(pot_fractions=fractions, **options)  # type: ignore[arg-type]
