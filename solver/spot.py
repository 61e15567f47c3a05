"""A postflop spot in the terms the common range solvers use, built with our machinery.

A *spot* is what a user of a standalone range solver types in: the board, the pot and
the effective stack, both players' ranges, bet and raise sizes in % of the pot per
street and per player (OOP, IP), an all-in threshold, an accuracy in % of the pot,
threads, a time limit and an iteration cap.  :func:`load_spot` reads one from a TOML
or JSON file (:func:`spot_from_mapping` from a dict); :meth:`Spot.root` and
:meth:`Spot.abstraction` give the public state and the action abstraction that build
its betting tree through :func:`solver.subgame.range_solver.build_subgame`, and
:meth:`Spot.hand_ranges` the ranges over that subgame's hands.  ``solver spot``
(:mod:`solver.spot_command`) solves one; ``tests/bench/bench_subgame.py --spot`` times one.

How each term maps (also in ``docs/solver.md``):

- ``board``: the cards on the root state; 3, 4 or 5 cards root the spot on the flop,
  turn or river.
- ``oop_range``, ``ip_range``: each player's range in the usual notation
  (:mod:`solver.range_notation`, e.g. ``"AA,KK,AKs,QJo:0.5"``); default ``random``,
  every hand.  Combos holding a board card are removed.
- ``pot``, ``effective_stack``: a two-player hold'em game with stacks of
  ``effective_stack + pot / 2`` and blinds of 1 chip each; preflop one player raises to
  ``pot / 2`` and the other calls, later streets before the root are checked through.
  So the pot is ``pot`` chips, each player has ``effective_stack`` behind, and the
  minimum bet is 1 chip (a blind as large as half the pot would drop every bet below it).
  The pot must be an even number of chips (each player put in half).
- ``bet`` sizes (a street with no bet yet) and ``raise`` sizes (once it has one): % of
  the pot after calling, added on top of the call, rounded to whole chips
  (:class:`solver.bets.ActionAbstraction`'s sizing); ``allin`` offers the all-in.
- ``allin_threshold``: a bet or raise that adds more than this fraction of the bettor's
  chips behind becomes all-in (``allinabove=``).
- ``raise_cap``: at most this many bets and raises per street, the first bet counted
  (ACPC's convention); absent: no cap.
- ``accuracy``: stop once the exploitability (the mean of the two players' best-response
  gains) is at most this % of the root pot; ``check_every``: measured every this many
  iterations (default: when :class:`solver.subgame.range_solver.CheckSchedule` predicts);
  ``threads``, ``max_iterations``, ``time_limit`` (seconds): as in
  :class:`solver.subgame.range_solver.SubgameSolver` and its ``solve``.

OOP is the player who acts first on the spot's streets.  Not expressed: donk-bet sizes
apart from the bet sizes, geometric and ``x``-of-the-last-bet sizes, add-all-in and
force-all-in thresholds measured in pot or SPR, merging of close sizes, rake, and
fractional chips.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from protocol.cards import cards_str, parse_cards
from protocol.errors import WireFormatError
from protocol.fasteval import NUM_HOLE_PAIRS
from protocol.gamedef import GameDef, parse_gamedef
from protocol.rules import CALL, State, initial_state, raise_to, with_cards
from solver.bets import ActionAbstraction
from solver.range_notation import RangeError, parse_range

if TYPE_CHECKING:
    from solver.subgame.range_solver import Subgame

STREETS = ("flop", "turn", "river")
SEATS = ("oop", "ip")
#: Keys a spot may hold besides the streets' tables.
SCALARS = (
    "board",
    "pot",
    "effective_stack",
    "oop_range",
    "ip_range",
    "allin_threshold",
    "raise_cap",
    "accuracy",
    "check_every",
    "threads",
    "max_iterations",
    "time_limit",
)


class SpotError(ValueError):
    """A spot description cannot be read or built."""


@dataclass(frozen=True)
class Sizes:
    """One player's sizes on one street: bets and raises in % of the pot, and all-in."""

    bet: tuple[float, ...] = ()
    raise_: tuple[float, ...] = ()
    allin: bool = False

    def text(self) -> str:
        """E.g. ``bet 50,100% raise 100% allin``."""
        parts = [f"bet {_pcts(self.bet)}" if self.bet else "no bet", f"raise {_pcts(self.raise_)}" if self.raise_ else "no raise"]
        return " ".join(parts + (["allin"] if self.allin else []))


