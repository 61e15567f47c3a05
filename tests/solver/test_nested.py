"""Nested subgame solving: a hand with two off-tree bets of the opponent."""

from __future__ import annotations

import numpy as np
import pytest

from protocol.gamedef import load_game
from solver.bestresponse import check_strategy
from solver.bets import parse_abstraction
from solver.experiments.blueprint import bucketed_cfr
from solver.experiments.nested import in_abstraction, nested_gadget, seat_game
from solver.experiments.seats import carry_blueprint, edge_labels, translation
from solver.ranges import BEST_RESPONSE, WHOLE, normalized, tabular_game, walk
from solver.subgame.blueprint_values import BlueprintValues
from solver.subgame.safe import finite_min, margins, solve_subgame, subgame_rows
from solver.tree import DECISION

BLUEPRINT = parse_abstraction("1;allin")
REAL = parse_abstraction("0.5,1,2;allin")
RESOLVER, OPPONENT = 1, 0


@pytest.fixture(scope="module")
def setup():
    game = load_game("leduc.nolimit.2p")
    blueprint = tabular_game(game, BLUEPRINT)
    sigma = bucketed_cfr(blueprint, [None, None], 200)
    real = seat_game(game, BLUEPRINT, REAL, RESOLVER)
    return real, BlueprintValues(real, carry_blueprint(real, blueprint, sigma, RESOLVER))


def _off_edge(real, node: int, size: int) -> int:
    """The edge raising to ``size`` at ``node``, checked to be off-tree."""
    labels = edge_labels(real.tree, node, BLUEPRINT)
    sizes = [a.size for a in real.tree.actions(node)]
    i = sizes.index(size)
    assert labels[i] == f"off:{size}"
    return int(real.tree.child_start[node] + i)


def _solve(bv: BlueprintValues, node: int, edge: int, board: int) -> tuple[np.ndarray, float]:
    gadget = nested_gadget(bv, node, edge, board, RESOLVER, "maxmargin", BLUEPRINT)
    regret, avg = np.zeros(bv.game.layout.size), np.zeros(bv.game.layout.size)
    child = int(bv.game.tree.children[edge])
    solution = solve_subgame(bv, child, board, RESOLVER, gadget, regret, avg, iterations=400)
    assert solution is not None
    strategy = bv.strategy.copy()
    rows = subgame_rows(bv, child, board, RESOLVER)
    strategy[rows] = normalized(bv.game.layout, bv.game.tree, avg)[rows]
    return strategy, finite_min(margins(bv, solution, strategy))


def _independent_cbv(bv: BlueprintValues, node: int, board: int, strategy: np.ndarray) -> np.ndarray:
    """The opponent's best-response value of each edge at ``node``, from the kernel with
    the re-solver's reach multiplied out along the path here."""
    tg = bv.game
    tree, n_h = tg.tree, tg.space.n_hands
    reach = tg.space.compat[tree.round[node]][board].astype(float)
    for ancestor, edge in bv.path(node):
        if tree.kind[ancestor] == DECISION and tree.player[ancestor] == RESOLVER:
            n_a = int(tree.child_count[ancestor])
            b = board if tree.round[ancestor] == tree.round[node] else 0  # Leduc: one board before the flop
            rows = tg.layout.offset[ancestor] + (b * n_h + np.arange(n_h)) * n_a
            reach = reach * strategy[rows + edge - tree.child_start[ancestor]]
    # Leduc's flop card comes from the 4 cards the two hands leave.
    deal = 1.0 / (len(tg.space.deck) - 2) if tree.round[node] else 1.0
    arrays, cards = bv.arrays
    unused = np.zeros(0)
    start = tree.child_start[node]
    return np.array([
        walk(np.int64(tree.children[e]), np.int64(board), np.int64(OPPONENT), np.ones(n_h), reach * deal,
             np.int64(BEST_RESPONSE), arrays, cards, unused, unused, strategy, unused, 1.0, 1.0, 1.0,
             np.int64(WHOLE), np.zeros((0, 2, n_h)), np.zeros((0, n_h)))
        for e in range(start, start + tree.child_count[node])
    ])


