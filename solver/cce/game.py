"""A small game in full, for coarse-correlated-equilibrium solvers: every deal, every
terminal, and each player's sequence form.

CFR-Jr and CFR-S (:mod:`solver.cce.cfr_jr`) work on the whole extensive-form game, not on
ranges: the terminals are (deal, terminal betting node) pairs, all deals equally
likely (:func:`solver.deals.all_deals`).  A player's *infoset* is a betting node where
it acts together with the row it sees there (board so far and its hand, the tabular
row of :mod:`solver.tree`'s layouts); a *sequence* is an (infoset, action) pair.  A
normal-form plan names one action per infoset; the reduced plans stored here mark
the infosets the plan itself never reaches with :data:`UNREACHED`.

Infosets are numbered in betting-node order, so an infoset's parent sequence always
belongs to an infoset with a smaller number: kernels sweep them forward (top-down)
or backward (bottom-up) without recursion.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from protocol.gamedef import GameDef
from solver.bets import ActionAbstraction
from solver.deals import CardSpace, all_deals, card_space
from solver.tree import DECISION, FOLD_END, SHOWDOWN, BettingTree, Layout, build_tree, layout, pot_shares

#: Action index of an infoset a reduced plan never reaches.
UNREACHED = 255
#: Games with more deals than this are refused (every deal is walked every iteration).
MAX_CCE_DEALS = 200_000


@dataclass(frozen=True, eq=False)
class SequenceForm:
    """One player's infosets and sequences (I infosets, S sequences).

    Attributes:
        player: whose they are.
        node, row: (I,) int64 betting node and tabular row of each infoset.
        base: (I,) int64 position of the infoset's first action in the layout.
        n_actions: (I,) int64.
        seq_start: (I + 1,) int64; infoset I's sequences are ``seq_start[I] + a``.
        parent_seq: (I,) int64 the player's previous sequence, -1 at its first move.
        terminal: (S,) bool, some terminal follows the sequence with no further move
            of this player.
        empty_terminal: some terminal is reached before this player ever moves.
    """

    player: int
    node: np.ndarray
    row: np.ndarray
    base: np.ndarray
    n_actions: np.ndarray
    seq_start: np.ndarray
    parent_seq: np.ndarray
    terminal: np.ndarray
    empty_terminal: bool

    @property
    def n_infosets(self) -> int:
        return len(self.node)

    @property
    def n_sequences(self) -> int:
        return int(self.seq_start[-1])


@dataclass(frozen=True, eq=False)
class FullGame:
    """A game small enough to enumerate: its tree, deals, payoffs and sequence forms.

    Attributes:
        rows: (deals, players, rounds) int64 tabular row each player sees per round.
        terminal_nodes: (T,) int64 the tree's terminal nodes; ``term_index[node]`` is a
            node's position among them (-1 elsewhere).
        payoff: (deals, T, players) float64 chips won.
        chance: probability of one deal.
        term_seq: (players, deals, T) int64 each player's last sequence before each
            terminal, -1 if it never moved.
        forms: each player's :class:`SequenceForm`.
    """

    tree: BettingTree
    space: CardSpace
    layout: Layout
    hands: np.ndarray
    boards: np.ndarray
    rows: np.ndarray
    terminal_nodes: np.ndarray
    term_index: np.ndarray
    payoff: np.ndarray
    chance: float
    term_seq: np.ndarray
    forms: tuple[SequenceForm, ...]

    @property
    def game(self) -> GameDef:
        return self.tree.game

    @property
    def n_players(self) -> int:
        return self.tree.game.num_players

    @property
    def n_terminals(self) -> int:
        """|Z|: (deal, terminal node) pairs."""
        return self.payoff.shape[0] * self.payoff.shape[1]

    @property
    def payoff_range(self) -> float:
        """Δ: the largest spread of any player's payoffs over the terminals, in chips."""
        spread = self.payoff.max(axis=(0, 1)) - self.payoff.min(axis=(0, 1))
        return float(spread.max())


def full_game(game: GameDef, abstraction: ActionAbstraction | None = None) -> FullGame:
    """Enumerate ``game`` (any number of players; no-limit needs ``abstraction``).

    Raises:
        TreeError, CardSpaceError: if the tree or the deals are too big to enumerate.
    """
    tree = build_tree(game, abstraction)
    space = card_space(game)
    lay = layout(tree, tuple(space.rows(r) for r in range(game.num_rounds)))
    hands, boards = all_deals(space, MAX_CCE_DEALS)
    n_players = game.num_players
    rows = boards[:, None, :] * space.n_hands + hands[:, :, None]
    terminal_nodes = np.flatnonzero((tree.kind == FOLD_END) | (tree.kind == SHOWDOWN)).astype(np.int64)
    term_index = np.full(tree.n_nodes, -1, np.int64)
    term_index[terminal_nodes] = np.arange(len(terminal_nodes))
    ranks = space.final_rank[boards[:, -1:], hands]  # (deals, players)
    payoff = _payoff_table(terminal_nodes, tree.kind, tree.spent, tree.folded, tree.fold_value, ranks)
    last_node, last_act = _last_moves(tree)
    forms = tuple(_sequence_form(tree, space, lay, p, last_node[:, p], last_act[:, p]) for p in range(n_players))
    term_seq = np.stack(
        [
            _terminal_sequences(forms[p], lay, tree, rows[:, p], terminal_nodes, last_node[:, p], last_act[:, p])
            for p in range(n_players)
        ]
    )
    return FullGame(
        tree=tree, space=space, layout=lay, hands=hands, boards=boards, rows=np.ascontiguousarray(rows),
        terminal_nodes=terminal_nodes, term_index=term_index, payoff=payoff, chance=1.0 / len(hands),
        term_seq=term_seq, forms=forms,
    )


