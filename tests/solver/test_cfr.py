"""Full-width CFR: golden values, every preset converging, and agreement with a plain-Python CFR."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from solver.bestresponse import exploitability
from solver.cfr.fullwidth import CFR_PLUS, PRESETS, CFRSolver
from solver.tree import DECISION
from tests.solver.games import KUHN, LEDUC
from tests.solver.reference_cfr import ReferenceCFR


def test_kuhn_cfr_plus_reaches_the_game_value_and_low_exploitability():
    solver = CFRSolver(KUHN, CFR_PLUS)
    solver.run(200)
    result = exploitability(KUHN, solver.average_strategy())
    # OpenSpiel's golden bound is on exploitability = NashConv / 2 (TabularBestResponseMDP).
    assert result.exploitability <= 1e-3
    assert result.values[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert result.values[1] == pytest.approx(1 / 18, abs=1e-3)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_converges_on_leduc(name):
    solver = CFRSolver(LEDUC, PRESETS[name])
    curve = []
    for iterations in (250, 250, 500, 1000):
        solver.run(iterations)
        curve.append(exploitability(LEDUC, solver.average_strategy()).nash_conv)
    # Uniform play concedes 4.75 chips; every variant must get far below and keep falling
    # (vanilla CFR, the slowest, is at 0.015 after 2000 iterations).
    assert all(later < earlier for earlier, later in pairwise(curve)), curve
    assert curve[-1] < 0.02 and curve[-1] < curve[0] / 4, curve


def _kernel_row(game, key):
    """(node, row) of the tabular layout holding the reference infoset ``key``."""
    player, hole, board, betting = key
    tree, space = game.tree, game.space
    node = next(
        n for n in np.flatnonzero(tree.kind == DECISION)
        if tree.player[n] == player and tree.states[n].actions == betting
    )
    r = tree.round[node]
    b = next(i for i, row in enumerate(space.boards[r].tolist()) if tuple(row) == board)
    return node, b * space.n_hands + space.hand_index(hole)


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("game, iterations", [(KUHN, 40), (LEDUC, 8)], ids=["kuhn", "leduc"])
def test_kernels_agree_with_plain_python_cfr(game, iterations, name):
    """Lock-step: every iteration starts both from the kernel's state and must end equal.

    (Run freely, the two drift apart after a few iterations: where two actions tie
    exactly, rounding decides which regret is a hair above zero.)
    """
    config = PRESETS[name]
    reference = ReferenceCFR(game.game, *config)
    reference.iterate()  # creates every infoset key
    possible_rows = sum(int(c.sum()) * int(game.tree.n_slots[:, r].sum()) for r, c in enumerate(game.space.compat))
    assert len(reference.regret) == possible_rows  # every infoset is compared
    where = {}
    for key, regret in reference.regret.items():
        node, row = _kernel_row(game, key)
        start = game.layout.offset[node] + row * len(regret)
        where[key] = slice(start, start + len(regret))
    solver = CFRSolver(game, config)
    reference.t = 0
    for _ in range(iterations):
        for key, cells in where.items():
            reference.regret[key] = solver.regret[cells].tolist()
            reference.avg[key] = solver.avg[cells].tolist()
        reference.iterate()
        solver.run(1)
        for key, cells in where.items():
            np.testing.assert_allclose(solver.regret[cells], reference.regret[key], rtol=0, atol=1e-9)
            np.testing.assert_allclose(solver.avg[cells], reference.avg[key], rtol=0, atol=1e-9)
