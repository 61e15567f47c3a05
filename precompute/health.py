"""Blueprint health (``precompute health``): is a blueprint trained enough to play from?

Three kinds of evidence, none of them an exploitability:

1. **Untrained infosets.**  An infoset is a (decision node, card bucket) pair.  One is
   *near uniform* when its strategy row is within total-variation distance
   :data:`NEAR_UNIFORM_TV` of the uniform distribution over the node's actions —
   what MCCFR leaves where it never (or hardly ever) got regret.  Per round the
   report gives the share of near-uniform infosets weighted by how often
   blueprint-vs-blueprint play reaches them (``hands`` random deals, both seats
   playing the blueprint, one visit per infoset a hand passes through), the
   unweighted share over every infoset of the round, and how many distinct infosets
   the sample visited.  Given a training checkpoint (``OUT/checkpoint.mccfr``), the
   same shares for infosets whose regrets are all zero (never updated) or all below
   :data:`TINY_REGRET_BB` big blinds in magnitude (cumulative, as stored).
2. **Probes with exact answers** (a hand that cannot lose must not fold, a hand
   that cannot win must not shove), each PASS/FAIL against a stated threshold.
   Where a probe looks at many nodes, each node counts by how often the probed
   hand's *own* blueprint actions lead there while the opponent may take any tree
   action (the opponent chooses its line, so a node the hand's own strategy avoids
   cannot hurt it; a raw per-node worst case is printed alongside, as information).
3. The ``agent lbr`` command that measures the blueprint's local best response
   (optionally run here).

:func:`health_report` computes everything; :func:`format_report` prints it; the gate
(:attr:`HealthReport.passed`) is every probe passing and a reached near-uniform share
of at most :data:`GATE_SHARE` on the flop and the turn.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from precompute.blueprint import Blueprint
from precompute.equity import runout_histograms
from protocol.cards import cards_str
from protocol.fasteval import HOLE_PAIRS, NUM_HOLE_PAIRS, eval_tables, fast_rank_hand, rank_range
from solver.action_floor import kept_actions
from solver.artifacts import ArtifactError, load_artifact
from solver.cfr.mccfr import CHECKPOINT_KIND, SampledDeals
from solver.tree import CHANCE, DECISION

ROUND_NAMES = ("preflop", "flop", "turn", "river")
#: A strategy row is near uniform when its total-variation distance to uniform is below this.
NEAR_UNIFORM_TV = 0.1
#: With a checkpoint: an infoset's regrets are tiny when every |regret| is below this many big blinds.
TINY_REGRET_BB = 1.0
#: The gate: the reached near-uniform share of these rounds (flop, turn) must be at most GATE_SHARE.
GATE_ROUNDS = (1, 2)
GATE_SHARE = 0.05
#: (a) the most often any opponent can make AA fold preflop.
AA_FOLD_MAX = 0.01
#: (b) the most often any river bettor can make the nuts fold, averaged over reached river spots.
NUTS_FOLD_MAX = 0.01
#: (c) fold rate of the top decile facing a preflop all-in.  An equilibrium folds some of
#: the decile (77, A9s, KQo are behind a 200 BB shoving range); a blueprint folding the
#: majority of it gives its blinds up to any shove (an untrained one folds half).
TOP_DECILE_FOLD_MAX = 0.35
TOP_SHARE = 0.10
#: (d) open-shove frequency of the weakest half of the hands (by combos) from the small blind.
OPEN_SHOVE_MAX = 0.01
BOTTOM_SHARE = 0.5
#: Random boards for the preflop equities that rank the hands, and river boards for probe (b).
EQUITY_BOARDS = 2000
RIVER_BOARDS = 200
#: Random numbers per self-play hand (more than any line of the tree has decisions).
_MAX_DECISIONS = 64
_CHUNK = 1 << 16
LBR_HANDS = 3000


@dataclass
class RoundHealth:
    """One round's infoset shares (fractions in [0, 1]; None: not computed)."""

    name: str
    infosets: int
    visited: int
    visits: int
    near_uniform_reached: float | None
    near_uniform_all: float
    untouched_reached: float | None = None
    untouched_all: float | None = None
    tiny_reached: float | None = None
    tiny_all: float | None = None


@dataclass
class Probe:
    """A sanity check: ``figure`` against ``threshold`` (pass when figure <= threshold)."""

    key: str
    title: str
    figure: float
    threshold: float
    passed: bool
    detail: str


