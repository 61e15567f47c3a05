"""Real-time subgame solving for the agent (Libratus style, on 2 cores).

At the agent's first decision on the river (or on the turn once no raise is possible
any more) the rest of the hand is solved from the real public state with
both players' ranges: ours is the agent's own reach (its strategy so far for every
hand), the opponent's is built from the strategies the agent assumed for it (the
blueprint along the translated path, then each solve's strategy).  The solution is
then followed while the opponent stays inside the subgame's tree; a new round or an
opponent bet the tree does not hold (nested solving) gets a new solve rooted at the
real state.  Our bet sizes in every solve of a hand are scaled by one factor drawn
at the hand's first solve, uniform in ±[0, 8%] (bet-size randomization).  Every solve
is safe (:mod:`solver.subgame.alternatives`): the first of a hand keeps each opponent hand's value
below what it gets against the blueprint (Maxmargin, alternatives from the blueprint;
unsafe only where the blueprint's subtree cannot be valued), every later one below
what it got against the last solve (Estimated-Maxmargin with gifts).

With ``--solve-from flop`` the flop is searched too, depth-limited (Pluribus, Modicum:
:mod:`solver.subgame.depth_limited_range`): the subgame ends with the flop, and at each
of its leaves the opponent picks one of four continuations of the blueprint for the rest
of the hand (:data:`DL_CONTINUATIONS`, valued on a runout per iteration from a pool of
:data:`DL_POOL` drawn for the solve, :class:`solver.subgame.blueprint_leaves.BlueprintLeafValues`).  As in Pluribus, the
flop's first solve is rooted at the start of the flop with both ranges from the
blueprint after the opponent's check (so the check is part of what is solved; an
opening bet is rooted at the real state, the bet translated in the blueprint's range
for the opponent), and it is unsafe: a
safe root needs the blueprint's values of the whole rest of the hand, which a flop
subgame cannot afford (an off-tree flop bet is re-solved the same way from the real
state).  The turn's first solve after it is safe against the blueprint's values, as a
hand's first solve.

On the turn the solve is full-depth (turn and river) where the time manager can afford
it, otherwise depth-limited (``--turn-search auto``, the default): it ends with the turn,
the opponent choosing among the same continuations at its leaves on a pool of sampled
rivers, and, unlike the flop's, it is safe at its root as a full-depth turn solve is
(the blueprint's values of the turn and river are affordable).  "Afford" is judged twice:
a budget under :data:`TURN_FULL_START_BUDGET` at the turn's start (both players' first
choice in the tree), or :data:`TURN_FULL_BUDGET` after a first action, goes
depth-limited at once (:func:`search_plan`); a full-depth solve whose pace says it will
not reach :data:`MIN_ITERATIONS` hands the remaining time to a depth-limited one instead
of the blueprint.

Each solve runs against a deadline from the time manager and falls back to its
average strategy so far, or (if it managed no iteration) to the blueprint.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import structlog

from agent.blueprint_view import BlueprintView
from agent.player import HandContext
from agent.strategy import RangeStrategy
from agent.timing import Deadline, TimeManager, run_with_deadline
from protocol.rules import Action, ActionType, State, initial_state, start_of_round
from solver.bets import AbstractionError, ActionAbstraction, draw_size_scale, parse_abstraction
from solver.follow import TranslationMemory, skip_chance, translate_action
from solver.subgame.alternatives import (
    GADGET_KERNEL,
    SAFE_GADGETS,
    BlueprintRows,
    blueprint_alternatives,
    estimated_alternatives,
    safe_hook,
)
from solver.subgame.blueprint_leaves import BlueprintLeafValues
from solver.subgame.depth_limited import CONTINUATIONS
from solver.subgame.depth_limited_range import DepthLimitedSolver
from solver.subgame.gadgets import UNSAFE_WEIGHT, GadgetHook
from solver.subgame.range_solver import Subgame, SubgameError, SubgameSolver, build_subgame
from solver.tree import DECISION

log = structlog.get_logger("agent.solving")

#: Bet sizes of the real-time subgames.  Measured on 2 shared cores (load 12), a river
#: subgame with these sizes costs about 10-35 ms per DCFR iteration, a turn subgame
#: with even two sizes and one raise 0.7 s, so solving starts on the river (see
#: :func:`agent.strategist.solves_here`).
SUBGAME_ABSTRACTION = "0.5,1,2;allin;cap=2"
#: Bet sizes of a subgame rooted before the last round while raises are still possible
#: (``--solve-from turn`` and ``flop``): one pot-sized bet or raise and all-in, with raises
#: capped per round by :data:`EARLY_RAISES` (:meth:`SolvingStage.abstraction_at`).  A turn
#: subgame with these sizes costs about 42 ms an iteration on 2 threads, one with the
#: sizes above about 40 s to 1% of the pot.
EARLY_ABSTRACTION = "1;allin"
#: Raises a pre-river subgame allows in its root's round beyond those made before its
#: root, and in each later round.  Until 2026-11-28 the cap was one raise per round
#: counting the real ones before the root: a flop or turn subgame rooted facing a bet
#: could only fold or call, and the opponent could never raise the subgame's bets (so
#: bets were overvalued: the flop arm's solves bet 38% where the blueprint bet 15%,
#: docs/results/2026-11-28-no-raises-in-early-searches.md).  Two in the root's round
#: (bet and raise, or raise and re-raise) cost 1.7x the iteration on the turn; the later
#: rounds keep one (their own solve comes when they are dealt).
EARLY_RAISES = (2, 1)
#: A solve stops early once its strategy is this exploitable (% of the pot) or less ...
TARGET_PCT = 1.0
#: ... measured every this many iterations (a measurement costs about two iterations).
CHECK_EVERY = 50
#: A safe solve has no exploitability to stop at (the plain subgame's says nothing of
#: the gadget's margins): it stops after this many iterations, or at its deadline.
SAFE_ITERATIONS = 300
#: A solve replaces the blueprint's row only after this many iterations.
MIN_ITERATIONS = 20
#: A full-depth solve is given up when its pace over this many iterations after its first
#: (which also pays for setting up) says it will not come near MIN_ITERATIONS by its
#: deadline (under PACE_MARGIN of it: a pace is a noisy forecast): the blueprint then
#: answers at once instead of after the whole wait (123 of 1,083 turn decisions of a
#: 2,000-hand flop-mode match waited 1.09 s in median for a solve that was not played;
#: docs/results/2026-11-28-no-raises-in-early-searches.md).
PACE_AFTER = 3
PACE_MARGIN = 0.8
#: Where a round's first solve is rooted when the opponent opened the round (``--solve-root``).
SOLVE_ROOTS = ("decision", "round")
#: Where a solve on a new round after a solve of the hand takes its root's alternatives
#: (``--new-round-alternatives``): the last solve's estimates, or the blueprint's values
#: as for a hand's first solve (the last solve's estimates are only as good as its
#: convergence: a turn solve stops at tens of iterations).
NEW_ROUND_ALTERNATIVES = ("estimated", "blueprint")
#: A river subgame's sizes that let the opponent re-raise a raise of ours (``--river-sizes``):
#: with :data:`SUBGAME_ABSTRACTION`'s cap of two raises a river solve facing a bet can raise
#: but its model never lets the opponent raise back (198 of 779 river solves of a
#: 2,000-hand match faced a bet and raised 9.2% there).  One pot-sized raise size and
#: all-in once the round has a bet keep the tree about as large.
RIVER_RERAISE_SIZES = "0.5,1,2;raise=1;allin;cap=3"
#: Bet-size randomization: our sizes are scaled by 1 ± U[0, this] per hand.
SIZE_JITTER = 0.08
#: The opponent's continuations at a depth-limited flop solve's leaves (Pluribus's k = 4).
DL_CONTINUATIONS = CONTINUATIONS[:4]
#: The decision log's name of a depth-limited solve's rows.
DEPTH_LIMITED_KIND = "depth-limited-unsafe"
#: A depth-limited flop solve cycles through this many runouts, drawn once per solve, their
#: rest-of-hand trees and rows built once (:class:`BlueprintLeafValues`'s ``pool``): at the
#: agent's budgets that halves an iteration's cost and beats a fresh runout every
#: iteration, 5.1% of the pot against 8.4% in 2 s and 3.6% against 5.8% in 4 s (the
#: bench's flop spot, three seeds each; pools of 8 and 16 did worse than 12 on average;
#: docs/results/2026-11-27-search-yardsticks.md).
DL_POOL = 12
#: A depth-limited flop solve is not started with less time than this (seconds): at about
#: 0.09 s an iteration it would stop short of MIN_ITERATIONS and the blueprint would
#: answer after the wait (42 of 129 flop decisions did, 1 s each, in a 200-hand match
#: against `equity` before this floor).
DL_MIN_BUDGET = 2.0
#: A depth-limited solve rooted at the flop's start (the agent opens the flop, or the
#: opponent's check is solved inside it) is not started with less than this (seconds):
#: the tree holds both players' first choice, and an iteration costs about twice one
#: after a check.  In three 1,000-hand flop-mode matches (seeds 302 and 303), after the
#: opponent's check, round-start solves with a budget under 2.8 s reached MIN_ITERATIONS
#: 12 times and fell short 245 times (the decision was then solved again from the real
#: state with the same budget: 4.6 s median waits); with 2.8-3.2 s 34 times against 18;
#: from 3.2 s 109 against 4.  Decisions opening the flop waited 2.5 s in median for the
#: blueprint when their solve fell short (46 in the first match).
DL_START_MIN_BUDGET = 3.2
#: A turn solve rooted at the turn's start (the agent opens the turn; a turn + river tree
#: with both players' first choice) is not started with less than this (seconds): in the
#: same match 192 of 202 such solves gave up on their pace after 0.8 s in median and the
#: blueprint answered; the 10 that reached MIN_ITERATIONS had 1.1-1.9 s (20-23 iterations).
TURN_START_MIN_BUDGET = 2.0
#: How the turn is searched (``--turn-search``): ``auto``, full-depth where it fits the
#: budget and depth-limited where it does not; ``full``, full-depth or the blueprint (the
#: agent until 2026-11-29); ``depth-limited``, always depth-limited.
TURN_SEARCHES = ("auto", "full", "depth-limited")
#: A depth-limited turn solve is not started with less time than this (seconds), nor with
#: less than :data:`TURN_DL_START_MIN_BUDGET` at the turn's start (both players' first
#: choice in the tree).  On the bench's turn spot (2 threads, a pool of :data:`DL_POOL`
#: rivers, k = 4, uniform ranges; a 2-core EPYC with 8 MB of L3, 2026-11-29) MIN_ITERATIONS
#: took about 0.9 s from the turn's start (10 iterations in 0.6 s while the rivers' trees
#: are built, 23 in 1.0 s) and 0.75 s after a check (12 in 0.6 s, 45 in 1.0 s:
#: ``tests/bench/bench_depth_limited.py --spot turn|turn-check``); a safe solve adds the
#: blueprint's values at its root (0.3-0.5 s).  In a 300-hand flop-mode match against
#: ``equity`` (seed 8, 2026-11-29) with floors of 1.0 and 1.2 s, after a first action
#: every depth-limited turn solve from 1.0 s reached MIN_ITERATIONS (80 of 80; 22-29
#: iterations at 1.0-1.05 s), at the turn's start those from 1.31 s did (35) and 11 with
#: 1.2-1.4 s did not (the blueprint answered after the wait).
TURN_DL_MIN_BUDGET = 1.0
TURN_DL_START_MIN_BUDGET = 1.4
#: ``--turn-search auto`` runs a full-depth turn solve only from these budgets (seconds;
#: at the turn's start, and after a first action), a depth-limited one below them.  A
#: full-depth turn solve spends 0.3-0.6 s before its first iteration (the subgame, and
#: the blueprint's values of the whole turn and river at its root) and about 0.07-0.1 s
#: an iteration from the turn's start: in a 150-hand flop-mode match against ``equity``
#: (seed 7, 2026-11-29, beside a blueprint training at idle priority) full-depth solves
#: at the turn's start with budgets from 2 s reached MIN_ITERATIONS 4 times (2.75 s median)
#: and fell short 12 times after the whole wait, depth-limited ones reached it all 12
#: times (35 iterations in 1.66 s median); after a check a 1.5-s budget bought 17-22
#: full-depth iterations against 28-30 depth-limited ones from the turn's start.
TURN_FULL_START_BUDGET = 3.0
TURN_FULL_BUDGET = 2.0


@dataclass(frozen=True)
class SolveSettings:
    """How the agent's safe solves are run (``agent connect --gadget/--later-gadget/--unsafe-weight/--solve-iterations``).

    Attributes:
        gadget: the root gadget of a hand's first safe solve (alternatives from the
            blueprint), one of :data:`solver.subgame.alternatives.SAFE_GADGETS`.
        unsafe_weight: weight of the modelled range beside the margins (``maxmargin-unsafe``).
        iterations: a safe solve stops after this many iterations (or at its deadline).
        later_gadget: the root gadget of the hand's later solves (alternatives estimated
            from the last solve: a new round, or an opponent bet off the last solve's
            tree); None: ``gadget``.  Kept apart because a later solve's alternatives
            are only as good as the last solve's convergence: Maxmargin, which serves the
            worst hand's margin first, can fold the near-nuts to keep an unbeatable
            hand's margin (docs/results/2026-11-27-forensics.md).
        root: where a round's first solve is rooted when the opponent opened the round
            (one of :data:`SOLVE_ROOTS`): ``decision``, at the agent's decision, after the
            opponent's bet; ``round``, at the start of the round (:func:`round_start`).
        new_round: the alternatives of a solve on a new round after an earlier solve of
            the hand (one of :data:`NEW_ROUND_ALTERNATIVES`): ``estimated``, the last
            solve's (a later solve); ``blueprint``, the blueprint's values (a first
            solve, where the blueprint can follow the hand; else the estimates).
        river_sizes: the bet sizes of a subgame of the last round (an
            :func:`solver.bets.parse_abstraction` spec, ``--river-sizes``).
        open_unsafe_weight: the unsafe weight of a solve rooted where the agent faces
            no bet (it opens the round's betting: first to act, or after a check); None:
            ``unsafe_weight`` there too (``--open-unsafe-weight``).  Kept apart because
            the river solve lost most where it opened the river and a weight of 100
            everywhere bet there more like the blueprint, but lost where the agent
            faced a bet (docs/results/2026-11-29-unsafe-weight.md).
        turn: how a turn solve is run, one of :data:`TURN_SEARCHES` (``--turn-search``).
    """

    gadget: str = GADGET_KERNEL
    unsafe_weight: float = UNSAFE_WEIGHT
    iterations: int = SAFE_ITERATIONS
    later_gadget: str | None = None
    root: str = "decision"
    new_round: str = "estimated"
    river_sizes: str = SUBGAME_ABSTRACTION
    open_unsafe_weight: float | None = None
    turn: str = "auto"

    def unsafe_weight_at(self, root: State, me: int) -> float:
        """The unsafe weight of a solve rooted at ``root`` for seat ``me``."""
        opens = root.current_player == me and root.amount_to_call() == 0
        return self.open_unsafe_weight if self.open_unsafe_weight is not None and opens else self.unsafe_weight

    @property
    def later(self) -> str:
        """The root gadget of a hand's later solves."""
        return self.gadget if self.later_gadget is None else self.later_gadget

    def validated(self) -> SolveSettings:
        """Itself, or ValueError naming the setting that is wrong."""
        for name, value in (("gadget", self.gadget), ("later gadget", self.later)):
            if value not in SAFE_GADGETS:
                raise ValueError(f"unknown {name} {value!r} (expected one of {', '.join(SAFE_GADGETS)})")
        if not self.unsafe_weight >= 0:
            raise ValueError(f"the unsafe weight must be a non-negative number, got {self.unsafe_weight}")
        if self.open_unsafe_weight is not None and not self.open_unsafe_weight >= 0:
            raise ValueError(f"the open unsafe weight must be a non-negative number, got {self.open_unsafe_weight}")
        if self.root not in SOLVE_ROOTS:
            raise ValueError(f"unknown solve root {self.root!r} (expected one of {', '.join(SOLVE_ROOTS)})")
        if self.new_round not in NEW_ROUND_ALTERNATIVES:
            raise ValueError(f"unknown new-round alternatives {self.new_round!r} "
                             f"(expected one of {', '.join(NEW_ROUND_ALTERNATIVES)})")  # fmt: skip
        try:
            parse_abstraction(self.river_sizes)
        except AbstractionError as e:
            raise ValueError(f"river sizes {self.river_sizes!r}: {e}") from None
        if self.turn not in TURN_SEARCHES:
            raise ValueError(f"unknown turn search {self.turn!r} (expected one of {', '.join(TURN_SEARCHES)})")
        if self.iterations < MIN_ITERATIONS:
            raise ValueError(f"a safe solve needs at least {MIN_ITERATIONS} iterations, got {self.iterations}")
        return self

    @property
    def first_kind(self) -> str:
        """The decision log's name of a hand's first solve: the gadget with blueprint alternatives."""
        return f"blueprint-{self.gadget}"

    @property
    def later_kind(self) -> str:
        """The decision log's name of a later solve: the gadget with the last solve's estimates."""
        return f"estimated-{self.later}"


class _Run(NamedTuple):
    """A solve in progress: its solver, its root gadget (None: unsafe) and its kind for the log."""

    solver: SubgameSolver | DepthLimitedSolver
    hook: GadgetHook | None
    kind: str


@dataclass
class ActiveSolve:
    """The subgame being followed this hand: its solver, the real betting at its root,
    and the strategy (tabular layout) it plays."""

    subgame: Subgame
    solver: SubgameSolver | DepthLimitedSolver
    root_betting: str
    strategy: np.ndarray
    kind: str
    me: int
    seconds: float = 0.0
    budget: float = 0.0
    exploitability: float | None = None

    @property
    def depth_limited(self) -> bool:
        """Whether this solve ends with its round (its later rounds are not solved)."""
        return isinstance(self.solver, DepthLimitedSolver)

    def detail(self, node: int, fresh: bool) -> dict:
        """What the decision log says of a row from this solve (``fresh``: solved for this decision)."""
        out = {"solve": "new" if fresh else "followed", "root": self.root_betting, "node": node,
               "iterations": self.solver.iterations, "seconds": round(self.seconds, 4), "budget": round(self.budget, 4)}
        if self.exploitability is not None:
            out["exploitability_pct"] = round(self.exploitability, 4)
        return out


class SolvingStage:
    """Subgame solving with the abstraction ``SUBGAME_ABSTRACTION`` (or ``abstraction``)."""

    def __init__(
        self, rng: np.random.Generator, abstraction: ActionAbstraction | None = None, threads: int = 1,
        settings: SolveSettings | None = None,
    ) -> None:
        self.rng = rng
        self.settings = (settings or SolveSettings()).validated()
        self.abstraction = abstraction or parse_abstraction(self.settings.river_sizes)
        self.early_abstraction = parse_abstraction(EARLY_ABSTRACTION)
        self.threads = threads

    @staticmethod
    def depth_limited_at(state: State) -> bool:
        """Whether a subgame rooted at ``state`` is depth-limited: rooted before the turn."""
        return state.round < state.game.num_rounds - 2

    def abstraction_at(self, state: State) -> ActionAbstraction:
        """The bet sizes of a subgame rooted at ``state``: before the last round, while
        raises are possible, :data:`EARLY_ABSTRACTION` with :func:`early_caps`."""
        early = state.round < state.game.num_rounds - 1 and state.raise_bounds() is not None
        return replace(self.early_abstraction, max_raises=early_caps(state)) if early else self.abstraction

    def strategy(
        self, match, hand: HandContext, clock: TimeManager, view: BlueprintView,
        view_at: Callable[[State], BlueprintView] | None = None,
    ) -> RangeStrategy | None:
        """The strategy at the agent's decision ``match``, or None if no solve produced one
        in time (the caller then plays the blueprint).

        ``view``: the blueprint at this decision, with the opponent's range along the
        translated path (the range of a hand's first solve) and, where the blueprint can
        value its subtree, what a first solve's safe alternatives are computed from;
        ``view_at``: the same at another state of the hand (the start of the round, where
        a round the opponent opened is solved from: :func:`round_start`).
        """
        state = match.state
        active: ActiveSolve | None = hand.notes.get("solve")
        node = self._follow(active, state) if active is not None else None
        fresh = node is None
        depth_limited = self.depth_limited_at(state)
        if depth_limited and view.valuer is None:
            return None  # the leaves need the blueprint's tree and rows (a stand-in has none)
        # A depth-limited solve is rooted at the flop's start only after a check: an opening
        # bet is never exactly one of the subgame's jittered sizes, so that solve would be
        # followed by a nested one at once, each with its own budget (measured: a flop
        # decision's p99 6.3 s against a solve's 4.0 s).
        at_start = self.settings.root == "round" or (depth_limited and not _bet_this_round(state))
        if node is None and view_at is not None and at_start:
            start = round_start(active, state, match.position)
            if start is not None:
                opened = self._solve(match, hand, clock, active, view_at(start), root=start)
                if opened is not None:
                    hand.notes["solve"] = active = opened
                    node = self._follow(active, state)  # None: the opponent's opening bet is off the tree (nested)
        if node is None:
            active = self._solve(match, hand, clock, active, view)
            if active is None:
                return None
            hand.notes["solve"] = active
            node = 0
        return RangeStrategy(
            tuple(active.subgame.tree.actions(node)), self._hand_rows(active, node, state.board), active.kind,
            active.detail(node, fresh),
        )

    # --- following a solution -----------------------------------------------------------

    def _follow(self, active: ActiveSolve, state: State) -> int | None:
        """The subgame node of ``state`` if every action since the root is in the tree."""
        actions = actions_since(active.root_betting, state)
        if actions is None:
            return None
        tree = active.subgame.tree
        try:
            node = active.subgame.node_after(actions)
        except SubgameError:
            return None  # an action the tree does not hold: solve again (nested)
        if tree.kind[node] != DECISION or int(tree.round[node]) != active.subgame.root.round:
            # A new round since the solve's root: solve again from the real state, with its
            # card.  (Until 2026-11-27 this compared the node's round with the state's, which
            # a node reached through the subgame's own deal always matches, so a turn solve's
            # river was followed: one size, about 200 iterations, instead of its own solve.)
            return None
        return node

    def _node_rows(self, active: ActiveSolve, node: int, board: tuple[int, ...]) -> np.ndarray:
        """(subgame hands, actions) the solved strategy at ``node`` for every hand."""
        sg = active.subgame
        n_a = int(sg.tree.child_count[node])
        start = int(sg.tabular.layout.offset[node]) + sg.board_index(node, board) * sg.n_hands * n_a
        return active.strategy[start : start + sg.n_hands * n_a].reshape(sg.n_hands, n_a)

    def _hand_rows(self, active: ActiveSolve, node: int, board: tuple[int, ...]) -> np.ndarray:
        """(1,326, actions): the node's strategy in HOLE_PAIRS order (0 for blocked hands)."""
        rows = self._node_rows(active, node, board)
        return np.stack([active.subgame.to_hole_pairs(rows[:, a]) for a in range(rows.shape[1])], axis=1)

    def _opponent_range(self, active: ActiveSolve | None, state: State, view: BlueprintView) -> np.ndarray:
        """The opponent's range at ``state`` (HOLE_PAIRS order): through the last solve
        when there is one (its strategy at each opponent decision since its root; an
        off-tree bet counts as its pseudoharmonic neighbour), else from the blueprint."""
        if active is None:
            return view.opponent_reach
        actions = actions_since(active.root_betting, state)
        sg, tree = active.subgame, active.subgame.tree
        reach = active.solver.ranges[1 - self._me(active)].copy()
        node = 0
        replay = sg.root
        for action in actions or []:
            node = skip_chance(tree, node)
            if tree.kind[node] != DECISION or replay.round != int(tree.round[node]):
                break
            edge = self._edge_for(tree, node, replay, action)
            if int(tree.player[node]) != self._me(active):
                reach *= self._node_rows(active, node, state.board)[:, edge]
            node = int(tree.children[tree.child_start[node] + edge])
            replay = replay.apply(action)
        return sg.to_hole_pairs(reach)

    @staticmethod
    def _me(active: ActiveSolve) -> int:
        return active.me

    @staticmethod
    def _edge_for(tree, node: int, real: State, action: Action) -> int:
        """The edge index at ``node`` for a real action: itself, or where the blueprint's
        rules translate it (:func:`solver.follow.translate_action`, deterministic); an
        action kind the node lacks counts as the call."""
        found = translate_action(tree, node, real, action, None, opponent=True)
        if found is None:
            return [a.kind for a in tree.actions(node)].index(ActionType.CALL)
        return found[0] - int(tree.child_start[node])

    # --- solving ------------------------------------------------------------------------------

    def _hook(self, subgame: Subgame, ranges: np.ndarray, me: int, alternatives: np.ndarray, gadget: str) -> GadgetHook:
        """The safe root hook ``gadget`` of a new subgame."""
        return safe_hook(subgame, ranges, me, alternatives, self.settings.unsafe_weight_at(subgame.root, me), gadget)

    def _start(
        self, state: State, me: int, previous: ActiveSolve | None, view: BlueprintView, ranges_hp: np.ndarray,
        scale: float, leaf_seed: int, memory: TranslationMemory | None = None, depth_limited: bool = False,
        memo: dict | None = None,
    ) -> _Run:
        """Build the subgame at ``state`` (``me`` to act) and its solver from the two
        ranges (``ranges_hp``, HOLE_PAIRS order, by player), and pick the root gadget:
        against the last solve's estimates (a later solve), the blueprint's values (a
        hand's first solve, or the first after a depth-limited one), or none (unsafe)
        where those cannot be had.  Before the turn the subgame is depth-limited and
        unsafe, its leaves valued from the blueprint (``leaf_seed`` draws their runouts,
        ``memory`` holds the hand's translations before the root); with
        ``depth_limited`` a turn subgame is depth-limited too, and safe as a full-depth one.
        ``memo`` keeps the blueprint's values for another start at the same root (a
        depth-limited turn solve after a full-depth one that fell short)."""
        before_turn = self.depth_limited_at(state)
        depth_limited = depth_limited or before_turn
        subgame = build_subgame(state, self.abstraction_at(state), size_scale=scale, depth_limited=depth_limited)
        ranges = np.zeros((2, subgame.n_hands))
        for player in range(2):
            ranges[player] = subgame.from_hole_pairs(ranges_hp[player])
        ranges[ranges.sum(axis=1) <= 0] = 1.0  # a line the model thought impossible: assume any hand
        if depth_limited:
            leaves = BlueprintLeafValues(subgame, view.valuer, me, DL_CONTINUATIONS, seed=leaf_seed, memory=memory,
                                         pool=DL_POOL)
            solver = DepthLimitedSolver(subgame, ranges, leaves, chooser=1 - me, threads=self.threads)
            if before_turn:
                return _Run(solver, None, DEPTH_LIMITED_KIND)
            run = self._safe_run(solver, subgame, ranges, state, me, previous, view, ranges_hp, memo)
            return run._replace(kind=f"depth-limited-{run.kind}")
        solver = SubgameSolver(subgame, ranges, threads=self.threads)
        return self._safe_run(solver, subgame, ranges, state, me, previous, view, ranges_hp, memo)

    def _safe_run(
        self, solver: SubgameSolver | DepthLimitedSolver, subgame: Subgame, ranges: np.ndarray, state: State, me: int,
        previous: ActiveSolve | None, view: BlueprintView, ranges_hp: np.ndarray, memo: dict | None = None,
    ) -> _Run:
        """``solver`` with its root gadget (see :meth:`_start`)."""
        first = previous is None or previous.depth_limited
        if not first and self.settings.new_round == "blueprint" and state.round > previous.subgame.root.round:
            run = self._first_run(solver, subgame, ranges, state, me, view, ranges_hp, memo)
            if run.hook is not None:
                return run
        if not first:
            since = actions_since(previous.root_betting, state)
            found = None if since is None else estimated_alternatives(previous.solver, since, state.board, me)
            if found is None:
                return _Run(solver, None, "nested-unsafe")
            hook = self._hook(subgame, ranges, me, previous.subgame.to_hole_pairs(found), self.settings.later)
            return _Run(solver, hook, self.settings.later_kind)
        return self._first_run(solver, subgame, ranges, state, me, view, ranges_hp, memo)

    def _first_run(
        self, solver: SubgameSolver | DepthLimitedSolver, subgame: Subgame, ranges: np.ndarray, state: State, me: int,
        view: BlueprintView, ranges_hp: np.ndarray, memo: dict | None = None,
    ) -> _Run:
        """A solve safe against the blueprint's values at ``state`` (a hand's first), or
        unsafe where the blueprint cannot value it (its tree lost the hand).  The values
        (a walk of the blueprint's whole subtree: about 0.3-0.5 s on the turn) are kept in
        ``memo`` if given."""
        memo = {} if memo is None else memo
        if "blueprint" not in memo:
            found = None
            if view.valuer is not None and view.node is not None:
                found = blueprint_alternatives(view.valuer, view.node, state, ranges_hp[me], me)
            memo["blueprint"] = found
        alternatives = memo["blueprint"]
        if alternatives is None:
            return _Run(solver, None, "unsafe")
        return _Run(solver, self._hook(subgame, ranges, me, alternatives, self.settings.gadget), self.settings.first_kind)

    def _solve(
        self, match, hand: HandContext, clock: TimeManager, previous: ActiveSolve | None, view: BlueprintView,
        root: State | None = None,
    ) -> ActiveSolve | None:
        """Solve the subgame rooted at ``root`` (default: the real state; ``view``: the
        blueprint there) from the agent's range and the opponent's, against the clock."""
        state = root if root is not None else match.state
        budget = clock.solve_budget()
        plan = search_plan(state, budget, self.settings.turn, view.valuer is not None)
        if plan is None:
            return None  # a round-start root then leaves the decision its own solve, with the same time
        if hand.scale is None:
            hand.scale = draw_size_scale(self.rng, SIZE_JITTER)
        me = match.position
        ranges_hp = np.zeros((2, len(hand.reach)))
        ranges_hp[me] = hand.reach
        ranges_hp[1 - me] = self._opponent_range(previous, state, view)
        scale = hand.scale
        leaf_seed = int(self.rng.integers(2**63))
        memory = hand.notes.get("translation")

        def work(deadline: Deadline, publish: Callable[[_Run], None]) -> _Run:
            # Building the subgame (and valuing the blueprint) counts against the budget too: it runs here.
            memo: dict = {}
            run = self._start(state, me, previous, view, ranges_hp, scale, leaf_seed, memory, plan == DEPTH_LIMITED,
                              memo=memo)  # fmt: skip
            # The plain subgame's exploitability says nothing of a gadget's margins, and a
            # depth-limited one's would need many runouts: those stop at an iteration count.
            checked = run.hook is None and not isinstance(run.solver, DepthLimitedSolver)
            # A depth-limited solve's first iterations build its leaves (slower than the rest):
            # their pace says little, and its least budget keeps those solves long enough anyway.
            paced = not isinstance(run.solver, DepthLimitedSolver)
            first_done = 0.0
            while not deadline.expired():
                run.solver.iterate(1, run.hook)
                publish(run)
                done = run.solver.iterations - 1  # iterations after the first
                if paced and done == 0:
                    first_done = time.perf_counter()
                elif paced and out_of_reach(done, time.perf_counter() - first_done, deadline.remaining()):
                    if plan != FULL_THEN_DEPTH_LIMITED or deadline.remaining() < turn_dl_floor(state):
                        break
                    # The full-depth turn will not make it: the rest of the time goes to a
                    # depth-limited solve of the same turn (played only if it gets far enough).
                    run = self._start(state, me, previous, view, ranges_hp, scale, leaf_seed, memory, True, memo=memo)
                    checked = paced = False
                    continue
                if checked and run.solver.iterations % CHECK_EVERY == 0 and run.solver.exploitability() <= TARGET_PCT:
                    break
                if not checked and run.solver.iterations >= self.settings.iterations:
                    break
            return run

        started = time.perf_counter()
        run, _ = run_with_deadline(work, Deadline(budget))
        seconds = time.perf_counter() - started
        if run is None or not run.solver.iterations:
            log.warning("subgame solve produced no iteration in time; playing the blueprint", budget=budget)
            return None
        solver = run.solver
        # A barely-iterated average is mostly its first, uniform iterations: not played.
        if solver.iterations < MIN_ITERATIONS:
            log.info("solve too short to play; playing the blueprint", hand=hand.number, iterations=solver.iterations,
                     kind=run.kind, seconds=round(seconds, 3), budget=round(budget, 3))
            return None
        # How far from equilibrium the answer is inside its own subgame (the modelled
        # ranges, no gadget) goes to the decision log: a safe solve optimises margins
        # against the gadget instead, so for it the figure is a hint, not a verdict.
        depth_limited = isinstance(solver, DepthLimitedSolver)
        exploitability = None if depth_limited else solver.exploitability()
        log.info("solved", hand=hand.number, round=state.round, iterations=solver.iterations, budget=round(budget, 3),
                 kind=run.kind)
        return ActiveSolve(solver.subgame, solver, state.betting, solver.average_strategy(), run.kind, me, seconds, budget,
                           exploitability)


#: How a solve is run (:func:`search_plan`): full-depth; depth-limited; full-depth, and
#: depth-limited with the rest of the time if the full-depth one's pace falls short.
FULL, DEPTH_LIMITED, FULL_THEN_DEPTH_LIMITED = "full", "depth-limited", "full, then depth-limited"


def search_plan(root: State, budget: float, turn: str = "auto", can_value: bool = True) -> str | None:
    """How a solve rooted at ``root`` with ``budget`` seconds is run (:data:`FULL`,
    :data:`DEPTH_LIMITED`, :data:`FULL_THEN_DEPTH_LIMITED`), or None: not started.

    Before the turn: depth-limited, from :data:`DL_START_MIN_BUDGET` at the start of the
    round, else :data:`DL_MIN_BUDGET`.  On the turn while bets are possible, by ``turn``
    (one of :data:`TURN_SEARCHES`; depth-limited only where the blueprint can value the
    leaves, ``can_value``): ``full``, full-depth from :data:`TURN_START_MIN_BUDGET` at the
    turn's start and with any budget after a first action; ``depth-limited`` from
    :func:`turn_dl_floor`; ``auto``, full-depth with the depth-limited fallback from
    :data:`TURN_FULL_START_BUDGET` (at the start) or :data:`TURN_FULL_BUDGET`, else
    depth-limited, and under the depth-limited floor full-depth after a first action (a
    small tree, facing a bet, may make it).  Other solves: full-depth with any budget
    (their pace is judged as they run: :func:`out_of_reach`).
    """
    if budget <= 0:
        return None
    at_start = not root.actions[root.round]
    if SolvingStage.depth_limited_at(root):
        return DEPTH_LIMITED if budget >= (DL_START_MIN_BUDGET if at_start else DL_MIN_BUDGET) else None
    if root.round != root.game.num_rounds - 2:
        return FULL
    if turn == "full" or not can_value or root.raise_bounds() is None:
        return FULL if not at_start or budget >= TURN_START_MIN_BUDGET else None
    limited = DEPTH_LIMITED if budget >= turn_dl_floor(root) else None
    if turn == "depth-limited":
        return limited
    if budget >= (TURN_FULL_START_BUDGET if at_start else TURN_FULL_BUDGET):
        return FULL_THEN_DEPTH_LIMITED
    return limited or (None if at_start else FULL)  # a tree small enough may still make it: its pace decides


def turn_dl_floor(root: State) -> float:
    """The least budget of a depth-limited turn solve rooted at ``root``: more at the
    turn's start, whose tree holds both players' first choice."""
    return TURN_DL_START_MIN_BUDGET if not root.actions[root.round] else TURN_DL_MIN_BUDGET


def out_of_reach(done: int, spent: float, remaining: float, need: int | None = None) -> bool:
    """Whether a solve that ran ``done`` iterations past its first in ``spent`` seconds,
    at that pace, stays under :data:`PACE_MARGIN` of ``need`` (default
    :data:`MIN_ITERATIONS`) iterations in all by the end of the ``remaining`` seconds.

    Judged only from :data:`PACE_AFTER` iterations past the first (one iteration's time is
    noise) and only while short of ``need``.
    """
    need = MIN_ITERATIONS if need is None else need
    total = done + 1
    if done < PACE_AFTER or total >= need or spent <= 0.0:
        return False
    return total + remaining * done / spent < PACE_MARGIN * need


def early_caps(state: State) -> tuple[int, ...]:
    """Raises per round (``ActionAbstraction.max_raises``) of a pre-river subgame rooted at
    ``state``: the raises already made in its round plus :data:`EARLY_RAISES`'s first,
    then its second in every later round."""
    now, later = EARLY_RAISES
    return tuple(
        state.num_raises_this_round + now if r == state.round else later if r > state.round else 0
        for r in range(state.game.num_rounds)
    )


def _bet_this_round(state: State) -> bool:
    """Whether anyone has bet or raised in ``state``'s round."""
    return any(a.kind == ActionType.RAISE for a in state.actions[state.round])


def round_start(active: ActiveSolve | None, state: State, me: int) -> State | None:
    """The start of ``state``'s round, where a new solve is rooted instead of at ``state``
    when the opponent opened the round and no solve covers it yet: its first solve of the
    hand (``active`` None) or of a new round, at our first decision of the round.  None
    otherwise (a nested solve after an off-tree bet stays rooted at the real state).

    Why: rooted after the opponent's bet, a solve sees the opponent's range for that bet
    as the blueprint has it and keeps every opponent hand's value below the blueprint's
    there, so it inherits the blueprint's answer to the bet; rooted before it, the bet
    is part of what is solved (Libratus roots its subgames at the start of a round).
    Measured on the river pot bets of an LBR run (docs/investigations/defence_probe.py).
    """
    r = state.round
    if not state.actions[r] or me in state.actors[r]:
        return None
    if active is not None and int(active.subgame.root.round) >= r:
        return None
    return start_of_round(state)


def actions_since(root_betting: str, state: State) -> list[Action] | None:
    """The real actions taken after the betting ``root_betting`` (a subgame's root), or None
    if ``state`` is not below it."""
    if not state.betting.startswith(root_betting):
        return None
    replay = initial_state(state.game, state.hand_number)
    flat = [a for round_actions in state.actions for a in round_actions]
    done = 0
    for action in flat:
        if replay.betting == root_betting:
            break
        replay = replay.apply(action)
        done += 1
    return flat[done:] if replay.betting == root_betting else None


def warm_up_depth_limited(blueprint: BlueprintRows, threads: int = 1) -> None:
    """Compile (or load from numba's cache) a depth-limited solve's kernels before the match:
    one iteration of a flop subgame cut at the end of the flop, its leaves valued by
    ``blueprint`` on one runout of turn and river (a turn fallback runs the same kernels).
    Cold, a flop-mode agent's first solves gave up with no iteration (four of them in the
    first match of a fresh checkout, docs/results/2026-11-29-depth-limited-turn.md)."""
    from protocol.gamedef import load_game
    from protocol.wire import parse_matchstate

    game = load_game("holdem.nolimit.2p")
    state = parse_matchstate("MATCHSTATE:0:0:r200c/:AsKd|/2c7hKs", game).state
    me = state.current_player
    cut = build_subgame(state, parse_abstraction("1;allin;cap=0,1,1,1"), depth_limited=True)
    leaves = BlueprintLeafValues(cut, blueprint, me, DL_CONTINUATIONS, seed=0)
    solver = DepthLimitedSolver(cut, np.ones((2, cut.n_hands)), leaves, chooser=1 - me, threads=threads)
    solver.iterate(1)
    solver.average_strategy()


def warm_up(abstraction: ActionAbstraction | None = None, threads: int = 1) -> None:
    """Compile (or load from numba's cache) the solver's kernels before the match, so the
    first solve of a match is not charged for it: one iteration of a small river subgame,
    and with ``threads`` > 1 one of a turn subgame, whose river parts run in parallel."""
    from protocol.gamedef import load_game
    from protocol.wire import parse_matchstate

    game = load_game("holdem.nolimit.2p")
    if threads > 1:
        # A call or fold against an all-in on the turn is solved from the turn (raises are
        # over), through the parallel kernel: about 12 s to compile cold, measured, more than
        # a solve's budget (a first such solve then played the blueprint with a WARNING).
        turn = parse_matchstate("MATCHSTATE:0:0:cc/cc/r20000:AsKd|/2c7hKs/9d", game).state
        sg = build_subgame(turn, parse_abstraction("1;allin;cap=1"))
        solver = SubgameSolver(sg, np.ones((2, sg.n_hands)), threads=threads)
        solver.iterate(1)
        solver.exploitability()
        solver.average_strategy()
    state = parse_matchstate("MATCHSTATE:0:0:cc/cc/cc/:AsKd|/2c7hKs/9d/3h", game).state
    sg = build_subgame(state, abstraction or parse_abstraction("1;allin;cap=1"))
    solver = SubgameSolver(sg, np.ones((2, sg.n_hands)))
    solver.iterate(1)
    solver.exploitability()
    alternatives = sg.to_hole_pairs(estimated_alternatives(solver, [], state.board, 0))
    solver.iterate(1, safe_hook(sg, solver.ranges, 0, alternatives))
    solver.best_response_values(0, 1)  # what a first solve's blueprint values run
    # Every solve ends by reading its average strategy: cold, its kernel took about 3.8 s
    # after the first river solve of a fresh checkout's match (past the solve's deadline).
    solver.average_strategy()
