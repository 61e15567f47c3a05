"""Following the real hand through an abstract betting tree (the blueprint's).

The blueprint knows only its tree's bet sizes.  :func:`walk` replays the hand's real
actions down that tree: folds and calls map to themselves; a raise maps to one of
the tree's raises at that node by pseudoharmonic translation of its pot fraction
(:mod:`solver.translation`), randomized for the opponent's bets and deterministic
for our own (whose sizes come from the tree, so they map back to where they came
from).  Each translation is drawn once per hand and remembered, so later decisions
of the hand see the same abstract history.

Raise wars: a raise at a node where the tree cannot raise any more (its raise cap
for the round is reached, or its only raise is all-in while the real one leaves chips
behind) has no tree action near it; mapping it to the call would end the tree's round
while the real one goes on (to the all-in, put the tree at a showdown).  Libratus maps an off-tree action to
the nearest node of the abstraction: :func:`walk` takes the tree back to the latest
node of the same round where the player now facing the raise faced one before
(:func:`collapse_target`), as if the last raise and re-raise had not happened; the
real pot, which :func:`real_actions` scales sizes by, keeps them.

Libratus rule: an opponent bet that would translate into a call ending the betting
round in the tree (the tree would then deal the next card while in fact we face a
bet) is translated to the tree's smallest raise instead; so is any bet of
:data:`TINY_BET` of the pot or more that would translate into a check (the tree's
answer to a check has no fold).  Likewise a bet that leaves
chips behind is never translated into the tree's all-in (once called, the tree would
be at a showdown while the real hand goes on); it takes the largest other raise.

:func:`real_actions` maps the tree's actions at a node back onto the real state:
a raise keeps its pot fraction (all-in stays all-in), so sizes scale with the real
pot when the abstract history differs from the real one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from protocol.rules import CALL, FOLD, Action, ActionType, State, initial_state, raise_to
from solver.translation import pot_fraction, translate
from solver.tree import DECISION, BettingTree, skip_chance


@dataclass(frozen=True, slots=True)
class Step:
    """One real action on the abstract path: the tree ``node`` it was taken at, the
    tree ``edge`` it maps to, who took it, and whether it was translated."""

    node: int
    edge: int
    player: int
    translated: bool

    @property
    def collapsed(self) -> bool:
        """Whether this raise took the tree back (a raise war past the tree's cap; no edge)."""
        return self.edge < 0


@dataclass
class TranslationMemory:
    """Translations drawn so far this hand, by the action's place in the real betting."""

    edges: dict[tuple[int, int], int] = field(default_factory=dict)


#: An opponent bet below this pot fraction may be read as a check (pseudoharmonic between
#: the check and the smallest bet): answering it as if it were not there costs little,
#: and reading it as a big bet would let tiny bets make us fold.  Larger bets never are.
TINY_BET = 0.2


def _raise_fractions(tree: BettingTree, node: int) -> tuple[list[float], list[int]]:
    """Pot fractions of the call (0) and the raises at ``node``, with their edges."""
    state = tree.states[node]
    fractions, edges = [], []
    start = int(tree.child_start[node])
    for e in range(start, start + int(tree.child_count[node])):
        kind = int(tree.edge_action[e])
        if kind == ActionType.CALL:
            fractions.insert(0, 0.0)
            edges.insert(0, e)
        elif kind == ActionType.RAISE:
            fractions.append(pot_fraction(state, int(tree.edge_size[e])) if tree.game.is_nolimit else 1.0)
            edges.append(e)
    return fractions, edges


def _is_all_in(tree: BettingTree, node: int, edge: int) -> bool:
    bounds = tree.states[node].raise_bounds()
    return bounds is not None and int(tree.edge_size[edge]) >= bounds[1]


def _ends_round(tree: BettingTree, node: int, edge: int) -> bool:
    child = int(tree.children[edge])
    return tree.kind[child] != DECISION or tree.round[child] != tree.round[node]


def translate_action(
    tree: BettingTree, node: int, real: State, action: Action, rng: np.random.Generator | None,
    *, opponent: bool | None = None,
) -> tuple[int, bool] | None:
    """The tree edge at decision ``node`` for ``action`` taken in ``real``; None if none fits.

    ``rng``: randomized translation (the opponent's actions), None for deterministic.
    ``opponent``: whether the opponent's rules apply (never into a round-ending call or,
    unless tiny, a check); by default when ``rng`` is given.
    Returns the edge and whether the action had to be translated (was not in the tree).
    """
    if opponent is None:
        opponent = rng is not None
    start, count = int(tree.child_start[node]), int(tree.child_count[node])
    kinds = [int(tree.edge_action[e]) for e in range(start, start + count)]
    if action.kind != ActionType.RAISE:
        return (start + kinds.index(action.kind), False) if action.kind in kinds else None
    fractions, edges = _raise_fractions(tree, node)
    if len(edges) == 1:  # the tree cannot raise here: the nearest thing is the call
        return edges[0], True
    if not tree.game.is_nolimit:
        return edges[1], False
    exact = [e for e in edges[1:] if int(tree.edge_size[e]) == action.size and tree.states[node].spent == real.spent]
    if exact:
        return exact[0], False
    # Fractions are strictly ascending: the tree's raise sizes are distinct chip amounts.
    fraction = pot_fraction(real, action.size)
    index = translate(fraction, fractions, rng)
    if index == 0 and opponent and (fraction >= TINY_BET or _ends_round(tree, node, edges[0])):
        # Libratus: never translate a bet into a round-ending call.  Nor any but a tiny
        # bet into a check: the tree's answer to a check (check or bet) maps onto the
        # real bet as call or raise, so we could never fold to it.  Measured: with only
        # pot-sized turn and river bets, a 2/3-pot bet read as a check one time in five
        # was called or raised with any hand (422 hands in 25,000 against `equity`).
        index = 1
    bounds = real.raise_bounds()
    short_of_all_in = bounds is not None and action.size < bounds[1]
    if index == len(edges) - 1 and index > 1 and short_of_all_in and _is_all_in(tree, node, edges[index]):
        # Nor a bet that leaves chips behind into the tree's all-in: once called, the tree
        # would run the board out while the real hand still has betting to come.
        index -= 1
    return edges[index], True


def can_raise(tree: BettingTree, node: int, real: State, action: Action) -> bool:
    """Whether decision ``node`` has a raise edge ``action`` (a raise in ``real``) may map
    to: any raise for an all-in, a raise other than the tree's all-in otherwise."""
    bounds = real.raise_bounds()
    all_in = bounds is not None and action.size >= bounds[1]
    start = int(tree.child_start[node])
    return any(
        int(tree.edge_action[e]) == ActionType.RAISE and (all_in or not _is_all_in(tree, node, e))
        for e in range(start, start + int(tree.child_count[node]))
    )


def collapse_target(tree: BettingTree, steps: list[Step], facing: int) -> int | None:
    """Where a raise past the tree's cap takes the tree: the latest node on the path
    (``steps``, this round's part) where tree player ``facing`` acted facing a bet; None if
    there is none this round."""
    if not steps:
        return None
    round_ = int(tree.round[steps[-1].node])
    for step in reversed(steps):
        if int(tree.round[step.node]) != round_:
            return None
        if int(tree.player[step.node]) == facing and tree.states[step.node].amount_to_call() > 0:
            return step.node
    return None


def tree_player(tree: BettingTree, real: State, player: int) -> int:
    """The tree's player in ``player``'s role: the tree's game may seat the blinds the
    other way round (reverse blinds or not), so roles follow who acts first preflop."""
    swapped = tree.game.num_players == 2 and tree.game.first_player[0] != real.game.first_player[0]
    return 1 - player if swapped else player


def walk(
    tree: BettingTree, real: State, memory: TranslationMemory, rng: np.random.Generator, me: int
) -> tuple[int, list[Step]] | None:
    """The tree node the real state ``real`` maps to, and the path there.

    Replays ``real``'s actions from the start of the hand; player ``me``'s actions
    translate deterministically, the others' randomly with ``rng`` (once per action,
    kept in ``memory``).  A raise where the tree cannot raise takes the tree back to
    :func:`collapse_target` (a step with edge -1).  The tree may belong to another game
    of the same shape (other stacks or blinds, blinds seated the other way): sizes
    translate by pot fraction and seats by role.  Steps name the real players.  None if
    the path leaves the tree (a fold the tree does not offer, a raise past the cap with
    no earlier node to go back to) or the node reached is not a decision of the player
    to act.
    """
    node = skip_chance(tree, 0)
    state = initial_state(real.game, real.hand_number)
    steps: list[Step] = []
    for r, (actions, actors) in enumerate(zip(real.actions, real.actors)):
        for i, (action, player) in enumerate(zip(actions, actors)):
            if tree.kind[node] != DECISION:
                return None
            key = (r, i)
            if action.kind == ActionType.RAISE and not can_raise(tree, node, state, action):
                facing = tree_player(tree, real, 1 - player)  # heads-up: the other player faces it
                target = collapse_target(tree, steps, facing)
                if target is not None:
                    steps.append(Step(node, -1, player, True))
                    node, state = target, state.apply(action)
                    continue
            if key in memory.edges:
                edge = memory.edges[key]
                translated = int(tree.edge_action[edge]) != action.kind or int(tree.edge_size[edge]) != action.size
            else:
                found = translate_action(tree, node, state, action, None if player == me else rng)
                if found is None:
                    return None
                edge, translated = found
                memory.edges[key] = edge
            steps.append(Step(node, edge, player, translated))
            node = skip_chance(tree, int(tree.children[edge]))
            state = state.apply(action)
            if tree.kind[node] == DECISION and tree.round[node] != state.round:
                return None  # the tree moved on to another round than the real hand
    if real.finished or tree.kind[node] != DECISION or real.current_player is None:
        return None
    if int(tree.player[node]) != tree_player(tree, real, real.current_player):
        return None
    return node, steps


def real_actions(tree: BettingTree, node: int, real: State) -> tuple[Action, ...]:
    """The tree's actions at ``node`` as actions in ``real`` (raises keep their pot
    fraction, the tree's all-in stays all-in); not yet clamped to the legal range."""
    abstract = tree.states[node]
    out = []
    for action in tree.actions(node):
        if action.kind == ActionType.FOLD:
            out.append(FOLD)
        elif action.kind == ActionType.CALL:
            out.append(CALL)
        elif not tree.game.is_nolimit:
            out.append(action)
        else:
            bounds = abstract.raise_bounds()
            if bounds is not None and action.size >= bounds[1]:
                out.append(raise_to(real.game.stack[real.current_player]))
            else:
                fraction = pot_fraction(abstract, action.size)
                out.append(raise_to(real.max_spent + round(fraction * (real.pot + real.amount_to_call()))))
    return tuple(out)
