"""The split traversal: one range-vector walk spread over numba's threads at the frontier.

The *frontier* is the chance nodes with no chance node above them.  :func:`split_values`
walks the tree above the frontier recording the reach arriving at each frontier node
(``stage=RECORD``, no updates), walks every (frontier node, dealt board) below it in
parallel (each touches only its own board's rows; the threads claim them from an atomic
counter, largest subtrees first), then walks the top again reading those values
(``stage=READ``) and updating as one whole walk would.  The frontier's values are
summed in board order, as the whole walk sums them, so the results are bitwise the
single walk's.  Subgames rooted before the last round use it on 2 cores.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from solver.ranges import READ, RECORD, WHOLE, CardArrays, TreeArrays, walk
from solver.subgame.atomics import fetch_add


@njit(cache=True)
def frontier_tasks(tree: TreeArrays, cards: CardArrays) -> tuple[np.ndarray, np.ndarray]:
    """The (frontier node, board) tasks of a split traversal: ``first[f]`` is frontier
    node f's first task (its boards are tasks ``first[f]`` .. ``first[f + 1] - 1``), and
    ``order`` lists every task, the frontier nodes with the largest subtrees first."""
    n_front = tree.frontier_nodes.shape[0]
    first = np.zeros(n_front + 1, np.int64)
    size = np.zeros(n_front, np.int64)
    stack = np.empty(tree.kind.shape[0], np.int64)
    for f in range(n_front):
        node = tree.frontier_nodes[f]
        first[f + 1] = first[f] + cards.boards_before[tree.round[node] + 1] // cards.boards_before[tree.deal_from[node] + 1]
        # Nodes below the frontier node: the cost of one of its boards, up to the hands' work per node.
        top = 0
        stack[0] = node
        while top >= 0:
            n = stack[top]
            top -= 1
            size[f] += 1
            for e in range(tree.child_start[n], tree.child_start[n] + tree.child_count[n]):
                top += 1
                stack[top] = tree.children[e]
    order = np.empty(first[n_front], np.int64)
    at = 0
    for f in np.argsort(-size, kind="mergesort"):
        for i in range(first[f], first[f + 1]):
            order[at] = i
            at += 1
    return first, order


@njit(cache=True)
def frontier_task(
    i: int, first: np.ndarray, trav: int, mode: int, tree: TreeArrays, cards: CardArrays, regret: np.ndarray,
    avg: np.ndarray, strategy: np.ndarray, kept: np.ndarray, d_pos: float, d_neg: float, d_avg: float, buf_reach: np.ndarray,
    out: np.ndarray,
) -> None:
    """Task ``i`` of a split traversal: ``out[i]`` = the values below its frontier node on its board."""
    n_h = buf_reach.shape[2]
    f = np.searchsorted(first, i, side="right") - 1
    node = tree.frontier_nodes[f]
    r = tree.round[node]
    b = i - first[f]  # the frontier's own board is board 0: nothing was dealt above it
    start = cards.compat_start[r] + b * n_h
    child_t = np.empty(n_h)
    child_o = np.empty(n_h)
    for h in range(n_h):
        child_t[h] = buf_reach[f, 0, h] * cards.compat[start + h]
        child_o[h] = buf_reach[f, 1, h] * cards.compat[start + h] * tree.deal_factor[node]
    out[i] = walk(
        tree.children[tree.child_start[node]], b, trav, child_t, child_o, mode, tree, cards, regret, avg, strategy, kept,
        d_pos, d_neg, d_avg, np.int64(WHOLE), np.zeros((0, 2, n_h)), np.zeros((0, n_h)),
    )


@njit(cache=True)
def _frontier_sums(first: np.ndarray, out: np.ndarray, buf_value: np.ndarray) -> None:
    """``buf_value[f]`` = the sum of frontier node f's tasks' values, in board order (as one walk sums them)."""
    # Scalar loops on purpose: under parallel=True an array expression would become a
    # parallel region of its own, one per (node, board), and waking the threads for
    # each cost more than the whole parallel part saved (measured: 2 threads slower than 1).
    for f in range(first.shape[0] - 1):
        for h in range(out.shape[1]):
            total = 0.0
            for i in range(first[f], first[f + 1]):
                total += out[i, h]
            buf_value[f, h] = total


@njit(cache=True, parallel=True)
def frontier_values(
    trav: int, mode: int, tree: TreeArrays, cards: CardArrays, regret: np.ndarray, avg: np.ndarray,
    strategy: np.ndarray, kept: np.ndarray, d_pos: float, d_neg: float, d_avg: float, buf_reach: np.ndarray,
    buf_value: np.ndarray,
    k: int, dynamic: bool,
) -> None:
    """Fill ``buf_value[f]`` (F, n_hands) with the values below frontier node ``f``, given
    the reaches in ``buf_reach`` (F, 2, n_hands); the (node, board) tasks run on ``k``
    threads (numba's current count, passed in: a global would defeat caching).

    ``dynamic``: each thread claims the next task from a shared atomic counter, largest
    subtrees first, until none is left: on a shared machine a thread the OS delays claims
    fewer tasks rather than holding up the region (a static split makes the region as
    slow as its slowest thread).  Otherwise the split is static, every k-th task to each
    thread, as before the counter; kept for comparisons (``split_values(dynamic=False)``).
    Each task writes only its own board's rows and ``out`` row, so the results do not
    depend on which thread ran what.
    """
    first, order = frontier_tasks(tree, cards)
    n_tasks = order.shape[0]
    out = np.zeros((n_tasks, buf_reach.shape[2]))
    counter = np.zeros(1, np.int64)
    # numba gives each of the k threads one iteration of this loop.
    for w in prange(k):
        if dynamic:
            j = fetch_add(counter, np.int64(1))
            while j < n_tasks:
                frontier_task(
                    order[j], first, trav, mode, tree, cards, regret, avg, strategy, kept, d_pos, d_neg, d_avg, buf_reach, out
                )
                j = fetch_add(counter, np.int64(1))
        else:
            for i in range(w, n_tasks, k):
                frontier_task(i, first, trav, mode, tree, cards, regret, avg, strategy, kept, d_pos, d_neg, d_avg, buf_reach, out)
    _frontier_sums(first, out, buf_value)


def split_values(
    trav: int, mode: int, tree: TreeArrays, cards: CardArrays, reach_t: np.ndarray, reach_o: np.ndarray,
    regret: np.ndarray, avg: np.ndarray, strategy: np.ndarray, kept: np.ndarray, d_pos: float, d_neg: float, d_avg: float,
    *, parallel: bool, dynamic: bool = True,
) -> np.ndarray:
    """:func:`walk` from the root with the given root reaches (float64 (n_hands,) each)
    (``kept``: see :func:`walk`).

    With ``parallel`` and a frontier, the walk is split there and the parts below run on
    numba's threads (``numba.set_num_threads``), handed out by an atomic counter
    (``dynamic``) or split statically; otherwise one ordinary walk.  The results are
    bitwise those of the one walk either way.  Mutates ``regret``, ``avg`` and ``kept`` as ``walk`` does.
    """
    n_h, n_front = reach_t.shape[0], tree.frontier_nodes.shape[0]
    root = np.int64(0)
    if not parallel or n_front == 0:
        return walk(
            root, root, trav, reach_t, reach_o, mode, tree, cards, regret, avg, strategy, kept, d_pos, d_neg, d_avg,
            np.int64(WHOLE), np.zeros((0, 2, n_h)), np.zeros((0, n_h)),
        )
    buf_reach = np.zeros((n_front, 2, n_h))
    buf_value = np.zeros((n_front, n_h))
    walk(
        root, root, trav, reach_t, reach_o, mode, tree, cards, regret, avg, strategy, kept, d_pos, d_neg, d_avg,
        np.int64(RECORD), buf_reach, buf_value,
    )
    frontier_values(trav, mode, tree, cards, regret, avg, strategy, kept, d_pos, d_neg, d_avg, buf_reach, buf_value,
                    get_num_threads(), dynamic)
    return walk(
        root, root, trav, reach_t, reach_o, mode, tree, cards, regret, avg, strategy, kept, d_pos, d_neg, d_avg,
        np.int64(READ), buf_reach, buf_value,
    )
