"""Depth-limited hold'em leaf values from the shipped blueprint on sampled runouts
(solver/subgame/blueprint_leaves.py), checked against the range kernel's own deals."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from precompute.blueprint import Blueprint
from protocol.gamedef import load_game
from protocol.rules import with_cards
from protocol.wire import parse_matchstate
from solver.bets import parse_abstraction
from solver.deals import card_space
from solver.ranges import EVALUATE, WHOLE, walk
from solver.subgame.alternatives import blueprint_pairs, blueprint_strategy
from solver.subgame.blueprint_leaves import BlueprintLeafValues
from solver.subgame.depth_limited_range import DepthLimitedSolver, TreeLeafValues
from solver.subgame.range_solver import SharedParts, SubgameError, assemble_subgame, build_subgame
from solver.tree import build_tree

GAME = load_game("holdem.nolimit.2p")
SIZES = parse_abstraction("1;allin;cap=1")


@pytest.fixture(scope="module")
def blueprint():
    return Blueprint.load()


def _values_at_root(sg, strategy, trav, reach_t, reach_o):
    unused = np.zeros(0)
    return walk(np.int64(0), np.int64(0), np.int64(trav), reach_t, reach_o, np.int64(EVALUATE), sg.arrays, sg.cards, unused,
                unused, strategy, unused, 1.0, 1.0, 1.0, np.int64(WHOLE), np.zeros((0, 2, sg.n_hands)),
                np.zeros((0, sg.n_hands)))  # fmt: skip


def test_flop_leaf_values_over_every_river_are_the_kernels_deal_of_the_river(blueprint):
    """A flop subgame's check-check leaf on one turn card: the runout estimates averaged over
    every river (scaled from the two-card runout's weight to the river's alone) equal the
    range kernel's value of the blueprint's turn subgame, whose river it deals itself."""
    flop = parse_matchstate("MATCHSTATE:0:0:r200c/:AsKd|/2c7hKs", GAME).state
    cut = build_subgame(flop, SIZES, depth_limited=True)
    leaves = BlueprintLeafValues(cut, blueprint, me=0, seed=3)
    leaf = next(i for i, n in enumerate(cut.leaves) if cut.tree.states[int(n)].betting.endswith("/cc/"))
    state, node, ratio = leaves.targets[leaf]
    assert node is not None and ratio == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    reach_t, reach_o = rng.uniform(0, 1, cut.n_hands), rng.uniform(0, 1, cut.n_hands)
    turn = int(leaves.deck[7])
    leaves.use([(turn, int(r)) for r in leaves.deck if r != turn])
    rest = build_subgame(with_cards(state, ((), ()), leaves.board + (turn,)), blueprint.tree.abstraction)
    strategy = blueprint_strategy(blueprint, rest, node, (0, 1), 100000)
    for trav in range(2):
        exact = _values_at_root(rest, strategy, trav, rest.from_hole_pairs(cut.to_hole_pairs(reach_t)),
                                rest.from_hole_pairs(cut.to_hole_pairs(reach_o)))  # fmt: skip
        estimate = leaves.values(leaf, 0, trav, reach_t, reach_o) * (49 - 4) / 49  # one turn card of 49, weighed 1/45
        np.testing.assert_allclose(estimate, cut.from_hole_pairs(rest.to_hole_pairs(exact)), rtol=1e-9, atol=1e-6)
        assert np.abs(estimate).max() > 1.0


def test_an_all_in_leaf_is_a_showdown_whose_mean_over_rivers_is_exact(blueprint):
    turn = parse_matchstate("MATCHSTATE:0:0:r200c/cc/:AsKd|/2c7hKs/9d", GAME).state
    cut, full = build_subgame(turn, SIZES, depth_limited=True), build_subgame(turn, SIZES)
    leaves = BlueprintLeafValues(cut, blueprint, me=0, continuations=("blueprint", "raise"), seed=1)
    all_in = [i for i, n in enumerate(cut.leaves) if cut.tree.states[int(n)].finished]
    assert all_in
    exact = TreeLeafValues(cut, full, [full.tabular.uniform_strategy()])
    leaves.use([(int(r),) for r in leaves.deck])
    rng = np.random.default_rng(2)
    reach_t, reach_o = rng.uniform(0, 1, cut.n_hands), rng.uniform(0, 1, cut.n_hands)
    for leaf in all_in:
        for trav in range(2):
            # The showdown's sign matrix is float32 (half the memory): 1e-7 relative.
            np.testing.assert_allclose(leaves.values(leaf, 1, trav, reach_t, reach_o),
                                       exact.values(leaf, 0, trav, reach_t, reach_o), rtol=1e-5)  # fmt: skip


def test_continuations_differ_and_a_solve_draws_a_runout_every_iteration(blueprint):
    turn = parse_matchstate("MATCHSTATE:0:0:r200c/cc/:AsKd|/2c7hKs/9d", GAME).state
    cut = build_subgame(turn, SIZES, depth_limited=True)
    leaves = BlueprintLeafValues(cut, blueprint, me=0, continuations=("blueprint", "fold", "call", "raise"), seed=5)
    leaf = next(i for i, (_, node, _) in enumerate(leaves.targets) if node is not None)
    ones = np.ones(cut.n_hands)
    values = [leaves.values(leaf, j, 0, ones, ones) for j in range(4)]
    assert all(not np.allclose(values[0], v) for v in values[1:])
    solver = DepthLimitedSolver(cut, np.ones((2, cut.n_hands)), leaves, chooser=1)
    drawn = []
    for _ in range(6):
        solver.iterate(1)
        drawn.append(leaves.runouts)
    assert all(a is not b for a, b in itertools.pairwise(drawn)) and len(set(map(tuple, drawn))) > 1
    assert np.isfinite(solver.average_strategy()).all()
    with pytest.raises(SubgameError, match="runout"):
        leaves.use([])
    with pytest.raises(SubgameError, match="continuations"):
        BlueprintLeafValues(cut, blueprint, me=0, continuations=("best-response",))


def test_a_runout_pool_cycles_and_values_each_runout_as_a_fresh_valuation(blueprint):
    """With a pool the iterations cycle through runouts drawn once, keeping what each
    built; a pooled runout's values equal a fresh valuer's of that runout alone."""
    turn = parse_matchstate("MATCHSTATE:0:0:r200c/cc/:AsKd|/2c7hKs/9d", GAME).state
    cut = build_subgame(turn, SIZES, depth_limited=True)
    pooled = BlueprintLeafValues(cut, blueprint, me=0, continuations=("blueprint", "call"), seed=5, pool=3)
    assert len(set(pooled.pool)) == 3
    leaf = next(i for i, (_, node, _) in enumerate(pooled.targets) if node is not None)
    rng = np.random.default_rng(1)
    reach_t, reach_o = rng.uniform(0, 1, cut.n_hands), rng.uniform(0, 1, cut.n_hands)
    seen = []
    for t in range(6):
        pooled.begin_iteration(t)
        seen.append(pooled.runouts[0])
        values = pooled.values(leaf, 1, 0, reach_t, reach_o)
        fresh = BlueprintLeafValues(cut, blueprint, me=0, continuations=("blueprint", "call"), seed=9)
        fresh.use([seen[-1]])
        np.testing.assert_allclose(values, fresh.values(leaf, 1, 0, reach_t, reach_o), rtol=1e-12, atol=1e-9)
    assert seen == pooled.pool * 2
    assert {key[1] for key in pooled._cache} == set(pooled.pool)  # built once per runout, kept
    pooled.use([(int(pooled.deck[0]),)])  # a measurement elsewhere keeps the pool's work
    assert set(pooled.pool) <= {key[1] for key in pooled._cache}
    with pytest.raises(SubgameError, match="pool"):
        BlueprintLeafValues(cut, blueprint, me=0, pool=-1)


def test_the_depth_limited_bench_runs_quick():
    """tests/bench/bench_depth_limited.py --quick: the tree, the solve and the measurement print."""
    bench = Path(__file__).resolve().parents[1] / "bench" / "bench_depth_limited.py"
    done = subprocess.run([sys.executable, str(bench), "--quick"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"27 nodes, 9 leaves, 1176 hands", done.stdout)  # the agent's sizes: two raises in the flop
    assert re.search(r"solve: 3 iterations in [\d.]+ s wall", done.stdout)
    mix = re.search(r"the solve's root, averaged over the player's hands \(uniform range\): c ([\d.]+)%, r600 ([\d.]+)%, "
                    r"r20000 ([\d.]+)%", done.stdout)  # fmt: skip
    assert mix and sum(float(x) for x in mix.groups()) == pytest.approx(100, abs=0.2)
    found = re.search(r"exploitability in the model on 2 fixed runouts: ([\d.]+)% of the pot", done.stdout)
    assert found and float(found.group(1)) > 0


def test_the_blueprints_own_round_reads_into_a_depth_limited_cut_of_its_sizes(blueprint):
    """The bench's yardstick (--sizes blueprint): a flop cut with the blueprint's own sizes
    takes the blueprint's rows for its round; its leaves (chance nodes without children)
    end the walk instead of being stepped through."""
    from solver.follow import TranslationMemory
    from solver.follow import walk as follow
    from solver.tree import CHANCE, skip_chance

    root = parse_matchstate("MATCHSTATE:0:0:r200c/:AsKd|/2c7hKs", GAME).state
    cut = build_subgame(root, blueprint.tree.abstraction, depth_limited=True)
    for leaf in cut.leaves:
        assert cut.tree.kind[leaf] == CHANCE and skip_chance(cut.tree, int(leaf)) == int(leaf)
    node = follow(blueprint.tree, root, TranslationMemory(), np.random.default_rng(0), root.current_player)[0]
    strategy = blueprint_strategy(blueprint, cut, node, (0, 1))
    assert strategy is not None
    n_a = int(cut.tree.child_count[0])
    assert cut.tree.actions(0) == blueprint.actions(node)
    rows = strategy[: cut.n_hands * n_a].reshape(cut.n_hands, n_a)
    expected = blueprint.range_strategy(node, root.board)[cut.hole_pair_index()]
    live = expected.sum(axis=1) > 0
    np.testing.assert_allclose(rows[live], expected[live])
    assert live.sum() == cut.n_hands


def test_leaves_valued_on_two_threads_give_the_one_thread_solve_bit_for_bit(blueprint):
    """DepthLimitedSolver(threads=2) values a traversal's leaves concurrently (their walks
    release the GIL); each leaf's values and regrets are its own, so nothing changes."""
    flop = parse_matchstate("MATCHSTATE:0:0:r200c/:AsKd|/2c7hKs", GAME).state
    cut = build_subgame(flop, SIZES, depth_limited=True)
    solvers = []
    for threads in (1, 2):
        leaves = BlueprintLeafValues(cut, blueprint, me=0, continuations=("blueprint", "fold", "call", "raise"), seed=4,
                                     pool=2)  # fmt: skip
        solver = DepthLimitedSolver(cut, np.ones((2, cut.n_hands)), leaves, chooser=1, threads=threads)
        solver.iterate(4)
        solvers.append(solver)
    one, two = solvers
    for name in ("regret", "avg", "leaf_regret", "leaf_avg"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))
    assert np.abs(one.leaf_regret).max() > 0
    with pytest.raises(SubgameError, match="threads is at least 1"):
        DepthLimitedSolver(cut, np.ones((2, cut.n_hands)), leaves, chooser=1, threads=0)


