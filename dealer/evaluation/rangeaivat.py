"""AIVAT over a seat's whole range, from the rows its decision log carries (heads-up).

A seat that logs its strategy for every private hand at each decision
(:class:`protocol.decisions.LoggedRange`: our agent) lets AIVAT average over every hand it
could have held (imaginary observations, Burch et al. 2018), not only correct the one it
held.  Given the public line, the opponent's cards (the dealer's log shows them) and the
board, the seat's private hand ``h`` has posterior ∝ [h meets none of those cards] ×
reach(h), its own probability of the actions it took holding ``h``: the deal is
uniform, and the opponent's play depends on its cards and the public line only.  So
the reach-weighted average of the AIVAT estimate over ``h`` is a conditional
expectation of an unbiased estimate: unbiased, and never more spread.  For each ``h``
the estimate is the outcome holding ``h`` plus

* the deal correction, and one chance correction per board deal;
* at each of the seat's decisions, Σ_a σ(h, a) ṽ(h·a) − ṽ(h·a*), σ(h, ·) its logged row;
* nothing at the opponent's decisions, whose strategy is unknown, unless it logged the
  distributions it drew from (for the cards it held, which are the dealer's log's): then
  the usual correction, with ṽ for each private hand of the seat.

The rows may differ from one hand to the next at the same public node (a subgame solve,
a random bet-size scale): the estimator stays unbiased as long as whatever makes them differ
is drawn independently of the cards the seat holds, as the agent's solves and scales are.

ṽ is the check-down value (:class:`dealer.evaluation.values.CheckDownValue`): each player
calls, the board runs out, ``margin(h) · min(called)`` for the seat (zero-sum, so the
opponent gets the negative), with the exact margins of :mod:`dealer.evaluation.margins`.
Its mean over the next board cards is ṽ before them (an exact average over completions
is a martingale), so a chance correction is ṽ before the cards minus ṽ after them.
Everything is a vector over the private hands: a hand costs one margin vector per board
dealt and a few vector operations per node.  That is :class:`SeatValues`, the default; a
value function that knows more overrides its hooks (``dealer report --value blueprint``:
:mod:`dealer.evaluation.blueprintvalue`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dealer.evaluation.margins import ShowdownMargins
from dealer.evaluation.terms import Term, source_of
from dealer.evaluation.values import AivatError, CheckDownValue, deal_logged_board
from protocol.decisions import ROW_TOTAL, Decision
from protocol.errors import ProtocolError
from protocol.gamedef import GameDef
from protocol.rules import Action, State, initial_state, raise_to
from protocol.wire import LoggedHand, format_matchstate, parse_action, view_for

#: Correction kinds, as :data:`dealer.evaluation.aivat.KINDS`.
DEAL, BOARD, ACTION, IMAGINARY = range(4)
_ROW_TOLERANCE = 1e-9


def has_ranges(decisions: Sequence[Decision]) -> bool:
    """Whether every one of these decisions carries the seat's whole range (and no uniform raise)."""
    return bool(decisions) and all(d.range is not None and d.uniform_raise is None for d in decisions)


class SeatValues:
    """ṽ of one seat for every private hand it could hold, in one hand: the opponent's
    cards are known (the dealer's log shows them) and the board so far is the state's.

    This base is the check-down value (the module doc); a subclass may value the nodes
    the seat's and the opponent's decisions lead to (:meth:`after`) and the deal and
    board corrections differently.  Each correction is zero-mean on its own, so each may
    use its own ṽ: the estimator stays unbiased; only its spread depends on the choice.
    """

    def __init__(self, game: GameDef, margins: ShowdownMargins, opponent: tuple[int, ...], position: int) -> None:
        self.game, self.margins, self.opponent, self.position = game, margins, opponent, position
        self._margins: dict[tuple[int, ...], np.ndarray] = {}

    def margin(self, board: tuple[int, ...]) -> np.ndarray:
        """Showdown margins of every private hand against the opponent's on ``board`` (cached)."""
        if board not in self._margins:
            self._margins[board] = self.margins.margins(self.opponent, board)
        return self._margins[board]

    def checkdown(self, state: State) -> np.ndarray | float:
        """The check-down ṽ at ``state`` (a float where it does not depend on the seat's hand)."""
        position = self.position
        if state.folded[position]:
            return -float(state.spent[position])
        if state.folded[1 - position]:
            return float(state.spent[1 - position])
        called = [min(state.max_spent, self.game.stack[p]) for p in range(2)]
        return self.margin(state.board) * float(min(called))

    def after(self, state: State) -> np.ndarray | float:
        """ṽ at a node a decision leads to (action corrections use it)."""
        return self.checkdown(state)

    def deal(self, dealt: State, before_deal: float) -> np.ndarray | float:
        """The deal correction: the mean of ṽ over the deal (``before_deal``, the
        check-down's) minus ṽ once the hands are ``dealt``."""
        return before_deal - self.checkdown(dealt)

    def board(self, before: State, after: State) -> np.ndarray | float:
        """A board correction: the mean of ṽ over the cards dealt between ``before`` and
        ``after`` minus ṽ at ``after`` (the check-down's mean is ṽ at ``before``)."""
        return self.checkdown(before) - self.checkdown(after)


