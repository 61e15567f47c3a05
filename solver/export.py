"""Strategies as JSON policies other tools can read and check on their own.

A policy file is one JSON object::

    {"format": "acpc-agent-policy/1",
     "game": "<the .game file text>",
     "action_abstraction": "0.5,1;allin;cap=2",
     "entries": [{"seat": 0, "hole": "AsKd", "board": "Qh7c2d", "betting": "r200c/",
                  "probabilities": {"c": 0.25, "r600": 0.75}}, ...]}

A file whose name ends in ``.gz`` is written and read through gzip.

One entry per decision point and private hand: ``seat`` the acting player (0-based,
as in MATCHSTATE lines), ``hole`` its hole cards, ``board`` the board cards dealt so
far in dealing order (empty before the first board card), ``betting`` the ACPC
betting string of the state, ``probabilities`` the action probabilities keyed by the
ACPC action text (``f``, ``c``, ``r<raise-to>``).  Hands that share a card with the
board are left out.  Floats are written with Python's shortest round-trip form, so
reading them back gives exactly the strategy's numbers.

A writer may add keys of its own beside ``entries`` (``solver spot`` adds the spot,
the ranges and the solve's figures) and leave out the hands a seat never holds;
:func:`read_policy` and :func:`policy_strategy` read any such file back into a tabular
strategy of the same game and abstraction.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from protocol.cards import cards_str
from protocol.gamedef import format_gamedef
from solver.ranges import TabularGame
from solver.tree import DECISION

FORMAT = "acpc-agent-policy/1"


def policy_entries(game: TabularGame, strategy: np.ndarray, hands: np.ndarray | None = None) -> Iterator[dict[str, Any]]:
    """Every (seat, hole, board, betting) entry of a tabular ``strategy``; with ``hands``
    ((players, n_hands) bool), only the hands it marks for the acting seat."""
    tree, space, lay = game.tree, game.space, game.layout
    for node in np.flatnonzero(tree.kind == DECISION):
        r, n_a = int(tree.round[node]), int(tree.child_count[node])
        names = [str(a) for a in tree.actions(node)]
        betting = tree.states[node].betting
        seat = int(tree.player[node])
        for b in range(space.n_boards[r]):
            board = cards_str(space.boards[r][b].tolist())
            held = space.compat[r][b] if hands is None else space.compat[r][b] & hands[seat]
            for h in np.flatnonzero(held):
                start = lay.offset[node] + (b * space.n_hands + h) * n_a
                probs = strategy[start : start + n_a].tolist()
                yield {
                    "seat": seat,
                    "hole": cards_str(space.hands[h].tolist()),
                    "board": board,
                    "betting": betting,
                    "probabilities": dict(zip(names, probs)),
                }


def export_policy(
    path: str | Path,
    game: TabularGame,
    strategy: np.ndarray,
    *,
    extra: Mapping[str, Any] | None = None,
    hands: np.ndarray | None = None,
) -> int:
    """Write ``strategy`` (tabular, in ``game``'s layout) as a JSON policy; returns the
    number of entries.  ``extra``: more top-level keys (written before ``entries``);
    ``hands``: (players, n_hands) bool, the hands to write for each acting seat.

    Raises:
        ValueError: if the strategy does not fit the game's layout, ``extra`` reuses a
            key of the format, or ``path`` is a folder.
        OSError: if the file cannot be written (no ``.tmp`` file is left behind).
    """
    strategy = np.asarray(strategy, np.float64)
    if strategy.shape != (game.layout.size,):
        raise ValueError(f"the strategy has shape {strategy.shape}, but this game's tabular layout needs ({game.layout.size},)")
    header = {"format": FORMAT, "game": format_gamedef(game.game), "action_abstraction": _spec(game)}
    clash = set(header) & set(extra or {}) | ({"entries"} & set(extra or {}))
    if clash:
        raise ValueError(f"extra keys {sorted(clash)} would replace the policy format's own")
    header.update(extra or {})
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give the JSON file to write")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    count = 0
    try:
        # Streamed entry by entry (a turn spot has millions), as json.dumps would write the whole.
        with _open(path, tmp, "wt") as out:
            out.write(json.dumps(header)[:-1] + ', "entries": [')
            for entry in policy_entries(game, strategy, hands):
                out.write((", " if count else "") + json.dumps(entry))
                count += 1
            out.write("]}")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)  # a failed write leaves no half a file beside the one asked for
    return count


def read_policy(path: str | Path) -> dict[str, Any]:
    """A policy file's JSON object, its format checked.

    Raises:
        ValueError: if the file is not JSON or not a policy of this format.
        OSError: if it cannot be read.
    """
    try:
        with _open(Path(path), Path(path), "rt") as file:
            document = json.load(file)
    except (ValueError, EOFError, gzip.BadGzipFile) as error:
        raise ValueError(f"{path} is not a JSON file: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        found = document.get("format") if isinstance(document, dict) else type(document).__name__
        raise ValueError(f"{path} is not a policy file (format {found!r}, expected {FORMAT!r})")
    missing = [k for k in ("game", "action_abstraction", "entries") if k not in document]
    if missing:
        raise ValueError(f"{path} is a policy file without {missing}")
    return document


def policy_strategy(game: TabularGame, document: Mapping[str, Any]) -> np.ndarray:
    """The tabular strategy (``game``'s layout) of a policy ``document`` written for
    ``game``; rows it has no entry for are uniform.

    Raises:
        ValueError: if the document is for another game or abstraction, or names an
            entry the game does not hold (the entry's number, 0-based, and key).
    """
    if document["game"] != format_gamedef(game.game) or document["action_abstraction"] != _spec(game):
        raise ValueError("the policy was written for another game or action abstraction than the one rebuilt to read it")
    tree, space, lay = game.tree, game.space, game.layout
    strategy = np.empty(lay.size)
    decisions: dict[str, int] = {}
    for node in np.flatnonzero(tree.kind == DECISION):
        n_a = int(tree.child_count[node])
        end = lay.offset[node] + space.n_boards[tree.round[node]] * space.n_hands * n_a
        strategy[lay.offset[node] : end] = 1.0 / n_a
        decisions[tree.states[node].betting] = int(node)
    names = {node: [str(a) for a in tree.actions(node)] for node in decisions.values()}
    # Keys as policy_entries writes them.
    boards = {
        (r, cards_str(space.boards[r][b].tolist())): b for r in range(len(space.n_boards)) for b in range(space.n_boards[r])
    }
    holes = {cards_str(space.hands[h].tolist()): h for h in range(space.n_hands)}
    for i, entry in enumerate(document["entries"]):
        try:
            node = decisions[entry["betting"]]
            r, n_a = int(tree.round[node]), int(tree.child_count[node])
            b, h = boards[r, entry["board"]], holes[entry["hole"]]
            if not space.compat[r][b][h] or entry["seat"] != tree.player[node]:
                raise ValueError
            row = [float(entry["probabilities"][name]) for name in names[node]]
        except (KeyError, TypeError, ValueError):
            raise ValueError(
                f"entry {i} ({entry!r:.200}) is not a decision, board and hand of the game and abstraction rebuilt to read it"
            ) from None
        start = lay.offset[node] + (b * space.n_hands + h) * n_a
        strategy[start : start + n_a] = row
    return strategy


def _open(name: Path, path: Path, mode: str) -> Any:
    """``path`` opened as text, through gzip when ``name`` ends in ``.gz``."""
    if name.name.endswith(".gz"):
        return gzip.open(path, mode, compresslevel=6, encoding="utf-8")  # 9: 7x the time for 5% less
    return path.open(mode[0], encoding="utf-8")


def _spec(game: TabularGame) -> str:
    abstraction = game.tree.abstraction
    return abstraction.spec() if abstraction else ""
