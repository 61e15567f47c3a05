"""Safe subgame solving: gadget margins, gifts by hand, the in-tree re-solve."""

from __future__ import annotations

import numpy as np
import pytest

from protocol.cards import parse_cards
from protocol.gamedef import load_game
from protocol.rules import CALL, ActionType, initial_state, with_cards
from solver.bestresponse import tabulate_policy
from solver.bets import parse_abstraction
from solver.cfr.fullwidth import CFR_PLUS, CFRSolver
from solver.experiments import experiment_game
from solver.experiments.subgames import combined_strategy, subgame_roots
from solver.ranges import tabular_game
from solver.subgame.blueprint_values import BlueprintValues, subgames_below
from solver.subgame.gadgets import (
    GADGETS,
    UNSAFE_WEIGHT,
    GadgetError,
    GadgetHook,
    gadget_reach,
    gadget_update,
    hand_weights,
    make_gadget,
)
from solver.subgame.range_solver import SubgameSolver, build_subgame
from solver.subgame.safe import build_gadget, finite_min, margin_summary, margins


@pytest.fixture(scope="module")
def leduc() -> BlueprintValues:
    """No-limit Leduc with a deliberately poor blueprint (5 CFR+ iterations)."""
    tg = tabular_game(load_game("leduc.nolimit.2p"), parse_abstraction("1;allin"))
    solver = CFRSolver(tg, CFR_PLUS)
    solver.run(5)
    return BlueprintValues(tg, solver.average_strategy())


@pytest.mark.parametrize("method", ["resolve", "maxmargin"])
def test_resolve_and_maxmargin_keep_every_margin_nonnegative(leduc: BlueprintValues, method: str) -> None:
    roots = subgame_roots(leduc.game, 1)
    strategy, smallest, smallest_all, excess, solved = combined_strategy(leduc, roots, 1, method, 400)
    assert solved == 2 * len(roots) * leduc.game.space.n_boards[1]
    # Theory: every margin >= 0 at convergence; 400 iterations leave a sliver.
    assert smallest >= -0.02 and smallest_all >= -0.02
    # So the opponent's CBVs barely rise above the blueprint's anywhere.
    assert 0 <= excess < 1e-3
    # The re-solved strategy really differs from the blueprint somewhere.
    assert np.abs(strategy - leduc.strategy).max() > 0.01


def test_margins_of_the_blueprint_itself_are_zero(leduc: BlueprintValues) -> None:
    root = subgame_roots(leduc.game, 1)[0]
    gadget = build_gadget(leduc, root, 0, 0, "maxmargin")
    from solver.subgame.safe import SubgameSolution

    m = margins(leduc, SubgameSolution(root, 0, 0, gadget), leduc.strategy)
    assert np.nanmax(np.abs(m)) < 1e-9
    assert np.isnan(m[gadget.weight == 0]).all()


def test_estimated_maxmargin_uses_the_blueprint_value(leduc: BlueprintValues) -> None:
    root = subgame_roots(leduc.game, 1)[1]
    est = build_gadget(leduc, root, 2, 1, "estimated-maxmargin")
    cbv = build_gadget(leduc, root, 2, 1, "maxmargin")
    held = est.weight > 0
    # A best response is never worth less than the blueprint's own play.
    assert (cbv.alternatives[held] >= est.alternatives[held] - 1e-12).all()
    assert np.allclose(est.alternatives, leduc.values(root, 2, 0, best=False))


def test_margin_summary_leaves_out_negligible_hands_and_sums_the_excess(leduc: BlueprintValues) -> None:
    root = subgame_roots(leduc.game, 1)[0]
    gadget = build_gadget(leduc, root, 0, 0, "maxmargin")
    held = np.flatnonzero(gadget.weight > 0)
    # Give one held hand a negligible weight and an alternative 1e-9 below its CBV:
    # a margin of -1e-9 / (1e-7 * max weight) chips, left out of the first minimum.
    weight = gadget.weight.copy()
    weight[held[0]] = 1e-7 * weight.max()
    alternatives = gadget.alternatives.copy()
    alternatives[held[0]] -= 1e-9
    alternatives[held[1]] -= 2e-9
    tweaked = make_gadget("maxmargin", alternatives, weight, gadget.blueprint_reach)
    from solver.subgame.safe import SubgameSolution

    smallest, smallest_all, excess = margin_summary(leduc, SubgameSolution(root, 0, 0, tweaked), leduc.strategy)
    assert smallest == pytest.approx(-2e-9 / weight[held[1]])
    assert smallest_all == pytest.approx(-1e-9 / weight[held[0]])
    # The blueprint's own CBVs never exceed themselves.
    assert excess == 0.0