@dataclass
class HealthReport:
    """Everything :func:`format_report` prints (and ``--json`` writes)."""

    blueprint: str
    iterations: int | None
    nodes: int
    hands: int
    seed: int
    seconds: float
    rounds: list[RoundHealth]
    probes: list[Probe]
    gate: dict[str, float]
    passed: bool
    lbr_command: list[str]
    checkpoint: str | None = None
    checkpoint_iterations: int | None = None
    lbr: dict[str, Any] | None = None
    #: Rows reported as the agent plays them: actions below this probability dropped (0: raw).
    floor: float = 0.0
    definitions: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)


# ---------------------------------------------------------------- kernels


@njit(cache=True)
def _self_play(
    kind: np.ndarray, player: np.ndarray, round_: np.ndarray, child_start: np.ndarray, children: np.ndarray,
    child_count: np.ndarray, offset: np.ndarray, info_start: np.ndarray, strategy: np.ndarray, buckets: np.ndarray,
    draws: np.ndarray, visits: np.ndarray,
) -> bool:
    """Play each deal of ``buckets`` (hands, players, rounds) down the tree, both players
    sampling the blueprint row of their bucket; add one to ``visits`` per infoset passed.
    Returns False if a hand needed more decisions than ``draws`` has columns."""
    for i in range(buckets.shape[0]):
        node, step = 0, 0
        while True:
            k = kind[node]
            if k == CHANCE:
                node = children[child_start[node]]
                continue
            if k != DECISION:
                break
            if step >= draws.shape[1]:
                return False
            p, n_a = player[node], child_count[node]
            b = buckets[i, p, round_[node]]
            visits[info_start[node] + b] += 1
            base = offset[node] + b * n_a
            total = 0
            for a in range(n_a):
                total += strategy[base + a]
            # Integer arithmetic: the draw lands on an action with a positive weight.
            u = int(draws[i, step] * total)
            step += 1
            chosen, acc = n_a - 1, 0
            for a in range(n_a):
                acc += strategy[base + a]
                if u < acc:
                    chosen = a
                    break
            node = children[child_start[node] + chosen]
    return True


@njit(cache=True)
def _row_total(strategy: np.ndarray, base: int, n_a: int) -> float:
    """The sum of one infoset's row (the strategy's numbers need not be normalised)."""
    total = 0.0
    for a in range(n_a):
        total += strategy[base + a]
    return total


@njit(cache=True)
def _row_stats(
    kind: np.ndarray, round_: np.ndarray, child_count: np.ndarray, offset: np.ndarray, info_start: np.ndarray,
    rows: np.ndarray, strategy: np.ndarray, regret: np.ndarray, tv: np.ndarray, regret_max: np.ndarray,
) -> None:
    """Per infoset: total-variation distance of its row to uniform, and (if ``regret``
    is not empty) the largest |regret| of its actions."""
    with_regret = regret.shape[0] > 0
    for node in range(kind.shape[0]):
        if kind[node] != DECISION:
            continue
        n_a = child_count[node]
        for b in range(rows[round_[node]]):
            base = offset[node] + b * n_a
            total = _row_total(strategy, base, n_a)
            d = 0.0
            for a in range(n_a):
                d += abs(strategy[base + a] / total - 1.0 / n_a)
            tv[info_start[node] + b] = 0.5 * d
            if with_regret:
                m = 0.0
                for a in range(n_a):
                    m = max(m, abs(regret[base + a]))
                regret_max[info_start[node] + b] = m


@njit(cache=True)
def _worst_fold(
    kind: np.ndarray, player: np.ndarray, round_: np.ndarray, child_start: np.ndarray, children: np.ndarray,
    child_count: np.ndarray, edge_action: np.ndarray, offset: np.ndarray, strategy: np.ndarray, the_round: int,
    seat: int, bucket: int, value: np.ndarray,
) -> None:
    """The most often an opponent choosing freely can make ``seat`` (holding ``bucket``
    on ``the_round``) fold before the round ends, from every node: ``value`` (nodes,).

    Nodes are numbered depth first (children after parents), so one backward pass
    suffices; a chance node or another round ends the count (value 0)."""
    for node in range(kind.shape[0] - 1, -1, -1):
        value[node] = 0.0
        if kind[node] != DECISION or round_[node] != the_round:
            continue
        start, n_a = child_start[node], child_count[node]
        if player[node] == seat:
            base = offset[node] + bucket * n_a
            total = _row_total(strategy, base, n_a)
            v = 0.0
            for a in range(n_a):
                p = strategy[base + a] / total
                v += p * (1.0 if edge_action[start + a] == 0 else value[children[start + a]])
            value[node] = v
        else:
            v = 0.0
            for a in range(n_a):
                v = max(v, value[children[start + a]])
            value[node] = v


# ---------------------------------------------------------------- pieces


def _raw_strategy(bp: Blueprint) -> np.ndarray:
    """The blueprint's quantized rows (uint8, in its layout): the shares are per bucket."""
    return bp.table


