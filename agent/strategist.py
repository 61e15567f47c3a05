"""The agent's strategist: blueprint with action translation, then subgame solving.

Preflop, flop and turn come from the blueprint: the real hand is followed down the
blueprint's betting tree (:mod:`solver.follow`: randomized pseudoharmonic
translation of the opponent's off-tree bets, the Libratus rule), and the blueprint's
strategy at that node is read for every private hand.  On the river (on the turn
once no raise is possible) :class:`agent.solving.SolvingStage` solves subgames in
real time, safely against the blueprint's values there; when it cannot (no time left, a solve without an iteration) the
blueprint answers.  Where the real call is cheaper than the tree's (a bet translated
up), the blueprint's folds shrink in proportion (:func:`cheaper_calls`).  Raises past
the tree's cap go back to the round's last node facing a raise
(:func:`solver.follow.walk`); a hand the tree still cannot follow is checked or
called where no subgame is solved (source ``off-tree``).  ``--blueprint-only`` never
solves.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numba
import numpy as np
import structlog

from agent.allin import call_or_fold, nothing_left_to_decide
from agent.blueprint_view import BlueprintSource, BlueprintView, can_value, opponent_reach
from agent.player import HandContext
from agent.strategy import RangeStrategy
from agent.timing import TimeManager
from protocol.fasteval import HOLE_PAIRS
from protocol.gamedef import GameDef
from protocol.rules import CALL, FOLD, Action, ActionType, State
from protocol.seeding import SIZES, TRANSLATION, reseed
from protocol.wire import MatchState
from solver.action_floor import ACTION_FLOOR, threshold
from solver.follow import Step, TranslationMemory, real_actions, walk
from solver.tree import DECISION

if TYPE_CHECKING:  # the solving stage (and its numba kernels) loads only when used
    from agent.solving import SolveSettings, SolvingStage


log = structlog.get_logger("agent.strategist")


class StrategistError(Exception):
    """The agent cannot be assembled (wrong game, missing or mismatched blueprint)."""


#: Index of a sorted hole pair in ``HOLE_PAIRS`` (the order of every range).
HOLE_INDEX = {tuple(sorted(h)): i for i, h in enumerate(HOLE_PAIRS.tolist())}
#: The stream of the all-in rule's preflop board samples (a label of its own, per hand).
ALLIN = 5

#: Where solving may start (``agent connect --solve-from``), in rounds before the last.
SOLVE_FROM = {"river": 0, "turn": 1, "flop": 2}
#: How the agent answers an all-in with nothing left to decide (``agent connect --all-in``),
#: the default first: ``solve`` solves the spot safe like any other subgame where
#: :func:`solves_here` (the turn and the river), the blueprint before; ``equity`` calls
#: exactly the hands whose equity against the modelled range pays the price
#: (:mod:`agent.allin`).  The equity rule is a best response to the blueprint's range,
#: which at a rarely reached node is far wider than a real shover's: local best response
#: won +11,896 mbb/hand against it by shoving turns (see docs/agent.md).
ALL_IN_RULES = ("solve", "equity")


def solves_here(state: State, rounds_early: int = 0) -> bool:
    """Whether the agent solves at ``state``: on the last round (or the last
    ``rounds_early`` + 1), or on the one before when no more raises are possible (a call
    or fold with one card to come).

    Libratus solved from the turn.  On 2 cores a turn subgame costs seconds even with
    one bet size (:data:`agent.solving.EARLY_ABSTRACTION`), so the default starts on the
    river; ``--solve-from turn`` measures the other choice, and ``--solve-from flop``
    adds depth-limited flop search (Pluribus)."""
    last = state.game.num_rounds - 1
    return state.round >= last - rounds_early or (state.round == last - 1 and state.raise_bounds() is None)


class AgentStrategist:
    """Blueprint (+ translation) first, subgame solving where :func:`solves_here`."""

    def __init__(self, blueprint: BlueprintSource, solving: SolvingStage | None, seed: int = 0, rounds_early: int = 0,
                 action_floor: float = 0.0, call_rule: bool = True) -> None:
        self.action_floor = action_floor
        self.call_rule = call_rule  # facing an all-in: call by equity (agent.allin) instead of solving
        self.blueprint = blueprint
        self.solving = solving
        self.rounds_early = rounds_early
        self.seed = seed
        self.rng = np.random.default_rng([seed, 1])
        self.valuer = blueprint if can_value(blueprint) else None

    def start_hand(self, number: int, position: int) -> None:
        """Restart the translation's and the bet sizes' random streams on this hand's."""
        reseed(self.rng, self.seed, number, position, TRANSLATION)
        if self.solving is not None:
            reseed(self.solving.rng, self.seed, number, position, SIZES)

    def strategy(self, match: MatchState, hand: HandContext, clock: TimeManager) -> RangeStrategy:
        state = match.state
        all_in = self.solving is not None and self.call_rule and nothing_left_to_decide(state)
        solve = self.solving is not None and not all_in and solves_here(state, self.rounds_early)
        view = self.view(hand, state, match.position, reach=all_in or solve)
        if all_in:
            return self._call_or_fold(match, hand, view)
        if solve:
            solved = self.solving.strategy(match, hand, clock, view, lambda at: self.view(hand, at, match.position))
            if solved is not None:
                # A few hundred iterations leave crumbs on every action (a 0.2% all-in with
                # ten-high, measured against `equity`): played, each costs a stack now and then.
                if self.action_floor > 0:
                    return replace(solved, probs=threshold(solved.probs, self.action_floor))
                return solved
        return self._blueprint(match, hand, view)

    def view(self, hand: HandContext, state: State, me: int, *, reach: bool = True) -> BlueprintView:
        """The blueprint at ``state``: the real hand followed down its tree once (the
        opponent's translations drawn once per action and kept in ``hand``'s notes), with
        the opponent's range along the path if ``reach``."""
        memory = hand.notes.setdefault("translation", TranslationMemory())
        found = walk(self.blueprint.tree, state, memory, self.rng, me)
        node, path = (found[0], tuple(found[1])) if found is not None else (None, ())
        if not reach:
            return BlueprintView(node, path)
        return BlueprintView(node, path, opponent_reach(self.blueprint, state, path, me, len(hand.reach)), self.valuer)

    def _call_or_fold(self, match: MatchState, hand: HandContext, view: BlueprintView) -> RangeStrategy:
        """Facing an all-in: call exactly the hands whose equity against the opponent's
        modelled range pays the price (:mod:`agent.allin`).

        The range is the blueprint's along the translated path, even after a solve this
        hand: a solve's own opponent strategy, a by-product of a few hundred iterations
        against our range, put its river check-raise all-in on full houses only and had
        the nut flush folded (measured against `equity`)."""
        state = match.state
        rng = np.random.default_rng([self.seed, hand.number, hand.position, ALLIN])
        call, equity = call_or_fold(state, view.opponent_reach, rng)
        detail: dict = {"rule": "call if equity >= price", "price": round(price(state), 4),
                        "range": "blueprint"}
        held = HOLE_INDEX.get(tuple(sorted(match.my_cards)))
        if held is not None and np.isfinite(equity[held]):
            detail["equity"] = round(float(equity[held]), 4)
        return RangeStrategy((FOLD, CALL), np.stack([1.0 - call, call], axis=1), "call-or-fold", detail)

    def _blueprint(self, match: MatchState, hand: HandContext, view: BlueprintView) -> RangeStrategy:
        state = match.state
        if view.node is None:
            # Expected now and then (e.g. more raises than the tree allows): check or call.
            log.info("hand left the blueprint's tree; checking/calling", hand=state.hand_number, betting=state.betting)
            return RangeStrategy((CALL,), np.ones((len(hand.reach), 1)), "off-tree")
        node = view.node
        tree = self.blueprint.tree
        probs = self.blueprint.range_strategy(node, state.board)
        if self.action_floor > 0:
            probs = threshold(probs, self.action_floor)
        probs = cheaper_calls(tree.states[node], state, tree.actions(node), probs)
        return RangeStrategy(real_actions(tree, node, state), probs, "blueprint", self._detail(match, node, view.path))

    def _detail(self, match: MatchState, node: int, path: tuple[Step, ...]) -> dict:
        """Where a blueprint row came from, for the decision log: the tree node, its
        abstract betting, the held hand's bucket, and how many real actions were translated."""
        tree, state = self.blueprint.tree, match.state
        detail: dict = {"node": node, "abstract": tree.states[node].betting,
                        "translated": sum(1 for step in path if step.translated or step.collapsed)}
        bucket = getattr(self.blueprint, "bucket", None)
        if bucket is not None and match.my_cards:
            with contextlib.suppress(Exception):  # a detail must never cost a decision
                detail["bucket"] = int(bucket(state.round, match.my_cards, state.board))
        return detail


