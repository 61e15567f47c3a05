"""Subgame solving over a public state: the betting and board so far are fixed, both
players' ranges are given, and the rest of the hand is solved with range-vector DCFR
(or CFR+) until an exploitability target or a time budget is met.

A :class:`Subgame` is the betting tree of an action abstraction grown from a
:class:`protocol.rules.State` (``solver.tree.build_tree(root=...)``) with the cards
enumerated after the known board (``solver.deals.card_space(board=...)``); the solve
runs the project's one range-vector kernel (:func:`solver.ranges.walk`) for updates,
evaluation and best response, split over numba threads below the first chance nodes.

Hands: vectors over ``subgame.hands`` (the cards not on the known board, colex order
of :mod:`solver.deals`).  For hold'em, :meth:`Subgame.from_hole_pairs` and
:meth:`Subgame.to_hole_pairs` convert from and to :data:`protocol.fasteval.HOLE_PAIRS`
order (1,326 pairs; blocked pairs get 0).  ``subgame.hand_index(cards)`` finds one hand.

Values: a player's counterfactual value of a hand ``h`` is
``sum_o reach_opp[o] * E[chips won by h against o]`` over the opponent hands ``o``
sharing no card with ``h`` or the board, the expectation over later board cards
(chips of the whole hand, blinds included).  Exploitability is the mean of the two
players' best-response gains per unit of joint range mass, in % of the pot at the root.

Root hook (for safe-subgame gadgets).  ``solve(..., hook=h)`` calls, on iteration ``t``
(1-based, alternating updates player 0 then player 1):

1. ``h.root_reach(t, p, ranges[p])`` for p = 0, 1 before the traversals: return a
   float64 vector (n_hands,) to use as player p's root reach this iteration (e.g. the
   opponent's range times its gadget probability of entering), or None to keep its range;
2. after player p's traversal, ``h.entered(t, p, values)`` with p's counterfactual
   values of entering the subgame per hand (above, weighted by the other player's root
   reach from step 1), computed against the current (not average) strategies.

Per iteration the hook costs two Python calls; an iteration costs ≥ 1 ms on hold'em
subgames, so the hook is cheap.  The exploitability the stopping rule measures is that
of the plain subgame with the given ranges; a gadget that needs another criterion
should pass ``target_pct=0`` and a time or iteration budget.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple, Protocol

import numba
import numpy as np

from protocol.fasteval import NUM_HOLE_PAIRS
from protocol.rules import Action, State
from solver.bets import ActionAbstraction
from solver.cfr.fullwidth import CFRConfig
from solver.deals import CardSpace, card_space
from solver.ranges import (
    BEST_RESPONSE,
    EVALUATE,
    UPDATE,
    WHOLE,
    CardArrays,
    TabularGame,
    TreeArrays,
    TreeParts,
    card_arrays,
    discounts,
    kernel_arrays,
    normalized,
    tabular_layout,
    tree_parts,
    walk,
)
from solver.subgame.gadgets import hand_weights
from solver.subgame.split import split_values
from solver.tree import CHANCE, DECISION, BettingTree, build_tree, path_from_root, skip_chance


class SubgameError(ValueError):
    """A subgame cannot be built or solved from these inputs."""


class RootHook(Protocol):
    """Per-iteration access to the root reaches (see the module docstring)."""

    def root_reach(self, iteration: int, player: int, reach: np.ndarray) -> np.ndarray | None: ...

    def entered(self, iteration: int, player: int, values: np.ndarray) -> None: ...


@dataclass(frozen=True, eq=False)
class Subgame:
    """The tree, cards and layout of one public state's subgame, ready for the kernel."""

    root: State
    abstraction: ActionAbstraction | None
    size_scale: float
    tabular: TabularGame
    arrays: TreeArrays
    cards: CardArrays
    parent: np.ndarray  # (n,) int64 parent node, -1 at the root
    parent_edge: np.ndarray  # (n,) int64 index of the parent's edge leading here

    @property
    def tree(self) -> BettingTree:
        return self.tabular.tree

    @property
    def space(self) -> CardSpace:
        return self.tabular.space

    @property
    def hands(self) -> np.ndarray:
        """(n_hands, hole cards) the cards of each hand, in range-vector order."""
        return self.space.hands

    @property
    def n_hands(self) -> int:
        return self.space.n_hands

    @property
    def pot(self) -> int:
        return self.root.pot

    @property
    def leaves(self) -> np.ndarray:
        """The depth limit's leaves: chance nodes without children (none unless built ``depth_limited``)."""
        tree = self.tree
        return np.flatnonzero((tree.kind == CHANCE) & (tree.child_count == 0))

    def size(self) -> tuple[int, int]:
        """(nodes, infosets): tree nodes, and decision nodes times their (board, hand) rows."""
        tree, lay = self.tree, self.tabular.layout
        decisions = np.flatnonzero(tree.kind == DECISION)
        return tree.n_nodes, int(sum(lay.rows[tree.round[n]] for n in decisions))

    def hand_index(self, cards: Sequence[int]) -> int:
        """Index of the hand holding ``cards`` (any order).

        Raises:
            SubgameError: if a card is on the known board or not in the deck.
        """
        if not set(cards) <= set(self.space.deck.tolist()):
            raise SubgameError(f"hand {list(cards)} uses a card on the board or outside this game's deck")
        return self.space.hand_index(tuple(cards))

    def hole_pair_index(self) -> np.ndarray:
        """(n_hands,) int64: each hand's row in :data:`protocol.fasteval.HOLE_PAIRS`.

        Raises:
            SubgameError: unless the game deals two hole cards from the 52-card deck.
        """
        return self._hole_pairs

    @cached_property
    def _hole_pairs(self) -> np.ndarray:
        # Computed once: a vector is converted on every decision, and a depth-limited
        # solve's leaves convert thousands of times a second.
        g = self.root.game
        if g.num_hole_cards != 2 or g.deck_size != 52:
            raise SubgameError("HOLE_PAIRS order exists only for two hole cards from the 52-card deck")
        lo, hi = self.hands.min(axis=1), self.hands.max(axis=1)
        out = hi * (hi - 1) // 2 + lo
        out.setflags(write=False)
        return out

    def from_hole_pairs(self, vector: np.ndarray) -> np.ndarray:
        """A (1,326,) vector in HOLE_PAIRS order as a vector over this subgame's hands."""
        vector = np.asarray(vector, np.float64)
        if vector.shape != (NUM_HOLE_PAIRS,):
            raise SubgameError(f"a HOLE_PAIRS vector has {NUM_HOLE_PAIRS} entries, got shape {vector.shape}")
        return vector[self.hole_pair_index()]

    def to_hole_pairs(self, vector: np.ndarray) -> np.ndarray:
        """A vector over this subgame's hands in HOLE_PAIRS order (0 for pairs touching the board)."""
        out = np.zeros(NUM_HOLE_PAIRS)
        out[self.hole_pair_index()] = vector
        return out

    def node_after(self, actions: Sequence[Action], node: int = 0) -> int:
        """The node reached from ``node`` by ``actions`` (chance nodes are passed through).

        Raises:
            SubgameError: naming the first action the tree does not hold there.
        """
        tree = self.tree
        for i, action in enumerate(actions):
            node = skip_chance(self.tree, node)
            if tree.kind[node] != DECISION or action not in tree.actions(node):
                offered = tree.actions(node) if tree.kind[node] == DECISION else []
                raise SubgameError(
                    f"action {i + 1} ({action}) is not in the subgame tree at node {node} (offered: {[str(a) for a in offered]})"
                )
            node = int(tree.children[tree.child_start[node] + tree.actions(node).index(action)])
        return skip_chance(self.tree, node)

    def board_round(self, node: int) -> int:
        """The round whose board ``node``'s rows and values are indexed by: its own, or at a
        chance node the round it deals from (its values average over the cards it deals)."""
        tree = self.tree
        if tree.kind[node] == CHANCE and tree.deal_from[node] >= 0:
            return int(tree.deal_from[node])
        return int(tree.round[node])

    def board_index(self, node: int, board: Sequence[int] | None) -> int:
        """The board index of ``node``'s round (:meth:`board_round`) given the board cards dealt so far.

        Raises:
            SubgameError: if the board is missing or does not fit the node's round.
        """
        r = self.board_round(node)
        if self.space.n_boards[r] == 1:
            return 0
        if board is None:
            raise SubgameError(f"node {node} is in round {r + 1}, after cards the subgame deals: pass the board")
        cards = list(board)[: self.root.game.board_cards_through(r)]
        try:
            found, index = self.space.board_index(cards)
        except ValueError as error:
            raise SubgameError(str(error)) from None
        if found != r:
            raise SubgameError(f"board {cards} has the cards of round {found + 1}, but node {node} is in round {r + 1}")
        return index

    def path(self, node: int) -> list[tuple[int, int]]:
        """(node, edge) pairs from the root down to ``node``."""
        return path_from_root(self.parent, self.parent_edge, node)