def floored(bp: Blueprint, floor: float) -> Blueprint:
    """``bp`` with every row as the agent plays it (``agent --action-floor``): the
    actions below ``floor`` dropped (:func:`solver.action_floor.kept_actions`), the rest
    keeping their quantized weights (so each row's shares are the agent's renormalised
    probabilities)."""
    if not 0 <= floor < 1:
        raise ValueError(f"--floor must be in [0, 1), got {floor}")
    table = np.array(bp.table)
    tree = bp.tree
    for node in np.flatnonzero(tree.kind == DECISION):
        n_a, base = int(tree.child_count[node]), int(bp.layout.offset[node])
        end = base + bp.layout.rows[int(tree.round[node])] * n_a
        rows = table[base:end].reshape(-1, n_a)
        rows[~kept_actions(rows, floor)] = 0
    return Blueprint(bp.game, tree, bp.layout, table, bp.cards, {**bp.params, "action_floor": floor}, bp.path)


def infoset_index(bp: Blueprint) -> tuple[np.ndarray, np.ndarray]:
    """Each decision node's first infoset number (-1 elsewhere) and each infoset's round."""
    tree = bp.tree
    decisions = np.flatnonzero(tree.kind == DECISION)
    rows = np.array(bp.layout.rows, np.int64)[tree.round[decisions]]
    start = np.full(tree.n_nodes, -1, np.int64)
    start[decisions] = np.concatenate([[0], np.cumsum(rows)[:-1]])
    return start, np.repeat(tree.round[decisions].astype(np.int64), rows)


def random_deals(hands: int, seed: int) -> np.ndarray:
    """``hands`` deals of 9 distinct cards (int64): two hole cards per player, then the board."""
    rng = np.random.default_rng(seed)
    out = np.empty((hands, 9), np.int64)
    for first in range(0, hands, _CHUNK):
        n = min(_CHUNK, hands - first)
        out[first : first + n] = np.argsort(rng.random((n, 52)), axis=1)[:, :9]
    return out


def self_play_visits(bp: Blueprint, hands: int, seed: int) -> np.ndarray:
    """Visits per infoset (int64, :func:`infoset_index` order) over ``hands`` self-play hands."""
    tree, (start, info_round) = bp.tree, infoset_index(bp)
    cards = random_deals(hands, seed)
    rng = np.random.default_rng([seed, 1])
    bucketing = bp.cards.abstraction("health").buckets
    visits = np.zeros(len(info_round), np.int64)
    for first in range(0, hands, _CHUNK):  # chunks bound the memory of the random draws
        deals = cards[first : first + _CHUNK]
        empty = np.zeros((len(deals), 0), np.int64)  # the bucketing reads the cards only
        buckets = np.ascontiguousarray(bucketing(SampledDeals(deals, empty, empty)), np.int64)
        draws = rng.random((len(deals), _MAX_DECISIONS))
        ok = _self_play(tree.kind, tree.player, tree.round, tree.child_start, tree.children, tree.child_count,
                        bp.layout.offset, start, _raw_strategy(bp), buckets, draws, visits)  # fmt: skip
        if not ok:
            raise ValueError(f"a self-play hand took more than {_MAX_DECISIONS} decisions")
    return visits


def load_regrets(path: str | Path, bp: Blueprint) -> tuple[np.ndarray, int]:
    """A training checkpoint's regrets (float32, the blueprint's layout) and its iterations.

    Raises:
        ArtifactError: if it is no checkpoint or was trained on another tree or card layout.
    """
    art = load_artifact(path, CHECKPOINT_KIND, game=bp.game)
    regret = art.arrays["regret"]
    p = art.params
    same = (p.get("nodes") == bp.tree.n_nodes and list(p.get("n_buckets", [])) == list(bp.layout.rows)
            and regret.shape == (bp.layout.size,))  # fmt: skip
    if not same:
        raise ArtifactError(f"{path} was trained on another betting tree or card layout than the blueprint's")
    return regret, int(art.arrays["iterations"][0])


def _share(mask: np.ndarray, weight: np.ndarray | None = None) -> float | None:
    if weight is None:
        return float(mask.mean()) if mask.size else None
    total = weight.sum()
    return float(weight[mask].sum() / total) if total else None


