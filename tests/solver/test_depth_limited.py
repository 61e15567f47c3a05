"""Depth-limited safe subgame solving: leaf values, the solve, and the experiment's quick run."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from protocol.rules import with_cards
from solver.bets import parse_abstraction
from solver.cfr.fullwidth import DCFR
from solver.cli import main
from solver.experiments import TABLE1_QUICK, experiment_game
from solver.experiments.blueprint import player_rows
from solver.experiments.depth_limited import DL_QUICK, depth_limited_strategy
from solver.experiments.subgames import subgame_roots
from solver.ranges import EVALUATE, UPDATE, WHOLE, TabularGame, discounts, tabular_game, walk
from solver.subgame.blueprint_values import BlueprintValues
from solver.subgame.depth_limited import (
    LeafValues,
    best_response_strategy,
    biased_strategy,
    continuation_names,
    depth_limited_subgame,
    modelled_best_response,
    round_rows,
    solve_depth_limited,
    solve_keeping_blueprint,
)
from solver.subgame.gadgets import gadget_reach, gadget_update
from solver.subgame.leaf_walk import dl_walk
from solver.subgame.safe import build_gadget, solve_subgame, subgame_rows
from solver.tree import CHANCE, DECISION, FOLD_END, SHOWDOWN


def _random_strategy(tg: TabularGame, seed: int) -> np.ndarray:
    """A strategy with random rows (every action likely enough to matter)."""
    rng = np.random.default_rng(seed)
    out = tg.uniform_strategy()
    tree, lay = tg.tree, tg.layout
    for node in np.flatnonzero(tree.kind == DECISION):
        n_a = int(tree.child_count[node])
        size = lay.rows[int(tree.round[node])] * n_a
        rows = rng.random((size // n_a, n_a)) + 0.05
        out[lay.offset[node] : lay.offset[node] + size] = (rows / rows.sum(axis=1, keepdims=True)).ravel()
    return out


@pytest.fixture(scope="module")
def quick3() -> BlueprintValues:
    tg = tabular_game(experiment_game("quick3"), parse_abstraction(DL_QUICK.abstraction))
    return BlueprintValues(tg, _random_strategy(tg, 3))


def _direct_leaf(bv: BlueprintValues, strategy: np.ndarray, leaf: int, board: int) -> np.ndarray:
    """Player 0's counterfactual value below chance ``leaf`` per hand pair, by dealing every
    next card and playing out the betting with the rules' payoffs (no range kernel)."""
    tg = bv.game
    tree, space, lay = tg.tree, tg.space, tg.layout
    last = tg.game.num_rounds - 1
    n_h = space.n_hands
    p_deal = space.deal_probability(int(tree.deal_from[leaf]), int(tree.round[leaf]))

    def value(node: int, holes: tuple, final: int) -> float:
        kind = tree.kind[node]
        if kind == FOLD_END:
            return float(tree.fold_value[node, 0])
        if kind == SHOWDOWN:
            return float(with_cards(tree.states[node], holes, tuple(space.boards[last][final].tolist())).values()[0])
        if kind == CHANCE:
            return value(int(tree.children[tree.child_start[node]]), holes, final)
        n_a = int(tree.child_count[node])
        hand = space.hand_index(holes[int(tree.player[node])])
        row = lay.offset[node] + (final * n_h + hand) * n_a
        return sum(strategy[row + a] * value(int(tree.children[tree.child_start[node] + a]), holes, final)
                   for a in range(n_a))

    out = np.zeros((n_h, n_h))
    for final in range(space.n_boards[last]):
        if space.board_at(final, last - 1) != board:
            continue
        cards = set(space.boards[last][final].tolist())
        for h0 in range(n_h):
            for h1 in range(n_h):
                held = [set(space.hands[h].tolist()) for h in (h0, h1)]
                if held[0] & held[1] or (held[0] | held[1]) & cards:
                    continue
                holes = (tuple(space.hands[h0].tolist()), tuple(space.hands[h1].tolist()))
                out[h0, h1] += p_deal * value(leaf, holes, final)
    return out * space.hand_probability()