@dataclass(frozen=True)
class Spot:
    """A spot (see the module docstring); ``sizes[street][seat]`` for the streets from the root on."""

    board: tuple[int, ...]
    pot: int
    effective_stack: int
    sizes: Mapping[str, Mapping[str, Sizes]]
    allin_threshold: float = 0.0
    raise_cap: int | None = None
    accuracy: float = 0.5
    check_every: int | None = None
    threads: int = 1
    max_iterations: int = 1000
    oop_range: str = "random"
    ip_range: str = "random"
    time_limit: float | None = None

    @property
    def street(self) -> str:
        """The root's street."""
        return STREETS[len(self.board) - 3]

    def game(self) -> GameDef:
        """Heads-up hold'em with 1-chip blinds and stacks of ``effective_stack + pot / 2``."""
        stack = self.effective_stack + self.pot // 2
        return parse_gamedef(
            f"GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = {stack} {stack}\nblind = 1 1\n"
            "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n",
            source="spot",
        )

    def root(self) -> State:
        """The public state of the spot: pot ``pot``, ``effective_stack`` behind, the board dealt."""
        game = self.game()
        state = initial_state(game)
        if self.pot > 2:
            state = state.apply(raise_to(self.pot // 2))
        state = state.apply(CALL)
        round_ = len(self.board) - 2
        while state.round < round_:
            state = state.apply(CALL)
        return with_cards(state, ((), ()), self.board)

    def abstraction(self) -> SpotAbstraction:
        """The action abstraction giving this spot's sizes per street and player."""
        oop = self.game().first_player[1]
        table = []
        for r in range(4):
            by_seat = self.sizes.get(STREETS[r - 1], {}) if r >= 1 else {}
            seats: list[ActionAbstraction] = [ActionAbstraction(), ActionAbstraction()]
            for name, player in (("oop", oop), ("ip", 1 - oop)):
                s = by_seat.get(name, Sizes())
                seats[player] = ActionAbstraction(
                    pot_fractions=(tuple(x / 100 for x in s.bet),),
                    all_in=s.allin,
                    max_raises=() if self.raise_cap is None else (self.raise_cap,),
                    raise_fractions=(tuple(x / 100 for x in s.raise_),),
                    all_in_above=self.allin_threshold,
                )
            table.append(tuple(seats))
        return SpotAbstraction(per_round=tuple(table))

    @property
    def oop(self) -> int:
        """The player (0 or 1) out of position: the first to act on the spot's streets."""
        return self.game().first_player[1]

    def range_weights(self) -> np.ndarray:
        """(2, 1,326) each player's range in HOLE_PAIRS order (row = player), board combos removed.

        Raises:
            SpotError: naming the player and the bad range token.
        """
        out = np.zeros((2, NUM_HOLE_PAIRS))
        for seat, player in (("oop", self.oop), ("ip", 1 - self.oop)):
            text = self.oop_range if seat == "oop" else self.ip_range
            try:
                out[player] = parse_range(text, self.board)
            except RangeError as error:
                raise SpotError(f"{seat}_range: {error}") from None
        return out

    def hand_ranges(self, subgame: Subgame) -> np.ndarray:
        """(2, n_hands) :meth:`range_weights` over ``subgame``'s hands (the spot's subgame)."""
        return np.array([subgame.from_hole_pairs(w) for w in self.range_weights()])

    def to_mapping(self) -> dict:
        """The spot as plain data :func:`spot_from_mapping` reads back to an equal spot."""
        data: dict = {
            "board": cards_str(self.board),
            "pot": self.pot,
            "effective_stack": self.effective_stack,
            "oop_range": self.oop_range,
            "ip_range": self.ip_range,
            "allin_threshold": self.allin_threshold,
            "accuracy": self.accuracy,
            "threads": self.threads,
            "max_iterations": self.max_iterations,
        }
        optional = {"raise_cap": self.raise_cap, "check_every": self.check_every, "time_limit": self.time_limit}
        data.update({k: v for k, v in optional.items() if v is not None})
        for street, seats in self.sizes.items():
            data[street] = {seat: {"bet": list(s.bet), "raise": list(s.raise_), "allin": s.allin} for seat, s in seats.items()}
        return data

    def _checks(self) -> str:
        return "checked as the schedule predicts" if self.check_every is None else f"checked every {self.check_every}"

    def describe(self) -> str:
        """The spot in one paragraph, in the terms it was given in ("no all-in rule": no threshold)."""
        lines = [
            f"board {cards_str(self.board)} ({self.street}), pot {self.pot}, effective stack {self.effective_stack}, "
            + (f"all-in threshold {self.allin_threshold:g} of the chips behind" if self.allin_threshold else "no all-in rule")
            + f", raise cap {self.raise_cap or 'none'}, "
            f"accuracy {self.accuracy:g}% of the pot ({self._checks()}), {self.threads} thread(s), "
            f"at most {self.max_iterations} iterations" + ("" if self.time_limit is None else f" or {self.time_limit:g} s"),
            f"  OOP range: {self.oop_range}",
            f"  IP range: {self.ip_range}",
        ]
        for street in STREETS[len(self.board) - 3 :]:
            for seat in SEATS:
                lines.append(f"  {street} {seat.upper()}: {self.sizes.get(street, {}).get(seat, Sizes()).text()}")
        return "\n".join(lines)


@dataclass(frozen=True)
class SpotAbstraction(ActionAbstraction):
    """Sizes per round and acting player: ``per_round[r][p]`` gives player p's raises in round r.

    ``offered`` and ``refused`` record, as the tree is built, which (round, player,
    kind, pot fraction) produced a size of its own and which never could (below the
    minimum raise, or turned into all-in), so a report can say what was solved.
    """

    per_round: tuple[tuple[ActionAbstraction, ...], ...] = ()
    offered: set = field(default_factory=set, compare=False, hash=False, repr=False)
    refused: set = field(default_factory=set, compare=False, hash=False, repr=False)

    def raise_sizes(self, state: State, scale: float = 1.0) -> list[int]:
        p = state.current_player
        assert p is not None
        inner = self.per_round[state.round][p]
        sizes = inner.raise_sizes(state, scale)
        bounds = state.raise_bounds()
        if bounds is not None:
            table = inner.raise_fractions if state.num_raises_this_round else inner.pot_fractions
            kind = "raise" if state.num_raises_this_round else "bet"
            for fraction in table[0]:
                alone = ActionAbstraction(pot_fractions=((fraction,),), all_in=False, all_in_above=inner.all_in_above)
                made = alone.raise_sizes(state, scale)
                key = (state.round, p, kind, fraction)
                (self.offered if made and made[0] < bounds[1] else self.refused).add(key)
        return sizes

    def spec(self) -> str:
        return " | ".join(
            f"round {r + 1} seat {p + 1}: {a.spec()}" for r, seats in enumerate(self.per_round) for p, a in enumerate(seats)
        )

    def never_offered(self) -> list[tuple[int, int, str, float]]:
        """(round, player, kind, fraction) of the sizes that never gave a bet of their own in the tree built."""
        return sorted(self.refused - self.offered)


def spot_from_mapping(data: Mapping, overrides: Mapping | None = None) -> Spot:
    """A :class:`Spot` from a parsed TOML/JSON mapping, with ``overrides`` (non-None
    values; e.g. command-line flags) replacing its keys.

    Raises:
        SpotError: naming the bad or missing key.
    """
    data = dict(data)
    for key, value in (overrides or {}).items():
        if value is not None:
            data[key] = value
    unknown = set(data) - set(SCALARS) - set(STREETS)
    if unknown:
        raise SpotError(f"unknown spot key(s) {sorted(unknown)}; expected {list(SCALARS)} or the streets {list(STREETS)}")
    for key in ("board", "pot", "effective_stack"):
        if key not in data:
            raise SpotError(f"the spot has no {key!r}")
    try:
        board = parse_cards(str(data["board"]).replace(" ", "").replace(",", ""))
    except WireFormatError as error:
        raise SpotError(f"board {data['board']!r}: {error}") from None
    if len(board) not in (3, 4, 5) or len(set(board)) != len(board):
        raise SpotError(f"the board must be 3, 4 or 5 distinct cards, got {data['board']!r}")
    pot, stack = _number(data, "pot", int), _number(data, "effective_stack", int)
    if pot < 2 or pot % 2 or (pot > 2 and pot < 4):
        raise SpotError(f"the pot must be an even number of chips, 2 or at least 4 (each player put in half), got {pot}")
    if stack < 1:
        raise SpotError(f"the effective stack must be at least 1 chip, got {stack}")
    first = len(board) - 3
    sizes: dict[str, dict[str, Sizes]] = {}
    for street in STREETS:
        if street not in data:
            continue
        if STREETS.index(street) < first:
            raise SpotError(f"the spot starts on the {STREETS[first]}, so it has no {street} sizes")
        table = data[street]
        if not isinstance(table, Mapping) or set(table) - set(SEATS):
            raise SpotError(f"{street} must hold tables 'oop' and/or 'ip', got {table!r}")
        sizes[street] = {seat: _sizes(table[seat], f"{street}.{seat}") for seat in table}
    spot = Spot(
        board=board,
        pot=pot,
        effective_stack=stack,
        sizes=sizes,
        allin_threshold=_number(data, "allin_threshold", float, 0.0),
        raise_cap=_number(data, "raise_cap", int, None),
        accuracy=_number(data, "accuracy", float, 0.5),
        check_every=_number(data, "check_every", int, None),
        threads=_number(data, "threads", int, 1),
        max_iterations=_number(data, "max_iterations", int, 1000),
        oop_range=_text(data, "oop_range"),
        ip_range=_text(data, "ip_range"),
        time_limit=_number(data, "time_limit", float, None),
    )
    if not 0 <= spot.allin_threshold <= 1:
        raise SpotError(f"allin_threshold is a fraction of the chips behind in [0, 1], got {spot.allin_threshold}")
    bad_checks = spot.check_every is not None and spot.check_every < 1
    if spot.accuracy < 0 or bad_checks or spot.threads < 1 or spot.max_iterations < 1:
        raise SpotError("accuracy must be >= 0, and check_every, threads and max_iterations >= 1")
    if spot.raise_cap is not None and spot.raise_cap < 0:
        raise SpotError(f"raise_cap must not be negative, got {spot.raise_cap}")
    if spot.time_limit is not None and not spot.time_limit > 0:
        raise SpotError(f"time_limit is in seconds and must be positive, got {spot.time_limit}")
    spot.range_weights()  # a bad range token is reported now, not after the tree is built
    return spot


def read_spot_file(path: str | Path) -> dict:
    """The raw mapping of a ``.toml`` or ``.json`` spot file (checked by :func:`spot_from_mapping`).

    Raises:
        SpotError: if the file cannot be read or parsed.
    """
    path = Path(path)
    try:
        text = path.read_text()
        return json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, ValueError) as error:
        raise SpotError(f"cannot read the spot {path}: {error}") from None


def load_spot(path: str | Path, overrides: Mapping | None = None) -> Spot:
    """Read a spot from a ``.toml`` or ``.json`` file (see :func:`spot_from_mapping`).

    Raises:
        SpotError: if the file cannot be read or parsed, or the spot is malformed.
    """
    try:
        return spot_from_mapping(read_spot_file(path), overrides)
    except SpotError as error:
        raise SpotError(f"{path}: {error}") from None


def size_flag(text: str) -> tuple[str, str, str, tuple[float, ...]]:
    """Read a command-line size in TexasSolver's order, ``oop,river,bet,33,67`` (or
    ``ip,turn,allin``; the seat ``both`` sets OOP's and IP's): (seat, street, kind,
    sizes in % of the pot).

    Raises:
        SpotError: naming the bad part.
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    seats = (*SEATS, "both")
    if len(parts) < 3 or parts[0] not in seats or parts[1] not in STREETS or parts[2] not in ("bet", "raise", "allin"):
        raise SpotError(
            f"size {text!r} must read SEAT,STREET,KIND[,SIZE...] like 'oop,river,bet,33,67', 'both,turn,raise,100' "
            "or 'ip,turn,allin'"
        )
    try:
        values = tuple(float(x) for x in parts[3:])
    except ValueError:
        raise SpotError(f"size {text!r}: sizes must be numbers (% of the pot)") from None
    if not all(v > 0 for v in values):  # also refuses nan
        raise SpotError(f"size {text!r}: sizes must be positive % of the pot")
    if parts[2] in ("bet", "raise") and not values:
        raise SpotError(f"size {text!r}: give the {parts[2]} sizes in % of the pot after the kind")
    if parts[2] == "allin" and values:
        raise SpotError(f"size {text!r}: allin takes no sizes")
    return parts[0], parts[1], parts[2], values


def apply_size_flags(data: dict, flags: list[str]) -> dict:
    """``data`` (a spot mapping) with each flag's sizes set (see :func:`size_flag`)."""
    data = json.loads(json.dumps(data))  # a deep copy of plain data
    for flag in flags:
        seat, street, kind, values = size_flag(flag)
        for one in SEATS if seat == "both" else (seat,):
            table = data.setdefault(street, {}).setdefault(one, {})
            if kind == "allin":
                table["allin"] = True
            else:
                table[kind] = list(values)
    return data


def _sizes(table: object, where: str) -> Sizes:
    if not isinstance(table, Mapping) or set(table) - {"bet", "raise", "allin"}:
        raise SpotError(f"{where} must hold 'bet', 'raise' (lists of % of the pot) and 'allin' (true/false), got {table!r}")
    out = {}
    for kind in ("bet", "raise"):
        values = table.get(kind, [])
        if not isinstance(values, list) or not all(isinstance(v, int | float) and v > 0 for v in values):
            raise SpotError(f"{where}.{kind} must be a list of positive % of the pot, got {values!r}")
        out[kind] = tuple(float(v) for v in values)
    if not isinstance(table.get("allin", False), bool):
        raise SpotError(f"{where}.allin must be true or false, got {table['allin']!r}")
    return Sizes(out["bet"], out["raise"], table.get("allin", False))


def _number(data: Mapping, key: str, kind: type, default: object = ...) -> object:
    if key not in data:
        if default is ...:
            raise SpotError(f"the spot has no {key!r}")
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and value != int(value)):
        raise SpotError(f"{key} must be {'a whole number' if kind is int else 'a number'}, got {value!r}")
    return kind(value)


def _text(data: Mapping, key: str) -> str:
    value = data.get(key, "random")
    if not isinstance(value, str):
        raise SpotError(f'{key} must be a range as text (e.g. "AA,KK,AKs,QJo:0.5"), got {value!r}')
    return value


def _pcts(values: tuple[float, ...]) -> str:
    return ",".join(f"{v:g}" for v in values) + "%"
