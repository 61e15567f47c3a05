"""Where local best response wins: its winnings by its last bet and the agent's answer.

LBR's edge comes from a few kinds of spot (docs/results/2026-11-27-forensics.md: the
agent folding to turn pot bets, river bets and all-ins).  :func:`line_table` groups the
hands of an ``agent lbr`` run by the street and size of LBR's last bet or raise and by
how the hand ended, each group's share of LBR's mbb/hand over the whole run (showdowns
by expectation, as the run's headline), so a bot author sees which answers to fix.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from protocol.gamedef import GameDef
from protocol.rules import ActionType, initial_state
from protocol.wire import WireFormatError, parse_state_line

STREETS = ("preflop", "flop", "turn", "river")
#: A bet within this fraction of a pot-sized raise counts as "pot".
POT_TOLERANCE = 0.1
LBR, AGENT = "lbr", "agent"


@dataclass(frozen=True)
class Line:
    """A group of hands: LBR's last bet or raise (``street`` and ``size``, "-" if it never
    bet) and how the hand ended (``end``)."""

    street: str
    size: str
    end: str


@dataclass(frozen=True)
class LineRow:
    """One group's hands and its share of LBR's mbb/hand over the whole run."""

    line: Line
    hands: int
    mbb: float


def classify(text: str, game: GameDef) -> Line:
    """The group of one hand, from its ``STATE`` line (seats named ``lbr`` and ``agent``).

    Raises:
        WireFormatError: if the line is not a finished hand of ``game`` with those seats.
    """
    logged = parse_state_line(text, game)
    if set(logged.names) != {LBR, AGENT}:
        raise WireFormatError(f"expected seats {LBR!r} and {AGENT!r}, got {'|'.join(logged.names)}")
    final = logged.state
    lbr = logged.names.index(LBR)
    state = initial_state(game, final.hand_number)
    last: tuple[int, str] | None = None
    folder = None
    for round_actions in final.actions:
        for action in round_actions:
            actor = state.current_player
            if action.kind == ActionType.RAISE and actor == lbr:
                last = (state.round, _size(state, action.size))
            if action.kind == ActionType.FOLD:
                folder = actor
            state = state.apply(action)
    if folder is None:
        end = "showdown"
    else:
        end = "agent folds" if folder != lbr else "LBR folds"
    if last is None:
        return Line("-", "-", end)
    return Line(STREETS[last[0]] if last[0] < len(STREETS) else f"round {last[0] + 1}", last[1], end)


def _size(state, to: int) -> str:
    """A raise to ``to`` chips as a size class: all-in, pot, or the fraction of a pot-sized raise."""
    bounds = state.raise_bounds()
    if bounds is not None and to >= bounds[1]:
        return "all-in"
    call = max(state.spent) - state.spent[state.current_player]
    pot_raise = max(state.spent) + (state.pot + call)
    added = to - max(state.spent)
    pot_added = pot_raise - max(state.spent)
    fraction = added / pot_added if pot_added > 0 else 0.0
    return "pot" if abs(fraction - 1) <= POT_TOLERANCE else f"{fraction:.2f} pot"


def line_table(lines: Iterable[tuple[str, float]], game: GameDef) -> tuple[list[LineRow], int]:
    """Rows by group, largest share of LBR's winnings first, and the hands that could not
    be read (lines written before runs kept them, or malformed).  ``lines``: each hand's
    ``STATE`` line and LBR's chips (showdown expectation)."""
    totals: dict[Line, list[float]] = defaultdict(lambda: [0, 0.0])
    unread = 0
    count = 0
    for text, chips in lines:
        count += 1
        try:
            line = classify(text, game)
        except (WireFormatError, ValueError):
            unread += 1
            continue
        totals[line][0] += 1
        totals[line][1] += chips
    scale = 1000 / game.big_blind / count if count else 0.0
    rows = [LineRow(line, int(n), chips * scale) for line, (n, chips) in totals.items()]
    return sorted(rows, key=lambda r: -r.mbb), unread


def format_lines(rows: list[LineRow], unread: int, most: int = 12) -> str:
    """The table as text: the ``most`` groups LBR wins most in, then the ones it loses most in."""
    if not rows:
        return "LBR by line: no hand holds its dealer-log line"
    shown = rows if len(rows) <= most else rows[: most - most // 3] + rows[-(most // 3) :]
    out = ["LBR's winnings by its last bet and the hand's end (share of its mbb/hand, showdowns by expectation):",
           f"  {'LBR last bet':22s} {'end':12s} {'hands':>6s} {'mbb/hand':>9s}"]  # fmt: skip
    for r in shown:
        bet = "none" if r.line.street == "-" else f"{r.line.street} {r.line.size}"
        out.append(f"  {bet:22s} {r.line.end:12s} {r.hands:6,d} {r.mbb:+9,.0f}")
    if len(shown) < len(rows):
        out.append(f"  ({len(rows) - len(shown)} smaller groups left out)")
    if unread:
        out.append(f"  ({unread} hands without a readable line)")
    return "\n".join(out)