def build_subgame(
    root: State, abstraction: ActionAbstraction | None, *, size_scale: float = 1.0, depth_limited: bool = False,
    runout: Sequence[int] = (),
) -> Subgame:
    """The subgame of ``root``: its board (through the root's round) is known.  With
    ``depth_limited`` the tree ends with the root's round: the chance nodes dealing the
    next round are leaves, valued by :mod:`solver.subgame.depth_limited_range`.  A
    ``runout`` (whole later rounds of board cards) is known too: the subgame is the one
    deal, its values conditional on it (depth-limited leaf values on sampled runouts).

    Raises:
        SubgameError: if the root is finished, the game is not two-player, or the
            board so far is missing from ``root.board``.
    """
    game = root.game
    if game.num_players != 2:
        raise SubgameError(f"subgame solving needs a two-player game, not {game.num_players} players")
    if root.finished:
        raise SubgameError("the subgame root is a finished hand; there is nothing to solve")
    n_board = game.board_cards_through(root.round)
    if len(root.board) < n_board:
        raise SubgameError(f"the root is in round {root.round + 1}, which needs {n_board} board cards, got {len(root.board)}")
    if not size_scale > 0:
        raise SubgameError(f"the bet-size scale must be positive, got {size_scale}")
    tree = build_tree(game, abstraction, root=root, size_scale=size_scale, last_round=root.round if depth_limited else None)
    space = card_space(game, tuple(root.board[:n_board]) + tuple(runout), root.round if depth_limited else None)
    return assemble_subgame(root, abstraction, size_scale, tree, space)