def test_unknown_gadget_is_refused() -> None:
    with pytest.raises(GadgetError, match="unknown gadget 'safe'"):
        make_gadget("safe", np.zeros(2), np.zeros(2), np.zeros(2))


def _kuhn_node(tg, betting: str) -> int:
    return next(n for n, s in enumerate(tg.tree.states) if s.betting == betting and not s.finished)


def test_gifts_match_a_hand_computation_in_kuhn() -> None:
    """Player 2's blueprint folds to every bet and bets after every check.

    Player 1 (the opponent of the re-solver, player 2) checks into the subgame at
    "c".  Counterfactual best-response values of player 1 at its first decision, per
    card (each of the 2 opposing cards has probability 1/6 with the card):
    J: bet 2/6 (player 2 folds), check -2/6 (folds to the bet)  -> gift 4/6
    Q: bet 2/6, check 0 (calls the bet: +2 vs J, -2 vs K)       -> gift 2/6
    K: bet 2/6, check 4/6                                       -> gift 0
    """
    tg = tabular_game(load_game("kuhn.limit.2p"))

    def policy(state, actions):
        if state.current_player == 0:
            return [1 / len(actions)] * len(actions)
        facing_bet = ActionType.FOLD in [a.kind for a in actions]
        want = ActionType.FOLD if facing_bet else ActionType.RAISE
        return [1.0 if a.kind == want else 0.0 for a in actions]

    bv = BlueprintValues(tg, tabulate_policy(tg, policy))
    node = _kuhn_node(tg, "c")
    ranks = [int(h[0]) // 4 for h in tg.space.hands]  # the deck's three ranks, low to high
    expected = dict(zip(sorted(ranks), (4 / 6, 2 / 6, 0.0)))
    gifts = bv.gifts(node, 0, 0, form="exact")
    assert np.allclose(gifts, [expected[r] for r in ranks])
    # Lower-bound form: no action at the root ends the hand, so no gift is certain.
    assert np.allclose(bv.gifts(node, 0, 0, form="lower-bound"), 0.0)
    # Split: "c" leads to one subgame ("c" itself), so splitting changes nothing...
    split = subgames_below(bv, [node], 0)
    assert np.allclose(bv.gifts(node, 0, 0, form="exact", split=split), gifts)
    # ...but over both of player 2's decision points after the check and the bet,
    # the check's gift is shared by one subgame and halved when counted twice.
    split2 = subgames_below(bv, [node, _kuhn_node(tg, "cr")], 0)
    assert np.allclose(bv.gifts(node, 0, 0, form="exact", split=split2), gifts / 2)
    # Reach-Maxmargin raises the alternative by exactly the gifts.
    reach = build_gadget(bv, node, 0, 1, "reach-maxmargin", gift_form="exact", split=None)
    plain = build_gadget(bv, node, 0, 1, "maxmargin")
    assert np.allclose(reach.alternatives - plain.alternatives, gifts)


def test_estimated_and_unsafe_margins_are_reported(leduc: BlueprintValues) -> None:
    roots = subgame_roots(leduc.game, 1)
    estimated = combined_strategy(leduc, roots[:1], 1, "estimated-maxmargin", 50)
    assert np.isfinite(estimated.min_margin) and estimated.min_margin_all <= estimated.min_margin
    unsafe = combined_strategy(leduc, roots[:1], 1, "unsafe", 50)
    assert np.isnan(unsafe.min_margin) and unsafe.solved > 0
    assert finite_min(np.array([np.nan, 2.0, -1.0])) == -1.0


@pytest.mark.parametrize("method", ["resolve", "maxmargin"])
def test_gadget_hook_on_the_subgame_solver_keeps_margins_nonnegative(method: str) -> None:
    """The last round of the quick experiment game: the 'blueprint' is uniform play, so the
    alternatives are the opponent's best-response values against uniform."""
    state = initial_state(experiment_game("quick2")).apply(CALL).apply(CALL)
    sg = build_subgame(with_cards(state, ((), ()), parse_cards("AsKh")), parse_abstraction("1;allin"))
    rng = np.random.default_rng(5)
    ranges = rng.random((2, sg.n_hands))
    opponent = 0
    uniform = SubgameSolver(sg, ranges)
    alternatives = uniform.best_response_values(0, opponent)
    weight = hand_weights(sg.hands, ranges[1 - opponent])
    gadget = make_gadget(method, alternatives, weight, ranges[opponent])
    solver = SubgameSolver(sg, ranges)
    hook = GadgetHook(gadget, opponent)
    solver.solve(0.0, max_iterations=600, check_every=600, hook=hook)
    m = gadget.margins(solver.best_response_values(0, opponent))
    assert np.nanmin(m) >= -0.02
    # The unsafe gadget is the plain solve: the hook hands back the range itself.
    unsafe = GadgetHook(make_gadget("unsafe", alternatives, weight, ranges[opponent]), opponent)
    assert np.allclose(unsafe.root_reach(1, opponent, ranges[opponent]), ranges[opponent])
    assert unsafe.root_reach(1, 1 - opponent, ranges[1 - opponent]) is None


def test_maxmargin_unsafe_reach_is_maxmargins_plus_the_scaled_range() -> None:
    weight = np.array([0.5, 0.0, 0.25, 0.25])
    blueprint = np.array([1.0, 1.0, 0.0, 0.5])
    regrets = np.array([[3.0, 0.0], [5.0, 0.0], [-1.0, 0.0], [1.0, 0.0]])
    plain, mixed = np.empty(4), np.empty(4)
    gadget_reach(GADGETS["maxmargin"][0], regrets, weight, blueprint, plain, UNSAFE_WEIGHT)
    gadget_reach(GADGETS["maxmargin-unsafe"][0], regrets, weight, blueprint, mixed, UNSAFE_WEIGHT)
    # Maxmargin: regret matching over held hands (3 : 0 : 1), divided by the weight.
    assert np.allclose(plain, [0.75 / 0.5, 0.0, 0.0, 0.25 / 0.25])
    # Plus the blueprint range scaled to total weight UNSAFE_WEIGHT (mass 0.5 + 0.125).
    assert np.allclose(mixed - plain, UNSAFE_WEIGHT * np.array([1.0, 0.0, 0.0, 0.5]) / 0.625)
    # The margin part learns exactly as Maxmargin does, whatever the extra reach.
    alternatives, values = np.array([1.0, 0.0, 2.0, -1.0]), np.array([0.5, 0.0, 1.0, 0.2])
    r_plain, r_mixed = regrets.copy(), regrets.copy()
    gadget_update(GADGETS["maxmargin"][0], r_plain, alternatives, weight, plain, values, 1.0, 1.0)
    gadget_update(GADGETS["maxmargin-unsafe"][0], r_mixed, alternatives, weight, mixed, values, 1.0, 1.0)
    assert np.allclose(r_plain, r_mixed) and not np.allclose(r_plain, regrets)


def _range_value(bv: BlueprintValues, roots: list[int], strategy: np.ndarray) -> float:
    """The unsafe objective summed over every re-solve: the opponent's mean best-response
    value (chips) over its blueprint range at the subgame's root."""
    total = 0.0
    for root in roots:
        for board in range(bv.game.space.n_boards[1]):
            for player in (0, 1):
                reach, weight = bv.reach(root, board, 1 - player), bv.weight(root, board, 1 - player)
                if (reach * weight).sum() > 0 and bv.reach(root, board, player).any():
                    cbv = bv.values(root, board, 1 - player, best=True, strategy=strategy)
                    total += (reach * cbv).sum() / (reach * weight).sum()
    return total


def test_maxmargin_unsafe_keeps_the_margins_and_lowers_the_range_value(leduc: BlueprintValues) -> None:
    roots = subgame_roots(leduc.game, 1)
    plain = combined_strategy(leduc, roots, 1, "maxmargin", 400)
    mixed = combined_strategy(leduc, roots, 1, "maxmargin-unsafe", 400)
    # Safe as Maxmargin: no margin below zero, no opponent CBV above the blueprint's.
    assert mixed.min_margin_all >= -0.02 and 0 <= mixed.excess < 1e-3
    # And the objective Maxmargin ignores once its minimum margin is reached is lower
    # (6,325 vs 5,456 chips summed over the 72 re-solves when written).
    assert _range_value(leduc, roots, mixed.strategy) < 0.95 * _range_value(leduc, roots, plain.strategy)


@pytest.mark.parametrize("cards", [1, 2])
def test_hand_weights_sum_the_reach_of_the_hands_sharing_no_card(cards):
    from itertools import combinations

    hands = np.array(list(combinations(range(9), cards)))
    reach = np.random.default_rng(cards).random(len(hands))
    direct = [sum(r for other, r in zip(hands, reach) if not set(h) & set(other)) for h in hands]
    assert np.allclose(hand_weights(hands, reach), direct)