def test_leaf_values_equal_a_direct_computation(quick3: BlueprintValues) -> None:
    tg = quick3.game
    leaves = LeafValues(quick3, continuation_names(4))
    chance = [n for n in np.flatnonzero((tg.tree.kind == CHANCE) & (tg.tree.round == 2)) if tg.tree.deal_from[n] == 1]
    for leaf, board in ((int(chance[0]), 0), (int(chance[-1]), 4)):
        for name in ("blueprint", "raise"):
            direct = _direct_leaf(quick3, leaves.profile(name, 1), leaf, board)
            assert np.abs(direct).max() > 0
            np.testing.assert_allclose(leaves.table(leaf, board, name, 1), direct, atol=1e-12)


def test_biased_strategy_multiplies_one_action_class(quick3: BlueprintValues) -> None:
    tg = quick3.game
    tree, lay = tg.tree, tg.layout
    blueprint = quick3.strategy
    biased = biased_strategy(tg, blueprint, 1, "fold", 5.0)
    node = next(int(n) for n in np.flatnonzero((tree.kind == DECISION) & (tree.player == 1))
                if (tree.edge_action[tree.child_start[n] : tree.child_start[n] + tree.child_count[n]] == 0).any())
    n_a = int(tree.child_count[node])
    rows = lay.rows[int(tree.round[node])]
    before = blueprint[lay.offset[node] : lay.offset[node] + rows * n_a].reshape(rows, n_a)
    after = biased[lay.offset[node] : lay.offset[node] + rows * n_a].reshape(rows, n_a)
    np.testing.assert_allclose(after.sum(axis=1), 1.0)
    fold = 0  # fold is the first edge wherever it is legal
    np.testing.assert_allclose(after[:, fold] / after[:, 1], 5.0 * before[:, fold] / before[:, 1])
    mine = np.flatnonzero((tree.kind == DECISION) & (tree.player == 0))
    for n in mine:  # the other player's rows are untouched
        span = lay.rows[int(tree.round[n])] * int(tree.child_count[n])
        block = slice(lay.offset[n], lay.offset[n] + span)
        np.testing.assert_array_equal(biased[block], blueprint[block])
    np.testing.assert_array_equal(biased_strategy(tg, blueprint, 1, "blueprint"), blueprint)
    with pytest.raises(ValueError, match="unknown continuation"):
        biased_strategy(tg, blueprint, 1, "check")


def test_best_response_continuation_is_a_best_response(quick3: BlueprintValues) -> None:
    tg = quick3.game
    for player in (0, 1):
        profile = best_response_strategy(quick3, player, range(tg.game.num_rounds))
        value = quick3.values(0, 0, player, best=False, strategy=profile).sum()
        assert value == pytest.approx(quick3.values(0, 0, player, best=True).sum(), abs=1e-12)
        assert value > quick3.values(0, 0, player, best=False).sum() + 1e-3
    leaves = LeafValues(quick3, continuation_names(5), best_response_after=1)
    assert leaves.continuations[-1] == "best-response"
    late = leaves.profile("best-response", 1)
    changed = np.flatnonzero(late != quick3.strategy)
    assert len(changed) and np.isin(changed, player_rows(tg, 1, [2])).all()


@pytest.mark.parametrize("after_card", [False, True])
def test_blueprint_continuation_evaluates_the_blueprint_exactly(quick3: BlueprintValues, after_card: bool) -> None:
    tg = quick3.game
    n_h = tg.space.n_hands
    leaves = LeafValues(quick3, continuation_names(4))
    root = subgame_roots(tg, 1)[0]
    for board in (0, 3):
        for player in (0, 1):
            sub = depth_limited_subgame(leaves, root, board, player, after_card=after_card)
            assert sub.n_choices > 0 and sub.k == 4
            opponent = 1 - player
            other = quick3.reach(root, board, player) * quick3.deal_probability(root)
            empty = np.zeros((0, n_h, 4))
            unused = np.zeros(0)
            values = dl_walk(
                np.int64(root), np.int64(board), np.int64(opponent), np.int64(opponent), np.ones(n_h), other,
                np.int64(EVALUATE), *quick3.arrays, sub.arrays, unused, unused, empty, empty, quick3.strategy, 1.0, 1.0, 1.0,
            )
            np.testing.assert_allclose(values, quick3.values(root, board, opponent, best=False), atol=1e-12)


