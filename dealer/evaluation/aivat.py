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
with the hole cards hidden and ṽ averages over them (see
:class:`dealer.evaluation.values.ValueFunction`).  That is exact and costs one replay, however
big the deck.

The default value function, :class:`dealer.evaluation.values.CheckDownValue`, needs no
training, so it can never be fitted to the data it evaluates; any other
:class:`~dealer.evaluation.values.ValueFunction` (a blueprint's values, later) plugs in the
same way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np

from dealer.bots import CARD_INDEPENDENT, POLICIES, policy_name
from dealer.evaluation.decisionlogs import DecisionIndex, load_decision_logs, stream_decision_logs
from dealer.evaluation.rangeaivat import CheckDown, RangeAivat, has_ranges
from dealer.evaluation.terms import KNOWN_STRATEGY, Term, TermSums, source_of
from dealer.evaluation.values import AivatError, CheckDownValue, ValueFunction, deal_logged_board
from dealer.policy import Policy
from protocol.cards import deck
from protocol.decisions import Decision
from protocol.errors import ProtocolError
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
_PROBABILITY_TOLERANCE = 1e-6
#: :attr:`MatchAivat.strategies` of a seat whose logged ranges were averaged over.
LOGGED_RANGE = "its logged range"
__all__ = ["DecisionIndex", "load_decision_logs", "stream_decision_logs"]  # re-exported: where decisions meet AIVAT


def _closed_form(policies: Collection[Policy], players: int) -> bool:
    """Whether every player's strategy is known and ignores its cards: the average over
    private deals is then one replay with hidden hands (:func:`_imagined`)."""
    return len(policies) == players and all(p in CARD_INDEPENDENT for p in policies)


def declared_strategies(
    match: str, game: GameDef, seats: Collection[str], decisions: DecisionIndex, max_private_deals: int = 200
) -> tuple[dict[str, Policy], str | None]:
    """The whole strategies the ``seats`` of match ``match`` declared in their decision logs, if usable.

    Usable for imaginary observations when every seat declared a card-independent
    policy (closed form), or when averaging over the declaring seats' private cards
    takes at most ``max_private_deals`` replays per hand.  Returns the strategies
    (empty if unusable) and, when some were declared but cannot be used, a note.
    """
    declared = {seat: decisions.policies.get((match, seat)) for seat in seats}
    named = {seat: POLICIES[name] for seat, name in declared.items() if name is not None}
    if not named:
        return {}, None
    if _closed_form(named.values(), len(seats)):
        return named, None
    pool = game.num_suits * game.num_ranks - game.num_hole_cards * (len(seats) - len(named))
    deals = 1
    for k in range(len(named)):
        deals *= math.comb(pool - k * game.num_hole_cards, game.num_hole_cards)
    if deals <= max_private_deals:
        return named, None
    return {}, (
        f"{match}: the policies declared by {', '.join(sorted(named))} are used only as decision logs: averaging "
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
        #: the decision last read (its ``detail`` names where its row came from)
        self.last: Decision | None = None

    @property
    def left(self) -> int:
        return len(self._pending)

    def __call__(self, state: State, taken: Action) -> Played | None:
        if not self._pending:
            return None
        decision = self.last = self._pending.pop(0)
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
    """σ from a known strategy (a :data:`dealer.policy.Policy`), at any cards."""

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
    strategy was used (imaginary observations), with the baseline's name if it is one;
    ``raw_hands``: per seat, hands whose corrections :func:`dealer.evaluation.guard.guarded`
    set to 0 (their AIVAT value is the raw chips).
    """

    seats: tuple[str, ...]
    raw: np.ndarray
    corrections: np.ndarray
    decisions: dict[str, int]
    strategies: dict[str, str] = field(default_factory=dict)
    raw_hands: dict[str, int] = field(default_factory=dict)

    @property
    def aivat(self) -> np.ndarray:
        return self.raw + self.corrections.sum(axis=1)

    def in_order(self, seats: Sequence[str]) -> MatchAivat:
        """The same values with the seats (columns) in the order ``seats``."""
        order = [self.seats.index(s) for s in seats]
        return replace(self, seats=tuple(seats), raw=self.raw[:, order], corrections=self.corrections[:, :, order])


def evaluate_hands(
    match: str,
    seats: Sequence[str],
    hands: Iterable[LoggedHand],
    decisions: DecisionIndex | None,
    value: ValueFunction,
    *,
    strategies: Mapping[str, Policy] | None = None,
    max_private_deals: int = 200,
    full_range: bool = True,
    seat_values: CheckDown | None = None,
    terms: TermSums | None = None,
) -> MatchAivat:
    """AIVAT values of the ``hands`` of match ``match``, one at a time (they may stream from a log).

    Args:
        seats: the players, in the order of the result's columns.
        decisions: decision logs; their seats' decisions get action corrections.
        value: ṽ, e.g. :class:`CheckDownValue`.
        strategies: seats whose whole strategy is known (what they would do with any
            cards).  Their decisions are corrected from it, and every hand is averaged
            over the private cards those seats could have held (imaginary observations).
        max_private_deals: refuse imaginary observations needing more private deals per hand.
        full_range: in a two-player hand where no strategy is known, average over the
            whole range of a seat whose decisions carry it (:mod:`dealer.evaluation.rangeaivat`;
            with :class:`CheckDownValue` only); False corrects only the hands held.
        seat_values: ṽ of that whole-range estimator (:class:`dealer.evaluation.rangeaivat.CheckDown`
            by default; :class:`dealer.evaluation.blueprintvalue.BlueprintValue`).
        terms: if given, receives each hand's corrections term by term
            (:mod:`dealer.evaluation.terms`: the deal, each board, each corrected
            decision, the average over private hands), whichever way the hand is valued.

    Raises:
        AivatError: if a decision log contradicts the match log, or imaginary
            observations would need more than ``max_private_deals`` deals.
    """
    index = decisions.by_node if decisions is not None else {}
    strategies = strategies or {}
    # Arrays that double as they fill: a few dozen bytes per hand, no object per hand.
    raw = np.empty((1024, len(seats)))
    corrections = np.empty((1024, len(KINDS), len(seats)))
    counts = dict.fromkeys(seats, 0)
    ranges: RangeAivat | None = None
    range_seats: set[str] = set()
    n = 0
    for hand in hands:
        logged: dict[int, Sequence[Decision]] = {}
        for position, name in enumerate(hand.names):
            entry = index.get((match, hand.state.hand_number, position))
            if entry is not None and name not in strategies:
                if entry[0] != name:
                    raise AivatError(
                        f"{entry[0]}'s decision log claims position {position} of hand {hand.state.hand_number} "
                        f"of match {match}, where {name} sat"
                    )
                logged[position] = entry[1]
        known = {p: strategies[name] for p, name in enumerate(hand.names) if name in strategies}
        for p, policy in known.items():
            entry = index.get((match, hand.state.hand_number, p))
            if entry is not None and entry[0] == hand.names[p]:
                _check_declared(hand, p, entry[1], policy)
        ranged = _ranged_position(hand, logged, known, value) if full_range else None
        if ranged is not None:
            if ranges is None:
                ranges = RangeAivat(value, seat_values)  # type: ignore[arg-type]  # _ranged_position checked it
            other = 1 - ranged
            other_sigma = LoggedSigma(logged[other]) if other in logged else None
            parts: list[tuple[Term, float]] | None = None if terms is None else []
            by_position, others = ranges.corrections(hand, ranged, logged[ranged], other_sigma, parts)
            used = {ranged: len(logged[ranged]), other: others}
            range_seats.add(hand.names[ranged])
            if terms is not None and parts is not None:
                names = (hand.names[ranged], hand.names[other])
                terms.add_hand(hand.names, ((t, {names[0]: v, names[1]: -v}) for t, v in parts))
        else:
            held: dict[Term, np.ndarray] | None = None if terms is None else {}
            by_position, used = _imagined(hand, logged, known, value, max_private_deals, held)
            if terms is not None and held is not None:
                terms.add_hand(hand.names, ((t, dict(zip(hand.names, v))) for t, v in held.items()))
        if n == len(raw):
            raw = np.concatenate([raw, np.empty_like(raw)])
            corrections = np.concatenate([corrections, np.empty_like(corrections)])
        order = [hand.names.index(s) for s in seats]
        raw[n] = np.asarray(hand.values)[order]
        corrections[n] = by_position[:, order]
        n += 1
        for position, corrected in used.items():
            counts[hand.names[position]] += corrected
    used_strategies = {s: policy_name(p) or "a known strategy" for s, p in strategies.items() if s in seats}
    used_strategies.update((s, LOGGED_RANGE) for s in range_seats)
    return MatchAivat(tuple(seats), raw[:n].copy(), corrections[:n].copy(), counts, used_strategies)


def _imagined(
    hand: LoggedHand,
    logged: Mapping[int, Sequence[Decision]],
    known: Mapping[int, Policy],
    value: ValueFunction,
    max_deals: int,
    terms: dict[Term, np.ndarray] | None = None,
) -> tuple[np.ndarray, dict[int, int]]:
    """Corrections of one hand, averaged over the private cards of the ``known`` positions.

    Given the public line and everyone else's cards, the known seats' cards have
    posterior ∝ Π σ(their actions | those cards) (the deal is uniform and nobody else
    sees them), so this average is a conditional expectation of an unbiased estimate:
    still unbiased, never more spread.  The ``imaginary`` kind is the average outcome
    minus the actual one.  ``terms``, if given, receives the corrections term by term
    (by position; :mod:`dealer.evaluation.terms`), averaged the same way.
    """
    final = hand.state
    game = final.game
    out = np.zeros((len(KINDS), game.num_players))
    if _closed_form(known.values(), game.num_players):
        # Every private deal is equally likely on this line: replay it with every hand
        # hidden, and ṽ averages over them (ValueFunction, "hidden hands").
        hidden = with_cards(final, ((),) * game.num_players, final.board)
        sigmas = {p: policy_sigma(policy) for p, policy in known.items()}
        out[:IMAGINARY], used, _ = hand_corrections(LoggedHand(hidden, (), hand.names), sigmas, value, terms)
        out[IMAGINARY] = value.values([hidden])[0] - np.asarray(hand.values)
        _add_term(terms, Term("imaginary"), out[IMAGINARY])
        return out, used
    deals = _private_deals(final, sorted(known))
    if len(deals) > max_deals:
        raise AivatError(
            f"imaginary observations would replay {len(deals)} private deals per hand (limit {max_deals}); "
            "this game's deck is too big for them"
        )
    if not known:
        out[:IMAGINARY], used, _ = hand_corrections(hand, {p: LoggedSigma(ds) for p, ds in logged.items()}, value, terms)
        return out, used
    total = 0.0
    outcome = np.zeros(game.num_players)
    weighted: dict[Term, np.ndarray] = {}
    for holes in deals:
        state = with_cards(final, holes, final.board)
        sigmas: dict[int, Sigma] = {p: LoggedSigma(ds) for p, ds in logged.items()}
        sigmas.update({p: policy_sigma(policy) for p, policy in known.items()})
        parts: dict[Term, np.ndarray] | None = None if terms is None else {}
        corrections, used, likelihood = hand_corrections(LoggedHand(state, (), hand.names), sigmas, value, parts)
        weight = math.prod(likelihood[p] for p in known)
        if weight > 0:
            total += weight
            outcome += weight * np.asarray(state.values())
            out[:IMAGINARY] += weight * corrections
            for term, v in (parts or {}).items():
                _add_term(weighted, term, weight * v)
    out /= total
    out[IMAGINARY] = outcome / total - np.asarray(hand.values)
    for term, v in weighted.items():
        _add_term(terms, term, v / total)
    _add_term(terms, Term("imaginary"), out[IMAGINARY])
    return out, used


def _add_term(terms: dict[Term, np.ndarray] | None, term: Term, value: np.ndarray) -> None:
    """Add a correction (by position) to a term's sum, when terms are collected."""
    if terms is not None:
        terms[term] = terms[term] + value if term in terms else np.array(value, dtype=np.float64)


def _ranged_position(
    hand: LoggedHand, logged: Mapping[int, Sequence[Decision]], known: Mapping[int, Policy], value: ValueFunction
) -> int | None:
    """The position whose whole range AIVAT averages over in this hand, if any: the
    first that logged every one of its decisions with its range, in a two-player hand
    with no known strategy, with the check-down value function (the one the range
    estimator computes).  A hand with a decision missing (a seat that crashed or timed
    out) is corrected at the hands held only."""
    if known or not isinstance(value, CheckDownValue) or value.game.num_players != 2:
        return None
    turns = [sum(actor == p for actors in hand.state.actors for actor in actors) for p in range(2)]
    return next((p for p in sorted(logged) if has_ranges(logged[p]) and len(logged[p]) == turns[p]), None)


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
                    f"hand {state.hand_number}, position {position}: "
                    "the decision log does not play the policy its header declares"
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
    hand: LoggedHand, sigmas: Mapping[int, Sigma], value: ValueFunction, terms: dict[Term, np.ndarray] | None = None
) -> tuple[np.ndarray, dict[int, int], dict[int, float]]:
    """AIVAT corrections of one hand, ``float64[3, N]`` by kind (deal, board, action) and position.

    ``sigmas`` gives σ at the decisions of the positions whose strategy is known
    (a :class:`LoggedSigma` may run out, leaving later decisions uncorrected).
    ``terms``, if given, receives the corrections term by term (:mod:`dealer.evaluation.terms`).
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
    _add_term(terms, Term("deal"), out[DEAL])
    for action in (a for round_actions in final.actions for a in round_actions):
        actor = state.current_player
        assert actor is not None
        sigma = sigmas[actor](state, action) if actor in sigmas else None
        if sigma is not None:
            correction = _action_correction(state, action, sigma, value)
            out[ACTION] += correction
            used[actor] += 1
            likelihood[actor] *= sigma.probability(action)
            if terms is not None:
                logged = sigmas[actor]
                source = source_of(logged.last) if isinstance(logged, LoggedSigma) else KNOWN_STRATEGY
                _add_term(terms, Term("action", state.round, hand.names[actor], source), correction)
        state, deals = deal_logged_board(state.apply(action), final)
        for before, after in deals:
            correction = value.chance_mean(before) - value.values([after])[0]
            out[BOARD] += correction
            _add_term(terms, Term("board", after.round), correction)
    left = sorted(p for p, s in sigmas.items() if isinstance(s, LoggedSigma) and s.left)
    if left:
        raise AivatError(f"hand {final.hand_number}: decisions logged for position(s) {left} that never acted then")
    return out, used, likelihood


def _action_correction(state: State, taken: Action, sigma: Played, value: ValueFunction) -> np.ndarray:
    """Σ_a σ(a) ṽ(h·a) − ṽ(h·a*) at ``state``."""
    where = f"hand {state.hand_number}, position {state.current_player}"
    mass = sum(sigma.discrete.values()) + (sigma.uniform[0] if sigma.uniform else 0.0)
    if abs(mass - 1) > _PROBABILITY_TOLERANCE:
        raise AivatError(f"{where}: the decision's probabilities sum to {mass:g}, not 1")
    if sigma.probability(taken) <= 0:
        raise AivatError(f"{where}: the action taken, {taken}, had probability 0")
    actions = list(sigma.discrete)
    # The action taken is usually one of σ's point masses: its child is evaluated once.
    taken_row = actions.index(taken) if taken in sigma.discrete else len(actions)
    children = value.values([state.apply(a) for a in actions] + ([state.apply(taken)] if taken_row == len(actions) else []))
    expected = np.asarray([sigma.discrete[a] for a in actions]) @ children[: len(actions)]
    if sigma.uniform is not None:
        expected = expected + sigma.uniform[0] * value.raise_mean(state, sigma.uniform[1], sigma.uniform[2])
    return expected - children[taken_row]