def assemble_subgame(
    root: State, abstraction: ActionAbstraction | None, size_scale: float, tree: BettingTree, space: CardSpace,
    shared: SharedParts | None = None,
) -> Subgame:
    """The :class:`Subgame` of ``root`` from its tree and card space, built apart (a caller
    that values one tree on many runouts builds the tree once and a space per runout).
    ``shared``: what earlier subgames of the same tree or space already packed."""
    tabular = tabular_layout(tree, space)
    if shared is None:
        arrays, cards = kernel_arrays(tabular, hand_scale=1.0)
        parent, parent_edge = parents(tree)
    else:
        parts, parent, parent_edge = shared.tree(tree)
        arrays, cards = kernel_arrays(tabular, hand_scale=1.0, parts=parts, cards=shared.cards(space))
    return Subgame(root, abstraction, size_scale, tabular, arrays, cards, parent, parent_edge)


def parents(tree: BettingTree) -> tuple[np.ndarray, np.ndarray]:
    """(parent node, index of the parent's edge leading here) of every node; -1 at the root."""
    parent = np.full(tree.n_nodes, -1, np.int64)
    parent_edge = np.full(tree.n_nodes, -1, np.int64)
    for node in range(tree.n_nodes):
        for e in range(tree.child_start[node], tree.child_start[node] + tree.child_count[node]):
            parent[tree.children[e]] = node
            parent_edge[tree.children[e]] = e - tree.child_start[node]
    return parent, parent_edge


