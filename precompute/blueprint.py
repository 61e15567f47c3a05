"""Blueprint strategies for heads-up no-limit hold'em: the artifact and the API the agent plays from.

A blueprint is one artifact (kind ``"blueprint"``, :mod:`solver.artifacts`) holding

* ``strategy``: uint8, one number per (decision node, bucket, action) in the betting
  tree's :class:`~solver.tree.Layout`: the probability times 255, rounded; a row is
  renormalised on read (so actions under 1/510 are dropped);
* ``offset``, ``rows``: the layout, checked against the tree rebuilt on load;
* ``preflop_map``, ``flop_map``, ``turn_map``: the card abstraction's bucket maps
  (:class:`precompute.cardbuckets.BlueprintCards`); river buckets are computed on the
  fly: hand-strength percentiles, or, if the artifact holds ``river_centers`` and
  ``river_pair_cluster`` (the potential-aware abstraction), the nearest
  opponent-cluster hand-strength center (:mod:`precompute.riverochs`);

and in its header the game, the action abstraction (``solver.bets`` text),
the number of river buckets and the training recipe (command, seed, iterations).
Training is :mod:`precompute.blueprint_train` (``precompute blueprint``).

The default blueprint ships xz-compressed in ``precompute/data/`` with a RECIPE.md;
the first :meth:`Blueprint.load` unpacks it into ``$ACPC_CACHE_DIR`` (default
``~/.cache/acpc-agent``) and every load memory-maps the arrays, so nothing big is
copied.  The betting tree is built on the first load of a blueprint and cached there
too (:mod:`precompute.treecache`), so later loads read it instead of rebuilding it.

API (hands of a range are indexed as :data:`protocol.fasteval.HOLE_PAIRS`)::

    bp = Blueprint.load()                 # the shipped default; Blueprint.load(path) for another
    node = bp.root                        # a decision node of bp.tree (solver.tree.BettingTree)
    bp.actions(node)                      # the node's edges as protocol.rules.Action
    bp.strategy_at(node, hole, board)     # (n_actions,) probabilities for one hand
    bp.range_strategy(node, board)        # (1326, n_actions); rows of board-blocked hands are 0
    node = bp.child(node, action)         # follow a real action (chance nodes skipped)
    bp.node_after(actions)                # the node reached from the root by these actions
    bp.bucket(round, hole, board)         # the card abstraction's bucket

``child`` raises :class:`OffTreeAction` for an action the tree lacks: map it onto a
tree action first (action translation is the agent's job).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from precompute.cardbuckets import BlueprintCards
from precompute.riverochs import RiverOCHS
from precompute.treecache import cached_tree
from protocol.gamedef import GameDef, parse_gamedef
from protocol.rules import Action, ActionType
from solver.artifacts import ArtifactError, decompressed, load_artifact
from solver.bets import parse_abstraction
from solver.tree import DECISION, BettingTree, Layout, layout, skip_chance

BLUEPRINT_KIND = "blueprint"
DATA_DIR = Path(__file__).parent / "data"
#: The blueprint :meth:`Blueprint.load` uses when given no path.
DEFAULT_PATH = DATA_DIR / "holdem.nolimit.2p.blueprint.xz"
#: The recipe (command, seed, iterations, content hash) next to the default blueprint.
RECIPE_PATH = DATA_DIR / "RECIPE.md"
_QUANT = 255


class OffTreeAction(ValueError):
    """An action the blueprint's betting tree does not have at that node."""


def quantize(strategy: np.ndarray) -> np.ndarray:
    """Probabilities (float, in [0, 1]) as uint8 multiples of 1/255."""
    return np.rint(np.clip(strategy, 0.0, 1.0) * _QUANT).astype(np.uint8)


def cache_dir() -> Path:
    """Where shipped blueprints are unpacked: ``$ACPC_CACHE_DIR`` (default ``~/.cache/acpc-agent``)."""
    return Path(os.environ.get("ACPC_CACHE_DIR") or Path.home() / ".cache" / "acpc-agent")


#: Boards whose bucket of every hand a :class:`Blueprint` keeps (about 10 KB each).
BUCKET_CACHE = 256

