"""A blueprint's values for full-range AIVAT (``dealer report --value blueprint``).

The check-down ṽ (:class:`dealer.evaluation.rangeaivat.SeatValues`) says a node is worth
what calling and checking down would win.  After a raise that is far from what the
hand will be worth: the opponent may fold, re-raise or call, and the seat may re-raise
again.  :class:`BlueprintSeatValues` asks the agent's blueprint instead: from a node a
decision leads to, both players play the blueprint for the rest of the betting round
(the seat with its row for each private hand it could hold, the opponent with its row
for the cards the log shows), and the round's end is checked down as before.  It is a
function of the public line and both hands, fixed before the match (the blueprint was
trained offline, never on the evaluated hands).

* The real hand is followed down the blueprint's betting tree as the agent follows it
  (:func:`solver.follow.walk`); the opponent's off-tree sizes are translated with a
  generator seeded by the hand number, so ṽ does not depend on any card.  Tree actions
  are played in the real state at their pot fractions (:func:`solver.follow.real_actions`).
* Board corrections on a round that deals one card (turn, river) average ṽ at the
  round's first node over every card that can come, exactly: per private hand, over the
  cards that hand leaves in the deck.  The flop's stay check-down: 19,600 flops at about
  25 ms of bucketing each is too much per hand.
* The deal correction uses the exact mean of ṽ over every deal.  It depends only on the
  game and the position; zero-sum makes one position's the negative of the other's, and
  with a lossless preflop abstraction (169 classes) the mean over the opponent's cards
  is a mean over the 169 suit-isomorphism classes.

Each correction keeps its own ṽ in its expected and its realised term, so each is
zero-mean and the estimator is unbiased whatever the blueprint; how much spread it
removes depends on how well the blueprint predicts the players.  Cost: tens of
milliseconds per hand (a preflop round's subtree has thousands of nodes), plus about
20 s once per game for the deal mean; the check-down default stays under 5 ms.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from dealer.evaluation.margins import ShowdownMargins, is_holdem
from dealer.evaluation.rangeaivat import CheckDown, SeatValues
from dealer.evaluation.values import AivatError
from precompute.blueprint import Blueprint
from protocol.cards import card_rank, card_suit, deck
from protocol.gamedef import GameDef
from protocol.rules import State, initial_state
from solver.follow import TranslationMemory, real_actions, skip_chance, walk
from solver.tree import DECISION

#: Salt of the generator that translates the opponent's off-tree sizes (with the hand number).
_TRANSLATION_SALT = 7


class BlueprintSeatValues(SeatValues):
    """ṽ from the blueprint for one seat in one hand (see the module doc)."""

    def __init__(
        self, source: BlueprintValue, game: GameDef, margins: ShowdownMargins, opponent: tuple[int, ...], position: int
    ) -> None:
        super().__init__(game, margins, opponent, position)
        self.source = source
        self.blueprint = source.blueprint
        self.tree = source.blueprint.tree
        self._walked: dict[tuple[int, str, tuple[int, ...]], np.ndarray | float] = {}

    def after(self, state: State) -> np.ndarray | float:
        return self.round_value(state)

    def deal(self, dealt: State, before_deal: float) -> np.ndarray | float:
        return self.source.deal_mean(self.game, self.margins, self.position) - self.round_value(dealt)

    def board(self, before: State, after: State) -> np.ndarray | float:
        if len(after.board) - len(before.board) != 1:
            return super().board(before, after)
        return self.card_mean(after) - self.round_value(after)

    def card_mean(self, after: State) -> np.ndarray:
        """Mean of :meth:`round_value` over the last board card of ``after``, per private hand."""
        board = tuple(after.board[:-1])
        seen = set(board) | set(self.opponent)
        total = np.zeros(len(self.margins.hands))
        count = np.zeros(len(self.margins.hands))
        for card in deck(self.game):
            if card in seen:
                continue
            free = self.margins.compatible((card,))
            total[free] += np.broadcast_to(self.round_value(replace(after, board=(*board, card))), total.shape)[free]
            count[free] += 1
        return total / np.maximum(count, 1)

    def round_value(self, state: State) -> np.ndarray | float:
        """ṽ at ``state``: the blueprint plays both seats to the end of the betting round, then check-down."""
        if not self._in_round(state):
            return self.checkdown(state)
        found = walk(
            self.tree, state, TranslationMemory(), np.random.default_rng([state.hand_number, _TRANSLATION_SALT]), self.position
        )
        if found is None:
            return self.checkdown(state)
        return self._play(state, found[0])

    def _in_round(self, state: State) -> bool:
        """Whether someone is to act with the round's board cards out."""
        return (
            not state.finished
            and state.current_player is not None
            and len(state.board) >= self.game.board_cards_through(state.round)
        )

    def _play(self, state: State, node: int) -> np.ndarray | float:
        # One hand asks for the same subtrees again and again (the deal's walk from the
        # first decision holds every later decision's children): each is walked once.
        key = (node, state.betting, state.board)
        if key not in self._walked:
            self._walked[key] = self._walk_round(state, node)
        return self._walked[key]

    def _walk_round(self, state: State, node: int) -> np.ndarray | float:
        tree = self.tree
        if not self._in_round(state) or tree.kind[node] != DECISION or int(tree.round[node]) != state.round:
            return self.checkdown(state)
        if state.current_player == self.position:
            probs = self.blueprint.range_strategy(node, state.board)
        else:
            probs = self.blueprint.strategy_at(node, self.opponent, state.board)
        value: np.ndarray | float = 0.0
        start = int(tree.child_start[node])
        for j, action in enumerate(real_actions(tree, node, state)):
            weight = probs[..., j]
            if not weight.any():
                continue
            child = state.apply(state.fix_action(action)[0])
            value = value + weight * self._play(child, skip_chance(tree, int(tree.children[start + j])))
        return value


