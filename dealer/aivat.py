"""AIVAT: unbiased, low-variance match results (Burch et al., AAAI 2018).

For a fixed value function ṽ over full histories (every hole card known, as in the
dealer's log), each node h on a played hand whose distribution σ(h, ·) is known adds

    Σ_a σ(h, a) ṽ(h·a)  −  ṽ(h·a*)            (a* = what actually happened)

to every player's chips.  Each correction has expectation zero given the history,
so the sum stays an unbiased estimate of the players' expected winnings, while ṽ
cancels most of the luck.  Corrections are made at

* the deal (``deal``): hole cards, and the first round's board cards if any.  The
  estimator conditions on every player's hole cards: ṽ is a function of the full
  history, and this node removes the luck of the deal itself;
* every board deal (``board``), including all-in run-outs;
* every decision of a seat whose σ is known (``action``): from its decision log, or
  from its whole strategy when that is given; decisions of other seats get none.
  The dealer's lenient treatment of a reply (a raise clamped into range, an invalid
  action turned into a call) is applied to σ, so σ is the distribution of the
  action the dealer actually played.

Imaginary observations (``imaginary``): when a seat's whole strategy is known (what
it would do holding any cards, e.g. a baseline bot), the corrected value is averaged
over every private hand it could have held on the observed line, weighted by its
own probability of that line.  A decision log alone cannot give this, since it
records σ for the cards actually held; so with decision logs only, this kind is 0,
unless the log's header names the baseline policy the seat plays
(:func:`declared_strategies`).  When every seat's strategy is known and ignores its
own cards (:data:`dealer.bots.CARD_INDEPENDENT`), every private deal is equally
likely on every line, so the average is taken in closed form: the hand is replayed
with the hole cards hidden and ṽ averages over them (see :class:`ValueFunction`).
That is exact and costs one replay, however big the deck.

The default value function, :class:`CheckDownValue`, needs no training, so it can
never be fitted to the data it evaluates; any other :class:`ValueFunction` (a
blueprint's values, later) plugs in the same way.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import combinations, pairwise
from pathlib import Path

import numpy as np
from numba import njit

from dealer.bots import CARD_INDEPENDENT, POLICIES, Policy, policy_name
from dealer.decisions import Decision, read_decision_log
from dealer.matchlog import EvaluationError, MatchLog
from protocol.cards import deck, next_combination
from protocol.errors import ProtocolError
from protocol.fasteval import EvalTables, eval_tables, rank_of_sums
from protocol.gamedef import GameDef
from protocol.rules import (
    Action,
    ActionType,
    State,
    initial_state,
    raise_to,
    with_cards,
)
from protocol.wire import LoggedHand, format_matchstate, parse_action, view_for

#: Correction kinds, the middle axis of :attr:`MatchAivat.corrections`.
KINDS = ("deal", "board", "action", "imaginary")
DEAL, BOARD, ACTION, IMAGINARY = range(4)
#: The outcome patterns of a showdown are counted in ``N**N`` bins.
MAX_PLAYERS = 6
#: The evaluator ranks 1 to 7 cards.
MAX_HAND_CARDS = 7
_PROBABILITY_TOLERANCE = 1e-6


class AivatError(EvaluationError):
    """Decision logs that contradict the match log, or a game AIVAT cannot handle."""


# --- value functions --------------------------------------------------------------


class ValueFunction(ABC):
    """ṽ(h): chips each position is expected to win from a node of a fully known hand.

    A node is a :class:`~protocol.rules.State` holding every player's hole cards
    (none before the deal) and, in ``board``, exactly the board cards dealt so far:
    between a round's last action and its cards, ``state.round`` is already the new
    round while ``board`` still lacks its cards.  Implementations must be fixed
    before the data they evaluate is seen.

    Hidden hands: after the deal, a position with no hole cards holds cards nobody
    knows, uniform over the unseen ones; ṽ is then the mean over them.  A value
    function that cannot average over hidden hands raises :class:`AivatError`.
    """

    @abstractmethod
    def values(self, states: Sequence[State]) -> np.ndarray:
        """ṽ of each state, shape ``(len(states), num_players)``, by position."""

    @abstractmethod
    def chance_mean(self, state: State) -> np.ndarray:
        """Mean of ṽ over the next cards dealt at ``state``, shape ``(num_players,)``.

        With no hole cards yet, the next cards are the deal (hole cards and the first
        round's board cards, every hand hidden if the hand is replayed hidden);
        otherwise the board cards of the first round lacking them.
        """

    def raise_mean(self, state: State, low: int, high: int) -> np.ndarray:
        """Mean of ṽ after a raise to each of ``low..high`` (no-limit), shape ``(num_players,)``.

        This default evaluates every size; value functions with structure override it.
        """
        states = [state.apply(raise_to(x)) for x in range(low, high + 1)]
        return self.values(states).mean(axis=0)


class CheckDownValue(ValueFunction):
    """The default ṽ: call, check it down, and count the chips.

    Every player still in calls the current bet (as far as its stack allows), nobody
    bets again, and the board is dealt out: ṽ is each player's expected winnings at
    that showdown under the reference's side-pot rules, averaged exactly over every
    completion of the board from the cards not yet seen (folded hands are dead cards).
    At the end of a hand it is exactly what the hand paid.

    Hidden hands: when every player still in holds a hidden hand, their hands are
    exchangeable, so each pot is on average split evenly among the players eligible
    for it, exactly as if all of them tied; ṽ is that split, whatever the board.  A
    mix of hidden and known hands among the players still in is refused.

    Why this is cheap and exact at chance nodes: dealing a card changes neither the
    chips in nor who is in, and an exact average over completions is a martingale, so
    the mean of ṽ over the next board cards is ṽ before them.  Before the deal every
    hand is hidden, and the mean over the deal is that even split (zero once the
    blinds are called): positions are exchangeable under a uniform deal.  Between
    kinks at the other players' stacks and bets, ṽ is linear in a raise's size, so
    the mean over a uniform range of sizes is ṽ at a few averaged sizes.
    """

    def __init__(self, game: GameDef) -> None:
        if game.num_players > MAX_PLAYERS:
            raise AivatError(f"the default AIVAT value function handles up to {MAX_PLAYERS} players")
        if game.num_hole_cards + game.total_board_cards > MAX_HAND_CARDS:
            raise AivatError(f"the default AIVAT value function ranks hands of at most {MAX_HAND_CARDS} cards")
        self.game = game
        self._deck = tuple(deck(game))

    def values(self, states: Sequence[State]) -> np.ndarray:
        spent = np.array([self._called(s) for s in states], dtype=np.float64).reshape(len(states), -1)
        return self._showdown(states, spent)

    def chance_mean(self, state: State) -> np.ndarray:
        # Known hands: the exact average over completions is a martingale.  Hidden ones
        # (before the deal, all are) split evenly whatever comes.  Either way: ṽ now.
        return self.values([state])[0]

    def raise_mean(self, state: State, low: int, high: int) -> np.ndarray:
        g = self.game
        raiser = state.current_player
        # Kinks: where a raise size crosses another player's chips in or stack.
        kinks = sorted(
            {v for p in range(g.num_players) if p != raiser for v in (state.spent[p], g.stack[p]) if low <= v < high}
        )
        edges = [low - 1, *kinks, high]
        sizes, weights = [], []
        for a, b in pairwise(edges):
            # Integers a+1..b lie on one linear piece: their mean is ṽ at their mean size.
            sizes.append((a + 1 + b) / 2)
            weights.append((b - a) / (high - low + 1))
        after = state.apply(raise_to(low))
        spent = np.empty((len(sizes), g.num_players))
        for i, size in enumerate(sizes):
            spent[i] = [s if f else min(size, g.stack[p]) for p, (s, f) in enumerate(zip(after.spent, after.folded))]
        return np.asarray(weights) @ self._showdown([after] * len(sizes), spent)

    def _called(self, state: State) -> list[float]:
        """Chips in once every player still in has called the current bet."""
        stack = self.game.stack
        return [float(s) if f else float(min(state.max_spent, stack[p])) for p, (s, f) in enumerate(zip(state.spent, state.folded))]

    def _showdown(self, states: Sequence[State], spent: np.ndarray) -> np.ndarray:
        """Expected showdown winnings for ``spent[i]`` chips in at each state's cards."""
        out = np.empty_like(spent)
        groups: dict[tuple, list[int]] = {}
        for i, s in enumerate(states):
            groups.setdefault((s.hole_cards, s.board), []).append(i)
        for (holes, board), rows in groups.items():
            folded = np.array([states[i].folded for i in rows], dtype=np.bool_)
            if (folded.sum(axis=1) >= self.game.num_players - 1).all() or all(_all_in_hidden(states[i]) for i in rows):
                # A sole survivor's winnings do not depend on the cards, and hidden
                # hands split every pot evenly on average: pattern 0, all tied.
                counts = _ONE_PATTERN
            else:
                counts = _outcome_counts(self._deck, holes, board, self.game.total_board_cards)
            out[rows] = _expected_payoffs(counts, spent[rows], folded)
        return out


#: Pattern 0 (all hands equal) seen once: enough when at most one player is in.
_ONE_PATTERN = np.ones(1, np.int64)


def _all_in_hidden(state: State) -> bool:
    """Whether every player still in holds a hidden hand (no hole cards)."""
    return not any(h for h, f in zip(state.hole_cards, state.folded) if not f)


# Mirrored matches deal the same cards: a big cache lets the second replay reuse them.
@lru_cache(maxsize=1 << 16)
def _outcome_counts(full_deck: tuple[int, ...], holes: tuple[tuple[int, ...], ...], board: tuple[int, ...], total_board: int) -> np.ndarray:
    """How often each showdown pattern occurs over all completions of ``board`` (see kernel)."""
    if not all(holes):
        raise AivatError("the default value function needs every hand, or every hand still in hidden")
    seen = set(board).union(*holes)
    rest = np.array([c for c in full_deck if c not in seen], dtype=np.int64)
    combos = _combinations(len(rest), total_board - len(board))
    holes_array, board_array = np.array(holes, dtype=np.int64), np.array(board, dtype=np.int64)
    return _count_patterns(eval_tables(), holes_array, board_array, rest, combos)


@lru_cache(maxsize=16)
def _combinations(n: int, r: int) -> np.ndarray:
    return _combinations_kernel(n, r, math.comb(n, r))


@njit(cache=True)
def _combinations_kernel(n: int, r: int, count: int) -> np.ndarray:
    """Every r-subset of 0..n-1 in lexicographic order: ``uint8[count, r]``."""
    out = np.empty((count, r), np.uint8)
    index = np.arange(r)
    for row in range(count):
        for j in range(r):
            out[row, j] = index[j]
        if not next_combination(index, n):
            break
    return out


@njit(cache=True)
def _count_patterns(
    tables: EvalTables, holes: np.ndarray, board: np.ndarray, rest: np.ndarray, combos: np.ndarray
) -> np.ndarray:
    """Count showdown patterns over every completion of the board.

    tables: :mod:`protocol.fasteval`'s evaluator (the ranks of
    :func:`protocol.handrank.rank_cards`, from summed card keys); holes: ``int64[N, H]``
    hole cards by position; board: ``int64[B]`` dealt board; rest: ``int64[R]`` unseen
    cards; combos: ``uint8[M, r]`` indices into ``rest`` completing the board.  A
    pattern is ``Σ_p level_p · N**p`` where ``level_p`` is the number of distinct hand
    ranks above position p's.  Returns ``int64[N**N]``.
    """
    n_players, n_hole = holes.shape
    n_combos, n_more = combos.shape
    counts = np.zeros(n_players**n_players, np.int64)
    ranks = np.empty(n_players, np.int64)
    # Hand keys add up, so each completed board is summed once and shared by every hand.
    hole_key = np.zeros(n_players, np.int64)
    hole_bits = np.zeros(n_players, np.int64)
    for p in range(n_players):
        for j in range(n_hole):
            hole_key[p] += tables.card_key[holes[p, j]]
            hole_bits[p] |= tables.card_bit[holes[p, j]]
    dealt_key = 0
    dealt_bits = 0
    for c in board:
        dealt_key += tables.card_key[c]
        dealt_bits |= tables.card_bit[c]
    for i in range(n_combos):
        key = dealt_key
        bits = dealt_bits
        for j in range(n_more):
            c = rest[combos[i, j]]
            key += tables.card_key[c]
            bits |= tables.card_bit[c]
        for p in range(n_players):
            ranks[p] = rank_of_sums(tables, key + hole_key[p], bits | hole_bits[p])
        code = 0
        scale = 1
        for p in range(n_players):
            level = 0
            for q in range(n_players):
                if ranks[q] > ranks[p]:
                    # Count each distinct better rank once.
                    first = True
                    for q2 in range(q):
                        if ranks[q2] == ranks[q]:
                            first = False
                    if first:
                        level += 1
            code += level * scale
            scale *= n_players
        counts[code] += 1
    return counts


@njit(cache=True)
def _pot_payoffs(strength: np.ndarray, spent: np.ndarray, folded: np.ndarray, out: np.ndarray) -> None:
    """Chips won at a showdown (reference side-pot rules), written into ``out``.

    strength: ``int64[N]``, larger wins; spent: ``float64[N]`` chips in; folded:
    ``bool[N]``.  The smallest remaining contribution is peeled off as one pot at a
    time and split among the strongest players still in who paid into it.
    """
    n = spent.shape[0]
    left = spent.copy()
    for p in range(n):
        out[p] = -spent[p]
    while True:
        size = np.inf
        for p in range(n):
            if 0 < left[p] < size:
                size = left[p]
        if size == np.inf:
            return
        best = -(1 << 62)
        contributors = 0
        for p in range(n):
            if left[p] > 0:
                contributors += 1
                if not folded[p] and strength[p] > best:
                    best = strength[p]
        winners = 0
        for p in range(n):
            if left[p] > 0 and not folded[p] and strength[p] == best:
                winners += 1
        for p in range(n):
            if left[p] > 0:
                if winners == 0:
                    # Nobody still in paid into this pot: it goes back (keeps the sum zero).
                    out[p] += size
                elif not folded[p] and strength[p] == best:
                    out[p] += size * contributors / winners
                left[p] -= size


@njit(cache=True)
def _expected_payoffs(counts: np.ndarray, spent: np.ndarray, folded: np.ndarray) -> np.ndarray:
    """Mean showdown winnings over pattern ``counts`` for each row of ``spent``/``folded``.

    counts: ``int64[N**N]`` from :func:`_count_patterns`; spent: ``float64[K, N]``;
    folded: ``bool[K, N]``.  Returns ``float64[K, N]``.
    """
    k_rows, n = spent.shape
    out = np.zeros((k_rows, n))
    payoff = np.empty(n)
    strength = np.empty(n, np.int64)
    total = 0
    for code in range(counts.shape[0]):
        if counts[code] == 0:
            continue
        total += counts[code]
        rest = code
        for p in range(n):
            strength[p] = -(rest % n)
            rest //= n
        for k in range(k_rows):
            _pot_payoffs(strength, spent[k], folded[k], payoff)
            for p in range(n):
                out[k, p] += counts[code] * payoff[p]
    return out / total


# --- decision logs ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DecisionIndex:
    """Decisions by ``(match, hand, position)``, in the order they were made, and who made them.

    ``policies``: by ``(match, seat)``, the baseline policy (a :data:`dealer.bots.POLICIES`
    name) a seat declared it plays in that match.
    """

    by_node: Mapping[tuple[str, int, int], tuple[str, tuple[Decision, ...]]]
    files: tuple[Path, ...] = ()
    policies: Mapping[tuple[str, str], str] = field(default_factory=dict)

    @staticmethod
    def of(
        records: Iterable[tuple[str, Decision]],
        files: Sequence[Path] = (),
        policies: Mapping[tuple[str, str], str] | None = None,
    ) -> DecisionIndex:
        """Index ``(seat, decision)`` pairs."""
        grouped: dict[tuple[str, int, int], tuple[str, list[Decision]]] = {}
        for seat, d in records:
            key = (d.match, d.hand, d.position)
            owner, found = grouped.setdefault(key, (seat, []))
            if owner != seat:
                raise AivatError(f"both {owner} and {seat} logged decisions for position {d.position} of hand {d.hand} of match {d.match}")
            found.append(d)
        return DecisionIndex({k: (s, tuple(v)) for k, (s, v) in grouped.items()}, tuple(files), dict(policies or {}))


def load_decision_logs(paths: Iterable[Path]) -> DecisionIndex:
    """Read decision logs (``*.dlog``).

    Raises:
        AivatError: if a file is not a decision log.
    """
    records: list[tuple[str, Decision]] = []
    policies: dict[tuple[str, str], str] = {}
    files = sorted(paths)
    for path in files:
        try:
            header, decisions = read_decision_log(path)
            seat, policy = header["seat"], header.get("policy")
            if policy is not None:
                if policy not in POLICIES:
                    raise ValueError(f"the header names policy {policy!r}, which is not a baseline ({', '.join(POLICIES)})")
                key = (header["match"], seat)
                if policies.setdefault(key, policy) != policy:
                    raise ValueError(f"the header says {seat} plays {policy} in {key[0]}, another log says {policies[key]}")
            records.extend((seat, d) for d in decisions)
        except (ValueError, KeyError) as exc:
            raise AivatError(f"{path}: {exc}") from None
    return DecisionIndex.of(records, files, policies)


def declared_strategies(match: MatchLog, decisions: DecisionIndex, max_private_deals: int = 200) -> tuple[dict[str, Policy], str | None]:
    """The whole strategies ``match``'s seats declared in their decision logs, if usable.

    Usable for imaginary observations when every seat declared a card-independent
    policy (closed form), or when averaging over the declaring seats' private cards
    takes at most ``max_private_deals`` replays per hand.  Returns the strategies
    (empty if unusable) and, when some were declared but cannot be used, a note.
    """
    declared = {seat: decisions.policies.get((match.name, seat)) for seat in match.seats}
    named = {seat: POLICIES[name] for seat, name in declared.items() if name is not None}
    if not named:
        return {}, None
    game = match.game
    if len(named) == len(match.seats) and all(p in CARD_INDEPENDENT for p in named.values()):
        return named, None
    pool = game.num_suits * game.num_ranks - game.num_hole_cards * (len(match.seats) - len(named))
    deals = 1
    for k in range(len(named)):
        deals *= math.comb(pool - k * game.num_hole_cards, game.num_hole_cards)
    if deals <= max_private_deals:
        return named, None
    return {}, (
        f"{match.name}: the policies declared by {', '.join(sorted(named))} are used only as decision logs: averaging "
        f"over their private cards would take {deals:,} replays per hand unless every seat declares a baseline policy"
    )


# --- the estimator ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Played:
    """σ at a node over the actions the dealer plays: point masses and an optional
    uniform raise range ``(mass, low, high)`` inside the legal range."""

    discrete: dict[Action, float]
    uniform: tuple[float, int, int] | None

    def probability(self, action: Action) -> float:
        p = self.discrete.get(action, 0.0)
        if self.uniform is not None and action.kind == ActionType.RAISE and self.uniform[1] <= action.size <= self.uniform[2]:
            p += self.uniform[0] / (self.uniform[2] - self.uniform[1] + 1)
        return p


#: Where σ comes from at a seat's decisions: ``sigma(state, action the log shows)``,
#: None where it is not known.
Sigma = Callable[[State, Action], "Played | None"]


def played(state: State, probs: Iterable[tuple[Action, float]], uniform_raise: tuple[float, int, int] | None) -> Played:
    """σ pushed through the dealer's fixing of replies (clamped raises, invalid actions called)."""
    discrete: dict[Action, float] = {}

    def add(action: Action, p: float) -> None:
        fixed = state.fix_action(action)[0]
        discrete[fixed] = discrete.get(fixed, 0.0) + p

    for action, p in probs:
        if p > 0:
            add(action, p)
    if uniform_raise is None or uniform_raise[0] <= 0:
        return Played(discrete, None)
    mass, low, high = uniform_raise
    bounds = state.raise_bounds()
    if bounds is None or not state.game.is_nolimit:
        add(raise_to(low) if state.game.is_nolimit else Action(ActionType.RAISE), mass)
        return Played(discrete, None)
    width = high - low + 1
    # Sizes outside the legal range are clamped to its ends, as the dealer does.
    below = max(0, min(high, bounds[0] - 1) - low + 1)
    above = max(0, high - max(low, bounds[1] + 1) + 1)
    if below:
        add(raise_to(bounds[0]), mass * below / width)
    if above:
        add(raise_to(bounds[1]), mass * above / width)
    inner = (max(low, bounds[0]), min(high, bounds[1]))
    if inner[0] > inner[1]:
        return Played(discrete, None)
    return Played(discrete, (mass * (inner[1] - inner[0] + 1) / width, inner[0], inner[1]))


class LoggedSigma:
    """σ from one position's decision log for one hand, checked against the match log."""

    def __init__(self, decisions: Sequence[Decision]) -> None:
        self._pending = list(decisions)

    @property
    def left(self) -> int:
        return len(self._pending)

    def __call__(self, state: State, taken: Action) -> Played | None:
        if not self._pending:
            return None
        decision = self._pending.pop(0)
        position = state.current_player
        seen = format_matchstate(view_for(state, position))  # type: ignore[arg-type]
        where = f"hand {state.hand_number}, position {position}"
        if decision.state != seen:
            raise AivatError(f"{where}: the decision log acted on {decision.state!r} but the match log gives {seen!r}")
        try:
            sent = state.fix_action(parse_action(decision.taken, state.game))[0]
            sigma = played(state, ((parse_action(a, state.game), p) for a, p in decision.probs), decision.uniform_raise)
        except ProtocolError as exc:
            raise AivatError(f"{where}: unreadable decision ({exc})") from None
        if sent != taken:
            raise AivatError(f"{where}: the decision log sent {decision.taken!r} but the match log shows {taken}")
        return sigma


def policy_sigma(policy: Policy) -> Sigma:
    """σ from a known strategy (a :data:`dealer.bots.Policy`), at any cards."""

    def sigma(state: State, taken: Action) -> Played:
        dist = policy(state)
        return played(state, dist.probs, dist.uniform_raise)

    return sigma


@dataclass(frozen=True, slots=True)
class MatchAivat:
    """AIVAT over one match log, by seat (``seats`` order).

    ``raw``: ``float64[H, S]`` chips won per hand; ``corrections``: ``float64[H, 4, S]``
    by kind (:data:`KINDS`); ``aivat = raw + corrections.sum(axis=1)``.
    ``decisions``: decisions corrected per seat; ``strategies``: the seats whose whole
    strategy was used (imaginary observations), with the baseline's name if it is one.
    """

    seats: tuple[str, ...]
    raw: np.ndarray
    corrections: np.ndarray
    decisions: dict[str, int]
    strategies: dict[str, str] = field(default_factory=dict)

    @property
    def aivat(self) -> np.ndarray:
        return self.raw + self.corrections.sum(axis=1)


def evaluate_match(
    match: MatchLog,
    decisions: DecisionIndex | None = None,
    value: ValueFunction | None = None,
    *,
    strategies: Mapping[str, Policy] | None = None,
    max_private_deals: int = 200,
) -> MatchAivat:
    """AIVAT values of every hand of ``match``.

    Args:
        decisions: decision logs; their seats' decisions get action corrections.
        value: ṽ; by default :class:`CheckDownValue`.
        strategies: seats whose whole strategy is known (what they would do with any
            cards).  Their decisions are corrected from it, and every hand is averaged
            over the private cards those seats could have held (imaginary observations).
        max_private_deals: refuse imaginary observations needing more private deals per hand.

    Raises:
        AivatError: if a decision log contradicts the match log, or imaginary
            observations would need more than ``max_private_deals`` deals.
    """
    value = value or CheckDownValue(match.game)
    index = decisions.by_node if decisions is not None else {}
    strategies = strategies or {}
    seats = match.seats
    raw = np.zeros((len(match.hands), len(seats)))
    corrections = np.zeros((len(match.hands), len(KINDS), len(seats)))
    counts = dict.fromkeys(seats, 0)
    for i, hand in enumerate(match.hands):
        logged: dict[int, Sequence[Decision]] = {}
        for position, name in enumerate(hand.names):
            entry = index.get((match.name, hand.state.hand_number, position))
            if entry is not None and name not in strategies:
                if entry[0] != name:
                    raise AivatError(
                        f"{entry[0]}'s decision log claims position {position} of hand {hand.state.hand_number} "
                        f"of match {match.name}, where {name} sat"
                    )
                logged[position] = entry[1]
        known = {p: strategies[name] for p, name in enumerate(hand.names) if name in strategies}
        for p in known:
            entry = index.get((match.name, hand.state.hand_number, p))
            if entry is not None and entry[0] == hand.names[p]:
                _check_declared(hand, p, entry[1], known[p])
        by_position, used = _imagined(hand, logged, known, value, max_private_deals)
        order = [hand.names.index(s) for s in seats]
        raw[i] = np.asarray(hand.values)[order]
        corrections[i] = by_position[:, order]
        for position, n in used.items():
            counts[hand.names[position]] += n
    used_strategies = {s: policy_name(p) or "a known strategy" for s, p in strategies.items() if s in seats}
    return MatchAivat(seats, raw, corrections, counts, used_strategies)


def _imagined(
    hand: LoggedHand,
    logged: Mapping[int, Sequence[Decision]],
    known: Mapping[int, Policy],
    value: ValueFunction,
    max_deals: int,
) -> tuple[np.ndarray, dict[int, int]]:
    """Corrections of one hand, averaged over the private cards of the ``known`` positions.

    Given the public line and everyone else's cards, the known seats' cards have
    posterior ∝ Π σ(their actions | those cards) (the deal is uniform and nobody else
    sees them), so this average is a conditional expectation of an unbiased estimate:
    still unbiased, never more spread.  The ``imaginary`` kind is the average outcome
    minus the actual one.
    """
    final = hand.state
    game = final.game
    out = np.zeros((len(KINDS), game.num_players))
    if len(known) == game.num_players and all(p in CARD_INDEPENDENT for p in known.values()):
        # Every private deal is equally likely on this line: replay it with every hand
        # hidden, and ṽ averages over them (ValueFunction, "hidden hands").
        hidden = with_cards(final, ((),) * game.num_players, final.board)
        sigmas = {p: policy_sigma(policy) for p, policy in known.items()}
        out[:IMAGINARY], used, _ = hand_corrections(LoggedHand(hidden, (), hand.names), sigmas, value)
        out[IMAGINARY] = value.values([hidden])[0] - np.asarray(hand.values)
        return out, used
    deals = _private_deals(final, sorted(known))
    if len(deals) > max_deals:
        raise AivatError(
            f"imaginary observations would replay {len(deals)} private deals per hand (limit {max_deals}); "
            "this game's deck is too big for them"
        )
    if not known:
        out[:IMAGINARY], used, _ = hand_corrections(hand, {p: LoggedSigma(ds) for p, ds in logged.items()}, value)
        return out, used
    total = 0.0
    outcome = np.zeros(game.num_players)
    for holes in deals:
        state = with_cards(final, holes, final.board)
        sigmas: dict[int, Sigma] = {p: LoggedSigma(ds) for p, ds in logged.items()}
        sigmas.update({p: policy_sigma(policy) for p, policy in known.items()})
        corrections, used, likelihood = hand_corrections(LoggedHand(state, (), hand.names), sigmas, value)
        weight = math.prod(likelihood[p] for p in known)
        if weight > 0:
            total += weight
            outcome += weight * np.asarray(state.values())
            out[:IMAGINARY] += weight * corrections
    out /= total
    out[IMAGINARY] = outcome / total - np.asarray(hand.values)
    return out, used


def _check_declared(hand: LoggedHand, position: int, decisions: Sequence[Decision], policy: Policy) -> None:
    """Refuse a decision log whose σ is not that of the policy its header declares."""
    logged = LoggedSigma(decisions)
    state = initial_state(hand.state.game, hand.state.hand_number, hand.state.hole_cards, hand.state.board)
    for action in (a for round_actions in hand.state.actions for a in round_actions):
        if state.current_player == position and logged.left:
            sigma = logged(state, action)
            dist = policy(state)
            if sigma is None or not _same_sigma(sigma, played(state, dist.probs, dist.uniform_raise)):
                raise AivatError(
                    f"hand {state.hand_number}, position {position}: the decision log does not play the policy its header declares"
                )
        state = state.apply(action)


def _same_sigma(a: Played, b: Played) -> bool:
    """Whether two σ agree to within the probability tolerance."""
    if a.discrete.keys() != b.discrete.keys() or (a.uniform is None) != (b.uniform is None):
        return False
    masses = [(p, b.discrete[k]) for k, p in a.discrete.items()]
    if a.uniform is not None and b.uniform is not None:
        if a.uniform[1:] != b.uniform[1:]:
            return False
        masses.append((a.uniform[0], b.uniform[0]))
    return all(abs(x - y) <= _PROBABILITY_TOLERANCE for x, y in masses)


def _private_deals(final: State, positions: Sequence[int]) -> list[tuple[tuple[int, ...], ...]]:
    """Hole cards the ``positions`` could have held given everyone else's and the board shown."""
    game = final.game
    if not positions:
        return [final.hole_cards]
    seen = set(final.board).union(*(h for p, h in enumerate(final.hole_cards) if p not in positions))
    pool = [c for c in deck(game) if c not in seen]
    deals: list[tuple[tuple[int, ...], ...]] = []

    def extend(holes: list[tuple[int, ...]], k: int, free: list[int]) -> None:
        if k == len(positions):
            deals.append(tuple(holes))
            return
        for cards in combinations(free, game.num_hole_cards):
            holes[positions[k]] = cards
            extend(holes, k + 1, [c for c in free if c not in cards])
        holes[positions[k]] = final.hole_cards[positions[k]]

    extend(list(final.hole_cards), 0, pool)
    return deals


def hand_corrections(
    hand: LoggedHand, sigmas: Mapping[int, Sigma], value: ValueFunction
) -> tuple[np.ndarray, dict[int, int], dict[int, float]]:
    """AIVAT corrections of one hand, ``float64[3, N]`` by kind (deal, board, action) and position.

    ``sigmas`` gives σ at the decisions of the positions whose strategy is known
    (a :class:`LoggedSigma` may run out, leaving later decisions uncorrected).
    Returns the corrections, how many decisions were corrected per position, and
    the probability each position in ``sigmas`` had of taking its logged actions.

    Raises:
        AivatError: if σ does not match the hand.
    """
    final = hand.state
    game = final.game
    out = np.zeros((IMAGINARY, game.num_players))
    used = dict.fromkeys(sigmas, 0)
    likelihood = dict.fromkeys(sigmas, 1.0)

    dealt = game.num_board_cards[0]
    state = initial_state(game, final.hand_number, final.hole_cards, final.board[:dealt])
    before_deal = initial_state(game, final.hand_number)
    out[DEAL] += value.chance_mean(before_deal) - value.values([state])[0]
    for action in (a for round_actions in final.actions for a in round_actions):
        actor = state.current_player
        assert actor is not None
        sigma = sigmas[actor](state, action) if actor in sigmas else None
        if sigma is not None:
            out[ACTION] += _action_correction(state, action, sigma, value)
            used[actor] += 1
            likelihood[actor] *= sigma.probability(action)
        state = state.apply(action)
        while dealt < game.board_cards_through(state.round):
            before = state
            dealt = game.board_cards_through(_next_board_round(game, dealt))
            if len(final.board) < dealt:
                raise AivatError(f"hand {final.hand_number} reaches a round whose board cards the log does not show")
            state = replace(state, board=final.board[:dealt])
            out[BOARD] += value.chance_mean(before) - value.values([state])[0]
    left = sorted(p for p, s in sigmas.items() if isinstance(s, LoggedSigma) and s.left)
    if left:
        raise AivatError(f"hand {final.hand_number}: decisions logged for position(s) {left} that never acted then")
    return out, used, likelihood


def _next_board_round(game: GameDef, dealt: int) -> int:
    """The round whose board cards come next once ``dealt`` board cards are out."""
    r = 0
    while game.board_cards_through(r) <= dealt:
        r += 1
    return r


def _action_correction(state: State, taken: Action, sigma: Played, value: ValueFunction) -> np.ndarray:
    """Σ_a σ(a) ṽ(h·a) − ṽ(h·a*) at ``state``."""
    where = f"hand {state.hand_number}, position {state.current_player}"
    mass = sum(sigma.discrete.values()) + (sigma.uniform[0] if sigma.uniform else 0.0)
    if abs(mass - 1) > _PROBABILITY_TOLERANCE:
        raise AivatError(f"{where}: the decision's probabilities sum to {mass:g}, not 1")
    if sigma.probability(taken) <= 0:
        raise AivatError(f"{where}: the action taken, {taken}, had probability 0")
    actions = list(sigma.discrete)
    children = value.values([state.apply(a) for a in actions] + [state.apply(taken)])
    expected = np.asarray([sigma.discrete[a] for a in actions]) @ children[:-1]
    if sigma.uniform is not None:
        expected = expected + sigma.uniform[0] * value.raise_mean(state, sigma.uniform[1], sigma.uniform[2])
    return expected - children[-1]