class SharedParts:
    """The packed parts of subgames that share trees or card spaces (a depth-limited
    solve's rest of the hand: each leaf's tree on each runout's space), each packed once.
    Kept by object: a tree or space is the same one only if it is the same object."""

    def __init__(self) -> None:
        self._trees: dict[int, tuple[BettingTree, TreeParts, np.ndarray, np.ndarray]] = {}
        self._spaces: dict[int, tuple[CardSpace, CardArrays]] = {}

    def tree(self, tree: BettingTree) -> tuple[TreeParts, np.ndarray, np.ndarray]:
        """``tree``'s :func:`solver.ranges.tree_parts` and :func:`parents`."""
        found = self._trees.get(id(tree))
        if found is None or found[0] is not tree:
            found = self._trees[id(tree)] = (tree, tree_parts(tree), *parents(tree))
        return found[1], found[2], found[3]

    def cards(self, space: CardSpace) -> CardArrays:
        """``space``'s :func:`solver.ranges.card_arrays` for subgames (hand scale 1)."""
        found = self._spaces.get(id(space))
        if found is None or found[0] is not space:
            found = self._spaces[id(space)] = (space, card_arrays(space, 1.0))
        return found[1]

    def forget(self, space: CardSpace) -> None:
        """Drop ``space``'s arrays (its runout is done with)."""
        self._spaces.pop(id(space), None)


class CheckSchedule:
    """When to measure exploitability so that the checks cost less than they save.

    A check (two best-response traversals) costs about as much as an iteration, so
    checking every 10 iterations spends several % of a solve on checks, and any fixed
    interval overshoots the target by up to the interval.  Instead: after a check at
    iteration t with exploitability e above the target, fit e ∝ t^-p through the last
    two checks, predict the iteration t* where the target is met, and check next at
    t + 0.8 (t* - t) — or at t* itself once that is within 4 checks' cost — but never
    more than t further on (so a bad prediction at most doubles the iterations) nor
    sooner than one check's cost in iterations.  A target of 0 is never met: the checks
    then double the iterations.

    p is clamped to [1.5, 2.5] (``MIN_POWER``, ``MAX_POWER``): DCFR's exploitability on
    the bench's spots falls at least that fast after the first tens of iterations, and
    an iteration past the target costs more than an extra check, so the prediction errs
    early.  Replayed on dense exploitability curves of the bench's spots (river, river
    with a 33% bet, turn in float32 and float64, targets 0.1-1% of the pot), this stops
    at 1.06 times the ideal cost (the crossing iteration, no check) on average against
    1.12 for a check every 10 iterations, and at worst 1.14 of it; a lower clamp (0.5)
    once overshot to 1.6.

    The iterates do not depend on when they are measured: a solve stops at another
    iteration than with a fixed interval, but its arrays at any iteration are the same.
    """

    MIN_POWER = 1.5
    MAX_POWER = 2.5

    def __init__(self, target_pct: float, first: int = 10) -> None:
        self.target = target_pct
        self.next = max(1, first)
        self.history: list[tuple[int, float]] = []

    def record(self, iteration: int, exploitability: float, check_cost: float = 1.0) -> int:
        """Note a check's result (``check_cost``: its time in iterations' time) and return
        the iteration of the next check."""
        self.history.append((iteration, exploitability))
        t, e = iteration, exploitability
        power = self.MIN_POWER
        if len(self.history) >= 2:
            t0, e0 = self.history[-2]
            if t0 < t and e0 > 0 and e > 0:
                power = min(max(math.log(e0 / e) / math.log(t / t0), self.MIN_POWER), self.MAX_POWER)
        cost = max(check_cost, 1.0)
        if self.target > 0 and e > 0:
            remaining = t * (e / self.target) ** (1.0 / power) - t
            gap = remaining if remaining <= 4 * cost else 0.8 * remaining
        else:
            gap = float(t)
        self.next = t + int(min(max(math.ceil(gap), math.ceil(cost)), t))
        return self.next


class SubgameResult(NamedTuple):
    """What a solve returns.

    strategy: the average strategy, tabular layout of ``subgame.tabular.layout``: float64,
        or after ``solve(final=True)`` the solver's storage dtype (float32 by default).
    root_values: (2, n_hands) each player's counterfactual values at the root under it.
    exploitability_pct: mean best-response gain in % of the root pot (NaN if never measured).
    """

    strategy: np.ndarray
    root_values: np.ndarray
    exploitability_pct: float
    iterations: int
    seconds: float
    memory_bytes: int


