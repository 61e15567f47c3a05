"""Real-game trees for one player's strategy, and blueprint strategies carried onto them.

For Table 2 the real game offers more bet sizes than the blueprint.  A strategy of
player p that only ever uses the blueprint's sizes lives on the *seat tree* T_p:
p gets the blueprint's sizes, the opponent every real size, at every node.  The
opponent's exact best response to p in the real game is its best response in T_p.

:func:`carry_blueprint` plays the blueprint on T_p: a node is followed down the
blueprint tree by matching p's own actions by label (fold, call, a pot fraction,
all-in) and translating the opponent's real sizes onto the blueprint's options
(randomized pseudoharmonic, :mod:`solver.translation`; a bet is never translated to
a check or call that would end the round — the Libratus rule).  Where translation
randomizes, p's strategy is the mixture over the blueprint nodes it may be at,
weighted by their probability and p's own reach there (p knows its own actions).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from protocol.rules import ActionType, State
from solver.bets import ActionAbstraction
from solver.ranges import TabularGame
from solver.translation import pot_fraction, pseudoharmonic
from solver.tree import CHANCE, DECISION, BettingTree


@dataclass(frozen=True)
class SeatAbstraction(ActionAbstraction):
    """Different sizes per acting player: ``seats[p]`` gives player p's raises."""

    seats: tuple[ActionAbstraction, ...] = field(default=())

    def raise_sizes(self, state: State, scale: float = 1.0) -> list[int]:
        return self.seats[state.current_player].raise_sizes(state, scale)

    def spec(self) -> str:
        return " | ".join(f"seat {p + 1}: {a.spec()}" for p, a in enumerate(self.seats))


def size_labels(abstraction: ActionAbstraction, state: State) -> dict[int, str]:
    """Raise-to sizes the blueprint ``abstraction`` offers in ``state`` → a label naming
    the size in any state: the pot fraction that makes it (``"0.5"``), ``"allin"`` or
    ``"min"``.  Each fraction's size comes from the abstraction's own sizing rule."""
    bounds = state.raise_bounds()
    sizes = set(abstraction.raise_sizes(state))
    if bounds is None or not sizes:
        return {}
    low, high = bounds
    out = {high: "allin"} if high in sizes else {}
    r = state.round
    fractions = [f for table in (abstraction.pot_fractions, abstraction.raise_fractions) if table
                 for f in table[min(r, len(table) - 1)]]
    for fraction in fractions:
        alone = (fraction,)
        single = replace(abstraction, pot_fractions=(alone,), raise_fractions=(alone,) if abstraction.raise_fractions else (),
                         all_in=False, min_raise=False)
        made = single.raise_sizes(state)
        if made and made[0] in sizes:
            out.setdefault(made[0], f"{fraction:g}")
    if abstraction.min_raise and low in sizes:
        out.setdefault(low, "min")
    return out


def edge_labels(tree: BettingTree, node: int, abstraction: ActionAbstraction) -> list[str]:
    """Per edge of ``node``: ``f``, ``c``, the blueprint label of a raise the blueprint
    ``abstraction`` offers here, or ``off:<size>`` for a raise it does not (off-tree)."""
    state = tree.states[node]
    labels = size_labels(abstraction, state)
    out = []
    for action in tree.actions(node):
        if action.kind != ActionType.RAISE:
            out.append("f" if action.kind == ActionType.FOLD else "c")
        else:
            out.append(labels.get(action.size, f"off:{action.size}"))
    return out


def translation(
    real: TabularGame, node: int, edge: int, blueprint: TabularGame, b_node: int
) -> list[tuple[int, float]]:
    """Where the opponent's action on ``edge`` of real ``node`` leads at blueprint ``b_node``:
    (blueprint edge, probability) pairs."""
    abstraction = blueprint.tree.abstraction
    labels = edge_labels(blueprint.tree, b_node, abstraction)
    offset = edge - real.tree.child_start[node]
    action = real.tree.actions(node)[offset]
    mine = edge_labels(real.tree, node, abstraction)[offset]
    b_start = blueprint.tree.child_start[b_node]
    if mine in labels:
        return [(b_start + labels.index(mine), 1.0)]
    if action.kind != ActionType.RAISE:  # a fold where the blueprint cannot fold: treat as a call
        return [(b_start + labels.index("c"), 1.0)]
    b_state = blueprint.tree.states[b_node]
    options = [(pot_fraction(b_state, a.size), b_start + i) for i, a in enumerate(blueprint.tree.actions(b_node))
               if a.kind == ActionType.RAISE]
    call = b_start + labels.index("c")
    call_child = blueprint.tree.children[call]
    # A call that would end the round cannot stand in for a bet (the Libratus rule).
    if blueprint.tree.kind[call_child] == DECISION and blueprint.tree.round[call_child] == b_state.round:
        options.insert(0, (0.0, call))
    if not options:
        return [(call, 1.0)]
    x = pot_fraction(real.tree.states[node], action.size)
    if x >= options[-1][0]:
        return [(options[-1][1], 1.0)]
    if x <= options[0][0]:
        return [(options[0][1], 1.0)]
    upper = next(i for i, (size, _) in enumerate(options) if size >= x)
    (a, low), (b, high) = options[upper - 1], options[upper]
    p_low = pseudoharmonic(a, b, x)
    return [(low, p_low), (high, 1.0 - p_low)]