def test_two_off_tree_bets_in_one_hand(setup) -> None:
    real, bv0 = setup
    tree = real.tree
    root = 0
    assert tree.player[root] == OPPONENT
    # First off-tree bet: half the pot before the flop (the blueprint only bets the pot).
    first = _off_edge(real, root, 200)  # 100 each in the pot: half the pot raises to 200
    gadget = nested_gadget(bv0, root, first, 0, RESOLVER, "maxmargin", BLUEPRINT)
    inside = in_abstraction(real, root, BLUEPRINT)
    expected = _independent_cbv(bv0, root, 0, bv0.strategy)[np.array(inside) - tree.child_start[root]].max(axis=0)
    assert np.allclose(gadget.alternatives, expected)
    s1, m1 = _solve(bv0, root, first, 0)
    check_strategy(real, s1)
    assert m1 >= -0.05
    # The re-solver calls; on the flop the opponent bets twice the pot (off-tree again).
    after = int(tree.children[first])
    call = int(tree.children[tree.child_start[after] + edge_labels(tree, after, BLUEPRINT).index("c")])
    flop = int(tree.children[tree.child_start[call]])
    assert tree.kind[flop] == DECISION and tree.player[flop] == OPPONENT and tree.round[flop] == 1
    second = _off_edge(real, flop, 1000)  # 200 each: twice the pot raises to 1000
    bv1 = BlueprintValues(real, s1)
    for board in range(real.space.n_boards[1]):
        gadget = nested_gadget(bv1, flop, second, board, RESOLVER, "maxmargin", BLUEPRINT)
        cbv = _independent_cbv(bv1, flop, board, s1)
        inside = np.array(in_abstraction(real, flop, BLUEPRINT)) - tree.child_start[flop]
        held = gadget.weight > 0
        # Alternatives: the opponent's best in-abstraction action under the first solution.
        assert np.allclose(gadget.alternatives[held], cbv[inside].max(axis=0)[held])
    s2, m2 = _solve(bv1, flop, second, 0)
    check_strategy(real, s2)
    assert m2 >= -0.05
    # The second solve changed only the subgame below the second bet.
    changed = np.flatnonzero(np.abs(s2 - s1) > 1e-12)
    rows = subgame_rows(bv1, int(tree.children[second]), 0, RESOLVER)
    assert len(changed) and np.isin(changed, rows).all()
    with pytest.raises(ValueError, match="not an off-tree action"):
        nested_gadget(bv1, flop, int(tree.child_start[flop]), 0, RESOLVER, "maxmargin", BLUEPRINT)


def test_carrying_the_blueprint_onto_its_own_tree_changes_nothing() -> None:
    game = load_game("leduc.nolimit.2p")
    blueprint = tabular_game(game, BLUEPRINT)
    sigma = bucketed_cfr(blueprint, [None, None], 20)
    for player in range(2):
        same = seat_game(game, BLUEPRINT, BLUEPRINT, player)
        assert same.layout.size == blueprint.layout.size
        carried = carry_blueprint(same, blueprint, sigma, player)
        bv = BlueprintValues(blueprint, sigma)
        tree, lay, space = blueprint.tree, blueprint.layout, blueprint.space
        compared = 0
        for n in np.flatnonzero((tree.kind == DECISION) & (tree.player == player)):
            n_a = int(tree.child_count[n])
            for b in range(space.n_boards[tree.round[n]]):
                # Rows the player never plays to keep a default; the others must match.
                for h in np.flatnonzero(bv.reach(int(n), b, player) > 0):
                    start = lay.offset[n] + (b * space.n_hands + h) * n_a
                    np.testing.assert_allclose(carried[start : start + n_a], sigma[start : start + n_a], atol=1e-12)
                    compared += 1
        assert compared > 100


def test_translation_of_an_off_tree_bet_is_pseudoharmonic(setup) -> None:
    real, _ = setup
    game = load_game("leduc.nolimit.2p")
    blueprint = tabular_game(game, BLUEPRINT)
    root = 0
    half = _off_edge(real, root, 200)  # x = 0.5 between the call (0, kept: it does not end the round) and the pot (1)
    pairs = translation(real, root, half, blueprint, 0)
    probs = {edge_labels(blueprint.tree, 0, BLUEPRINT)[e - blueprint.tree.child_start[0]]: p for e, p in pairs}
    # f(0.5) with A = 0, B = 1: (1 - 0.5)(1 + 0) / ((1 - 0)(1 + 0.5)) = 1/3
    assert probs == pytest.approx({"c": 1 / 3, "1": 2 / 3})
    twice = _off_edge(real, root, 500)  # x = 2 between the pot (1) and all-in (1100 / 200 = 5.5)
    pairs = translation(real, root, twice, blueprint, 0)
    probs = {edge_labels(blueprint.tree, 0, BLUEPRINT)[e - blueprint.tree.child_start[0]]: p for e, p in pairs}
    # f(2) with A = 1, B = 5.5: (5.5 - 2)(1 + 1) / ((5.5 - 1)(1 + 2)) = 7 / 13.5
    assert probs == pytest.approx({"1": 7 / 13.5, "allin": 1 - 7 / 13.5})