def price(state: State) -> float:
    """The share of the pot after calling that a call costs in ``state`` (0: nothing to call)."""
    call = state.amount_to_call()
    return call / (state.pot + call) if call else 0.0


def cheaper_calls(abstract: State, real: State, actions: list[Action], probs: np.ndarray) -> np.ndarray:
    """``probs`` (hands x ``actions`` at the tree state ``abstract``) with folds scaled by
    how much cheaper the real call is: ``price(real) / price(abstract)`` when below 1, the
    rest moved to the call.

    A bet translated up (the Libratus rule turns a min-bet into the tree's smallest
    raise; a raise war taken back to an earlier node) leaves the blueprint's folds priced
    for the tree's bet: folding a strong hand to 100 chips into 3,600 would be a gift.
    Defending wider against a cheaper bet is what equilibrium does (a bet of price p is
    called by at least 1 - p of a range); this keeps each hand's fold in proportion.
    """
    kinds = [a.kind for a in actions]
    if ActionType.FOLD not in kinds or ActionType.CALL not in kinds or price(abstract) <= 0:
        return probs
    ratio = price(real) / price(abstract)
    if ratio >= 1:
        return probs
    fold, call = kinds.index(ActionType.FOLD), kinds.index(ActionType.CALL)
    out = probs.copy()
    moved = out[:, fold] * (1 - ratio)
    out[:, fold] -= moved
    out[:, call] += moved
    return out


