"""Blueprints with a card abstraction, solved full width by the tabular range kernel.

CFR on a card abstraction whose buckets are sets of (board, hand) rows: after every
update each row's regret is replaced by its bucket's total divided by the bucket's row
count.  The next update then adds each row's own instantaneous regret, so the bucket
total grows by the bucket's counterfactual regret — exactly CFR on the abstract game
(imperfect recall included), and every row of a bucket plays the same strategy.  The
average strategy is pooled the same way at the end.  Discounting (DCFR, CFR+) depends
only on the sign of a row's old regret, which the rows of a bucket share.

Rows can also be *frozen* to given probabilities (their regrets are reset to them after
every update, so regret matching plays exactly them): :func:`best_completion` uses
that to find the least exploitable strategy that keeps a blueprint's first rounds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from solver.bestresponse import exploitability
from solver.cfr.fullwidth import DCFR, CFRConfig
from solver.ranges import UPDATE, TabularGame, discounts, kernel_arrays, normalized, root_values
from solver.tree import DECISION


class BucketTying:
    """Which layout entries of one player share a bucket: ``index`` entries, ``group`` ids,
    group sizes."""

    def __init__(self, game: TabularGame, buckets: Sequence[np.ndarray | None], player: int) -> None:
        tree, lay = game.tree, game.layout
        index, group = [], []
        groups = 0
        for node in np.flatnonzero((tree.kind == DECISION) & (tree.player == player)):
            r = int(tree.round[node])
            table = buckets[r]
            if table is None:
                continue
            n_a = int(tree.child_count[node])
            rows = lay.rows[r]
            index.append(lay.offset[node] + np.arange(rows * n_a))
            group.append(groups + (table.ravel()[:, None] * n_a + np.arange(n_a)).ravel())
            groups += (int(table.max()) + 1) * n_a
        self.index = np.concatenate(index) if index else np.zeros(0, np.int64)
        self.group = np.concatenate(group) if group else np.zeros(0, np.int64)
        self.size = np.bincount(self.group, minlength=groups).astype(np.float64)

    def pool(self, x: np.ndarray) -> None:
        """Replace every tied entry of ``x`` by its group's mean (in place)."""
        if len(self.index):
            total = np.bincount(self.group, weights=x[self.index], minlength=len(self.size))
            x[self.index] = (total / np.maximum(self.size, 1))[self.group]


def bucketed_cfr(
    game: TabularGame, buckets: Sequence[np.ndarray | None], iterations: int, config: CFRConfig = DCFR,
    *, frozen: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Solve ``game`` under the card abstraction ``buckets`` (per round a (boards, hands)
    bucket table, or None for no abstraction) and return the tabular average strategy.

    ``frozen`` = (layout indices, probabilities): entries played exactly as given
    (whole rows of a decision; they are not bucketed and are returned unchanged).
    """
    tree_arrays, cards = kernel_arrays(game)
    tying = [BucketTying(game, buckets, p) for p in range(2)]
    regret = np.zeros(game.layout.size)
    avg = np.zeros(game.layout.size)
    unused = np.zeros(0)
    alpha, beta, gamma = (float(x) for x in config)
    if frozen is not None:
        regret[frozen[0]] = frozen[1]
    for t in range(1, iterations + 1):
        d_pos, d_neg, d_avg = discounts(t, alpha, beta, gamma)
        for trav in range(2):
            root_values(trav, UPDATE, tree_arrays, cards, regret, avg, unused, d_pos, d_neg, d_avg)
            tying[trav].pool(regret)
            if frozen is not None:
                regret[frozen[0]] = frozen[1]
    for tie in tying:
        tie.pool(avg)
    out = normalized(game.layout, game.tree, avg)
    if frozen is not None:
        out[frozen[0]] = frozen[1]
    return out


def player_rows(game: TabularGame, player: int, rounds: Sequence[int]) -> np.ndarray:
    """Layout indices of ``player``'s numbers at its decisions in ``rounds``."""
    tree, lay = game.tree, game.layout
    parts = [
        lay.offset[n] + np.arange(lay.rows[int(tree.round[n])] * int(tree.child_count[n]))
        for n in np.flatnonzero((tree.kind == DECISION) & (tree.player == player) & np.isin(tree.round, rounds))
    ]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def best_completion(game: TabularGame, strategy: np.ndarray, round_: int, iterations: int) -> tuple[np.ndarray, float]:
    """The least exploitable profile that keeps ``strategy`` on every round before
    ``round_``: per player, DCFR without card abstraction on the whole game with that
    player's earlier rounds frozen (the opponent free everywhere), its later rounds kept.

    No re-solve of rounds ≥ ``round_`` can do better (up to the ``iterations`` left
    unconverged).  Returns the profile and its exploitability (mbb/hand).
    """
    rounds = game.game.num_rounds
    out = np.array(strategy, np.float64)
    for p in range(2):
        early = player_rows(game, p, range(round_))
        solved = bucketed_cfr(game, [None] * rounds, iterations, frozen=(early, out[early]))
        late = player_rows(game, p, range(round_, rounds))
        out[late] = solved[late]
    return out, exploitability(game, out).exploitability_mbb
