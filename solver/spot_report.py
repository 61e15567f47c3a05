"""What ``solver spot`` prints about a solved spot: the solve's figures, and one node's
strategy by hand class, for the whole range, and for chosen hands.

A node is named by its *line*, the actions after the spot's root separated by commas:
each an action label as the tables print it (``check``, ``call``, ``fold``, ``bet67``,
``raise150``, ``allin``) or its ACPC text (``c``, ``f``, ``r117``), and, where the tree
deals a card, the card (``Kd``).  Amounts in labels are chips put in on the street
(a bet of 67, a raise to 150); ``allin`` is the all-in.

The tables weight each hand by the acting player's reach at the node: its range times
its own probabilities of the actions on the line (Bayes' rule up to a constant), with
the hands holding a card dealt on the line removed.  A class's ``combos`` is that
weight summed over its combos (at the root, the range's combos).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from protocol.cards import cards_str, parse_card
from protocol.errors import WireFormatError
from protocol.rules import Action, ActionType
from solver.range_notation import CLASS_NAMES, PAIR_CLASS, RangeError, combo_str, parse_range
from solver.spot import STREETS, Spot, SpotError
from solver.spot_solution import SpotSolution
from solver.subgame.range_solver import Subgame
from solver.tree import CHANCE, DECISION


def solve_lines(solution: SpotSolution, loaded_from: str | None = None) -> list[str]:
    """The spot and the figures of its solve (``loaded_from``: the file it was reopened from)."""
    f, spot = solution.figures, solution.spot
    combos = solution.ranges.sum(axis=1)  # the subgame's hands hold no board card
    lines = [
        "spot: " + spot.describe(),
        f"ranges: OOP {combos[spot.oop]:,.1f} combos, IP {combos[1 - spot.oop]:,.1f} combos (weighted, board cards removed)",
        f"tree: {f['nodes']:,} nodes, {f['decisions']:,} decisions, {f['infoset_rows']:,} infoset rows, {f['hands']:,} hands; "
        f"built in {f['build_seconds']:.2f} s",
        ("solve: " if loaded_from is None else f"solve (as saved in {loaded_from}): ")
        + f"{f['iterations']:,} iterations in {f['seconds']:.2f} s on {f['threads']} thread(s), "
        f"exploitability {f['exploitability_pct']:.4f}% of the pot (target {spot.accuracy:g}%: "
        + ("met" if f["stopped"] == "accuracy" else f"not met, stopped by the {f['stopped']}")
        + ")",
        f"memory: solver arrays {f['memory_bytes'] / 1e6:.1f} MB, process peak {f['peak_rss_mb']:.0f} MB; "
        f"{f['memory_bytes'] / f['infoset_rows']:.1f} bytes per infoset row",
    ]
    if solution.never_offered:
        lines.append(
            "sizes never offered as a bet of their own (below the minimum, or all-in by the threshold): "
            + ", ".join(solution.never_offered)
        )
    return lines


def node_of_line(spot: Spot, sg: Subgame, line: str) -> tuple[int, tuple[int, ...]]:
    """(decision node, board so far) reached by ``line`` (see the module docstring).

    Raises:
        SpotError: naming the first token the tree does not hold there, or a line
            ending where no one acts.
    """
    tree = sg.tree
    node, board = 0, tuple(spot.board)
    tokens = [t.strip() for t in line.split(",") if t.strip()]
    for i, token in enumerate(tokens, start=1):
        if tree.kind[node] == CHANCE:
            try:
                card = parse_card(token)
            except WireFormatError:
                raise SpotError(
                    f"--line token {i} ({token!r}): the {_street(sg, node)} card is dealt here; give a card like Kd"
                ) from None
            if card in board:
                raise SpotError(f"--line token {i} ({token!r}): {token} is already on the board {cards_str(board)}")
            board += (card,)
            node = int(tree.children[tree.child_start[node]])
            continue
        if tree.kind[node] != DECISION:
            raise SpotError(f"--line token {i} ({token!r}): the hand is over after {', '.join(tokens[: i - 1])}")
        labels = action_labels(sg, node)
        names = [str(a) for a in tree.actions(node)]
        if token in labels:
            edge = labels.index(token)
        elif token in names:
            edge = names.index(token)
        else:
            raise SpotError(
                f"--line token {i} ({token!r}) is not an action here; the {_seat(spot, sg, node)} can: "
                + ", ".join(f"{label} ({name})" for label, name in zip(labels, names))
            )
        node = int(tree.children[tree.child_start[node] + edge])
    if tree.kind[node] != DECISION:
        what = "the hand is over" if tree.kind[node] != CHANCE else f"the {_street(sg, node)} card comes next (add it, e.g. Kd)"
        raise SpotError(f"--line {line!r} ends where no one acts: {what}")
    return node, board


def node_lines(solution: SpotSolution, node: int, board: Sequence[int], hands: str | None = None) -> list[str]:
    """The strategy at decision ``node``: header, the range's action frequencies, one row
    per hand class with weight, and with ``hands`` (range notation) one row per combo.

    Raises:
        SpotError: if ``hands`` is not a range, or each of its combos holds a board card.
    """
    sg, spot = solution.subgame, solution.spot
    tree = sg.tree
    probs, reach = node_strategy(solution, node, board)
    labels = action_labels(sg, node)
    state = tree.states[node]
    line = _line_text(solution, node, board)
    out = [
        f"node: {line or 'root'} -- {_seat(spot, sg, node)} to act on the {STREETS[int(tree.round[node]) - 1]}, "
        f"pot {state.pot}, board {cards_str(board)}",
        "actions: " + "; ".join(f"{label} = {text}" for label, text in zip(labels, _action_texts(sg, node))),
    ]
    total = reach.sum()
    if not total > 0:
        out.append(f"the {_seat(spot, sg, node)}'s range never reaches this node (its reach is 0 for every hand)")
        return out
    width = max(7, *(len(label) + 1 for label in labels))
    overall = reach @ probs / total
    out.append(f"range: {total:,.1f} combos  " + "  ".join(f"{label} {100 * p:.1f}%" for label, p in zip(labels, overall)))
    out.append(f"{'class':<6}{'combos':>8}" + "".join(f"{label:>{width}}" for label in labels))
    pairs = sg.hole_pair_index()
    classes = PAIR_CLASS[pairs]
    weight = np.bincount(classes, weights=reach, minlength=169)
    mix = np.stack([np.bincount(classes, weights=reach * probs[:, a], minlength=169) for a in range(probs.shape[1])], axis=1)
    for c in np.flatnonzero(weight > 0):
        row = 100 * mix[c] / weight[c]
        out.append(f"{CLASS_NAMES[c]:<6}{weight[c]:>8.2f}" + "".join(f"{p:>{width}.1f}" for p in row))
    if hands is not None:
        try:
            chosen = parse_range(hands)
        except RangeError as error:
            raise SpotError(f"--hand: {error}") from None
        rows = [h for h in np.flatnonzero(chosen[pairs] > 0) if not set(sg.hands[h].tolist()) & set(board)]
        if not rows:
            raise SpotError(f"--hand {hands!r}: every combo holds a card of the board {cards_str(board)}")
        out.append(f"{'hand':<6}{'reach':>8}" + "".join(f"{label:>{width}}" for label in labels))
        for h in sorted(rows, key=lambda h: (classes[h], pairs[h])):
            out.append(f"{combo_str(int(pairs[h])):<6}{reach[h]:>8.4f}" + "".join(f"{100 * p:>{width}.1f}" for p in probs[h]))
        if not reach[rows].any():
            out.append(
                f"(none of these hands reaches this node in the {_seat(spot, sg, node)}'s range: its play there is never used)"
            )
    return out


def node_strategy(solution: SpotSolution, node: int, board: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(probabilities (n_hands, actions), the acting player's reach (n_hands,)) at ``node``."""
    sg = solution.subgame
    tree = sg.tree
    reach = solution.ranges[int(tree.player[node])].copy()
    for parent, edge in sg.path(node):
        if tree.kind[parent] == DECISION and tree.player[parent] == tree.player[node]:
            reach *= _rows(solution, parent, board)[:, edge]
    r = int(tree.round[node])
    reach *= sg.space.compat[r][sg.board_index(node, board)]
    return _rows(solution, node, board), reach