def round_health(bp: Blueprint, visits: np.ndarray, regret: np.ndarray | None) -> list[RoundHealth]:
    """Per round: near-uniform shares (reached and all) and, with ``regret``, untouched and tiny."""
    tree, (start, info_round) = bp.tree, infoset_index(bp)
    tv = np.zeros(len(info_round))
    regret_max = np.zeros(len(info_round) if regret is not None else 0, np.float32)
    _row_stats(tree.kind, tree.round, tree.child_count, bp.layout.offset, start, np.array(bp.layout.rows, np.int64),
               _raw_strategy(bp), regret if regret is not None else np.zeros(0, np.float32), tv, regret_max)  # fmt: skip
    near = tv < NEAR_UNIFORM_TV
    tiny_chips = TINY_REGRET_BB * bp.game.big_blind
    out = []
    for r, name in enumerate(ROUND_NAMES[: tree.game.num_rounds]):
        here = info_round == r
        v = visits[here]
        rh = RoundHealth(name, int(here.sum()), int(np.count_nonzero(v)), int(v.sum()), _share(near[here], v),
                         _share(near[here]))  # fmt: skip
        if regret is not None:
            m = regret_max[here]
            rh.untouched_reached, rh.untouched_all = _share(m == 0, v), _share(m == 0)
            rh.tiny_reached, rh.tiny_all = _share(m < tiny_chips, v), _share(m < tiny_chips)
        out.append(rh)
    return out


def preflop_equity(boards: int = EQUITY_BOARDS, seed: int = 0) -> np.ndarray:
    """Equity against a random hand of every ``HOLE_PAIRS`` hand (float64 (1326,)), sampled
    over ``boards`` random boards and averaged within each of the 169 classes."""
    rng = np.random.default_rng([seed, 7])
    runouts = np.argsort(rng.random((boards, 52)), axis=1)[:, :5].astype(np.int64)
    hist = np.zeros((NUM_HOLE_PAIRS, 1), np.int64)
    total = np.zeros(NUM_HOLE_PAIRS)
    runout_histograms(eval_tables(), np.zeros(0, np.int64), runouts, 1, hist, total)
    equity = total / np.maximum(hist[:, 0], 1)
    classes = hand_classes()
    return (np.bincount(classes, equity) / np.bincount(classes))[classes]


def hand_classes() -> np.ndarray:
    """The class (0..168) of every ``HOLE_PAIRS`` hand: pair, suited or offsuit ranks."""
    hi, lo = HOLE_PAIRS.max(axis=1) // 4, HOLE_PAIRS.min(axis=1) // 4
    suited = HOLE_PAIRS[:, 0] % 4 == HOLE_PAIRS[:, 1] % 4
    return np.unique(hi * 26 + lo * 2 + suited, return_inverse=True)[1]


def ranked_share(equity: np.ndarray, share: float, top: bool) -> np.ndarray:
    """The ``share`` of the 1,326 hands with the highest (``top``) or lowest equity (bool mask)."""
    order = np.argsort(-equity if top else equity, kind="stable")
    mask = np.zeros(NUM_HOLE_PAIRS, bool)
    mask[order[: round(share * NUM_HOLE_PAIRS)]] = True
    return mask


def _seat_name(bp: Blueprint, seat: int) -> str:
    blinds = bp.game.blind
    return "small blind" if blinds[seat] < max(blinds) else "big blind"


def _where(bp: Blueprint, node: int) -> str:
    """A node as its betting string and who acts there."""
    return f"'{bp.tree.states[node].betting or '(start)'}' ({_seat_name(bp, int(bp.tree.player[node]))} to act)"


def _rows(bp: Blueprint, node: int) -> np.ndarray:
    """The strategy of every bucket at decision ``node`` (float64 (buckets, actions))."""
    n_a, base = int(bp.tree.child_count[node]), int(bp.layout.offset[node])
    rows = _raw_strategy(bp)[base : base + bp.layout.rows[int(bp.tree.round[node])] * n_a].reshape(-1, n_a)
    rows = rows.astype(np.float64)
    return rows / rows.sum(axis=1, keepdims=True)


def _row(bp: Blueprint, node: int, bucket: int) -> np.ndarray:
    n_a = int(bp.tree.child_count[node])
    base = int(bp.layout.offset[node]) + bucket * n_a
    row = _raw_strategy(bp)[base : base + n_a].astype(np.float64)
    return row / row.sum()


def _fold_edge(bp: Blueprint, node: int) -> int | None:
    """The column of the fold at ``node`` (None: the player faces no bet)."""
    start = int(bp.tree.child_start[node])
    kinds = bp.tree.edge_action[start : start + int(bp.tree.child_count[node])]
    hits = np.flatnonzero(kinds == 0)
    return int(hits[0]) if hits.size else None


def _worst_values(bp: Blueprint, the_round: int, seat: int, bucket: int) -> np.ndarray:
    t = bp.tree
    value = np.zeros(t.n_nodes)
    _worst_fold(t.kind, t.player, t.round, t.child_start, t.children, t.child_count, t.edge_action, bp.layout.offset,
                _raw_strategy(bp), the_round, seat, bucket, value)  # fmt: skip
    return value