@njit(cache=True)
def _payoff_table(
    terminals: np.ndarray, kind: np.ndarray, spent: np.ndarray, folded: np.ndarray, fold_value: np.ndarray, ranks: np.ndarray
) -> np.ndarray:
    """(deals, T, players) chips won at each terminal of each deal; ``ranks`` (deals, players)."""
    n_deals, n_players = ranks.shape
    out = np.empty((n_deals, terminals.shape[0], n_players))
    for t in range(terminals.shape[0]):
        node = terminals[t]
        for d in range(n_deals):
            if kind[node] == FOLD_END:
                out[d, t] = fold_value[node]
            else:
                out[d, t] = pot_shares(spent[node], folded[node], ranks[d])
    return out


def _last_moves(tree: BettingTree) -> tuple[np.ndarray, np.ndarray]:
    """(nodes, players) each player's last decision node above each node and its action (-1: none)."""
    players = tree.game.num_players
    last_node = np.full((tree.n_nodes, players), -1, np.int64)
    last_act = np.full((tree.n_nodes, players), -1, np.int64)
    for node in range(tree.n_nodes):  # depth-first order: parents come first
        start = tree.child_start[node]
        for a in range(tree.child_count[node]):
            child = tree.children[start + a]
            last_node[child], last_act[child] = last_node[node], last_act[node]
            if tree.kind[node] == DECISION:
                p = tree.player[node]
                last_node[child, p], last_act[child, p] = node, a
    return last_node, last_act


def _sequence_form(
    tree: BettingTree, space: CardSpace, lay: Layout, player: int, last_node: np.ndarray, last_act: np.ndarray
) -> SequenceForm:
    n_h = space.n_hands
    nodes, rows = [], []
    for node in np.flatnonzero((tree.kind == DECISION) & (tree.player == player)):
        r = tree.round[node]
        valid = np.flatnonzero(space.compat[r].ravel())  # (board, hand) rows whose hand avoids the board
        nodes.append(np.full(len(valid), node, np.int64))
        rows.append(valid.astype(np.int64))
    node = np.concatenate(nodes) if nodes else np.zeros(0, np.int64)
    row = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    n_actions = tree.child_count[node].astype(np.int64)
    base = lay.offset[node] + row * n_actions
    seq_start = np.concatenate([[0], np.cumsum(n_actions)]).astype(np.int64)
    at_base = np.full(lay.size + 1, -1, np.int64)
    at_base[base] = np.arange(len(node))
    parent_seq = np.full(len(node), -1, np.int64)
    has_parent = last_node[node] >= 0
    prev = last_node[node][has_parent]
    r_now, r_prev = tree.round[node][has_parent], tree.round[prev]
    ext = np.array([space.extensions(int(a), int(b)) for a, b in zip(r_prev, r_now)], np.int64)
    prev_row = (row[has_parent] // n_h) // np.maximum(ext, 1) * n_h + row[has_parent] % n_h
    prev_inf = at_base[lay.offset[prev] + prev_row * tree.child_count[prev]]
    parent_seq[has_parent] = seq_start[prev_inf] + last_act[node][has_parent]
    terminal = np.zeros(int(seq_start[-1]), bool)
    ends = np.flatnonzero((tree.kind == FOLD_END) | (tree.kind == SHOWDOWN))
    betting_terminal = {(int(last_node[t]), int(last_act[t])) for t in ends}
    for i in range(len(node)):
        for a in range(n_actions[i]):
            terminal[seq_start[i] + a] = (int(node[i]), a) in betting_terminal
    return SequenceForm(
        player=player, node=node, row=row, base=base.astype(np.int64), n_actions=n_actions, seq_start=seq_start,
        parent_seq=parent_seq, terminal=terminal, empty_terminal=(-1, -1) in betting_terminal,
    )


def _terminal_sequences(
    form: SequenceForm, lay: Layout, tree: BettingTree, rows: np.ndarray, terminals: np.ndarray,
    last_node: np.ndarray, last_act: np.ndarray,
) -> np.ndarray:
    """(deals, T) the player's last sequence before each terminal; ``rows`` (deals, rounds)."""
    at_base = np.full(lay.size + 1, -1, np.int64)
    at_base[form.base] = np.arange(form.n_infosets)
    out = np.full((rows.shape[0], len(terminals)), -1, np.int64)
    for t, node in enumerate(terminals):
        d = last_node[node]
        if d >= 0:
            n_a = tree.child_count[d]
            inf = at_base[lay.offset[d] + rows[:, tree.round[d]] * n_a]
            out[:, t] = form.seq_start[inf] + last_act[node]
    return out
