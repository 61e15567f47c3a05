"""Betting trees: a GameDef plus an action abstraction, flattened into numpy arrays.

The tree holds betting only, no cards: chance nodes mark where board cards are dealt
and kernels loop over the boards themselves (see :mod:`solver.deals`).  Every fact
about a node comes from :mod:`protocol.rules` — legal actions, raise bounds, who acts,
when a round ends, chips committed, fold payoffs — so the tree cannot disagree with
the dealer.

Strategies and regrets live outside the tree, Slumbot style: a :class:`Layout` gives
each decision node a block of ``rows[round] * n_actions`` numbers, blocks grouped by
(player, round) and ordered by the node's slot, so the numbers of one (player, round)
are the contiguous array ``[slot][row * n_actions + action]``.  A row is a
(board, hand) pair ``board * n_hands + hand`` in tabular layouts, or a card bucket.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from protocol.gamedef import GameDef
from protocol.rules import (
    CALL,
    FOLD,
    LIMIT_RAISE,
    Action,
    ActionType,
    State,
    initial_state,
    raise_to,
)
from solver.bets import ActionAbstraction

DECISION, CHANCE, FOLD_END, SHOWDOWN = 0, 1, 2, 3
#: Trees larger than this are refused: use a coarser action abstraction.
MAX_NODES = 2_000_000


class TreeError(ValueError):
    """A betting tree cannot be built for this game and abstraction."""


@dataclass(frozen=True, eq=False)
class BettingTree:
    """A betting tree as flat arrays; node 0 is the root, nodes in depth-first order.

    Attributes (n = nodes, e = edges):
        kind: (n,) int8, DECISION / CHANCE / FOLD_END / SHOWDOWN.
        player: (n,) int8, the player to act at decisions, else -1.
        round: (n,) int8, the betting round (at a chance node: the round dealt into).
        deal_from: (n,) int8, at chance nodes the last round already dealt (-1: none).
        spent: (n, players) int64, chips each player has committed.
        folded: (n, players) bool.
        child_start, child_count: (n,) int64, a node's edges in ``children``.
        children: (e,) int64 child node of each edge.
        edge_action: (e,) int8 ActionType of each edge (-1 for a deal).
        edge_size: (e,) int64 raise-to total of a no-limit raise, else 0.
        slot: (n,) int64 infoset slot within (player, round), -1 if not a decision.
        n_slots: (players, rounds) int64 decision nodes per (player, round).
        fold_value: (n, players) float64 chips won at fold ends (from the rules).
        states: the rules' :class:`State` at each node.
    """

    game: GameDef
    abstraction: ActionAbstraction | None
    kind: np.ndarray
    player: np.ndarray
    round: np.ndarray
    deal_from: np.ndarray
    spent: np.ndarray
    folded: np.ndarray
    child_start: np.ndarray
    child_count: np.ndarray
    children: np.ndarray
    edge_action: np.ndarray
    edge_size: np.ndarray
    slot: np.ndarray
    n_slots: np.ndarray
    fold_value: np.ndarray
    states: tuple[State, ...]

    @property
    def n_nodes(self) -> int:
        return len(self.kind)

    def actions(self, node: int) -> list[Action]:
        """The actions on the edges out of decision ``node``, in edge order."""
        start, count = self.child_start[node], self.child_count[node]
        return [
            Action(ActionType(int(self.edge_action[e])), int(self.edge_size[e])) for e in range(start, start + count)
        ]


def build_tree(
    game: GameDef,
    abstraction: ActionAbstraction | None = None,
    *,
    root: State | None = None,
    size_scale: float = 1.0,
    last_round: int | None = None,
) -> BettingTree:
    """Build the betting tree of ``game``; no-limit games need an ``abstraction``.

    Args:
        root: the state the tree starts from (default: the start of a hand).  A
            subgame tree rooted at a later state takes the board of the root's round
            as known, so its first chance node deals the next round.
        size_scale: multiplies every abstraction raise size (bet-size randomization).
        last_round: cut the tree after this round: a chance node dealing a later round
            is a leaf with no children (depth-limited solving values it otherwise).

    Raises:
        TreeError: if a no-limit game has no abstraction, the root is finished or of
            another game, or the tree is too big.
    """
    if game.is_nolimit and abstraction is None:
        raise TreeError("no-limit games need an action abstraction (e.g. parse_abstraction('1;allin'))")
    if root is not None and (root.game != game or root.finished):
        raise TreeError("a subgame root must be an unfinished state of the same game")
    nodes: list[dict] = []
    edges: list[list[tuple[int, Action | None]]] = []

    def add(kind: int, state: State, deal_from: int = -1) -> int:
        if len(nodes) >= MAX_NODES:
            raise TreeError(f"the betting tree has more than {MAX_NODES} nodes; use a coarser action abstraction")
        nodes.append({"kind": kind, "state": state, "deal_from": deal_from})
        edges.append([])
        return len(nodes) - 1

    def grow(state: State, before_round: int) -> int:
        """Add the subtree of ``state``, reached from a node in ``before_round``."""
        if state.round != before_round:
            chance = add(CHANCE, state, deal_from=before_round)
            if last_round is None or state.round <= last_round:
                edges[chance].append((grow(state, state.round), None))
            return chance
        if state.finished:
            return add(SHOWDOWN if state.is_showdown else FOLD_END, state)
        node = add(DECISION, state)
        for action in _actions(state, abstraction, size_scale):
            edges[node].append((grow(state.apply(action), state.round), action))
        return node

    if root is None:
        first_deal = -1 if game.num_board_cards[0] else 0  # a board dealt before round 1 needs a chance root
        grow(initial_state(game), first_deal)
    else:
        grow(root, root.round)
    return _flatten(game, abstraction, nodes, edges)


def _actions(state: State, abstraction: ActionAbstraction | None, size_scale: float) -> list[Action]:
    kinds = state.legal_action_types()
    actions = [FOLD] if ActionType.FOLD in kinds else []
    actions.append(CALL)
    if ActionType.RAISE in kinds:
        if state.game.is_nolimit:
            assert abstraction is not None
            actions.extend(raise_to(size) for size in abstraction.raise_sizes(state, size_scale))
        else:
            actions.append(LIMIT_RAISE)
    return actions


def _flatten(
    game: GameDef,
    abstraction: ActionAbstraction | None,
    nodes: list[dict],
    edges: list[list[tuple[int, Action | None]]],
) -> BettingTree:
    n, players = len(nodes), game.num_players
    kind = np.array([x["kind"] for x in nodes], np.int8)
    states = tuple(x["state"] for x in nodes)
    player = np.array([s.current_player if k == DECISION else -1 for k, s in zip(kind, states)], np.int8)
    counts = np.array([len(e) for e in edges], np.int64)
    child_start = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    flat = [edge for node_edges in edges for edge in node_edges]
    slot = np.full(n, -1, np.int64)
    n_slots = np.zeros((players, game.num_rounds), np.int64)
    fold_value = np.zeros((n, players))
    for i, (k, s) in enumerate(zip(kind, states)):
        if k == DECISION:
            slot[i] = n_slots[s.current_player, s.round]
            n_slots[s.current_player, s.round] += 1
        elif k == FOLD_END:
            fold_value[i] = s.values()
    return BettingTree(
        game=game,
        abstraction=abstraction,
        kind=kind,
        player=player,
        round=np.array([s.round for s in states], np.int8),
        deal_from=np.array([x["deal_from"] for x in nodes], np.int8),
        spent=np.array([s.spent for s in states], np.int64).reshape(n, players),
        folded=np.array([s.folded for s in states], np.bool_).reshape(n, players),
        child_start=child_start,
        child_count=counts,
        children=np.array([c for c, _ in flat], np.int64),
        edge_action=np.array([-1 if a is None else int(a.kind) for _, a in flat], np.int8),
        edge_size=np.array([0 if a is None else a.size for _, a in flat], np.int64),
        slot=slot,
        n_slots=n_slots,
        fold_value=fold_value,
        states=states,
    )


@dataclass(frozen=True, eq=False)
class Layout:
    """Where each decision node's numbers live in a flat strategy or regret array.

    Attributes:
        rows: rows per round (tabular: boards x hands; bucketed: buckets).
        offset: (n,) int64 start of each decision node's block, -1 elsewhere.
        block: (players, rounds, 2) int64 [start, end) of each (player, round).
        size: total length.
    """

    rows: tuple[int, ...]
    offset: np.ndarray
    block: np.ndarray
    size: int

    def section(self, array: np.ndarray, player: int, round_: int) -> np.ndarray:
        """The (player, round) part of ``array``: ``[slot][row * n_actions + action]``."""
        start, end = self.block[player, round_]
        return array[start:end]


def path_from_root(parent: np.ndarray, parent_edge: np.ndarray, node: int) -> list[tuple[int, int]]:
    """(ancestor, edge taken) pairs from the root down to ``node``, given each node's
    ``parent`` (-1 at the root) and the ``parent_edge`` leading to it."""
    out = []
    while parent[node] >= 0:
        out.append((int(parent[node]), int(parent_edge[node])))
        node = int(parent[node])
    return out[::-1]


def layout(tree: BettingTree, rows: tuple[int, ...]) -> Layout:
    """Lay out blocks of ``rows[round] * n_actions`` numbers per decision node."""
    if len(rows) != tree.game.num_rounds:
        raise TreeError(f"need rows for each of the {tree.game.num_rounds} rounds, got {len(rows)}")
    decisions = np.flatnonzero(tree.kind == DECISION)
    order = decisions[np.lexsort((tree.slot[decisions], tree.round[decisions], tree.player[decisions]))]
    offset = np.full(tree.n_nodes, -1, np.int64)
    block = np.zeros((tree.game.num_players, tree.game.num_rounds, 2), np.int64)
    position = 0
    for node in order:
        p, r = tree.player[node], tree.round[node]
        if tree.slot[node] == 0:
            block[p, r, 0] = position
        offset[node] = position
        position += rows[r] * int(tree.child_count[node])
        block[p, r, 1] = position
    # Empty (player, round) sections start where the previous one ended.
    for p in range(tree.game.num_players):
        for r in range(tree.game.num_rounds):
            if tree.n_slots[p, r] == 0:
                block[p, r] = block[p, r - 1, 1] if r else (block[p - 1, -1, 1] if p else 0)
    return Layout(rows=tuple(rows), offset=offset, block=block, size=position)


@njit(cache=True)
def pot_shares(spent: np.ndarray, folded: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Chips each player wins at a showdown, side pots included (float64, players).

    Splits pots exactly as :meth:`protocol.rules.State.values` does (tests hold the
    two together): each layer of commitments is a pot shared by the best ranks
    among the non-folded players who reached it.
    """
    n = spent.shape[0]
    values = -spent.astype(np.float64)
    left = spent.copy()
    while True:
        size = -1
        for q in range(n):
            if left[q] > 0 and (size < 0 or left[q] < size):
                size = left[q]
        if size <= 0:
            return values
        contributors, best, winners = 0, -2, 0
        for q in range(n):
            if left[q] > 0:
                contributors += 1
                rank = -1 if folded[q] else ranks[q]
                if rank > best:
                    best, winners = rank, 1
                elif rank == best:
                    winners += 1
        for q in range(n):
            if left[q] > 0 and not folded[q] and ranks[q] == best:
                values[q] += size * contributors / winners
            if left[q] > 0:
                left[q] -= size


def showdown_table(tree: BettingTree) -> np.ndarray:
    """(nodes, 3, 2) chips won at two-player showdowns when player 0 wins, ties, loses.

    All zeros unless the game has two players (then :func:`pot_shares` is needed).
    """
    table = np.zeros((tree.n_nodes, 3, 2))
    if tree.game.num_players == 2:
        for node in np.flatnonzero(tree.kind == SHOWDOWN):
            for outcome, ranks in enumerate(([1, 0], [0, 0], [0, 1])):
                table[node, outcome] = pot_shares(tree.spent[node], tree.folded[node], np.array(ranks, np.int64))
    return table


def skip_chance(tree: BettingTree, node: int) -> int:
    """The first non-chance node at or below ``node`` (chance nodes have one child; a
    depth-limited subgame's leaves, chance nodes with none, are returned as they are)."""
    while tree.kind[node] == CHANCE and tree.child_count[node] > 0:
        node = int(tree.children[tree.child_start[node]])
    return node