class BlueprintValue(CheckDown):
    """Makes :class:`BlueprintSeatValues` from one blueprint (the shipped one by default).

    Raises:
        AivatError: if the game is not heads-up no-limit hold'em, which the blueprint plays.
    """

    name = "blueprint"

    def __init__(self, blueprint: Blueprint | None = None, path: Path | None = None) -> None:
        self.blueprint = blueprint if blueprint is not None else Blueprint.load(path)
        self._deal_means: dict[tuple[GameDef, int], float] = {}

    def hand(
        self, game: GameDef, margins: ShowdownMargins, opponent: tuple[int, ...], position: int
    ) -> SeatValues:
        """ṽ of ``position`` in one hand against the ``opponent``'s cards."""
        if not (is_holdem(game) and game.is_nolimit and game.num_rounds == self.blueprint.game.num_rounds):
            raise AivatError("the blueprint value function handles heads-up no-limit hold'em only")
        return BlueprintSeatValues(self, game, margins, opponent, position)

    def deal_mean(self, game: GameDef, margins: ShowdownMargins, position: int) -> float:
        """The mean over every deal of ṽ at the first decision, for ``position`` (cached)."""
        if (game, position) not in self._deal_means:
            mean = self._deal_mean(game, margins, 0)
            self._deal_means[(game, 0)], self._deal_means[(game, 1)] = mean, -mean
        return self._deal_means[(game, position)]

    def _deal_mean(self, game: GameDef, margins: ShowdownMargins, position: int) -> float:
        hands = [tuple(int(c) for c in h) for h in margins.hands]
        classes: dict[tuple, list[tuple[int, ...]]] = {}
        lossless = self.blueprint.cards.n_buckets[0] == 169
        for h in hands:
            ranks = sorted(map(card_rank, h))
            key = (*ranks, card_suit(h[0]) == card_suit(h[1])) if lossless else h
            classes.setdefault(key, []).append(h)
        total = 0.0
        for members in classes.values():
            opponent = members[0]
            values = self.hand(game, margins, opponent, position)
            ours = next(h for h in hands if not set(h) & set(opponent))
            holes = [ours, ours]
            holes[1 - position] = opponent
            value = values.round_value(initial_state(game, 0, tuple(holes), ()))
            free = margins.compatible(opponent)
            total += len(members) * float(np.broadcast_to(value, free.shape)[free].mean())
        return total / len(hands)