def test_rows_read_in_one_gather_are_the_rows_read_node_by_node(blueprint):
    """Blueprint.range_strategies (one gather for a round's nodes with as many actions) is
    range_strategy node by node, bit for bit, and blueprint_strategy fills a rest-of-hand
    subgame as the node-by-node reading does."""
    turn = parse_matchstate("MATCHSTATE:0:0:r200c/cc/:AsKd|/2c7hKs/9d", GAME).state
    cut = build_subgame(turn, SIZES, depth_limited=False)
    leaves = BlueprintLeafValues(build_subgame(turn, SIZES, depth_limited=True), blueprint, me=0, seed=2)
    state, node, _ = next(t for t in leaves.targets if t[1] is not None)
    rest = build_subgame(with_cards(state, ((), ()), leaves.board + (int(leaves.deck[3]),)), blueprint.tree.abstraction)
    strategy = blueprint_strategy(blueprint, rest, node, (0, 1), 100000)
    tree, lay = rest.tree, rest.tabular.layout
    checked = 0
    for s_node, b_node in blueprint_pairs(blueprint, rest, node, (0, 1), 100000):
        n_a, r = int(tree.child_count[s_node]), int(tree.round[s_node])
        for b in range(rest.space.n_boards[r]):
            board = tuple(int(c) for c in rest.space.boards[r][b])
            expected = blueprint.range_strategy(b_node, board)[rest.hole_pair_index()]
            expected[expected.sum(axis=1) <= 0] = 1.0 / n_a
            start = int(lay.offset[s_node]) + b * rest.n_hands * n_a
            np.testing.assert_array_equal(strategy[start : start + rest.n_hands * n_a], expected.ravel())
            checked += 1
    assert checked >= 5
    nodes = [b for _, b in blueprint_pairs(blueprint, rest, node, (0, 1), 100000)]
    same = [n for n in nodes if int(blueprint.tree.round[n]) == 3 and int(blueprint.tree.child_count[n]) == 3][:4]
    board = leaves.board + (int(leaves.deck[3]), int(leaves.deck[5]))
    np.testing.assert_array_equal(blueprint.range_strategies(same, board),
                                  np.stack([blueprint.range_strategy(n, board) for n in same]))  # fmt: skip
    with pytest.raises(ValueError, match="as many actions"):
        other = next(n for n in nodes if int(blueprint.tree.child_count[n]) != 3)
        blueprint.range_strategies([other, same[0]], board)
    assert blueprint_pairs(blueprint, rest, node, (0, 1), 3) is None  # more rows than allowed
    assert cut.n_hands  # the full turn subgame builds (its sizes are not the blueprint's)


def test_shared_parts_pack_a_subgame_as_packing_it_afresh(blueprint):
    """assemble_subgame with SharedParts (a leaf's tree and a runout's cards packed once)
    gives the arrays a fresh packing gives."""
    turn = parse_matchstate("MATCHSTATE:0:0:r200c/cc/:AsKd|/2c7hKs/9d", GAME).state
    tree = build_tree(GAME, blueprint.tree.abstraction, root=turn)
    shared = SharedParts()
    for river in (5, 6, 5):
        space = card_space(GAME, tuple(turn.board) + (river,))
        fresh = assemble_subgame(turn, None, 1.0, tree, space)
        reused = assemble_subgame(turn, None, 1.0, tree, space, shared)
        for a, b in itertools.chain(zip(fresh.arrays, reused.arrays), zip(fresh.cards, reused.cards)):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(fresh.parent, reused.parent)
        np.testing.assert_array_equal(fresh.parent_edge, reused.parent_edge)
        shared.forget(space)