class Blueprint:
    """A loaded blueprint (see the module docstring); build with :meth:`load`."""

    def __init__(self, game: GameDef, tree: BettingTree, lay: Layout, strategy: np.ndarray, cards: BlueprintCards,
                 params: dict[str, Any], path: Path) -> None:
        self.game, self.tree, self.layout, self.cards = game, tree, lay, cards
        self.params, self.path = params, path
        self._strategy = strategy  # uint8 memory map in the layout
        # The buckets of every hand on the last few boards: a subgame's rows read one
        # board for many nodes (a rest-of-hand subtree on a runout: a hundred or more).
        self._buckets: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}

    @classmethod
    def load(cls, path: str | Path | None = None, *, verify: bool = False) -> Blueprint:
        """Load a blueprint artifact (``.xz``: unpacked once into :func:`cache_dir`).

        Args:
            path: the artifact; None loads the shipped default (:data:`DEFAULT_PATH`).
            verify: also check the content hash (reads every byte).

        Raises:
            ArtifactError: if the file is missing, corrupt, not a blueprint, or its
                betting tree differs from the one its abstraction builds now.
        """
        path = Path(path) if path is not None else DEFAULT_PATH
        rebuild = "precompute blueprint --game holdem.nolimit.2p --out DIR (see precompute/data/RECIPE.md)"
        if path.suffix == ".xz":
            path = decompressed(path, cache_dir() / "blueprints")
        art = load_artifact(path, BLUEPRINT_KIND, rebuild=rebuild, verify=verify)
        game = parse_gamedef(art.header["game"])
        params = dict(art.params)
        tree = cached_tree(game, parse_abstraction(params["action_abstraction"]), cache_dir() / "trees")
        lay = layout(tree, tuple(int(r) for r in art.arrays["rows"]))
        if tree.n_nodes != params["nodes"] or not np.array_equal(lay.offset, art.arrays["offset"]):
            raise ArtifactError(f"{path} was trained on another betting tree than {params['action_abstraction']!r} builds now; "
                                f"rebuild it with: {rebuild}")
        a = art.arrays
        river = RiverOCHS.checked(a["river_centers"], a["river_pair_cluster"]) if "river_centers" in a else None
        cards = BlueprintCards((a["preflop_map"], a["flop_map"], a["turn_map"]), int(params["river_buckets"]), river)
        if cards.n_buckets != lay.rows:
            raise ArtifactError(f"{path}: its bucket maps give {cards.n_buckets} buckets, its layout {lay.rows}")
        return cls(game, tree, lay, a["strategy"], cards, params, path)

    # ------------------------------------------------------------ navigation

    @property
    def root(self) -> int:
        """The first decision node (chance nodes skipped)."""
        return skip_chance(self.tree, 0)

    def actions(self, node: int) -> list[Action]:
        """The actions on decision ``node``'s edges, in the order of its probabilities."""
        return self.tree.actions(node)

    def child(self, node: int, action: Action) -> int:
        """The node after ``action`` at decision ``node`` (chance nodes skipped).

        Raises:
            OffTreeAction: if the tree has no such edge at ``node`` (or ``node`` is no decision).
        """
        if self.tree.kind[node] != DECISION:
            raise OffTreeAction(f"node {node} is not a decision node")
        start, count = int(self.tree.child_start[node]), int(self.tree.child_count[node])
        for e in range(start, start + count):
            kind = int(self.tree.edge_action[e])
            if kind == int(action.kind) and (action.kind != ActionType.RAISE or int(self.tree.edge_size[e]) == action.size):
                return skip_chance(self.tree, int(self.tree.children[e]))
        offered = ", ".join(map(str, self.actions(node)))
        raise OffTreeAction(f"{action} is not in the blueprint's tree at node {node} (it offers {offered})")

    def node_after(self, actions: Sequence[Action]) -> int:
        """The node reached from the root by ``actions`` (all rounds, in order).

        Raises:
            OffTreeAction: at the first action the tree lacks.
        """
        node = self.root
        for action in actions:
            node = self.child(node, action)
        return node

    # ------------------------------------------------------------ strategies

    def bucket(self, round_: int, hole: Sequence[int], board: Sequence[int] = ()) -> int:
        """The card abstraction's bucket of ``hole`` in ``round_`` given the board so far."""
        return self.cards.bucket(round_, hole, board)

    def _rows(self, node: int) -> tuple[int, int, int]:
        if self.tree.kind[node] != DECISION:
            raise ValueError(f"node {node} is not a decision node")
        return int(self.layout.offset[node]), int(self.tree.child_count[node]), int(self.tree.round[node])

    def strategy_at(self, node: int, hole: Sequence[int], board: Sequence[int] = ()) -> np.ndarray:
        """Probabilities (float64 (n_actions,)) over ``actions(node)`` for the hand ``hole``.

        Raises:
            ValueError: if ``node`` is not a decision node; AbstractionError if the board
                does not fit the node's round.
        """
        base, n_a, round_ = self._rows(node)
        b = self.cards.bucket(round_, hole, board)
        row = self._strategy[base + b * n_a : base + (b + 1) * n_a].astype(np.float64)
        return row / row.sum()

    @property
    def table(self) -> np.ndarray:
        """Every infoset's quantized row (uint8, in ``layout`` order: per node, bucket-major)."""
        return np.asarray(self._strategy)

    def _range_buckets(self, round_: int, board: tuple[int, ...]) -> np.ndarray:
        key = (round_, board)
        found = self._buckets.get(key)
        if found is None:
            if len(self._buckets) >= BUCKET_CACHE:
                self._buckets.pop(next(iter(self._buckets)))  # the oldest
            found = self._buckets[key] = self.cards.range_buckets(round_, board)
        return found

    def range_strategy(self, node: int, board: Sequence[int] = ()) -> np.ndarray:
        """Probabilities (float64 (1326, n_actions)) for every ``HOLE_PAIRS`` hand at ``node``;
        rows of hands that share a card with ``board`` are all zero."""
        return self.range_strategies((node,), board)[0]

    def range_strategies(self, nodes: Sequence[int], board: Sequence[int] = ()) -> np.ndarray:
        """:meth:`range_strategy` of several decision nodes of one round with as many
        actions each, in one gather: float64 (len(nodes), 1326, n_actions).  (A
        depth-limited solve reads the rows of every rest-of-hand node on each of its
        runouts; one gather per round instead of one per node.)

        Raises:
            ValueError: if ``nodes`` is empty, or its nodes differ in round or action count.
        """
        shapes = {self._rows(int(n))[1:] for n in nodes}
        if len(shapes) != 1:
            raise ValueError(f"nodes of one round with as many actions each are needed, got {sorted(shapes)}")
        (n_a, round_), = shapes
        bases = np.array([self._rows(int(n))[0] for n in nodes], np.int64)
        buckets = self._range_buckets(round_, tuple(int(c) for c in board))
        free = buckets >= 0
        index = bases[:, None, None] + (buckets[free] * n_a)[None, :, None] + np.arange(n_a)[None, None, :]
        rows = np.asarray(self._strategy)[index].astype(np.float64)
        out = np.zeros((len(bases), len(buckets), n_a))
        out[:, free] = rows / rows.sum(axis=2, keepdims=True)
        return out


