"""Subgame solving over a public state: agreement with the full-game solver and exact
best response, convergence, card removal, threads, time budget and the root hook."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from protocol.cards import parse_cards
from protocol.fasteval import HOLE_PAIRS
from protocol.gamedef import load_game, parse_gamedef
from protocol.rules import CALL, initial_state, raise_to, with_cards
from solver.bestresponse import exploitability
from solver.bets import parse_abstraction
from solver.cfr.fullwidth import DCFR, CFRConfig, CFRSolver
from solver.ranges import EVALUATE, tabular_game
from solver.spot import load_spot
from solver.subgame.range_solver import CheckSchedule, SubgameError, SubgameSolver, build_subgame
from solver.subgame.split import frontier_tasks
from solver.tree import CHANCE, DECISION

LEDUC_NL = load_game("leduc.nolimit.2p")
ABSTRACTION = parse_abstraction("0.5,1;allin;cap=2")
#: Two hole cards from an 8-card deck, no-limit: two-card card removal in subgames.
TINY_NL = parse_gamedef(
    """GAMEDEF
nolimit
numPlayers = 2
numRounds = 2
stack = 20 20
blind = 2 1
firstPlayer = 2 1
numSuits = 2
numRanks = 4
numHoleCards = 2
numBoardCards = 0 1
END GAMEDEF
""",
    source="tiny-nolimit",
)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_whole_game_as_a_subgame_matches_the_full_game_solver_and_best_response(dtype):
    full = tabular_game(LEDUC_NL, ABSTRACTION)
    sg = build_subgame(initial_state(LEDUC_NL), ABSTRACTION)
    assert sg.tabular.layout.size == full.layout.size  # same tree and hand order as the full game
    solver = SubgameSolver(sg, np.ones((2, sg.n_hands)), DCFR, dtype=dtype)
    reference = CFRSolver(full, DCFR)
    solver.iterate(3)
    reference.run(3)
    # The same iterations up to the payoffs' scale (and float32's rounding of the
    # stored sums).  Only a few: a regret that is 0 in exact arithmetic rounds to
    # ±1e-17 differently at the two scales after that (here after iteration 3: a
    # fold/call indifference at an all-in), and regret matching turns the sign into a
    # different (equally valid) trajectory.
    atol = 1e-9 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(solver.average_strategy(), reference.average_strategy(), atol=atol)
    result = solver.solve(0.0, max_iterations=300, check_every=100)
    exact = exploitability(full, result.strategy)
    # The subgame weighs every hand pair 1; the full game weighs each by its probability.
    scale = full.space.hand_probability()
    assert exact.nash_conv == pytest.approx(2 * result.exploitability_pct / 100 * sg.pot * solver.mass() * scale, rel=1e-9)
    for p in range(2):
        assert result.root_values[p].sum() * scale == pytest.approx(exact.values[p], abs=1e-9)
    assert result.exploitability_pct < 0.5


@pytest.fixture(scope="module")
def second_round():
    """No-limit Leduc after check-check, king on board, with random ranges."""
    root = initial_state(LEDUC_NL).apply(CALL).apply(CALL)
    root = with_cards(root, ((), ()), parse_cards("Ks"))
    sg = build_subgame(root, parse_abstraction("0.5,1;allin"))
    ranges = np.random.default_rng(3).uniform(0.1, 1.0, (2, sg.n_hands))
    return sg, ranges


def test_second_round_subgame_converges_and_strategies_are_distributions(second_round):
    sg, ranges = second_round
    assert sg.n_hands == 5  # the king of spades is on the board
    solver = SubgameSolver(sg, ranges)
    first = solver.solve(100.0, max_iterations=10)
    result = solver.solve(0.01, max_iterations=5000, check_every=50)
    assert result.exploitability_pct <= 0.01 < first.exploitability_pct
    tree, lay = sg.tree, sg.tabular.layout
    for node in np.flatnonzero(tree.kind == DECISION):
        n_a = int(tree.child_count[node])
        rows = result.strategy[lay.offset[node] : lay.offset[node] + lay.rows[tree.round[node]] * n_a].reshape(-1, n_a)
        np.testing.assert_allclose(rows.sum(axis=1), 1.0)
    # Zero-sum: the two players' root values add up to nothing.
    assert ranges[0] @ result.root_values[0] + ranges[1] @ result.root_values[1] == pytest.approx(0, abs=1e-9)


def test_a_final_solve_returns_the_same_strategy_in_the_regrets_memory(second_round):
    """``solve(final=True)``: the same strategy and figures as a plain solve, written where
    the regrets were (one table less at the peak); measuring still works, iterating not."""
    sg, ranges = second_round
    plain, final = SubgameSolver(sg, ranges), SubgameSolver(sg, ranges)
    kept = plain.solve(0.05, max_iterations=400, check_every=20)
    regrets = final.regret
    last = final.solve(0.05, max_iterations=400, check_every=20, final=True)
    assert last.strategy is regrets and last.strategy.dtype == np.float32 and final.finished
    assert kept.strategy.dtype == np.float64  # a plain solve's strategy: float64, as before
    np.testing.assert_array_equal(last.strategy, kept.strategy.astype(np.float32))
    np.testing.assert_array_equal(last.root_values, kept.root_values)
    assert (last.iterations, last.exploitability_pct) == (kept.iterations, kept.exploitability_pct)
    assert final.exploitability() == plain.exploitability()
    assert last.memory_bytes == kept.memory_bytes - kept.strategy.nbytes  # the float64 table not needed
    for call in (lambda: final.iterate(1), lambda: final.solve(0.05), final.current_strategy,
                 lambda: final.node_strategy(0, average=False)):  # fmt: skip
        with pytest.raises(SubgameError, match="final"):
            call()


def test_the_default_discounts_the_average_by_the_cube_and_leaves_regrets_alone(second_round):
    sg, ranges = second_round
    default, cubic, paper = (SubgameSolver(sg, ranges, *c) for c in ((), (CFRConfig(1.5, 0.0, 3.0),), (DCFR,)))
    for solver in (default, cubic, paper):
        solver.iterate(6)
    np.testing.assert_array_equal(default.avg, cubic.avg)
    # gamma weighs only the average: the iterates (regrets) are DCFR's to the bit.
    np.testing.assert_array_equal(default.regret, paper.regret)
    assert not np.array_equal(default.avg, paper.avg)


def test_card_removal_in_two_card_hands():
    sg = build_subgame(initial_state(TINY_NL), parse_abstraction("1;allin"))
    solver = SubgameSolver(sg, np.ones((2, sg.n_hands)))
    solver.solve(0.0, max_iterations=50)
    node = sg.node_after([CALL, CALL])  # the next round is dealt before this node
    board = [int(sg.space.deck[0])]
    blocked = np.array([board[0] in h for h in sg.hands.tolist()])
    reach = solver.reach_at(node, board)
    assert blocked.any() and (reach[:, blocked] == 0).all() and (reach[:, ~blocked] > 0).all()
    for player in range(2):
        assert (solver.best_response_values(node, player, board)[blocked] == 0).all()
        assert (solver.values_at(node, player, board)[blocked] == 0).all()
    with pytest.raises(SubgameError, match="pass the board"):
        solver.reach_at(node)


def test_a_chance_node_is_valued_before_its_card_as_its_decision_sees_it():
    """Values at a chance node (on the board it deals from) are the sum of its dealt
    children's values, and a decision's value is its strategy's mix of its children's,
    a chance child included: what safe re-solving's gifts compare."""
    sg = build_subgame(initial_state(TINY_NL), parse_abstraction("1;allin"))
    solver = SubgameSolver(sg, np.random.default_rng(2).uniform(0.2, 1, (2, sg.n_hands)))
    solver.solve(0.0, max_iterations=40)
    tree = sg.tree
    decision = sg.node_after([CALL])  # the big blind's option: check ends the round
    start, count = int(tree.child_start[decision]), int(tree.child_count[decision])
    children = [int(tree.children[start + a]) for a in range(count)]
    chance = next(c for c in children if tree.kind[c] == CHANCE)
    assert sg.board_round(chance) == 0 and int(tree.round[chance]) == 1
    player = int(tree.player[decision])
    for p in range(2):
        dealt = sum(solver.values_at(int(tree.children[tree.child_start[chance]]), p, [int(c)]) for c in sg.space.deck)
        np.testing.assert_allclose(solver.values_at(chance, p), dealt, rtol=1e-12, atol=1e-12)
    sigma = solver.node_strategy(decision)
    mixed = sum(sigma[:, a] * solver.values_at(c, player) for a, c in enumerate(children))
    np.testing.assert_allclose(mixed, solver.values_at(decision, player), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("dynamic", [True, False])
def test_two_threads_give_the_single_thread_result_bitwise(dtype, dynamic):
    sg = build_subgame(initial_state(TINY_NL), parse_abstraction("1;allin;cap=2"))
    ranges = np.random.default_rng(5).uniform(0, 1, (2, sg.n_hands))
    one, two = (SubgameSolver(sg, ranges, threads=t, dtype=dtype) for t in (1, 2))
    two.dynamic_split = dynamic  # the atomic counter (default) or the static split
    assert len(sg.arrays.frontier_nodes) > 1
    one.iterate(20)
    two.iterate(20)
    # Each task writes only its board's rows, and the frontier's values are summed in
    # board order as one walk sums them: the same bits whichever thread ran what.
    np.testing.assert_array_equal(two.regret, one.regret)
    np.testing.assert_array_equal(two.avg, one.avg)
    assert two.exploitability() == one.exploitability()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_kept_strategy_is_regret_matching_and_changes_no_iterate(dtype, threads, monkeypatch):
    sg = build_subgame(initial_state(TINY_NL), parse_abstraction("1;allin;cap=2"))
    ranges = np.random.default_rng(6).uniform(0, 1, (2, sg.n_hands))
    kept = SubgameSolver(sg, ranges, threads=threads, dtype=dtype)
    monkeypatch.setattr(SubgameSolver, "KEPT_BYTES", 8 * sg.tabular.layout.size - 1)  # one byte too few
    matched = SubgameSolver(sg, ranges, threads=threads, dtype=dtype)  # regret matching at every visit
    assert kept.kept.size == sg.tabular.layout.size and matched.kept.size == 0
    np.testing.assert_array_equal(kept.kept, sg.tabular.uniform_strategy())
    for _ in range(7):
        kept.iterate(1)
        matched.iterate(1)
        np.testing.assert_array_equal(kept.kept, kept.current_strategy())
    np.testing.assert_array_equal(kept.regret, matched.regret)
    np.testing.assert_array_equal(kept.avg, matched.avg)
    assert kept.memory_bytes() == matched.memory_bytes() + kept.kept.nbytes


def test_frontier_tasks_cover_every_board_once_largest_subtrees_first():
    sg = build_subgame(initial_state(TINY_NL), parse_abstraction("1;allin;cap=2"))
    first, order = frontier_tasks(sg.arrays, sg.cards)
    assert sorted(order.tolist()) == list(range(first[-1]))
    boards = np.diff(first)
    assert (boards == sg.space.n_boards[1]).all()  # every frontier node deals the one board card
    nodes_below = [len(_below(sg.tree, int(sg.tree.children[sg.tree.child_start[f]]))) for f in sg.arrays.frontier_nodes]
    ranked = [nodes_below[int(np.searchsorted(first, i, side="right")) - 1] for i in order]
    assert ranked == sorted(ranked, reverse=True)


def _below(tree, node: int) -> list[int]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(int(c) for c in tree.children[tree.child_start[n] : tree.child_start[n] + tree.child_count[n]])
    return out


def test_time_budget_stops_early_with_the_average_so_far(second_round):
    sg, ranges = second_round
    solver = SubgameSolver(sg, ranges)
    result = solver.solve(0.0, time_limit=0.0, check_every=7)
    assert result.iterations == 7
    np.testing.assert_array_equal(result.strategy, solver.average_strategy())
    assert result.exploitability_pct == pytest.approx(solver.exploitability())
    assert result.seconds >= 0 and result.memory_bytes >= 2 * solver.avg.nbytes


def _storage_case(name: str):
    """(subgame, ranges, iterations, exploitability tolerance (relative, absolute % of the
    pot), root value tolerance (relative to the largest)) for the float32 storage test."""
    if name == "leduc-second-round":
        root = with_cards(initial_state(LEDUC_NL).apply(CALL).apply(CALL), ((), ()), parse_cards("Ks"))
        sg = build_subgame(root, parse_abstraction("0.5,1;allin"))
        return sg, np.random.default_rng(3).uniform(0.1, 1.0, (2, sg.n_hands)), 1000, (0.0, 1e-4), 1e-5
    if name == "holdem-river":
        spot = load_spot(Path(__file__).resolve().parents[1] / "bench" / "spots" / "river.toml")
        sg = build_subgame(spot.root(), spot.abstraction())
        return sg, np.random.default_rng(1).random((2, sg.n_hands)) ** 3, 300, (0.0, 1e-4), 1e-4
    # Exact regret ties (all-in indifferences) round apart in float32, and the two runs
    # take different, equally valid trajectories: only the outcome is comparable.
    game, spec = (TINY_NL, "1;allin;cap=2") if name == "two-card" else (LEDUC_NL, "0.5,1;allin;cap=2")
    sg = build_subgame(initial_state(game), parse_abstraction(spec))
    return sg, np.random.default_rng(5).uniform(0, 1, (2, sg.n_hands)), 1000, (0.1, 1e-3), 1e-3


@pytest.mark.parametrize("name", ["leduc-second-round", "holdem-river", "two-card", "leduc-whole"])
def test_float32_storage_stays_within_the_documented_tolerance_of_float64(name):
    sg, ranges, iterations, (rel, absolute), value_tol = _storage_case(name)
    wide, narrow = (SubgameSolver(sg, ranges, dtype=d) for d in (np.float64, np.float32))
    wide.iterate(iterations)
    narrow.iterate(iterations)
    e64, e32 = wide.exploitability(), narrow.exploitability()
    assert abs(e32 - e64) <= rel * e64 + absolute
    v64, v32 = (np.array([s._values(p, EVALUATE, s.ranges, s.avg) for p in range(2)]) for s in (wide, narrow))
    assert np.abs(v32 - v64).max() <= value_tol * np.abs(v64).max()


def test_check_schedule_predicts_the_crossing_and_never_more_than_doubles():
    # An exact 1000 / t^1.5 curve with target 1: crossing at t = 100.
    schedule = CheckSchedule(1.0, first=10)
    assert schedule.next == 10
    assert [schedule.record(t, 1000 / t**1.5) for t in (10, 20, 40, 80, 96)] == [20, 40, 80, 96, 100]
    # A slower 100 / t curve: the predictions err early (more checks, no overshoot).
    slow, t, checks = CheckSchedule(1.0), 10, []
    while 100 / t > 1.0:
        t = slow.record(t, 100 / t)
        checks.append(t)
    assert checks[-1] == 100 and len(checks) <= 8
    # A target of 0 is never met: the checks double the iterations.
    never = CheckSchedule(0.0)
    assert [never.record(t, 1.0) for t in (10, 20, 40)] == [20, 40, 80]
    # A check costing 3 iterations is never repeated sooner than 3 iterations later.
    costly = CheckSchedule(1.0)
    costly.record(50, 1.2)
    assert costly.record(99, 1.001, check_cost=3.0) == 102


def test_scheduled_checks_change_only_where_the_solve_stops(second_round):
    sg, ranges = second_round
    scheduled = SubgameSolver(sg, ranges, dtype=np.float64)
    result = scheduled.solve(0.05)
    fixed = SubgameSolver(sg, ranges, dtype=np.float64)
    every10 = fixed.solve(0.05, check_every=10)
    assert result.exploitability_pct <= 0.05 and every10.exploitability_pct <= 0.05
    assert result.iterations <= 2 * every10.iterations
    # The iterates do not depend on when they are measured: bitwise equal at equal counts.
    again = SubgameSolver(sg, ranges, dtype=np.float64)
    again.iterate(result.iterations)
    np.testing.assert_array_equal(again.regret, scheduled.regret)
    np.testing.assert_array_equal(again.avg, scheduled.avg)
    assert again.exploitability() == result.exploitability_pct
    # A time limit is tested after every iteration, and the result is measured.
    late = SubgameSolver(sg, ranges).solve(0.0, time_limit=0.0)
    assert late.iterations == 1 and late.exploitability_pct > 0
    assert SubgameSolver(sg, ranges).solve(0.0, max_iterations=25).iterations == 25


class HalveOpponent:
    """Plays player 1 at half its range and records what the solver reports."""

    def __init__(self):
        self.calls = []

    def root_reach(self, iteration, player, reach):
        return reach * 0.5 if player == 1 else None

    def entered(self, iteration, player, values):
        self.calls.append((iteration, player, values.copy()))


def test_root_hook_replaces_the_opponent_reach(second_round):
    sg, ranges = second_round
    hook = HalveOpponent()
    hooked, plain = SubgameSolver(sg, ranges), SubgameSolver(sg, ranges)
    hooked.iterate(3, hook)
    assert [(t, p) for t, p, _ in hook.calls] == [(1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)]
    # Iteration 1 plays uniform strategies: player 0's values are linear in player 1's reach.
    plain_values = plain._values(0, 0, plain.ranges, plain.avg, (1.0, 1.0, 1.0))
    np.testing.assert_allclose(hook.calls[0][2], 0.5 * plain_values)
    # Player 1's average strategy is accumulated with its hooked reach (halved).
    p1 = SubgameSolver(sg, ranges)
    p1.iterate(1)
    hooked1 = SubgameSolver(sg, ranges)
    hooked1.iterate(1, HalveOpponent())
    first_p1 = next(n for n in np.flatnonzero(sg.tree.kind == DECISION) if sg.tree.player[n] == 1)
    start = sg.tabular.layout.offset[first_p1]
    np.testing.assert_allclose(hooked1.avg[start : start + 10], 0.5 * p1.avg[start : start + 10])

    class Bad(HalveOpponent):
        def root_reach(self, iteration, player, reach):
            return -reach

    with pytest.raises(SubgameError, match="invalid reach for player 0"):
        SubgameSolver(sg, ranges).iterate(1, Bad())


def test_walking_the_hand_forward(second_round):
    sg, ranges = second_round
    solver = SubgameSolver(sg, ranges)
    solver.solve(0.1, max_iterations=500)
    bet = sg.tree.actions(0)[2]
    node = sg.node_after([bet])
    assert sg.tree.states[node] == sg.root.apply(bet)
    hand = sg.hand_index(parse_cards("Ah"))
    probs = solver.strategy_at(0, hand)
    assert probs.sum() == pytest.approx(1.0) and probs.shape == (len(sg.tree.actions(0)),)
    # Bayes: player 0's range after the bet is its range times its probability of betting.
    reach = solver.reach_at(node)
    assert reach[0, hand] == pytest.approx(ranges[0, hand] * probs[2])
    np.testing.assert_allclose(reach[1], ranges[1])
    with pytest.raises(SubgameError, match="not in the subgame tree"):
        sg.node_after([raise_to(999)])


def test_holdem_river_hand_order_and_hole_pair_conversion():
    game = parse_gamedef(
        "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 450 450\nblind = 50 50\nfirstPlayer = 2 1 1 1\n"
        "numSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
    )
    state = initial_state(game)
    for _ in range(6):
        state = state.apply(CALL)
    board = parse_cards("QsJh2h8d3c")
    sg = build_subgame(with_cards(state, ((), ()), board), parse_abstraction("1;allin"))
    assert sg.n_hands == 1081
    index = sg.hole_pair_index()
    np.testing.assert_array_equal(np.sort(HOLE_PAIRS[index], axis=1), np.sort(sg.hands, axis=1))
    vector = np.arange(1326, dtype=float)
    back = sg.to_hole_pairs(sg.from_hole_pairs(vector))
    touches = np.isin(HOLE_PAIRS, board).any(axis=1)
    assert (back[touches] == 0).all() and (back[~touches] == vector[~touches]).all()
    with pytest.raises(SubgameError, match="needs 5 board cards"):
        build_subgame(state, parse_abstraction("1;allin"))