#: The subgame solver's default: DCFR with the average strategy's old sums discounted by
#: ((t - 1) / t)^3 rather than the DCFR paper's ^2, so that the early, poor iterates fade
#: faster.  Measured on the bench's spots (docs/investigations/dcfr_variants.py,
#: docs/results/2026-11-27-solver-speed.md): to the same exploitability the turn spot
#: needs about 8% fewer iterations (0.5%: 92 against 100), the river spot 3% (0.1%: 183
#: against 188) and agent-sized river solves 6% (to 1%, 30 random boards and ranges).
SUBGAME_DCFR = CFRConfig(alpha=1.5, beta=0.0, gamma=3.0)


class SubgameSolver:
    """DCFR (default :data:`SUBGAME_DCFR`) or any :class:`solver.cfr.fullwidth.CFRConfig` on one subgame.

    Args:
        ranges: (2, n_hands) each player's reach at the root (hands touching the
            board are zeroed); any non-negative weights.
        threads: numba threads for the parts below the first chance nodes.
        max_bytes: refuse subgames whose regret, average and strategy arrays need more.
        dtype: storage of the regrets and average-strategy sums (arithmetic is float64
            either way): float32 (default) halves the memory traffic that bounds the
            solve's speed; float64 reproduces full-game solvers to the last bits.

    Raises:
        SubgameError: if the ranges have the wrong shape or are negative or empty,
            or the subgame needs more than ``max_bytes``.
    """

    #: The current strategy is kept between traversals (float64, 8 bytes an entry) up to
    #: this size: it saves about 7% of an iteration on river subgames, but only about 4%
    #: on the bench's turn spot, where it would add 72 MB to 144 MB (measured 2026-11-27,
    #: docs/results/2026-11-27-solver-speed.md).
    KEPT_BYTES = 32e6

    def __init__(
        self, subgame: Subgame, ranges: np.ndarray, config: CFRConfig = SUBGAME_DCFR, *, threads: int = 1,
        max_bytes: float = 8e9, dtype: type = np.float32,
    ) -> None:
        if len(subgame.leaves):
            raise SubgameError("a depth-limited subgame is solved by solver.subgame.depth_limited_range, not SubgameSolver")
        ranges = np.array(ranges, dtype=np.float64)
        if ranges.shape != (2, subgame.n_hands):
            raise SubgameError(f"ranges must have shape (2, {subgame.n_hands}) over the subgame's hands, got {ranges.shape}")
        if not np.all(np.isfinite(ranges)) or ranges.min() < 0 or not (ranges.sum(axis=1) > 0).all():
            raise SubgameError("ranges must be finite, non-negative, and give each player some weight")
        if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
            raise SubgameError(f"threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {threads}")
        if np.dtype(dtype) not in (np.float32, np.float64):
            raise SubgameError(f"dtype must be float32 or float64, got {np.dtype(dtype)}")
        size = subgame.tabular.layout.size
        keep = 8 * size <= self.KEPT_BYTES
        # Regrets and sums in dtype, the kept strategy in float64, plus the normalized
        # float64 strategy a solve returns.
        needed = (2 * np.dtype(dtype).itemsize + 8 * keep + 8) * size
        if needed > max_bytes:
            raise SubgameError(
                f"the subgame needs {needed / 1e9:.1f} GB of strategy arrays (limit {max_bytes / 1e9:.1f} GB): "
                "root it later in the hand or use a coarser action abstraction"
            )
        self.subgame = subgame
        self.ranges = ranges  # hands exclude the known board's cards, so no hand is blocked at the root
        self.config = CFRConfig(*(float(x) for x in config))
        self.threads = threads
        self.regret = np.zeros(size, dtype)
        self.avg = np.zeros(size, dtype)
        #: The current strategy, regret matching of ``regret`` kept by the updates
        #: (:func:`solver.ranges.walk`'s ``kept``; uniform while the regrets are 0), or
        #: empty (regret matching at every visit) above ``KEPT_BYTES``.
        self.kept = subgame.tabular.uniform_strategy() if keep else np.zeros(0)
        self.iterations = 0
        #: Set by ``solve(final=True)``: the regrets' memory holds the returned strategy.
        self.finished = False
        #: The kept strategy's bytes while the solver iterated (it is released when finished).
        self._kept_bytes = self.kept.nbytes
        #: With threads > 1: hand the parts below the frontier out by an atomic counter
        #: (True) or split them statically as before (False, kept for comparisons); the
        #: results are bitwise the same.
        self.dynamic_split = True

    # --- running --------------------------------------------------------------------

    def _values(self, trav: int, mode: int, reach: np.ndarray, strategy: np.ndarray, d=(1.0, 1.0, 1.0)) -> np.ndarray:
        numba.set_num_threads(self.threads)
        sg = self.subgame
        kept = self.kept if mode == UPDATE else np.zeros(0)
        return split_values(
            trav, mode, sg.arrays, sg.cards, reach[trav], reach[1 - trav], self.regret, self.avg, strategy, kept, *d,
            parallel=self.threads > 1, dynamic=self.dynamic_split,
        )

    def _update(self, trav: int, reach: np.ndarray, d: tuple[float, float, float]) -> np.ndarray:
        return self._values(trav, UPDATE, reach, self.avg, d)

    def iterate(self, count: int = 1, hook: RootHook | None = None) -> None:
        """Run ``count`` more iterations (alternating updates), calling ``hook`` if given.

        Raises:
            SubgameError: after ``solve(final=True)``, which gave the regrets' memory away.
        """
        self._check_not_finished()
        for _ in range(count):
            self.iterations += 1
            hooked_iteration(self.iterations, self.ranges, self.config, hook, self._update)

    def average_strategy(self, out: np.ndarray | None = None) -> np.ndarray:
        """The average strategy (tabular layout; uniform where never reached): a new
        float64 array, or written into ``out`` in its dtype."""
        return normalized(self.subgame.tabular.layout, self.subgame.tree, self.avg, out=out)

    def current_strategy(self) -> np.ndarray:
        """The regret-matching strategy of the next iteration (tabular layout)."""
        self._check_not_finished()
        return normalized(self.subgame.tabular.layout, self.subgame.tree, self.regret, positive_part=True)

    def _check_not_finished(self) -> None:
        if self.finished:
            raise SubgameError("this solve was final (solve(final=True) gave its regrets' memory to the strategy); "
                               "build a new solver to iterate again")  # fmt: skip

    def exploitability(self, strategy: np.ndarray | None = None) -> float:
        """Mean best-response gain against ``strategy`` (default: the average), % of the root pot."""
        s = self._playable(strategy)
        gains = [float(self.ranges[p] @ self._values(p, BEST_RESPONSE, self.ranges, s)) for p in range(2)]
        return 100.0 * sum(gains) / 2 / self.mass() / self.subgame.pot

    def _playable(self, strategy: np.ndarray | None) -> np.ndarray:
        """A strategy for the kernel in the solver's dtype: by default the average
        strategy's sums (the kernel normalizes rows as it reads them)."""
        if strategy is None:
            return self.avg
        return np.asarray(strategy, self.avg.dtype)

    def mass(self) -> float:
        """Joint weight of the compatible (own hand, opponent hand) pairs of the ranges."""
        return float(self.ranges[0] @ hand_weights(self.subgame.hands, self.ranges[1]))

    def memory_bytes(self) -> int:
        """Peak bytes of the solver's arrays (regrets, sums, kept strategy, the strategy a
        solve returns) and the subgame's card and tree arrays.  A final solve returns its
        strategy in the regrets' memory, so it needs one table fewer."""
        sg = self.subgame
        # Regrets and sums, then the returned strategy: float64, or the regrets' own memory.
        tables = 2 * self.avg.nbytes + (0 if self.finished else 8 * self.avg.size)
        arrays = [a for a in (*sg.cards, *sg.arrays) if isinstance(a, np.ndarray)]
        return int(tables + self._kept_bytes + sum(a.nbytes for a in arrays))

    def solve(
        self,
        target_pct: float = 0.1,
        *,
        time_limit: float = float("inf"),
        max_iterations: int = 1_000_000,
        check_every: int | None = None,
        hook: RootHook | None = None,
        final: bool = False,
    ) -> SubgameResult:
        """Iterate until the average strategy's exploitability is at most ``target_pct``
        (% of the root pot), ``time_limit`` seconds have passed, or ``max_iterations``
        iterations have run in total.

        The exploitability is measured when a :class:`CheckSchedule` predicts the target
        is met (default), or with ``check_every`` every that many iterations (and the
        time limit then only tested after each check, as before the schedule).  On a
        time-out the result holds the average strategy reached so far, measured.

        ``final``: no more iterations will follow, so the returned strategy is written
        into the regrets' memory, in their dtype (float32 by default: each probability
        rounded to about 6e-8 of itself), instead of a new float64 table (half the memory
        at the peak with float32 storage); the solver can still measure and evaluate,
        not iterate.

        Raises:
            SubgameError: if ``check_every`` or ``max_iterations`` is not positive, or
                the solver already finished.
        """
        self._check_not_finished()
        if (check_every is not None and check_every < 1) or max_iterations < 1:
            raise SubgameError("check_every and max_iterations must be positive")
        start = time.perf_counter()
        measured = float("nan")
        if check_every is None and self.iterations < max_iterations:
            measured = self._solve_scheduled(target_pct, start + time_limit, max_iterations, hook)
        while check_every is not None and self.iterations < max_iterations:
            self.iterate(min(check_every, max_iterations - self.iterations), hook)
            measured = self.exploitability()
            if measured <= target_pct or time.perf_counter() - start >= time_limit:
                break
        values = np.array([self._values(p, EVALUATE, self.ranges, self.avg) for p in range(2)])
        if final:
            strategy = self.average_strategy(out=self.regret)
            # Typed empties: the evaluation and best-response kernels take them but do not read them.
            self.regret, self.kept, self.finished = self.regret[:0], np.zeros(0), True
        else:
            strategy = self.average_strategy()
        seconds = time.perf_counter() - start
        return SubgameResult(strategy, values, measured, self.iterations, seconds, self.memory_bytes())

    def _solve_scheduled(self, target_pct: float, deadline: float, max_iterations: int, hook: RootHook | None) -> float:
        """:meth:`solve`'s loop with checks when a :class:`CheckSchedule` says; the last
        measured exploitability (the time limit is tested after every iteration)."""
        schedule = CheckSchedule(target_pct, first=min(self.iterations + 10, max_iterations))
        iteration_seconds = 0.0
        iterated = 0
        while True:
            tick = time.perf_counter()
            self.iterate(1, hook)
            now = time.perf_counter()
            iteration_seconds += now - tick
            iterated += 1
            out_of_time = now >= deadline
            if self.iterations >= min(schedule.next, max_iterations) or out_of_time:
                measured = self.exploitability()
                if measured <= target_pct or out_of_time or self.iterations >= max_iterations:
                    return measured
                cost = (time.perf_counter() - now) / (iteration_seconds / iterated)
                schedule.record(self.iterations, measured, cost)

    # --- queries for agents and gadgets ----------------------------------------------

    def node_strategy(self, node: int, board: Sequence[int] | None = None, *, average: bool = True) -> np.ndarray:
        """(n_hands, actions) probabilities at decision ``node`` (actions in edge order),
        the average strategy or (``average=False``) the current regret-matching one;
        ``board`` is needed below the subgame's chance nodes."""
        if not average:
            self._check_not_finished()
        n_a = int(self.subgame.tree.child_count[node])
        start, end = self._rows(node, board)
        x = (self.avg[start:end] if average else np.maximum(self.regret[start:end], 0.0)).astype(np.float64).reshape(-1, n_a)
        total = x.sum(axis=1, keepdims=True)
        return np.divide(x, total, out=np.full_like(x, 1.0 / n_a), where=total > 0)

    def strategy_at(self, node: int, hand: int, board: Sequence[int] | None = None, *, average: bool = True) -> np.ndarray:
        """Action probabilities of ``hand`` at decision ``node`` (see :meth:`node_strategy`)."""
        return self.node_strategy(node, board, average=average)[hand]

    def _rows(self, node: int, board: Sequence[int] | None) -> tuple[int, int]:
        sg = self.subgame
        if sg.tree.kind[node] != DECISION:
            raise SubgameError(f"node {node} is not a decision")
        n_a = int(sg.tree.child_count[node])
        start = int(sg.tabular.layout.offset[node]) + sg.board_index(node, board) * sg.n_hands * n_a
        return start, start + sg.n_hands * n_a

    def reach_at(self, node: int, board: Sequence[int] | None = None, strategy: np.ndarray | None = None) -> np.ndarray:
        """(2, n_hands) both players' reach at ``node`` (root ranges times each one's own
        action probabilities along the path: Bayes' rule up to normalization), hands
        touching the board zeroed.  ``strategy`` defaults to the average."""
        sg = self.subgame
        reach = self.ranges.copy()
        for parent, edge in sg.path(node):
            if sg.tree.kind[parent] != DECISION:
                continue
            if strategy is None:
                probs = self.node_strategy(parent, board)[:, edge]
            else:
                start, end = self._rows(parent, board)
                probs = strategy[start:end].reshape(sg.n_hands, -1)[:, edge]
            reach[sg.tree.player[parent]] *= probs
        return reach * _board_mask(sg, node, board)

    def best_response_values(self, node: int, player: int, board: Sequence[int] | None = None) -> np.ndarray:
        """``player``'s counterfactual best-response values per hand at ``node`` against the
        other player's average strategy (opponent reach at ``node``, chance included)."""
        return self._node_values(node, player, board, BEST_RESPONSE)

    def values_at(self, node: int, player: int, board: Sequence[int] | None = None) -> np.ndarray:
        """``player``'s counterfactual values per hand at ``node`` with both playing the average."""
        return self._node_values(node, player, board, EVALUATE)

    def _node_values(self, node: int, player: int, board: Sequence[int] | None, mode: int) -> np.ndarray:
        sg = self.subgame
        reach = self.reach_at(node, board)
        for parent, _ in sg.path(node):
            if sg.tree.kind[parent] == CHANCE:
                reach[1 - player] *= sg.arrays.deal_factor[parent]
        b = np.int64(sg.board_index(node, board))
        n_h = sg.n_hands
        return walk(
            np.int64(node), b, np.int64(player), reach[player], reach[1 - player], np.int64(mode), sg.arrays, sg.cards,
            self.regret, self.avg, self.avg, np.zeros(0), 1.0, 1.0, 1.0, np.int64(WHOLE), np.zeros((0, 2, n_h)),
            np.zeros((0, n_h)),
        )


