"""Depth-limited range subgames: a public state's round solved with the rest of the game
replaced by values at its leaves (Modicum: Brown, Sandholm and Amos, NeurIPS 2018;
docs/algorithms.md, "Depth-limited solving").

A subgame built with ``build_subgame(..., depth_limited=True)`` ends with its root's
round: the chance nodes that would deal the next round are *leaves*.  At a leaf the
*chooser* (the re-solver's opponent) picks, per hand, one of k continuation strategies
for the rest of the game (the re-solver keeps its blueprint there): the leaf is one more
decision of the chooser's, with its own regrets, solved by CFR with the round's
decisions, so the round's strategy must hold up against every continuation, not only
the blueprint's.  What a continuation is worth at a leaf comes from a
:class:`LeafValues`: :class:`TreeLeafValues` walks a full-depth tree exactly (small
games, tests); hold'em needs a cheaper one (sampled runouts of the blueprint).

Each traversal walks the round once recording the reaches arriving at the leaves (the
range kernel's RECORD stage, as the threaded split does at its frontier), asks the leaf
values of every leaf, and walks again reading them (READ) and updating: the round's
decisions are the kernel's own code.  This is the range-solver counterpart of
:mod:`solver.subgame.depth_limited` (tabular games, pair-payoff tables at the leaves).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np

from solver.cfr.fullwidth import CFRConfig
from solver.ranges import (
    BEST_RESPONSE,
    EVALUATE,
    READ,
    RECORD,
    UPDATE,
    WHOLE,
    normalized,
    regret_match,
    update_rows,
    walk,
)
from solver.subgame.gadgets import hand_weights
from solver.subgame.range_solver import SUBGAME_DCFR, RootHook, Subgame, SubgameError, hooked_iteration
from solver.tree import CHANCE, DECISION


class LeafValues(Protocol):
    """The values of the rest of the game at a depth-limited subgame's leaves.

    ``k`` continuations; ``values(leaf, option, trav, reach_t, reach_o)``: the
    traverser's counterfactual values (n_hands,) at leaf ``leaf`` (an index into the
    subgame's ``leaves``) when the rest of the game is played by continuation
    ``option``, given both players' reaches arriving there — what the range kernel
    would return at that chance node if the tree went on.

    Optionally ``begin_iteration(t)``: called before each solve iteration (leaf values
    estimated by sampling draw their sample there); ``choices(leaf)``: 1 where every
    continuation has the same value (a called all-in), else ``k``.
    """

    k: int

    def values(self, leaf: int, option: int, trav: int, reach_t: np.ndarray, reach_o: np.ndarray) -> np.ndarray: ...


class TreeLeafValues:
    """Exact leaf values from a full-depth subgame of the same root: continuation ``j`` is
    the full tree's strategy ``profiles[j]`` (tabular layout of ``full``) played below
    each leaf.  Costs one walk of the rest of the game per leaf, option and traversal."""

    def __init__(self, cut: Subgame, full: Subgame, profiles: Sequence[np.ndarray]) -> None:
        if cut.root != full.root or len(full.leaves):
            raise SubgameError("the full subgame must be the same root's, not depth-limited")
        if not profiles:
            raise SubgameError("at least one continuation profile is needed")
        self.full = full
        self.profiles = [np.asarray(p, np.float64) for p in profiles]
        self.k = len(self.profiles)
        self.nodes = np.array([twin_node(cut, full, int(leaf)) for leaf in cut.leaves], np.int64)
        if (full.tree.kind[self.nodes] != CHANCE).any():
            raise SubgameError("the full subgame's tree does not match the depth-limited one's")

    def values(self, leaf: int, option: int, trav: int, reach_t: np.ndarray, reach_o: np.ndarray) -> np.ndarray:
        full, n_h = self.full, len(reach_t)
        unused = np.zeros(0)
        return walk(
            np.int64(self.nodes[leaf]), np.int64(0), np.int64(trav), reach_t, reach_o, np.int64(EVALUATE), full.arrays,
            full.cards, unused, unused, self.profiles[option], unused, 1.0, 1.0, 1.0, np.int64(WHOLE),
            np.zeros((0, 2, n_h)), np.zeros((0, n_h)),
        )


_EXECUTORS: dict[int, ThreadPoolExecutor] = {}
_EXECUTORS_LOCK = threading.Lock()


def _executor(threads: int) -> ThreadPoolExecutor:
    """The process's pool of ``threads`` leaf-valuing threads (made once: a solve per
    decision would otherwise start and leave threads behind)."""
    with _EXECUTORS_LOCK:
        if threads not in _EXECUTORS:
            _EXECUTORS[threads] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="dl-leaves")
        return _EXECUTORS[threads]


def twin_node(cut: Subgame, full: Subgame, node: int) -> int:
    """The node of ``full`` (the same root's full-depth subgame) at the end of the betting
    path to ``node`` of the depth-limited ``cut``."""
    at = 0
    for parent, edge in cut.path(node):
        action = cut.tree.actions(parent)[edge]
        at = int(full.tree.children[full.tree.child_start[at] + full.tree.actions(at).index(action)])
    return at


class DepthLimitedSolver:
    """DCFR on a depth-limited subgame (``build_subgame(..., depth_limited=True)``).

    ``ranges`` (2, n_hands) the root ranges, ``leaves`` the continuation values,
    ``chooser`` the player who picks a continuation at the leaves (the re-solver's
    opponent).  The round's rows are in the subgame's tabular layout (``regret``,
    ``avg``, float64); the chooser's leaf choices in ``leaf_regret`` / ``leaf_avg``
    (leaves, hands, k).  The root hook works as :class:`SubgameSolver`'s.  ``threads``:
    the leaves of a traversal are valued on that many threads (their walks release the
    GIL; each leaf's values and updates are its own, so the results are bitwise those
    of one thread).

    Raises:
        SubgameError: if the subgame is not depth-limited, the ranges are malformed, or
            the chooser is not a player.
    """

    def __init__(
        self, subgame: Subgame, ranges: np.ndarray, leaves: LeafValues, chooser: int, config: CFRConfig = SUBGAME_DCFR,
        threads: int = 1,
    ) -> None:
        if not len(subgame.leaves):
            raise SubgameError("the subgame has no leaves: build it with depth_limited=True, or use SubgameSolver")
        if not np.array_equal(subgame.leaves, subgame.arrays.frontier_nodes):
            raise SubgameError("a depth-limited subgame's leaves must be its only chance nodes")
        ranges = np.array(ranges, np.float64)
        if ranges.shape != (2, subgame.n_hands) or not np.all(np.isfinite(ranges)) or ranges.min() < 0:
            raise SubgameError(f"ranges must be finite and non-negative with shape (2, {subgame.n_hands})")
        if not (ranges.sum(axis=1) > 0).all():
            raise SubgameError("ranges must give each player some weight")
        if chooser not in (0, 1):
            raise SubgameError(f"the chooser is player 0 or 1, not {chooser}")
        if threads < 1:
            raise SubgameError(f"threads is at least 1, got {threads}")
        self.subgame = subgame
        self.ranges = ranges
        self.leaves = leaves
        self.chooser = chooser
        self.config = CFRConfig(*(float(x) for x in config))
        size = subgame.tabular.layout.size
        self.regret = np.zeros(size)
        self.avg = np.zeros(size)
        shape = (len(subgame.leaves), subgame.n_hands, leaves.k)
        self.leaf_regret = np.zeros(shape)
        self.leaf_avg = np.zeros(shape)
        self.iterations = 0
        self.threads = threads

    # --- one traversal ------------------------------------------------------------------

    def _traverse(self, trav: int, mode: int, reach: np.ndarray, strategy: np.ndarray, d=(1.0, 1.0, 1.0)) -> np.ndarray:
        sg = self.subgame
        n_h, n_leaves = sg.n_hands, len(sg.leaves)
        buf_reach = np.zeros((n_leaves, 2, n_h))
        buf_value = np.zeros((n_leaves, n_h))
        root, unused = np.int64(0), np.zeros(0)
        args = (np.int64(trav), reach[trav], reach[1 - trav], np.int64(mode), sg.arrays, sg.cards, self.regret, self.avg,
                strategy, unused, *d)  # fmt: skip
        walk(root, root, *args, np.int64(RECORD), buf_reach, buf_value)

        def value(leaf: int) -> None:
            buf_value[leaf] = self._leaf(leaf, trav, mode, buf_reach[leaf, 0], buf_reach[leaf, 1], d)

        if self.threads > 1 and n_leaves > 1:
            list(_executor(self.threads).map(value, range(n_leaves)))
        else:
            for leaf in range(n_leaves):
                value(leaf)
        return walk(root, root, *args, np.int64(READ), buf_reach, buf_value)

    def _update(self, trav: int, reach: np.ndarray, d: tuple[float, float, float]) -> np.ndarray:
        return self._traverse(trav, UPDATE, reach, self.avg, d)

    def _leaf(self, leaf: int, trav: int, mode: int, reach_t: np.ndarray, reach_o: np.ndarray, d) -> np.ndarray:
        """The traverser's values at a leaf: the chooser's decision among the continuations."""
        k = self.leaves.k
        choices = getattr(self.leaves, "choices", None)
        if k == 1 or (choices is not None and choices(leaf) == 1):
            return self.leaves.values(leaf, 0, trav, reach_t, reach_o)
        if trav != self.chooser:
            sigma = self._leaf_strategy(leaf, mode)
            return sum(self.leaves.values(leaf, j, trav, reach_t, reach_o * sigma[:, j]) for j in range(k))
        options = np.array([self.leaves.values(leaf, j, trav, reach_t, reach_o) for j in range(k)])
        if mode == BEST_RESPONSE:
            return options.max(axis=0)
        sigma = self._leaf_strategy(leaf, mode)
        values = (options * sigma.T).sum(axis=0)
        if mode == UPDATE:
            update_rows(self.leaf_regret[leaf].reshape(-1), self.leaf_avg[leaf].reshape(-1), 0, sigma, options, values,
                        reach_t, *d, False)  # fmt: skip
        return values

    def _leaf_strategy(self, leaf: int, mode: int) -> np.ndarray:
        """(hands, k) the chooser's continuation probabilities at a leaf: regret matching
        while solving, else its average (the first continuation where it never got there)."""
        n_h, k = self.leaf_regret.shape[1:]
        if mode == UPDATE:
            sigma = np.empty((n_h, k))
            regret_match(self.leaf_regret[leaf].reshape(-1), 0, n_h, k, sigma)
            return sigma
        total = self.leaf_avg[leaf].sum(axis=1, keepdims=True)
        first = np.zeros((n_h, k))
        first[:, 0] = 1.0
        return np.divide(self.leaf_avg[leaf], total, out=first, where=total > 0)

    def leaf_strategy(self, leaf: int) -> np.ndarray:
        """(hands, k) the chooser's average continuation probabilities at leaf ``leaf``."""
        return self._leaf_strategy(leaf, EVALUATE)

    # --- solving and measuring ---------------------------------------------------------

    def iterate(self, count: int = 1, hook: RootHook | None = None) -> None:
        """Run ``count`` more iterations (alternating updates), calling ``hook`` if given."""
        for _ in range(count):
            self.iterations += 1
            t = self.iterations
            begin = getattr(self.leaves, "begin_iteration", None)
            if begin is not None:
                begin(t)
            hooked_iteration(t, self.ranges, self.config, hook, self._update)

    def average_strategy(self) -> np.ndarray:
        """The round's average strategy (tabular layout; uniform where never reached)."""
        return normalized(self.subgame.tabular.layout, self.subgame.tree, self.avg)

    def root_values(self, player: int, strategy: np.ndarray | None = None, *, best: bool = False) -> np.ndarray:
        """``player``'s counterfactual values per hand at the root: both playing ``strategy``
        (default the average) in the round and the chooser its average continuations, or
        with ``best`` the player's best response to them (the best continuation per hand
        if it is the chooser)."""
        s = self.average_strategy() if strategy is None else np.asarray(strategy, np.float64)
        return self._traverse(player, BEST_RESPONSE if best else EVALUATE, self.ranges, s)

    def exploitability(self, strategy: np.ndarray | None = None) -> float:
        """Mean best-response gain of the two players in the depth-limited model, % of the root pot."""
        gains = [float(self.ranges[p] @ self.root_values(p, strategy, best=True)) for p in range(2)]
        mass = float(self.ranges[0] @ hand_weights(self.subgame.hands, self.ranges[1]))
        return 100.0 * sum(gains) / 2 / mass / self.subgame.pot


def decision_rows(sg: Subgame, strategy: np.ndarray, full: Subgame, into: np.ndarray) -> np.ndarray:
    """``into`` (a strategy of ``full``, same root) with the root round's rows replaced by
    those of ``strategy`` (a depth-limited subgame's): the round re-solved, the rest kept."""
    out = np.array(into, np.float64)
    tree, lay, full_lay = sg.tree, sg.tabular.layout, full.tabular.layout
    for node in np.flatnonzero(tree.kind == DECISION):
        twin = twin_node(sg, full, int(node))
        size = lay.rows[int(tree.round[node])] * int(tree.child_count[node])
        out[full_lay.offset[twin] : full_lay.offset[twin] + size] = strategy[lay.offset[node] : lay.offset[node] + size]
    return out
