"""External-sampling MCCFR: convergence with a fixed seed, n players, the Pluribus
schedule's pieces, bucketed play, and exact resumption."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import pytest

from protocol.cards import deck
from protocol.rules import CALL, LIMIT_RAISE
from solver.bestresponse import expand_buckets, exploitability
from solver.cfr.mccfr import (
    PLAIN,
    CardAbstraction,
    MCCFRConfig,
    MCCFRSolver,
    SampledDeals,
    identity_abstraction,
    pluribus_schedule,
)
from solver.deals import deal_indices, sample_deals
from solver.ranges import tabular_game
from solver.tree import DECISION, FOLD_END
from tests.solver.games import KUHN3, LEDUC, TINY_HOLDEM


def _solver(game, config=PLAIN, seed=11, abstraction=None):
    return MCCFRSolver(game.tree, deck(game.game), abstraction or identity_abstraction(game.space), config, seed)


def test_leduc_reaches_a_loose_bound_with_a_fixed_seed():
    solver = _solver(LEDUC)
    curve = []
    for _ in range(2):
        solver.run(100_000)
        curve.append(exploitability(LEDUC, solver.strategy()).nash_conv)
    assert curve[1] < curve[0] and curve[1] < 0.15, curve


def test_pluribus_schedule_converges_on_leduc():
    solver = _solver(LEDUC, pluribus_schedule(200_000, average_rounds=2))
    solver.run(200_000)
    assert exploitability(LEDUC, solver.strategy()).nash_conv < 0.15


def test_three_player_kuhn_nash_conv_decreases():
    solver = _solver(KUHN3)
    curve = [exploitability(KUHN3, solver.strategy()).nash_conv]
    for iterations in (2_000, 20_000, 200_000):
        solver.run(iterations)
        curve.append(exploitability(KUHN3, solver.strategy()).nash_conv)
    assert all(later < earlier for earlier, later in pairwise(curve)), curve
    assert curve[-1] < curve[0] / 10, curve


def test_runs_are_reproducible_and_resume_exactly(tmp_path):
    straight = _solver(LEDUC, seed=5)
    straight.run(3000, batch=1024)
    first = _solver(LEDUC, seed=5)
    first.run(1000, batch=300)
    path = first.save(tmp_path / "run.ckpt")
    resumed = _solver(LEDUC, seed=5)
    resumed.resume(path)
    assert resumed.iterations == 1000
    resumed.run(2000, batch=777)
    np.testing.assert_array_equal(resumed.regret, straight.regret)
    np.testing.assert_array_equal(resumed.avg, straight.avg)
    other = _solver(LEDUC, seed=6)
    other.run(3000)
    assert not np.array_equal(other.regret, straight.regret)
    with pytest.raises(Exception, match="built with seed=5, expected 6"):
        other.resume(path)


def test_linear_discounting_scales_regrets_and_averages():
    plain = _solver(LEDUC)
    plain.run(100)
    discounted = _solver(LEDUC, MCCFRConfig(discount_every=100, discount_until=100))
    discounted.run(100)  # one discount, by k / (k + 1) = 1/2, after iteration 100
    np.testing.assert_array_equal(discounted.regret, plain.regret / 2)
    np.testing.assert_array_equal(discounted.avg, plain.avg / 2)


def _cells(solver, node, action):
    """Regret cells of ``action`` at ``node``, one per row."""
    tree, lay = solver.tree, solver.layout
    n_a = int(tree.child_count[node])
    return lay.offset[node] + np.arange(lay.rows[tree.round[node]]) * n_a + action


def test_pruning_skips_hopeless_actions_except_on_the_last_round_and_at_hand_ends():
    solver = _solver(LEDUC, MCCFRConfig(prune_after=0, prune_probability=1.0, regret_floor_bb=-310.0))
    tree = LEDUC.tree
    history = {tree.states[n].actions: n for n in np.flatnonzero(tree.kind == DECISION)}
    root, check_raise = history[((),)], history[((CALL, LIMIT_RAISE),)]
    last_round = next(n for n in np.flatnonzero(tree.kind == DECISION) if tree.round[n] == 1)
    cases = {
        "raise at the root": (root, 1, False),
        "fold facing a raise (ends the hand)": (check_raise, 0, True),
        "first action on the last round": (last_round, 0, True),
    }
    assert tree.kind[tree.children[tree.child_start[check_raise]]] == FOLD_END
    for node, action, _ in cases.values():
        solver.regret[_cells(solver, node, action)] = -1000.0  # far below the threshold (-300)
    solver.regret[_cells(solver, root, 0)] = 1000.0  # checking is what the root plays meanwhile
    solver.run(3000)
    for name, (node, action, exempt) in cases.items():
        regrets = solver.regret[_cells(solver, node, action)]
        if exempt:
            assert (regrets >= -310.0).sum() >= 3, name  # explored, updated and floored
        else:
            assert np.all(regrets == -1000.0), name  # never explored, never updated
    assert solver.regret[solver.regret != -1000.0].min() >= -310.0


def test_bucketed_training_and_best_response_through_the_buckets():
    space = LEDUC.space
    # Suits do not matter in Leduc: bucket by the ranks of the hole card and the board.
    hole_rank = space.hands[:, 0] // 4 - space.hands[:, 0].min() // 4
    board_rank = space.boards[1][:, 0] // 4 - space.boards[1][:, 0].min() // 4
    first = hole_rank[None, :]
    second = np.where(space.compat[1] == 1, board_rank[:, None] * 3 + hole_rank[None, :], 0)
    abstraction = table_abstraction("leduc-ranks", [first, second])
    assert abstraction.n_buckets == (3, 9)
    bucketed, plain = _solver(LEDUC, abstraction=abstraction), _solver(LEDUC)
    bucketed.run(50_000)
    plain.run(50_000)
    tabular = expand_buckets(LEDUC, [first, second], bucketed.layout, bucketed.strategy())
    # Lossless and with fewer infosets to learn, the abstraction must do at least as well.
    assert exploitability(LEDUC, tabular).nash_conv < exploitability(LEDUC, plain.strategy()).nash_conv


def test_average_rounds_change_no_regret():
    """Adding to the average draws no random number, so runs that average different rounds
    have the same regrets and the same average where both keep one (the premise of
    docs/results/2026-11-30-turn-rows.md's test on the shipped run)."""
    one = _solver(LEDUC, pluribus_schedule(2000, average_rounds=1))
    both = _solver(LEDUC, pluribus_schedule(2000, average_rounds=2))
    one.run(2000)
    both.run(2000)
    assert np.array_equal(one.regret, both.regret)
    first = slice(*one.layout.block[0, 0])
    assert one.avg[first].any() and np.array_equal(one.avg[first], both.avg[first])
    later = slice(*one.layout.block[0, 1])
    assert not one.avg[later].any() and both.avg[later].any()


def test_average_rounds_keep_later_rounds_on_the_current_strategy():
    solver = _solver(LEDUC, MCCFRConfig(average_rounds=1))
    solver.run(1000)
    strategy = solver.strategy()
    tree, lay = LEDUC.tree, solver.layout
    assert not solver.avg[lay.block[0, 1, 0] : lay.block[0, 1, 1]].any()  # round 2 never averaged
    node = next(n for n in np.flatnonzero(tree.kind == DECISION) if tree.round[n] == 1)
    n_a = int(tree.child_count[node])
    rows = solver.regret[lay.offset[node] : lay.offset[node] + lay.rows[1] * n_a].reshape(-1, n_a).clip(0)
    live = rows.sum(axis=1) > 0
    expected = rows[live] / rows[live].sum(axis=1, keepdims=True)
    got = strategy[lay.offset[node] : lay.offset[node] + lay.rows[1] * n_a].reshape(-1, n_a)[live]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@pytest.mark.parametrize("game", [LEDUC, tabular_game(TINY_HOLDEM)], ids=["leduc", "two-card-hands"])
def test_sampled_deals_index_the_same_hands_and_boards_as_the_card_space(game):
    g, space = game.game, game.space
    cards = np.array(deck(g))
    rng = np.array([3], np.uint64)
    width = g.num_players * g.num_hole_cards + g.total_board_cards
    positions = sample_deals(rng, len(cards), width, 200)
    assert all(len(set(row)) == width for row in positions.tolist())
    solver = _solver(game)
    hands, boards = deal_indices(positions, g.num_players, g.num_hole_cards, solver._board_sizes, solver._extensions)
    k = g.num_hole_cards
    for row, h, b in zip(cards[positions], hands, boards):
        for p in range(g.num_players):
            assert sorted(space.hands[h[p]]) == sorted(row[p * k : (p + 1) * k])
        for r in range(g.num_rounds):
            assert sorted(space.boards[r][b[r]]) == sorted(row[g.num_players * k : g.num_players * k + g.board_cards_through(r)])


def table_abstraction(name: str, tables: Sequence[np.ndarray]) -> CardAbstraction:
    """Buckets looked up in per-round (boards, hands) tables (see ``expand_buckets``)."""
    tables = [np.asarray(t, np.int64) for t in tables]

    def buckets(deals: SampledDeals) -> np.ndarray:
        return np.stack([t[deals.boards[:, r, None], deals.hands] for r, t in enumerate(tables)], axis=-1)

    return CardAbstraction(name, tuple(int(t.max()) + 1 for t in tables), buckets)