@pytest.mark.parametrize("key,round_", [("quick2", 1), ("quick3", 2)])
def test_a_cut_after_the_last_round_solves_as_full_depth(key: str, round_: int) -> None:
    # With nothing left to deal every leaf is a terminal, so the depth-limited solve is
    # the full-depth one (for any k).  Equal up to rounding only: CFR meets exact ties
    # (two actions of equal value) whose regrets are +-1e-19 in one summation order and 0
    # in the other, and regret matching then plays differently, so whole solves are
    # compared for one iteration and longer runs step by step from a shared state.
    spec = TABLE1_QUICK[0] if key == "quick2" else DL_QUICK
    tg = tabular_game(experiment_game(key), parse_abstraction(spec.abstraction))
    bv = BlueprintValues(tg, _random_strategy(tg, 5))
    root = subgame_roots(tg, round_)[0]
    tree_arrays, cards = bv.arrays
    n_h = tg.space.n_hands
    for k in (1, 4):
        leaves = LeafValues(bv, continuation_names(k))
        for board, player in ((0, 0), (2, 1)):
            gadget = build_gadget(bv, root, board, player, "maxmargin")
            sub = depth_limited_subgame(leaves, root, board, player)
            assert sub.n_choices == 0
            full = [np.zeros(tg.layout.size) for _ in range(2)]
            dl = [np.zeros(tg.layout.size) for _ in range(2)]
            assert solve_subgame(bv, root, board, player, gadget, *full, iterations=1) is not None
            assert solve_depth_limited(leaves, sub, gadget, *dl, iterations=1) is not None
            assert np.abs(full[0]).max() > 0
            np.testing.assert_allclose(dl[0], full[0], rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(dl[1], full[1], rtol=1e-9, atol=1e-12)
            # 30 DCFR iterations in lockstep: each kernel updates a copy of the same state.
            regret, avg = np.zeros(tg.layout.size), np.zeros(tg.layout.size)
            gadget_regret = gadget.new_regrets()
            ours, deal = bv.reach(root, board, player), bv.deal_probability(root)
            theirs = np.empty(n_h)
            empty, unused = np.zeros((0, n_h, 1)), np.zeros(0)
            for t in range(1, 31):
                d = discounts(t, *DCFR)
                gadget_reach(gadget.kind, gadget_regret, gadget.weight, gadget.blueprint_reach, theirs, gadget.unsafe_weight)
                for trav, reach_t, reach_o in ((player, ours, theirs * deal), (1 - player, theirs, ours * deal)):
                    a = [regret.copy(), avg.copy()]
                    v_full = walk(np.int64(root), np.int64(board), np.int64(trav), reach_t.copy(), reach_o, np.int64(UPDATE),
                                  tree_arrays, cards, *a, unused, unused, *d, np.int64(WHOLE), np.zeros((0, 2, n_h)),
                                  np.zeros((0, n_h)))
                    b = [regret.copy(), avg.copy()]
                    v_dl = dl_walk(np.int64(root), np.int64(board), np.int64(trav), np.int64(1 - player), reach_t.copy(),
                                   reach_o, np.int64(UPDATE), tree_arrays, cards, sub.arrays, *b, empty, empty, unused, *d)
                    np.testing.assert_allclose(v_dl, v_full, rtol=1e-9, atol=1e-12)
                    np.testing.assert_allclose(b[0], a[0], rtol=1e-9, atol=1e-12)
                    np.testing.assert_allclose(b[1], a[1], rtol=1e-9, atol=1e-12)
                    regret, avg = a
                gadget_update(gadget.kind, gadget_regret, gadget.alternatives, gadget.weight, theirs, v_full, d[0], d[1])


def test_keeping_the_blueprint_after_the_round_plays_it_and_is_full_depth_without_a_later_round() -> None:
    spec = DL_QUICK
    tg = tabular_game(experiment_game("quick3"), parse_abstraction(spec.abstraction))
    bv = BlueprintValues(tg, _random_strategy(tg, 7))
    root, board, player = subgame_roots(tg, 1)[1], 2, 0
    gadget = build_gadget(bv, root, board, player, "maxmargin")
    regret, avg = np.zeros(tg.layout.size), np.zeros(tg.layout.size)
    assert solve_keeping_blueprint(bv, root, board, player, gadget, regret, avg, iterations=20) is not None
    later = np.setdiff1d(subgame_rows(bv, root, board, player), round_rows(bv, root, board, player))
    assert len(later) and np.array_equal(regret[later], bv.strategy[later])  # regret matching plays the blueprint
    mine = round_rows(bv, root, board, player)
    assert np.abs(avg[mine]).max() > 0
    # In the last round nothing is kept: the solve is the full-depth one, bit for bit.
    root = subgame_roots(tg, 2)[0]
    gadget = build_gadget(bv, root, board, player, "maxmargin")
    full = [np.zeros(tg.layout.size) for _ in range(2)]
    kept = [np.zeros(tg.layout.size) for _ in range(2)]
    solve_subgame(bv, root, board, player, gadget, *full, iterations=20)
    solve_keeping_blueprint(bv, root, board, player, gadget, *kept, iterations=20)
    assert np.array_equal(full[0], kept[0]) and np.array_equal(full[1], kept[1])


def test_more_continuations_see_more_of_the_best_response(quick3: BlueprintValues) -> None:
    # What holds by construction: for any strategy, the opponent's best response in the
    # k = 1 model is at most its best response in the k = 4 model (more options at the
    # leaves), which is at most its true best response (the continuations are strategies).
    tg = quick3.game
    roots = subgame_roots(tg, 1)
    # Cutting after the card lets the opponent choose knowing it: more options again.
    solved, *_ = depth_limited_strategy(quick3, roots, 1, "maxmargin", 20, continuation_names(1))
    one, four = LeafValues(quick3, continuation_names(1)), LeafValues(quick3, continuation_names(4))
    strictly = [0, 0]
    for strategy in (quick3.strategy, solved):
        for root in roots:
            for board in range(tg.space.n_boards[1]):
                for player in (0, 1):
                    low = modelled_best_response(one, depth_limited_subgame(one, root, board, player), strategy)
                    mid = modelled_best_response(four, depth_limited_subgame(four, root, board, player), strategy)
                    card = depth_limited_subgame(four, root, board, player, after_card=True)
                    high = modelled_best_response(four, card, strategy)
                    true = quick3.values(root, board, 1 - player, best=True, strategy=strategy)
                    assert (low <= mid + 1e-12).all() and (mid <= high + 1e-12).all() and (high <= true + 1e-12).all()
                    strictly[0] += int((mid > low + 1e-9).any())
                    strictly[1] += int((high > mid + 1e-9).any())
    assert min(strictly) > 0


def _numbers(line: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d[\d,]*\.?\d*|nan", line.replace(",", ""))]


def test_depth_limited_quick_prints_the_table_and_exports(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    assert main(["experiment", "depth-limited", "--quick", "--cut", "round,card", "--limit", "--save", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = {}
    names = ("blueprint", "full-depth maxmargin", "depth-limited k=1 maxmargin", "depth-limited k=4 maxmargin",
             "depth-limited k=1 maxmargin after card", "depth-limited k=4 maxmargin after card",
             "opponent free after round 2 maxmargin")
    for name in names:
        line = next(x for x in out.splitlines() if x.startswith(name + " "))
        rows[name] = _numbers(line[len(name):])
        assert math.isfinite(rows[name][0]) and rows[name][0] >= 0 and rows[name][1] >= 0
    assert "target <= 1.5x" in out
    assert (tmp_path / "quick3-opponent-free.strategy").is_file() and (tmp_path / "quick3-blueprint.strategy").is_file()
    saved = tmp_path / "quick3-depth-limited-k4.strategy"
    policy = tmp_path / "k4.json"
    assert main(["export", str(saved), "--game", "quick3", "--out", str(policy)]) == 0
    assert json.loads(policy.read_text())["entries"]


def test_depth_limited_refuses_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "depth-limited", "--quick", "--k", "6"]) == 2
    assert main(["experiment", "depth-limited", "--quick", "--gadget", "nope"]) == 2
    assert main(["experiment", "depth-limited", "--quick", "--cut", "river"]) == 2
    assert "unknown gadget" in capsys.readouterr().err