def action_labels(sg: Subgame, node: int) -> list[str]:
    """The short names of ``node``'s actions: check, call, fold, bet67, raise150, allin."""
    return [_label(sg, node, a)[0] for a in sg.tree.actions(node)]


def _action_texts(sg: Subgame, node: int) -> list[str]:
    return [_label(sg, node, a)[1] for a in sg.tree.actions(node)]


def _label(sg: Subgame, node: int, action: Action) -> tuple[str, str]:
    """(short label, long text) of one action at ``node``."""
    state = sg.tree.states[node]
    p = state.current_player
    if action.kind == ActionType.FOLD:
        return "fold", "fold (f)"
    to_call = state.max_spent - state.spent[p]
    if action.kind == ActionType.CALL:
        return ("call", f"call {to_call} (c)") if to_call else ("check", "check (c)")
    before = _street_start(sg, node)
    chips = action.size - before
    pct = 100 * (action.size - state.max_spent) / (state.pot + to_call)
    if action.size >= state.game.stack[p]:
        return "allin", f"all-in, {chips} on the street ({pct:.0f}% of the pot; {action})"
    if state.max_spent > before:
        return f"raise{chips}", f"raise to {chips} on the street ({pct:.0f}% of the pot; {action})"
    return f"bet{chips}", f"bet {chips} ({pct:.0f}% of the pot; {action})"


def _street_start(sg: Subgame, node: int) -> int:
    """Chips each player had put in when ``node``'s street began (the same for both)."""
    tree, r = sg.tree, sg.tree.round[node]
    while sg.parent[node] >= 0 and tree.round[sg.parent[node]] == r:
        node = int(sg.parent[node])
    return int(tree.states[node].max_spent)


def _rows(solution: SpotSolution, node: int, board: Sequence[int]) -> np.ndarray:
    sg = solution.subgame
    n_a = int(sg.tree.child_count[node])
    start = int(sg.tabular.layout.offset[node]) + sg.board_index(node, board) * sg.n_hands * n_a
    return solution.strategy[start : start + sg.n_hands * n_a].reshape(sg.n_hands, n_a)


def _line_text(solution: SpotSolution, node: int, board: Sequence[int]) -> str:
    sg = solution.subgame
    parts, dealt = [], list(board[len(solution.spot.board) :])
    for parent, edge in sg.path(node):
        if sg.tree.kind[parent] == CHANCE:
            parts.append(cards_str([dealt.pop(0)]))
        elif sg.tree.kind[parent] == DECISION:
            parts.append(action_labels(sg, parent)[edge])
    return ",".join(parts)


def _seat(spot: Spot, sg: Subgame, node: int) -> str:
    return "OOP" if int(sg.tree.player[node]) == spot.oop else "IP"


def _street(sg: Subgame, node: int) -> str:
    return STREETS[int(sg.tree.round[node]) - 1]  # a chance node has the round of the card it deals