def _worst_line(bp: Blueprint, value: np.ndarray, start: int, seat: int, bucket: int) -> tuple[int, float, float]:
    """On the opponent's worst line from ``start``: the node where ``seat`` folds the most
    (own reach x fold), its own reach and its fold probability."""
    t = bp.tree
    best = (start, 0.0, 0.0, -1.0)
    stack = [(start, 1.0)]
    while stack:
        node, reach = stack.pop()
        if t.kind[node] != DECISION or t.round[node] != t.round[start]:
            continue
        s, n = int(t.child_start[node]), int(t.child_count[node])
        kids = t.children[s : s + n]
        if t.player[node] == seat:
            row = _row(bp, node, bucket)
            fold = _fold_edge(bp, node)
            if fold is not None and reach * row[fold] > best[3]:
                best = (node, reach, float(row[fold]), reach * row[fold])
            stack.extend((int(k), reach * p) for k, p in zip(kids, row) if p > 0 and t.kind[k] == DECISION)
        else:
            stack.append((int(kids[np.argmax(value[kids])]), reach))
    return best[0], best[1], best[2]


def _own_reach_preflop(bp: Blueprint, seat: int) -> dict[int, np.ndarray]:
    """Per preflop decision node: the probability (per bucket) that ``seat``'s own
    actions lead there from the start of the hand (the opponent's actions count 1)."""
    t = bp.tree
    reach = {bp.root: np.ones(bp.layout.rows[0])}
    order = [bp.root]
    for node in order:  # breadth first: a node's reach is known before its children's
        s, n = int(t.child_start[node]), int(t.child_count[node])
        rows = _rows(bp, node) if t.player[node] == seat else None
        for a in range(n):
            kid = int(t.children[s + a])
            if t.kind[kid] == DECISION and t.round[kid] == 0:
                reach[kid] = reach[node] * (rows[:, a] if rows is not None else 1.0)
                order.append(kid)
    return reach


# ---------------------------------------------------------------- probes