def hooked_iteration(
    t: int, ranges: np.ndarray, config: CFRConfig, hook: RootHook | None,
    traverse: Callable[[int, np.ndarray, tuple[float, float, float]], np.ndarray],
) -> None:
    """Iteration ``t`` of alternating updates under the root hook protocol (module
    docstring): the hook's root reaches, then ``traverse(player, reach, discounts)`` for
    player 0 and 1, each one's root values handed to the hook."""
    reach = ranges
    if hook is not None:
        reach = np.array([hooked_reach(hook.root_reach(t, p, ranges[p]), ranges[p], p) for p in range(2)])
    d = discounts(t, *config)
    for trav in range(2):
        values = traverse(trav, reach, d)
        if hook is not None:
            hook.entered(t, trav, values)


def hooked_reach(reach: np.ndarray | None, default: np.ndarray, player: int) -> np.ndarray:
    """A root hook's reach for ``player`` checked (``default`` where the hook returned None).

    Raises:
        SubgameError: if the hook's reach is malformed.
    """
    if reach is None:
        return default
    reach = np.asarray(reach, np.float64)
    if reach.shape != default.shape or not np.all(np.isfinite(reach)) or reach.min() < 0:
        raise SubgameError(f"the root hook returned an invalid reach for player {player}: need {default.shape} non-negative")
    return reach


def _board_mask(sg: Subgame, node: int, board: Sequence[int] | None) -> np.ndarray:
    r = sg.board_round(node)
    return sg.space.compat[r][sg.board_index(node, board)].astype(np.float64)