def load_blueprint(path: Path | None) -> BlueprintSource:
    """The blueprint at ``path`` (None: the one shipped with the package).

    Its game may differ from the match's in stacks, blind sizes and blind seating;
    the agent maps the match onto it by pot fractions and roles (:mod:`solver.follow`).

    Raises:
        StrategistError: if it cannot be loaded (the message says what to rebuild).
    """
    from precompute.blueprint import Blueprint
    from solver.artifacts import ArtifactError

    try:
        return Blueprint.load(path)
    except (ArtifactError, OSError) as exc:
        raise StrategistError(f"cannot load the blueprint: {exc}") from None


def warm_up_blueprint(blueprint: BlueprintSource) -> None:
    """Read one node of every round, so the card-bucket kernels compile (or load from
    numba's cache) before the match rather than during its first decisions."""
    tree = blueprint.tree
    game = tree.game
    for r in range(game.num_rounds):
        nodes = np.flatnonzero((tree.kind == DECISION) & (tree.round == r))
        if nodes.size:
            blueprint.range_strategy(int(nodes[0]), tuple(range(game.board_cards_through(r))))


def build_strategist(
    game: GameDef, blueprint_path: Path | None, *, blueprint_only: bool, seed: int, solve_from: str = "river",
    action_floor: float = ACTION_FLOOR, solve: SolveSettings | None = None, all_in: str = ALL_IN_RULES[0],
) -> AgentStrategist:
    """The agent's strategist for ``game``; ``solve_from``: a key of :data:`SOLVE_FROM`;
    ``solve``: how its safe solves run (default :class:`agent.solving.SolveSettings`);
    ``all_in``: one of :data:`ALL_IN_RULES`.

    Raises:
        StrategistError: if the game is not heads-up no-limit or the blueprint cannot be
            loaded for it (the message names the file and what to rebuild).
    """
    if game.num_players != 2 or not game.is_nolimit:
        raise StrategistError("the agent plays heads-up no-limit games only")
    if all_in not in ALL_IN_RULES:
        raise StrategistError(f"unknown all-in rule {all_in!r} (expected one of {', '.join(ALL_IN_RULES)})")
    blueprint = load_blueprint(blueprint_path)
    warm_up_blueprint(blueprint)
    bp = blueprint.tree.game
    shape = ("num_rounds", "num_board_cards", "num_hole_cards", "num_suits", "num_ranks")
    if any(getattr(bp, name) != getattr(game, name) for name in shape):
        raise StrategistError("the blueprint was trained for another game shape (rounds, cards, deck) than this match's")
    if blueprint_only:
        return AgentStrategist(blueprint, None, seed, action_floor=action_floor)
    from agent.solving import SolvingStage, warm_up, warm_up_depth_limited

    # Subgames rooted before the river split their river parts over the threads (an
    # ACPC entry has 2 cores to itself); river subgames run on one either way.
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    warm_up(threads=threads)
    if SOLVE_FROM[solve_from] > 0 and can_value(blueprint):  # depth-limited flop or turn solves
        warm_up_depth_limited(blueprint, threads)
    solving = SolvingStage(np.random.default_rng([seed, 2]), threads=threads, settings=solve)
    return AgentStrategist(blueprint, solving, seed, SOLVE_FROM[solve_from], action_floor=action_floor,
                    call_rule=all_in == "equity")