def probe_aces(bp: Blueprint) -> Probe:
    """(a) AA never folds preflop: the most often any opponent can make AA fold (per seat)."""
    t = bp.tree
    aces = [i for i, (a, b) in enumerate(HOLE_PAIRS) if a // 4 == b // 4 == 12]
    buckets = sorted({bp.bucket(0, HOLE_PAIRS[i]) for i in aces})
    worst = (-1.0, 0, 0, 0, 0.0, 0.0)
    for seat in range(t.game.num_players):
        for b in buckets:
            value = _worst_values(bp, 0, seat, b)
            start = bp.root  # where the opponent acts first, its worst choice is already in the max
            if value[start] > worst[0]:
                node, reach, fold = _worst_line(bp, value, start, seat, b)
                worst = (float(value[start]), seat, b, node, reach, fold)
    figure, seat, b, node, reach, fold = worst
    # The literal per-node view: AA's fold at every preflop node facing a bet, however it got there.
    raw = []
    for node_ in np.flatnonzero((t.kind == DECISION) & (t.round == 0)):
        column = _fold_edge(bp, int(node_))
        if column is not None:
            raw.append((max(_row(bp, int(node_), bb)[column] for bb in buckets), int(node_)))
    raw_max, raw_node = max(raw)
    over = sum(f > AA_FOLD_MAX for f, _ in raw)
    detail = (f"worst case as {_seat_name(bp, seat)}; its largest part at {_where(bp, node)}: AA's own play gets there "
              f"{reach:.3g} of the time and folds {fold:.1%}.  Per node regardless of AA's own line: {over} of {len(raw)} "
              f"preflop nodes facing a bet fold AA > {AA_FOLD_MAX:.0%} (max {raw_max:.1%} at {_where(bp, raw_node)})")
    return Probe("a", "AA never folds preflop (most often any opponent can make AA fold)", figure, AA_FOLD_MAX,
                 figure <= AA_FOLD_MAX, detail)  # fmt: skip


def _river_starts(bp: Blueprint) -> np.ndarray:
    """The first decision node of every river (children of the chance nodes dealing it)."""
    t = bp.tree
    last = t.game.num_rounds - 1
    chance = np.flatnonzero((t.kind == CHANCE) & (t.round == last))
    return t.children[t.child_start[chance]]


def probe_nuts(bp: Blueprint, node_visits: np.ndarray, boards: int = RIVER_BOARDS, seed: int = 0) -> Probe:
    """(b) The nuts never fold facing a river bet: on sampled river boards, the nut hands'
    buckets; per river start, the most often a river bettor choosing freely makes them
    fold; averaged over river starts weighted by self-play visits, and over boards."""
    t = bp.tree
    last = t.game.num_rounds - 1
    rng = np.random.default_rng([seed, 3])
    starts = _river_starts(bp)
    weight = node_visits[starts].astype(np.float64)
    if weight.sum() == 0:  # too few self-play hands reached a river: every river start counts alike
        weight[:] = 1.0
    weight /= weight.sum()
    bucket_share: dict[int, float] = {}
    used = 0
    while used < boards:
        board = np.sort(rng.choice(52, 5, replace=False))
        ranks = rank_range(board).astype(np.int64)
        top = ranks.max()
        if top <= fast_rank_hand(tuple(int(c) for c in board)):  # the board plays: every hand ties, no nuts
            continue
        nuts = np.flatnonzero(ranks == top)
        found = bp.cards.range_buckets(last, board)[nuts]
        for b in found:
            bucket_share[int(b)] = bucket_share.get(int(b), 0.0) + 1.0 / (len(found) * boards)
        used += 1
    per_seat = []
    worst = (-1.0, 0, 0, 0)  # (share of the figure, seat, bucket, river start)
    values = {}
    for seat in range(t.game.num_players):
        total = 0.0
        for b, share in bucket_share.items():
            values[seat, b] = value = _worst_values(bp, last, seat, b)
            parts = share * weight * value[starts]
            total += float(parts.sum())
            i = int(np.argmax(parts))
            if parts[i] > worst[0]:
                worst = (float(parts[i]), seat, b, int(starts[i]))
        per_seat.append(total)
    figure = max(per_seat)
    top_bucket = max(bucket_share, key=bucket_share.get)
    raw, over = 0.0, 0
    facing = [int(n) for n in np.flatnonzero((t.kind == DECISION) & (t.round == last)) if _fold_edge(bp, int(n)) is not None]
    for node in facing:
        f = _row(bp, node, top_bucket)[_fold_edge(bp, node)]
        raw, over = max(raw, f), over + (f > NUTS_FOLD_MAX)
    part, seat, b, start = worst
    node, reach, fold = _worst_line(bp, values[seat, b], start, seat, b)
    seats = ", ".join(f"{_seat_name(bp, s)} {x:.2%}" for s, x in enumerate(per_seat))
    shares = ", ".join(f"{b}: {x:.1%}" for b, x in sorted(bucket_share.items()))
    detail = (f"{boards} boards, nut hands' river buckets {shares}; {seats}; largest part ({part:.2%}): bucket {b} from "
              f"river start {_where(bp, start)}, worst case {values[seat, b][start]:.1%}, mostly at {_where(bp, node)} "
              f"(own reach {reach:.3g}, folds {fold:.1%}).  Per node regardless of the nuts' own line: {over} of "
              f"{len(facing)} river nodes facing a bet fold bucket {top_bucket} > {NUTS_FOLD_MAX:.0%} (max {raw:.1%})")
    return Probe("b", "the nuts never fold facing a river bet (worst-case bettor, reached river spots)", figure,
                 NUTS_FOLD_MAX, figure <= NUTS_FOLD_MAX, detail)  # fmt: skip


def probe_top_decile(bp: Blueprint, equity: np.ndarray) -> Probe:
    """(c) Fold rate of the top decile facing a preflop all-in: every preflop node where
    the opponent is all-in, each top-decile hand weighted by how often its own play gets there."""
    t = bp.tree
    top = ranked_share(equity, TOP_SHARE, top=True)
    buckets = bp.cards.range_buckets(0, ())
    folded = reached = 0.0
    worst = (-1.0, 0)
    for seat in range(t.game.num_players):
        reach = _own_reach_preflop(bp, seat)
        for node, r in reach.items():
            column = _fold_edge(bp, node)
            opponent_all_in = t.spent[node, 1 - seat] >= t.game.stack[1 - seat]
            if t.player[node] != seat or column is None or not opponent_all_in:
                continue
            rows = _rows(bp, node)
            w = r[buckets[top]]
            f = rows[buckets[top], column]
            folded += float(w @ f)
            reached += float(w.sum())
            if w.sum() > 0 and float(w @ f / w.sum()) > worst[0]:
                worst = (float(w @ f / w.sum()), node)
    figure = folded / reached if reached else 0.0
    detail = (f"top {TOP_SHARE:.0%} of hands by preflop equity ({int(top.sum())} combos); each node facing an all-in "
              f"weighted by the hand's own reach; worst node {_where(bp, worst[1])} folds {worst[0]:.1%}")  # fmt: skip
    return Probe("c", "top-decile fold rate facing a preflop all-in", figure, TOP_DECILE_FOLD_MAX,
                 figure <= TOP_DECILE_FOLD_MAX, detail)  # fmt: skip


def probe_open_shove(bp: Blueprint, equity: np.ndarray) -> Probe:
    """(d) How often the weakest half of the hands open all-in as the first player to act."""
    t = bp.tree
    root = bp.root
    s, n = int(t.child_start[root]), int(t.child_count[root])
    stack = t.game.stack[int(t.player[root])]
    shoves = [a for a in range(n) if t.edge_action[s + a] == 2 and t.edge_size[s + a] >= stack]
    bottom = ranked_share(equity, BOTTOM_SHARE, top=False)
    probs = bp.range_strategy(root, ())
    per_hand = probs[:, shoves].sum(axis=1) if shoves else np.zeros(NUM_HOLE_PAIRS)
    figure = float(per_hand[bottom].mean())
    classes = hand_classes()
    worst = int(np.flatnonzero(bottom)[np.argmax(per_hand[bottom])])
    big_bb = stack / t.game.big_blind
    detail = (f"{_seat_name(bp, int(t.player[root]))}'s first action, {big_bb:.0f} BB deep; weakest {BOTTOM_SHARE:.0%} of "
              f"hands by preflop equity ({int(bottom.sum())} combos, {len(np.unique(classes[bottom]))} classes); "
              f"most shoved: {cards_str(HOLE_PAIRS[worst])} {per_hand[worst]:.1%}"
              + ("" if shoves else "; the tree has no open all-in"))  # fmt: skip
    return Probe("d", "weakest half of hands open-shove", figure, OPEN_SHOVE_MAX, figure <= OPEN_SHOVE_MAX, detail)


# ---------------------------------------------------------------- LBR


def lbr_command(blueprint: str | Path | None, hands: int = LBR_HANDS, out: str | Path = "DIR") -> list[str]:
    """The ``agent lbr`` command measuring the blueprint alone (no subgame solving)."""
    cmd = ["agent", "lbr", "--blueprint-only", "--setting", "fc", "--hands", str(hands), "--out", str(out)]
    return cmd + (["--blueprint", str(blueprint)] if blueprint is not None else [])


def run_lbr(blueprint: str | Path | None, hands: int, out: str | Path) -> dict[str, Any]:
    """Run :func:`lbr_command` (as ``python -m agent.cli``) and return its result.json
    (plus the exit code and the printed verdict)."""
    cmd = [sys.executable, "-m", "agent.cli", *lbr_command(blueprint, hands, out)[1:]]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    result_path = Path(out) / "result.json"
    result = json.loads(result_path.read_text()) if result_path.exists() else {}
    verdict = [line for line in done.stdout.splitlines() if line.startswith("LBR")]
    return {"command": " ".join(lbr_command(blueprint, hands, out)), "exit_code": done.returncode,
            "verdict": verdict[0] if verdict else done.stderr.strip()[-500:],
            "showdown_expectation": result.get("showdown_expectation"), "hands": result.get("hands")}  # fmt: skip


# ---------------------------------------------------------------- report


def health_report(bp: Blueprint, *, hands: int = 20_000, seed: int = 0, checkpoint: str | Path | None = None,
                  default_blueprint: bool = False, floor: float = 0.0) -> HealthReport:  # fmt: skip
    """Compute the whole report (see the module docstring).

    Args:
        hands: self-play hands for the reach weights (at least 1).
        floor: report on the rows as the agent plays them, the actions below this
            probability dropped (:func:`floored`; the agent's default is 0.05); 0 reports
            the raw blueprint.  The self-play reach, the shares and the probes all use them.
        checkpoint: a training checkpoint of this blueprint's tree, for the regret shares.
        default_blueprint: ``bp`` is the shipped default (the LBR command then names no file).

    Raises:
        ValueError: if ``hands`` < 1 or the game is not heads-up.
        ArtifactError: if the checkpoint does not fit the blueprint.
    """
    if hands < 1:
        raise ValueError(f"--hands must be at least 1, got {hands}")
    if bp.game.num_players != 2:
        raise ValueError("the health report is for heads-up blueprints")
    started = time.perf_counter()
    if floor != 0:
        bp = floored(bp, floor)  # refuses a floor outside [0, 1)
    regret, ck_iterations = load_regrets(checkpoint, bp) if checkpoint is not None else (None, None)
    visits = self_play_visits(bp, hands, seed)
    rounds = round_health(bp, visits, regret)
    start, _ = infoset_index(bp)
    node_visits = np.zeros(bp.tree.n_nodes, np.int64)
    decisions = np.flatnonzero(start >= 0)
    node_visits[decisions] = np.add.reduceat(visits, start[decisions])  # a node's visits over its buckets
    equity = preflop_equity(seed=seed)
    probes = [probe_aces(bp), probe_nuts(bp, node_visits, seed=seed), probe_top_decile(bp, equity),
              probe_open_shove(bp, equity)]  # fmt: skip
    gate = {rounds[r].name: rounds[r].near_uniform_reached for r in GATE_ROUNDS if r < len(rounds)}
    gate_ok = all(v is not None and v <= GATE_SHARE for v in gate.values())
    definitions = {
        "near_uniform": f"total-variation distance of the strategy row to uniform < {NEAR_UNIFORM_TV}",
        "reached": "weighted by visits in blueprint-vs-blueprint self-play (one per infoset passed per hand)",
        "untouched": "every regret of the infoset is exactly 0 in the checkpoint",
        "tiny": f"every |regret| of the infoset < {TINY_REGRET_BB:g} big blind(s) (cumulative, as stored)",
        "gate": f"every probe passes and near-uniform reached share <= {GATE_SHARE:.0%} on "
                + " and ".join(ROUND_NAMES[r] for r in GATE_ROUNDS),
    }
    return HealthReport(
        blueprint=str(bp.path), iterations=bp.params.get("iterations"), nodes=bp.tree.n_nodes, hands=hands, seed=seed,
        seconds=round(time.perf_counter() - started, 1), rounds=rounds, probes=probes,
        gate={k: v for k, v in gate.items() if v is not None}, passed=gate_ok and all(p.passed for p in probes),
        lbr_command=lbr_command(None if default_blueprint else bp.path),
        checkpoint=str(checkpoint) if checkpoint is not None else None, checkpoint_iterations=ck_iterations,
        floor=floor, definitions=definitions,
    )  # fmt: skip


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def format_report(report: HealthReport) -> str:
    """The report as a short table, the probes and the verdict."""
    iters = f"{report.iterations:,} iterations, " if report.iterations is not None else ""
    lines = [
        f"Blueprint health: {report.blueprint} ({iters}{report.nodes:,} betting nodes)",
        f"self-play: {report.hands:,} hands, seed {report.seed} ({report.seconds:.1f} s for the whole report)",
        f"near uniform = {report.definitions['near_uniform']}; reached = {report.definitions['reached']}",
        (f"rows as the agent plays them: actions below {report.floor:.0%} dropped (agent --action-floor "
         f"{report.floor:g}), the rest renormalised" if report.floor > 0 else
         "rows as trained (raw; --floor 0.05 reports them as the agent plays them)"),
        "",
    ]
    head = f"{'round':8} {'infosets':>10} {'visited':>9} {'visits':>9} {'near-unif reached':>18} {'near-unif all':>14}"
    with_ck = report.checkpoint is not None
    if with_ck:
        head += f" {'untouched reached':>18} {'untouched all':>14} {'tiny reached':>13} {'tiny all':>9}"
    lines.append(head)
    for r in report.rounds:
        line = (f"{r.name:8} {r.infosets:>10,} {r.visited:>9,} {r.visits:>9,} {_pct(r.near_uniform_reached):>18} "
                f"{_pct(r.near_uniform_all):>14}")  # fmt: skip
        if with_ck:
            line += (f" {_pct(r.untouched_reached):>18} {_pct(r.untouched_all):>14} {_pct(r.tiny_reached):>13} "
                     f"{_pct(r.tiny_all):>9}")  # fmt: skip
        lines.append(line)
    if with_ck:
        lines.append(f"checkpoint: {report.checkpoint} ({report.checkpoint_iterations:,} iterations); "
                     f"untouched = {report.definitions['untouched']}; tiny = {report.definitions['tiny']}")  # fmt: skip
        if report.iterations is not None and report.checkpoint_iterations != report.iterations:
            lines.append(f"  note: the blueprint was exported at {report.iterations:,} iterations, so these regrets are "
                         "not the ones its strategy came from (same tree and layout)")  # fmt: skip
    lines += ["", "probes:"]
    for p in report.probes:
        verdict = "PASS" if p.passed else "FAIL"
        lines.append(f"  {verdict} ({p.key}) {p.title}: {p.figure:.2%} (threshold <= {p.threshold:.0%})")
        lines.append(f"         {p.detail}")
    lines.append("")
    gate = ", ".join(f"{k} {v:.1%}" for k, v in report.gate.items())
    lines.append(f"gate: near-uniform reached {gate} (each <= {GATE_SHARE:.0%}); {report.definitions['gate']}")
    lines.append(f"best response (blueprint alone, local best response): {' '.join(report.lbr_command)}")
    if report.lbr is not None:
        lines.append(f"  ran {report.lbr['command']} (exit {report.lbr['exit_code']}): {report.lbr['verdict']}")
    lines.append(f"verdict: {'PASS' if report.passed else 'FAIL'}")
    return "\n".join(lines)
