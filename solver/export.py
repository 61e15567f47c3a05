"""Strategies as JSON policies other tools can read and check on their own.

A policy file is one JSON object::

    {"format": "acpc-agent-policy/1",
     "game": "<the .game file text>",
     "action_abstraction": "0.5,1;allin;cap=2",
     "entries": [{"seat": 0, "hole": "AsKd", "board": "Qh7c2d", "betting": "r200c/",
                  "probabilities": {"c": 0.25, "r600": 0.75}}, ...]}

One entry per decision point and private hand: ``seat`` the acting player (0-based,
as in MATCHSTATE lines), ``hole`` its hole cards, ``board`` the board cards dealt so
far in dealing order (empty before the first board card), ``betting`` the ACPC
betting string of the state, ``probabilities`` the action probabilities keyed by the
ACPC action text (``f``, ``c``, ``r<raise-to>``).  Hands that share a card with the
board are left out.  Floats are written with Python's shortest round-trip form, so
reading them back gives exactly the strategy's numbers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from protocol.cards import cards_str
from protocol.gamedef import format_gamedef
from solver.ranges import TabularGame
from solver.tree import DECISION

FORMAT = "acpc-agent-policy/1"


def policy_entries(game: TabularGame, strategy: np.ndarray) -> Iterator[dict[str, Any]]:
    """Every (seat, hole, board, betting) entry of a tabular ``strategy``."""
    tree, space, lay = game.tree, game.space, game.layout
    for node in np.flatnonzero(tree.kind == DECISION):
        r, n_a = int(tree.round[node]), int(tree.child_count[node])
        names = [str(a) for a in tree.actions(node)]
        betting = tree.states[node].betting
        seat = int(tree.player[node])
        for b in range(space.n_boards[r]):
            board = cards_str(space.boards[r][b].tolist())
            for h in np.flatnonzero(space.compat[r][b]):
                start = lay.offset[node] + (b * space.n_hands + h) * n_a
                probs = strategy[start : start + n_a].tolist()
                yield {
                    "seat": seat,
                    "hole": cards_str(space.hands[h].tolist()),
                    "board": board,
                    "betting": betting,
                    "probabilities": dict(zip(names, probs)),
                }


def export_policy(path: str | Path, game: TabularGame, strategy: np.ndarray) -> int:
    """Write ``strategy`` (tabular, in ``game``'s layout) as a JSON policy; returns the
    number of entries.

    Raises:
        ValueError: if the strategy does not fit the game's layout, or ``path`` is a folder.
        OSError: if the file cannot be written (no ``.tmp`` file is left behind).
    """
    strategy = np.asarray(strategy, np.float64)
    if strategy.shape != (game.layout.size,):
        raise ValueError(f"the strategy has shape {strategy.shape}, but this game's tabular layout needs ({game.layout.size},)")
    abstraction = game.tree.abstraction
    document = {
        "format": FORMAT,
        "game": format_gamedef(game.game),
        "action_abstraction": abstraction.spec() if abstraction else "",
        "entries": list(policy_entries(game, strategy)),
    }
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give the JSON file to write")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(document), encoding="utf-8")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)  # a failed write leaves no half a file beside the one asked for
    return len(document["entries"])
