"""The rules of a hand, exactly as the ACPC reference dealer plays them.

One implementation for everything (dealer, agent, tree builder, AIVAT replay).  A
:class:`State` is immutable: :meth:`State.apply` returns the successor.  Derived
facts (whose turn, raise bounds, round) are computed once by the single transition
function :func:`_advance` when a state is made, so they cannot go stale.

Amounts are chips put in over the whole hand, blinds included; a no-limit raise is
written as its raise-to total, as on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum

from protocol.errors import IllegalActionError
from protocol.gamedef import MAX_RANKS, MAX_SUITS, GameDef

#: The reference caps actions per round; a raise needs room for everyone to answer it.
MAX_ACTIONS_PER_ROUND = 64


class ActionType(IntEnum):
    FOLD = 0
    CALL = 1
    RAISE = 2


_ACTION_CHAR = "fcr"


@dataclass(frozen=True, slots=True)
class Action:
    """One betting action.  ``size`` is the raise-to total in no-limit, else 0."""

    kind: ActionType
    size: int = 0

    def __str__(self) -> str:
        text = _ACTION_CHAR[self.kind]
        return f"{text}{self.size}" if self.kind == ActionType.RAISE and self.size else text


FOLD = Action(ActionType.FOLD)
CALL = Action(ActionType.CALL)
LIMIT_RAISE = Action(ActionType.RAISE)


def raise_to(amount: int) -> Action:
    """A no-limit raise to ``amount`` chips in total."""
    return Action(ActionType.RAISE, amount)


@dataclass(frozen=True, slots=True)
class State:
    """A hand in progress or finished.

    ``actions[r]`` / ``actors[r]`` hold round ``r``'s actions and who took them, for
    rounds up to ``round``.  ``hole_cards[p]`` is ``()`` when unknown to the holder
    of this state; ``board`` holds the board cards known so far, all rounds flat.
    Build the first state with :func:`initial_state`.
    """

    game: GameDef
    hand_number: int
    actions: tuple[tuple[Action, ...], ...]
    actors: tuple[tuple[int, ...], ...]
    round: int
    spent: tuple[int, ...]
    folded: tuple[bool, ...]
    max_spent: int
    min_raise_to: int
    finished: bool
    hole_cards: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]
    current_player: int | None = field(default=None)
    #: The betting as on the wire (``cr300c/cc/r250``), kept by the transition function.
    betting: str = ""

    # --- queries ---------------------------------------------------------------

    @property
    def num_folded(self) -> int:
        return sum(self.folded)

    @property
    def num_acting(self) -> int:
        """Players who have neither folded nor gone all-in."""
        stack = self.game.stack
        return sum(1 for p, f in enumerate(self.folded) if not f and self.spent[p] < stack[p])

    @property
    def num_raises_this_round(self) -> int:
        return sum(1 for a in self.actions[self.round] if a.kind == ActionType.RAISE)

    @property
    def pot(self) -> int:
        return sum(self.spent)

    @property
    def is_showdown(self) -> bool:
        """Finished with at least two players left in."""
        return self.finished and self.num_folded + 1 < self.game.num_players

    def raise_bounds(self) -> tuple[int, int] | None:
        """Legal raise-to range ``(min, max)``, or None if raising is not allowed.

        In limit games both bounds are the raise-to amount a raise produces.
        """
        if self.finished:
            return None
        g = self.game
        if self.num_raises_this_round >= g.max_raises[self.round]:
            return None
        if len(self.actions[self.round]) + g.num_players > MAX_ACTIONS_PER_ROUND:
            return None
        if self.num_acting <= 1:
            return None
        p = self.current_player
        assert p is not None
        stack = g.stack[p]
        if not g.is_nolimit:
            amount = min(self.max_spent + g.raise_size[self.round], stack)
            return amount, amount
        low = self.min_raise_to
        if low > stack:
            if self.max_spent >= stack:
                return None
            low = stack
        return low, stack

    def can_fold(self) -> bool:
        """Folding is legal only when the player owes chips (and is not all-in)."""
        if self.finished:
            return False
        p = self.current_player
        assert p is not None
        return self.spent[p] != self.max_spent and self.spent[p] != self.game.stack[p]

    def legal_action_types(self) -> list[ActionType]:
        """Legal kinds of action for the player to act, in f, c, r order."""
        if self.finished:
            return []
        kinds = [ActionType.FOLD] if self.can_fold() else []
        kinds.append(ActionType.CALL)
        if self.raise_bounds() is not None:
            kinds.append(ActionType.RAISE)
        return kinds

    def amount_to_call(self) -> int:
        """Chips the player to act must add to call (less if that puts it all-in)."""
        p = self.current_player
        if p is None:
            return 0
        return min(self.max_spent, self.game.stack[p]) - self.spent[p]

    def illegal_reason(self, action: Action) -> str | None:
        """Why ``action`` is not legal here (a sentence), or None if it is."""
        if self.finished:
            return "the hand is finished, so no player can act"
        if action.kind == ActionType.FOLD:
            if not self.can_fold():
                return "folding is not allowed when there is nothing to call"
            return None if action.size == 0 else "a fold carries no size"
        if action.kind == ActionType.CALL:
            return None if action.size == 0 else "a call carries no size"
        bounds = self.raise_bounds()
        if bounds is None:
            return "raising is not allowed here"
        if not self.game.is_nolimit:
            return None if action.size == 0 else "a limit raise carries no size"
        low, high = bounds
        if not low <= action.size <= high:
            return f"a raise to {action.size} is outside the legal range {low}..{high}"
        return None

    def fix_action(self, action: Action) -> tuple[Action, list[str]]:
        """What the reference dealer plays instead of ``action``, and its warnings.

        Raise sizes are clamped into range ("raise of X increased to Y"); anything
        still invalid becomes a call ("invalid action, changed to call").
        """
        warnings: list[str] = []
        if self.finished:
            raise IllegalActionError("the hand is finished, so no player can act")
        if action.kind == ActionType.RAISE:
            bounds = self.raise_bounds()
            if bounds is not None:
                if not self.game.is_nolimit:
                    return LIMIT_RAISE, warnings
                low, high = bounds
                if action.size < low:
                    warnings.append(f"raise of {action.size} increased to {low}")
                    return raise_to(low), warnings
                if action.size > high:
                    warnings.append(f"raise of {action.size} decreased to {high}")
                    return raise_to(high), warnings
                return action, warnings
        elif action.kind == ActionType.FOLD:
            if self.can_fold():
                return FOLD, warnings
        else:
            return CALL, warnings
        warnings.append("invalid action, changed to call")
        return CALL, warnings

    def apply(self, action: Action) -> State:
        """The state after ``action``.

        Raises:
            IllegalActionError: if the action is not legal here (see :meth:`fix_action`
                for the reference dealer's lenient treatment).
        """
        reason = self.illegal_reason(action)
        if reason is not None:
            raise IllegalActionError(f"{reason} (hand {self.hand_number}, betting {self.betting!r})")
        return _advance(self, action)

    def values(self) -> tuple[float, ...]:
        """Chips won (+) or lost (-) by each position in a finished hand.

        A showdown needs the hole cards of every player still in and the full board.
        """
        if not self.finished:
            raise IllegalActionError("values are defined only for finished hands")
        ranks = _showdown_ranks(self) if self.is_showdown else {}
        return tuple(_value_of(self, p, ranks) for p in range(self.game.num_players))

    def visible_hole_cards(self, position: int) -> tuple[tuple[int, ...], ...]:
        """The hole cards ``position`` may see: its own, and at the end of a
        showdown those of every player who did not fold.  Never a folded hand."""
        reveal = self.is_showdown
        return tuple(
            cards if p == position or (reveal and not self.folded[p]) else ()
            for p, cards in enumerate(self.hole_cards)
        )

    def visible_to(self, position: int) -> State:
        """This state as ``position`` may see it (hole cards and board so far)."""
        holes = self.visible_hole_cards(position)
        board = self.board[: self.game.board_cards_through(self.round)]
        if holes == self.hole_cards and board == self.board:
            return self
        return replace(self, hole_cards=holes, board=board)


def initial_state(
    game: GameDef,
    hand_number: int = 0,
    hole_cards: tuple[tuple[int, ...], ...] | None = None,
    board: tuple[int, ...] = (),
) -> State:
    """The state before the first action: blinds posted, nobody folded."""
    max_spent = max(game.blind)
    if game.is_nolimit:
        # The first raise must call the big blind and raise by at least as much.
        min_raise_to = 2 * max_spent if max_spent else 1
    else:
        min_raise_to = 0
    spent = tuple(game.blind)
    folded = (False,) * game.num_players
    return State(
        game=game,
        hand_number=hand_number,
        actions=((),),
        actors=((),),
        round=0,
        spent=spent,
        folded=folded,
        max_spent=max_spent,
        min_raise_to=min_raise_to,
        finished=False,
        hole_cards=hole_cards if hole_cards is not None else ((),) * game.num_players,
        board=tuple(board),
        current_player=_next_player(game, spent, folded, game.first_player[0] + game.num_players - 1),
    )


def with_cards(state: State, hole_cards: tuple[tuple[int, ...], ...], board: tuple[int, ...]) -> State:
    """``state`` with its cards replaced (e.g. the dealer's deal, or a log's reveal)."""
    # Spelled out rather than dataclasses.replace: this is on every parse's path.
    return State(
        state.game, state.hand_number, state.actions, state.actors, state.round, state.spent, state.folded,
        state.max_spent, state.min_raise_to, state.finished, tuple([tuple(h) for h in hole_cards]), tuple(board),
        state.current_player, state.betting,
    )  # fmt: skip


def start_of_round(state: State) -> State:
    """``state`` as it was when its round began (no action of the round yet), with the
    same cards: the earlier rounds' actions replayed from the hand's start."""
    start = initial_state(state.game, state.hand_number)
    for actions in state.actions[: state.round]:
        for action in actions:
            start = start.apply(action)
    return with_cards(start, state.hole_cards, state.board)


def _next_player(game: GameDef, spent: tuple[int, ...], folded: tuple[bool, ...], after: int) -> int:
    """The next player after ``after`` who has not folded and is not all-in."""
    n = after
    for _ in range(game.num_players):
        n = (n + 1) % game.num_players
        if not folded[n] and spent[n] < game.stack[n]:
            return n
    raise AssertionError("no player can act in an unfinished hand")


def _num_called(state_actions: tuple[Action, ...], actors: tuple[int, ...], spent: tuple[int, ...], game: GameDef) -> int:
    """Players still able to act who have matched the current bet this round."""
    count = 0
    for action, p in zip(reversed(state_actions), reversed(actors)):
        if action.kind == ActionType.RAISE:
            # The raiser has called its own bet.
            return count + (1 if spent[p] < game.stack[p] else 0)
        if action.kind == ActionType.CALL and spent[p] < game.stack[p]:
            count += 1
    return count


def _advance(state: State, action: Action) -> State:
    """The single transition function: apply a legal ``action`` to ``state``."""
    g = state.game
    p = state.current_player
    assert p is not None
    spent = list(state.spent)
    folded = list(state.folded)
    max_spent = state.max_spent
    min_raise_to = state.min_raise_to
    if action.kind == ActionType.FOLD:
        folded[p] = True
    elif action.kind == ActionType.CALL:
        spent[p] = min(max_spent, g.stack[p])
    else:
        if g.is_nolimit:
            # The next raise must call this one and raise by at least as much.
            min_raise_to = max(min_raise_to, 2 * action.size - max_spent)
            max_spent = action.size
        else:
            max_spent = min(max_spent + g.raise_size[state.round], g.stack[p])
        spent[p] = max_spent
    r = state.round
    actions = state.actions[:r] + (state.actions[r] + (action,),)
    actors = state.actors[:r] + (state.actors[r] + (p,),)
    spent_t, folded_t = tuple(spent), tuple(folded)

    finished = False
    new_round = r
    # One pass rather than two sums: every parse of a betting string runs this.
    num_folded = num_acting = 0
    for q in range(g.num_players):
        if folded[q]:
            num_folded += 1
        elif spent[q] < g.stack[q]:
            num_acting += 1
    if num_folded + 1 >= g.num_players:
        finished = True
    elif _num_called(actions[r], actors[r], spent_t, g) >= num_acting:
        if num_acting > 1:
            if r + 1 < g.num_rounds:
                new_round = r + 1
                min_raise_to = max_spent + max(max(g.blind), 1)
            else:
                finished = True
        else:
            # Nobody can bet any more: run the board out to a showdown.
            finished = True
            new_round = g.num_rounds - 1
    betting = state.betting + str(action)
    if new_round != r:
        actions = actions + ((),) * (new_round - r)
        actors = actors + ((),) * (new_round - r)
        betting += "/" * (new_round - r)

    if finished:
        current = None
    elif new_round != r:
        current = _next_player(g, spent_t, folded_t, g.first_player[new_round] + g.num_players - 1)
    else:
        current = _next_player(g, spent_t, folded_t, p)
    # Positional: keyword arguments make this constructor a third slower.
    return State(
        g, state.hand_number, actions, actors, new_round, spent_t, folded_t, max_spent, min_raise_to, finished,
        state.hole_cards, state.board, current, betting,
    )  # fmt: skip


def showdown_rank(state: State, player: int) -> int:
    """Rank of ``player``'s best hand with the board visible in ``state``'s round."""
    cards = state.hole_cards[player]
    n_board = state.game.board_cards_through(state.round)
    if len(cards) != state.game.num_hole_cards or len(state.board) < n_board:
        raise IllegalActionError(
            f"showdown in hand {state.hand_number} needs player {player}'s hole cards and {n_board} board cards"
        )
    hand = cards + state.board[:n_board]
    # Imported here, not at the top: rules are all a client needs, and it must not pay
    # for numba (see protocol.cards); after the first showdown this is a dict look-up.
    from protocol.fasteval import fast_rank_hand
    from protocol.handrank import rank_hand

    g = state.game
    # The tables cover the full deck; small decks (Kuhn, Leduc) keep the general kernel,
    # which returns the same integers, so they never pay for building the tables.
    if g.num_suits == MAX_SUITS and g.num_ranks == MAX_RANKS and 5 <= len(hand) <= 7:
        return fast_rank_hand(hand)
    return rank_hand(hand)


def _showdown_ranks(state: State) -> dict[int, int]:
    """Showdown rank of each player who did not fold and put chips in."""
    return {
        q: showdown_rank(state, q)
        for q in range(state.game.num_players)
        if state.spent[q] > 0 and not state.folded[q]
    }


def _value_of(state: State, player: int, ranks: dict[int, int]) -> float:
    """Chips ``player`` wins or loses; side pots as the reference computes them.

    ``ranks``: :func:`_showdown_ranks`, needed only when two or more players are left.
    """
    g = state.game
    if state.folded[player]:
        return float(-state.spent[player])
    if state.num_folded + 1 == g.num_players:
        return float(sum(s for q, s in enumerate(state.spent) if q != player))
    # Players who put chips in contest the pots; folded ones can win nothing.
    entries = [
        [state.spent[q], -1 if state.folded[q] else ranks[q], q == player]
        for q in range(g.num_players)
        if state.spent[q] > 0
    ]
    value = 0.0
    # Peel off the smallest remaining contribution as one pot at a time.
    while True:
        size = min(e[0] for e in entries)
        best = max(e[1] for e in entries)
        winners = sum(1 for e in entries if e[1] == best)
        mine = next(e for e in entries if e[2])
        if mine[1] == best:
            value += (size * (len(entries) - winners)) / winners
        else:
            value -= size
        for e in entries:
            e[0] -= size
        if mine[0] == 0:
            return value
        entries = [e for e in entries if e[0] > 0]
