"""Depth-limited range subgames (solver/subgame/depth_limited_range.py): the cut tree,
exact leaf values against the full-depth tree, and solving in the model."""

from __future__ import annotations

import numpy as np
import pytest

from protocol.rules import initial_state
from solver.bets import parse_abstraction
from solver.ranges import normalized
from solver.subgame.depth_limited import biased_strategy
from solver.subgame.depth_limited_range import DepthLimitedSolver, TreeLeafValues, decision_rows
from solver.subgame.range_solver import SubgameError, SubgameSolver, build_subgame
from solver.tree import CHANCE, DECISION
from tests.solver.test_subgame import TINY_NL

ABSTRACTION = parse_abstraction("1;allin;cap=2")


@pytest.fixture(scope="module")
def trees():
    """The tiny game's root subgame cut after round 1 and in full, random ranges, and a
    continuation profile: 40 DCFR iterations of the full subgame."""
    root = initial_state(TINY_NL)
    cut, full = build_subgame(root, ABSTRACTION, depth_limited=True), build_subgame(root, ABSTRACTION)
    ranges = np.random.default_rng(4).uniform(0.2, 1.0, (2, cut.n_hands))
    solver = SubgameSolver(full, ranges, dtype=np.float64)
    solver.iterate(40)
    return cut, full, ranges, solver.average_strategy()


def test_the_cut_tree_ends_with_the_root_round(trees):
    cut, full, _, _ = trees
    leaves = cut.leaves
    assert len(leaves) and (cut.tree.kind[leaves] == CHANCE).all() and (cut.tree.child_count[leaves] == 0).all()
    assert set(cut.tree.round[cut.tree.kind == DECISION].tolist()) == {0}
    assert cut.tree.n_nodes < full.tree.n_nodes and not len(full.leaves)
    with pytest.raises(SubgameError, match="depth-limited"):
        SubgameSolver(cut, np.ones((2, cut.n_hands)))
    with pytest.raises(SubgameError, match="no leaves"):
        DepthLimitedSolver(full, np.ones((2, full.n_hands)), TreeLeafValues(cut, full, [np.ones(1)]), 1)


def test_leaf_values_from_the_full_tree_give_its_values_exactly(trees):
    """Round 1 played by any strategy and the rest by the continuation: the depth-limited
    model's root values are the full tree's for the combined strategy."""
    cut, full, ranges, profile = trees
    round_one = normalized(cut.tabular.layout, cut.tree, np.random.default_rng(1).uniform(0, 1, cut.tabular.layout.size))
    dl = DepthLimitedSolver(cut, ranges, TreeLeafValues(cut, full, [profile]), chooser=1)
    reference = SubgameSolver(full, ranges, dtype=np.float64)
    reference.avg[:] = decision_rows(cut, round_one, full, profile)
    for player in range(2):
        np.testing.assert_allclose(dl.root_values(player, round_one), reference.values_at(0, player), rtol=1e-10, atol=1e-12)


def test_solving_lowers_exploitability_in_the_model_and_more_continuations_help_the_chooser(trees):
    cut, full, ranges, profile = trees
    raised = biased_strategy(full.tabular, profile, 1, "raise")
    one = DepthLimitedSolver(cut, ranges, TreeLeafValues(cut, full, [profile]), chooser=1)
    two = DepthLimitedSolver(cut, ranges, TreeLeafValues(cut, full, [profile, raised]), chooser=1)
    start = one.exploitability()
    for dl in (one, two):
        dl.iterate(300)
    assert one.exploitability() < 0.05 * start and two.exploitability() < 0.05 * start
    # Against the same round strategy the chooser does at least as well with more continuations.
    strategy = one.average_strategy()
    assert (two.root_values(1, strategy, best=True) >= one.root_values(1, strategy, best=True) - 1e-9).all()
    assert (two.root_values(1, strategy, best=True) > one.root_values(1, strategy, best=True) + 1e-6).any()
    # The chooser's average continuation choices are distributions over the two, and it uses both.
    choices = np.array([two.leaf_strategy(leaf) for leaf in range(len(cut.leaves))])
    np.testing.assert_allclose(choices.sum(axis=2), 1.0)
    assert (choices[..., 1] > 0.01).any() and (choices[..., 0] > 0.01).any()


class RecordingHook:
    """A root hook that changes nothing and keeps what it saw."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int, tuple[int, ...]]] = []

    def root_reach(self, iteration, player, reach):
        self.calls.append(("reach", iteration, player, reach.shape))
        return None

    def entered(self, iteration, player, values):
        self.calls.append(("entered", iteration, player, values.shape))


def test_the_root_hook_is_called_as_the_full_solver_calls_it(trees):
    cut, full, ranges, profile = trees
    hook = RecordingHook()
    dl = DepthLimitedSolver(cut, ranges, TreeLeafValues(cut, full, [profile]), chooser=0)
    plain = DepthLimitedSolver(cut, ranges, TreeLeafValues(cut, full, [profile]), chooser=0)
    dl.iterate(2, hook)
    plain.iterate(2)
    expected = [(kind, t, p, (cut.n_hands,)) for t in (1, 2) for kind in ("reach", "entered") for p in (0, 1)]
    assert hook.calls == expected
    np.testing.assert_array_equal(dl.avg, plain.avg)  # a hook returning None changes nothing