class CheckDown:
    """Makes the check-down :class:`SeatValues` of each hand (the default)."""

    name = "check-down"

    def hand(
        self, game: GameDef, margins: ShowdownMargins, opponent: tuple[int, ...], position: int
    ) -> SeatValues:
        """ṽ of ``position`` in one hand against the ``opponent``'s cards."""
        return SeatValues(game, margins, opponent, position)


class RangeAivat:
    """AIVAT of heads-up hands over the whole range of one seat (see the module doc).

    ``seat_values`` chooses ṽ (:class:`CheckDown` by default; a blueprint's values:
    :mod:`dealer.evaluation.blueprintvalue`).
    """

    def __init__(self, value: CheckDownValue, seat_values: CheckDown | None = None) -> None:
        self.value = value
        self.game = value.game
        self.seat_values = seat_values or CheckDown()
        self.margins = ShowdownMargins(self.game)
        self.hand_index = {tuple(int(c) for c in h): i for i, h in enumerate(self.margins.hands)}

    def corrections(
        self,
        hand: LoggedHand,
        position: int,
        decisions: Sequence[Decision],
        opponent_sigma: Callable[..., Any] | None = None,
        terms: list[tuple[Term, float]] | None = None,
    ) -> tuple[np.ndarray, int]:
        """Corrections of one hand, ``float64[4, 2]`` by kind (deal, board, action,
        imaginary) and position, averaged over ``position``'s private hands; and how
        many of the opponent's decisions were corrected.

        ``opponent_sigma``: σ at the opponent's decisions where it is known
        (:data:`dealer.evaluation.aivat.Sigma`, e.g. from its decision log), or None.
        ``terms``: if given, receives every correction term, as ``position`` wins it
        (:mod:`dealer.evaluation.terms`; they sum to the corrections).

        Raises:
            AivatError: if the decisions contradict the match log or their ranges are unusable.
        """
        final = hand.state
        game = self.game
        opponent = tuple(final.hole_cards[1 - position])
        held = self.hand_index.get(tuple(sorted(final.hole_cards[position])))
        if held is None:
            raise AivatError(f"hand {final.hand_number}: position {position}'s hole cards are not in the log")
        compatible = self.margins.compatible(opponent + tuple(final.board))
        reach = np.ones(len(self.margins.hands))
        per_hand = np.zeros((IMAGINARY, len(reach)))
        values = self.seat_values.hand(game, self.margins, opponent, position)

        dealt = game.num_board_cards[0]
        state = initial_state(game, final.hand_number, final.hole_cards, final.board[:dealt])
        before_deal = initial_state(game, final.hand_number)
        per_hand[DEAL] += values.deal(state, float(self.value.chance_mean(before_deal)[position]))
        # Each term as a vector over the private hands, averaged with the final weights below.
        parts: list[tuple[Term, Any]] | None = None if terms is None else [(Term("deal"), per_hand[DEAL].copy())]
        pending = list(decisions)
        corrected = 0
        for action in (a for round_actions in final.actions for a in round_actions):
            played = opponent_sigma(state, action) if opponent_sigma is not None and state.current_player != position else None
            if played is not None:
                # A uniform range of raise sizes is averaged in closed form for the check-down only.
                value = values.checkdown if played.uniform is not None else values.after
                children = {a: value(state.apply(a)) for a in played.discrete}
                expected = sum(p * children[a] for a, p in played.discrete.items())
                if played.uniform is not None:
                    mass, low, high = played.uniform
                    expected = expected + mass * self._raise_mean(state, low, high, values.margin)
                taken_value = children[action] if action in children else value(state.apply(action))
                per_hand[ACTION] += expected - taken_value
                corrected += 1
                if parts is not None:
                    source = source_of(getattr(opponent_sigma, "last", None))
                    parts.append((Term("action", state.round, hand.names[1 - position], source), expected - taken_value))
            if state.current_player == position:
                if not pending:
                    raise AivatError(f"hand {final.hand_number}: position {position} acted more often than it logged")
                decision = pending.pop(0)
                sigma, taken = self._sigma(state, action, decision, held)
                children = {a: values.after(state.apply(a)) for a in sigma}
                expected = sum(sigma[a] * children[a] for a in sigma)
                per_hand[ACTION] += expected - children[taken]
                reach *= sigma[taken]
                if parts is not None:
                    term = Term("action", state.round, hand.names[position], source_of(decision))
                    parts.append((term, expected - children[taken]))
            state, deals = deal_logged_board(state.apply(action), final)
            for before, after in deals:
                per_hand[BOARD] += values.board(before, after)
                if parts is not None:
                    parts.append((Term("board", after.round), values.board(before, after)))
        if pending:
            raise AivatError(f"hand {final.hand_number}: decisions logged for position {position} that never acted then")
        outcome = values.checkdown(state) + np.zeros(len(reach))
        if abs(outcome[held] - hand.values[position]) > 1e-6:
            raise AivatError(f"hand {final.hand_number}: the log's result {hand.values[position]} is not the hand's outcome")
        weight = np.where(compatible, reach, 0.0)
        if weight[held] <= 0:
            raise AivatError(f"hand {final.hand_number}: position {position}'s range gives its own hand no reach")
        weight /= weight.sum()
        out = np.zeros((4, 2))
        out[:IMAGINARY, position] = per_hand @ weight
        out[IMAGINARY, position] = outcome @ weight - hand.values[position]
        out[:, 1 - position] = -out[:, position]
        if terms is not None and parts is not None:
            terms += [(term, float(np.sum(np.multiply(part, weight)))) for term, part in parts]
            terms.append((Term("imaginary"), float(out[IMAGINARY, position])))
        return out, corrected

    def _raise_mean(self, state: State, low: int, high: int, margin: Callable[[tuple[int, ...]], np.ndarray]) -> np.ndarray:
        """Mean ṽ of the seat over an opponent's raise to each of ``low..high`` (uniform)."""
        after = state.apply(raise_to(low))
        sizes = np.arange(low, high + 1, dtype=np.float64)
        # Both players call the raise as far as their stacks allow.
        called = np.minimum(np.minimum(sizes, self.game.stack[0]), self.game.stack[1])
        return margin(after.board) * float(called.mean())

    def _sigma(self, state: State, taken: Action, decision: Decision, held: int) -> tuple[dict[Action, np.ndarray], Action]:
        """σ of every private hand over the actions the dealer plays here, and the one taken."""
        position = state.current_player
        where = f"hand {state.hand_number}, position {position}"
        seen = format_matchstate(view_for(state, position))  # type: ignore[arg-type]
        if decision.state != seen:
            raise AivatError(f"{where}: the decision log acted on {decision.state!r} but the match log gives {seen!r}")
        if decision.range is None or decision.uniform_raise is not None:
            raise AivatError(f"{where}: the decision carries no range")
        try:
            sent = state.fix_action(parse_action(decision.taken, state.game))[0]
            columns = [state.fix_action(parse_action(a, state.game))[0] for a, _ in decision.probs]
        except ProtocolError as exc:
            raise AivatError(f"{where}: unreadable decision ({exc})") from None
        if sent != taken:
            raise AivatError(f"{where}: the decision log sent {decision.taken!r} but the match log shows {taken}")
        counts = decision.range.counts()
        if counts.shape[0] != len(self.margins.hands):
            raise AivatError(f"{where}: the range has {counts.shape[0]} hands, the game {len(self.margins.hands)}")
        held_row = counts[held] / ROW_TOTAL
        if any(abs(p - q) > _ROW_TOLERANCE for (_, p), q in zip(decision.probs, held_row)):
            raise AivatError(f"{where}: the range's row for the hand held is not the distribution logged")
        sigma: dict[Action, np.ndarray] = {}
        for j, action in enumerate(columns):
            column = counts[:, j] / ROW_TOTAL
            sigma[action] = sigma[action] + column if action in sigma else column
        if taken not in sigma or sigma[taken][held] <= 0:
            raise AivatError(f"{where}: the action taken, {taken}, had probability 0")
        return sigma, taken
