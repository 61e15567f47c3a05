"""Best response and exploitability: golden values, two methods agreeing, every strategy form."""

from __future__ import annotations

import numpy as np
import pytest

from protocol.rules import ActionType
from solver.bestresponse import (
    check_strategy,
    deal_exploitability,
    expand_buckets,
    exploitability,
    tabulate_policy,
)
from solver.cfr.fullwidth import DCFR, CFRSolver
from solver.ranges import tabular_game
from solver.tree import DECISION, layout
from tests.solver.games import KUHN, KUHN3, LEDUC, TINY_HOLDEM


@pytest.mark.parametrize("game, nash_conv", [(KUHN, 11 / 12), (LEDUC, 4.7472222222222)], ids=["kuhn", "leduc"])
def test_uniform_policy_nash_conv_matches_openspiel(game, nash_conv):
    for method in (exploitability, deal_exploitability):
        result = method(game, game.uniform_strategy())
        assert result.nash_conv == pytest.approx(nash_conv, abs=1e-9)
        assert sum(result.values) == pytest.approx(0.0, abs=1e-12)


def _random_strategy(game, seed, lay=None):
    """A strategy in ``lay`` (default: tabular) with every row drawn at random."""
    rng = np.random.default_rng(seed)
    lay = lay or game.layout
    out = np.zeros(lay.size)
    for node in np.flatnonzero(game.tree.kind == DECISION):
        n_a = int(game.tree.child_count[node])
        rows = lay.rows[game.tree.round[node]]
        out[lay.offset[node] : lay.offset[node] + rows * n_a] = rng.dirichlet(np.ones(n_a), size=rows).ravel()
    return out


@pytest.mark.parametrize("game", [LEDUC, tabular_game(TINY_HOLDEM)], ids=["leduc", "two-card-hands"])
def test_range_kernel_and_deal_enumeration_agree(game):
    strategy = _random_strategy(game, 3)
    fast, slow = exploitability(game, strategy), deal_exploitability(game, strategy)
    np.testing.assert_allclose(fast.values, slow.values, atol=1e-12)
    np.testing.assert_allclose(fast.best_responses, slow.best_responses, atol=1e-12)
    assert fast.nash_conv > 0.1


def test_solved_leduc_is_nearly_unexploitable_and_units_are_consistent():
    solver = CFRSolver(LEDUC, DCFR)
    solver.run(1000)
    result = exploitability(LEDUC, solver.average_strategy())
    assert result.nash_conv < 1e-3
    assert min(result.gains) >= -1e-12
    assert result.exploitability == pytest.approx(result.nash_conv / 2)
    assert result.exploitability_mbb == pytest.approx(1000 * result.nash_conv / 2)  # Leduc's big blind is 1 chip
    assert result.values[0] == pytest.approx(-0.0856, abs=1e-3)  # the known value of Leduc for player 1


def test_three_player_kuhn_nash_conv_is_exact_for_uniform_and_positive_gains():
    result = exploitability(KUHN3, KUHN3.uniform_strategy())
    assert sum(result.values) == pytest.approx(0.0, abs=1e-12)
    assert all(g > 0 for g in result.gains)
    # Player 1's value with everyone uniform, by hand: antes 1, bets 1, 4 cards.
    assert result.values == pytest.approx((0.234375, -0.046875, -0.1875))


def test_callable_policies_are_tabulated_with_what_the_player_sees():
    def top_card_raises(state, actions):
        me = state.current_player
        assert all(h == () for p, h in enumerate(state.hole_cards) if p != me)  # no peeking
        strong = max(state.hole_cards[me]) >= 48  # an ace
        kinds = [a.kind for a in actions]
        want = ActionType.RAISE if strong and ActionType.RAISE in kinds else ActionType.CALL
        return [1.0 if k == want else 0.0 for k in kinds]

    tabular = tabulate_policy(LEDUC, top_card_raises)
    result = exploitability(LEDUC, tabular)
    assert result.nash_conv > 0.5
    with pytest.raises(ValueError, match="returned 1 probabilities for 2 actions"):
        tabulate_policy(KUHN, lambda state, actions: [1.0])


def test_bucketed_strategies_expand_to_tabular_rows():
    tree, space = LEDUC.tree, LEDUC.space
    identity = [np.arange(space.rows(r)).reshape(space.n_boards[r], space.n_hands) for r in range(2)]
    strategy = _random_strategy(LEDUC, 5)
    np.testing.assert_array_equal(expand_buckets(LEDUC, identity, LEDUC.layout, strategy), strategy)
    # Round 2 by pair / no pair only: every paired hand must play alike.
    paired = (space.final_rank >> 20) - 1
    coarse = [identity[0], np.where(space.compat[1] == 1, paired, 0)]
    coarse_layout = layout(tree, (space.rows(0), 2))
    bucketed = _random_strategy(LEDUC, 6, coarse_layout)
    expanded = check_strategy(LEDUC, expand_buckets(LEDUC, coarse, coarse_layout, bucketed))
    for node in np.flatnonzero((tree.kind == DECISION) & (tree.round == 1)):
        n_a = int(tree.child_count[node])
        rows = expanded[LEDUC.layout.offset[node] : LEDUC.layout.offset[node] + space.rows(1) * n_a].reshape(-1, n_a)
        for bucket in (0, 1):
            chosen = rows[(coarse[1].ravel() == bucket) & (space.compat[1].ravel() == 1)]
            np.testing.assert_array_equal(chosen, np.broadcast_to(chosen[0], chosen.shape))
    with pytest.raises(ValueError, match=r"buckets outside 0\.\.1"):
        expand_buckets(LEDUC, [identity[0], coarse[1] + 1], coarse_layout, bucketed)


def test_bad_strategies_are_refused_with_the_node():
    with pytest.raises(ValueError, match=r"needs \(24,\)"):
        exploitability(KUHN, np.zeros(5))
    broken = KUHN.uniform_strategy()
    broken[0] = 0.9
    with pytest.raises(ValueError, match="at node 0 is not a probability distribution"):
        exploitability(KUHN, broken)
