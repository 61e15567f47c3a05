"""Strategy artifacts: a strategy in a tree's layout, saved with what rebuilds the tree.

The artifact (kind ``"strategy"``) holds the probabilities, the layout's offsets and
rows per round; its header holds the game, the action abstraction and the card
abstraction's name.  Loading rebuilds the betting tree from the game and the
abstraction and checks it is the tree the strategy was made on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from protocol.gamedef import GameDef
from solver.artifacts import ArtifactError, load_artifact, save_artifact
from solver.bets import parse_abstraction
from solver.tree import BettingTree, Layout, build_tree, layout

STRATEGY_KIND = "strategy"


class SavedStrategy(NamedTuple):
    """A loaded strategy: its tree, layout, probabilities and build parameters."""

    tree: BettingTree
    layout: Layout
    strategy: np.ndarray
    params: dict[str, Any]


def save_strategy(
    path: str | Path, tree: BettingTree, lay: Layout, strategy: np.ndarray, *, card_abstraction: str = "identity", **params: Any
) -> Path:
    """Write ``strategy`` (in ``lay``) for ``tree``; extra ``params`` go into the header."""
    header = {
        "action_abstraction": tree.abstraction.spec() if tree.abstraction else "",
        "card_abstraction": card_abstraction,
        "nodes": tree.n_nodes,
        **params,
    }
    arrays = {"strategy": np.asarray(strategy, np.float64), "offset": lay.offset, "rows": np.array(lay.rows, np.int64)}
    return save_artifact(path, STRATEGY_KIND, arrays, game=tree.game, params=header)


def load_strategy(path: str | Path, game: GameDef) -> SavedStrategy:
    """Load a strategy saved for ``game`` and rebuild its tree.

    Raises:
        ArtifactError: if the file is not a strategy for this game or its tree differs.
    """
    rebuild = "solver solve --game <game> ..."
    art = load_artifact(path, STRATEGY_KIND, game=game, rebuild=rebuild)
    spec = art.params.get("action_abstraction", "")
    tree = build_tree(game, parse_abstraction(spec) if spec else None)
    lay = layout(tree, tuple(int(r) for r in art.arrays["rows"]))
    if tree.n_nodes != art.params.get("nodes") or not np.array_equal(lay.offset, art.arrays["offset"]):
        raise ArtifactError(
            f"{path} was made on a different betting tree than {spec or 'the limit tree'} builds now; rebuild it with: {rebuild}"
        )
    return SavedStrategy(tree, lay, np.array(art.arrays["strategy"]), dict(art.params))
