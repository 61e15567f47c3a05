"""A blueprint's betting tree cached on disk, so loading a blueprint does not rebuild it.

Building the shipped blueprint's tree (about 106,000 nodes, every fact from
:mod:`protocol.rules`) takes seconds of Python; its arrays take milliseconds to read.
:func:`cached_tree` builds the tree once and keeps its arrays in one ``.npz`` under a
cache folder, named by a hash of everything the tree depends on: the game, the action
abstraction, and the source of the modules that build it (``solver.tree``,
``solver.bets``, ``protocol.rules``), so an edit of the rules or of the tree
builder rebuilds it instead of reading a stale copy.

A tree read back holds :class:`LazyStates` for ``states``: each node's rules
:class:`~protocol.rules.State` is made on first use by replaying the edges from the
root (the parent's state, if made already, plus one action), equal to the one
:func:`solver.tree.build_tree` makes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import structlog

import protocol.rules
import solver.bets
import solver.tree
from protocol.gamedef import GameDef, format_gamedef
from protocol.rules import Action, ActionType, State, initial_state
from solver.bets import ActionAbstraction
from solver.tree import BettingTree, build_tree

log = structlog.get_logger("precompute.treecache")

#: The arrays of a :class:`~solver.tree.BettingTree` kept in the cache (all but ``states``).
ARRAYS = ("kind", "player", "round", "deal_from", "spent", "folded", "child_start", "child_count", "children",
          "edge_action", "edge_size", "slot", "n_slots", "fold_value")
#: Bump when the cache file's contents change meaning.
FORMAT = 1


class LazyStates:
    """``states[node]`` of a tree read from the cache, each made once when first asked for.

    Args:
        game: the tree's game; the root's state is ``initial_state(game)``.
        child_start, child_count, children, edge_action, edge_size: the tree's arrays.
    """

    def __init__(self, game: GameDef, child_start: np.ndarray, child_count: np.ndarray, children: np.ndarray,
                 edge_action: np.ndarray, edge_size: np.ndarray) -> None:
        n = len(child_start)
        self._edge_into = np.full(n, -1, np.int64)  # the edge leading to each node (-1: the root)
        self._edge_into[children] = np.arange(len(children))
        self._edge_from = np.repeat(np.arange(n), child_count)  # the node each edge leaves
        self._edge_action, self._edge_size = edge_action, edge_size
        self._states: dict[int, State] = {0: initial_state(game)}
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[State]:
        return (self[i] for i in range(self._n))

    def __getitem__(self, node: int) -> State:
        node = int(node)
        if not 0 <= node < self._n:
            raise IndexError(f"node {node} is not in a tree of {self._n} nodes")
        path = []
        while node not in self._states:
            path.append(node)
            node = int(self._edge_from[self._edge_into[node]])
        state = self._states[node]
        for child in reversed(path):
            edge = self._edge_into[child]
            kind = int(self._edge_action[edge])
            if kind >= 0:  # a deal (-1) leaves the betting state as it is
                state = state.apply(Action(ActionType(kind), int(self._edge_size[edge])))
            self._states[child] = state
        return state


def tree_key(game: GameDef, abstraction: ActionAbstraction | None) -> str:
    """The cache name of the tree of ``game`` and ``abstraction`` with today's tree code."""
    digest = hashlib.sha256(f"{FORMAT}\n{format_gamedef(game)}\n{abstraction.spec() if abstraction else ''}\n".encode())
    for module in (solver.tree, solver.bets, protocol.rules):
        digest.update(Path(module.__file__ or "").read_bytes())
    return digest.hexdigest()[:24]


def read_tree(path: Path, game: GameDef, abstraction: ActionAbstraction | None) -> BettingTree:
    """The tree whose arrays :func:`write_tree` saved at ``path``, its states made lazily.

    Raises:
        OSError, ValueError, KeyError: if the file cannot be read or lacks an array.
    """
    with np.load(path, allow_pickle=False) as data:
        return tree_from_arrays(game, abstraction, {name: data[name] for name in ARRAYS})


def tree_arrays(tree: BettingTree) -> dict[str, np.ndarray]:
    """``tree``'s :data:`ARRAYS` (what a worker on another machine needs to rebuild it)."""
    return {name: getattr(tree, name) for name in ARRAYS}


def tree_from_arrays(game: GameDef, abstraction: ActionAbstraction | None, arrays: dict[str, np.ndarray]) -> BettingTree:
    """The tree with :data:`ARRAYS` ``arrays`` (from :func:`tree_arrays`), its states made lazily.

    Raises:
        KeyError: if an array is missing.
    """
    states = LazyStates(game, arrays["child_start"], arrays["child_count"], arrays["children"],
                        arrays["edge_action"], arrays["edge_size"])
    return BettingTree(game=game, abstraction=abstraction, states=states,  # type: ignore[arg-type]
                       **{name: arrays[name] for name in ARRAYS})


def write_tree(path: Path, tree: BettingTree) -> None:
    """Save ``tree``'s arrays at ``path`` (written under a temporary name, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    try:
        np.savez(tmp, **tree_arrays(tree))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def cached_tree(game: GameDef, abstraction: ActionAbstraction | None, directory: Path) -> BettingTree:
    """The betting tree of ``game`` and ``abstraction``: read from ``directory`` if cached
    there, else built and (if ``directory`` is writable) cached for the next time.

    Raises:
        TreeError: if the tree cannot be built.
    """
    path = directory / f"tree-{tree_key(game, abstraction)}.npz"
    if path.exists():
        try:
            return read_tree(path, game, abstraction)
        except (OSError, ValueError, KeyError) as exc:
            log.warning("the cached betting tree is unreadable; rebuilding it", path=str(path), error=str(exc))
    tree = build_tree(game, abstraction)
    try:
        write_tree(path, tree)
    except OSError as exc:  # a read-only cache costs the next load a rebuild, nothing more
        log.warning("cannot cache the betting tree", path=str(path), error=str(exc))
    return tree