def _matching_edge(label: str, labels: list[str]) -> int:
    """The edge among ``labels`` that a blueprint action ``label`` is played as: the same
    label, else all-in for a raise the real state sizes differently, else check/call."""
    for candidate in (label, "allin" if label not in ("f", "c") else "c", "c"):
        if candidate in labels:
            return labels.index(candidate)
    raise ValueError(f"no check or call among the edges {labels}")


def _extend(reach: np.ndarray, game: TabularGame, from_round: int, to_round: int) -> np.ndarray:
    """Rows of ``from_round`` → rows of ``to_round`` (each board's hands copied to its extensions)."""
    space = game.space
    n_h = space.n_hands
    ext = space.extensions(from_round, to_round)
    out = np.repeat(reach.reshape(-1, n_h), ext, axis=0)
    return out.ravel() * space.compat[to_round].ravel()


def carry_blueprint(real: TabularGame, blueprint: TabularGame, strategy: np.ndarray, player: int) -> np.ndarray:
    """``player``'s blueprint played on the seat tree ``real`` (tabular, ``real``'s layout;
    the opponent's rows are uniform).  Both trees must share the card space."""
    out = real.uniform_strategy()
    rt, bt, lay, blay = real.tree, blueprint.tree, real.layout, blueprint.layout
    abstraction = bt.abstraction

    def visit(node: int, here: list[tuple[int, np.ndarray]], round_: int) -> None:
        kind = rt.kind[node]
        if kind == CHANCE:
            r = int(rt.round[node])
            child = int(rt.children[rt.child_start[node]])
            moved = [(int(bt.children[bt.child_start[b]]), _extend(w, real, round_, r)) for b, w in here]
            visit(child, moved, r)
            return
        if kind != DECISION:
            return
        n_a = int(rt.child_count[node])
        start = rt.child_start[node]
        # Blueprint nodes where the trees disagree on who acts (translated all-ins) drop out.
        here = [(b, w) for b, w in here if bt.kind[b] == DECISION and bt.player[b] == rt.player[node]]
        if rt.player[node] != player:
            for e in range(start, start + n_a):
                nxt: dict[int, np.ndarray] = {}
                for b, w in here:
                    for b_edge, p in translation(real, node, e, blueprint, b):
                        child = int(bt.children[b_edge])
                        nxt[child] = nxt.get(child, 0) + p * w
                visit(int(rt.children[e]), list(nxt.items()), round_)
            return
        rows = lay.rows[round_]
        mixed = np.zeros((rows, n_a))
        total = np.zeros(rows)
        children: list[list[tuple[int, np.ndarray]]] = [[] for _ in range(n_a)]
        real_labels = edge_labels(rt, node, abstraction)
        for b, w in here:
            b_labels = edge_labels(bt, b, abstraction)
            sigma = strategy[blay.offset[b] : blay.offset[b] + rows * len(b_labels)].reshape(rows, -1)
            for j, label in enumerate(b_labels):
                i = _matching_edge(label, real_labels)
                mixed[:, i] += w * sigma[:, j]
                children[i].append((int(bt.children[bt.child_start[b] + j]), w * sigma[:, j]))
            total += w
        held = total > 0
        block = out[lay.offset[node] : lay.offset[node] + rows * n_a].reshape(rows, n_a)
        block[held] = mixed[held] / total[held, None]
        block[~held] = np.eye(n_a)[real_labels.index("c")]  # no blueprint node to follow: check or call
        for i in range(n_a):
            visit(int(rt.children[start + i]), children[i], round_)

    first = 0 if rt.kind[0] == DECISION else -1
    visit(0, [(0, np.ones(lay.rows[0] if first == 0 else 1))], max(first, 0))
    return out
