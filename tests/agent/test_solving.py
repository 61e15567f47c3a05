"""Subgame solving inside the agent: river solves, following a solution, re-solving
after an off-tree bet, and the fallbacks when time runs out."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from agent import solving
from agent.player import Agent
from agent.solving import (
    MIN_ITERATIONS,
    PACE_AFTER,
    RIVER_RERAISE_SIZES,
    SUBGAME_ABSTRACTION,
    SolveSettings,
    SolvingStage,
    actions_since,
    out_of_reach,
    warm_up,
)
from agent.strategist import SOLVE_FROM, AgentStrategist, solves_here
from agent.timing import TimeLimits, TimeManager
from protocol.gamedef import load_game
from protocol.wire import parse_matchstate
from solver.subgame.alternatives import GADGET, estimated_alternatives, safe_hook
from solver.subgame.gadgets import MIXED, RESOLVE, hand_weights
from solver.subgame.range_solver import SubgameSolver, build_subgame
from solver.tree import DECISION
from tests.agent.test_first_solve import NavigableStandIn
from tests.agent.test_strategist import StandInBlueprint

GAME = load_game("holdem.nolimit.2p")
RIVER = "MATCHSTATE:0:0:r300c/cc/cc/:AsKd|/2c7hKs/9d/3h"  # position 0 acts first on the river


@pytest.fixture(scope="module", autouse=True)
def compiled():
    warm_up()  # numba compiles (or loads) the solver's kernels once, outside any budget


def make_agent(per_hand: float = 7.0, hands: int = 4, settings: SolveSettings | None = None) -> Agent:
    clock = TimeManager(TimeLimits(per_hand=per_hand, max_solve=2.0))
    stage = SolvingStage(np.random.default_rng(0), settings=settings)
    agent = Agent(GAME, AgentStrategist(StandInBlueprint(), stage, seed=0), clock, seed=0)
    clock.hands = hands  # a bank of a few hands' target time
    return agent


def test_river_decision_is_solved_and_its_rows_cover_the_range():
    agent = make_agent()
    decision = agent.decide(parse_matchstate(RIVER, GAME))
    assert decision.source == "unsafe"
    active = agent.hand.notes["solve"]
    assert [a for a, _ in decision.probs] == [str(a) for a in active.subgame.tree.actions(0)]
    assert 0.92 <= agent.hand.scale <= 1.08 and agent.hand.scale != 1.0
    rows = decision.range.strategy()
    blocked = np.array([bool({a, b} & {0, 22, 47, 29, 6}) for a, b in agent.hand_cards])  # 2c 7h Ks 9d 3h
    assert np.allclose(rows[~blocked].sum(axis=1), 1.0) and not rows[blocked].any()


def test_in_tree_reply_follows_the_solution_and_an_off_tree_bet_is_resolved():
    agent = make_agent(hands=20)
    first = agent.decide(parse_matchstate(RIVER, GAME))
    active = agent.hand.notes["solve"]
    tree = active.subgame.tree
    # The opponent answers a check with a bet the subgame holds: same solve, its node.
    check = "MATCHSTATE:0:0:r300c/cc/cc/c:AsKd|/2c7hKs/9d/3h"
    opened = active.subgame.node_after([parse_matchstate(check, GAME).state.actions[3][0]])
    bet = tree.actions(opened)[1]
    after_bet = parse_matchstate(f"MATCHSTATE:0:0:r300c/cc/cc/c{bet}:AsKd|/2c7hKs/9d/3h", GAME)
    followed = agent.decide(after_bet)
    assert agent.hand.notes["solve"] is active and followed.source == "unsafe"
    # An odd size the tree lacks: a new (nested) solve rooted at the real state.
    odd = parse_matchstate("MATCHSTATE:0:0:r300c/cc/cc/cr1234:AsKd|/2c7hKs/9d/3h", GAME)
    resolved = agent.decide(odd)
    assert agent.hand.notes["solve"] is not active and resolved.source == GADGET
    assert agent.hand.notes["solve"].subgame.root.betting == odd.state.betting
    assert first.source == "unsafe"


@pytest.mark.parametrize(("later", "kind", "source"), [(None, MIXED, GADGET), ("resolve", RESOLVE, "estimated-resolve")])
def test_a_later_solve_uses_the_later_gadget(monkeypatch, later, kind, source):
    """After an off-tree bet the re-solve's root gadget is --later-gadget (default: --gadget)."""
    hooks = []

    def spy(*args, **kwargs):
        hooks.append(safe_hook(*args, **kwargs))
        return hooks[-1]

    monkeypatch.setattr(solving, "safe_hook", spy)
    agent = make_agent(hands=20, settings=SolveSettings(later_gadget=later))
    agent.decide(parse_matchstate(RIVER, GAME))
    first = agent.hand.notes["solve"]
    resolved = agent.decide(parse_matchstate("MATCHSTATE:0:0:r300c/cc/cc/cr1234:AsKd|/2c7hKs/9d/3h", GAME))
    active = agent.hand.notes["solve"]
    assert active is not first and resolved.source == source and active.kind == source
    assert [h.gadget.kind for h in hooks] == [kind]  # the stand-in's first solve is unsafe: one gadget, the later one's


def test_a_solved_decision_says_where_its_row_came_from():
    """The decision log's detail: a new solve, then the same solve followed, with its
    iterations (at least the floor), seconds within the budget, and the exploitability reached."""
    agent = make_agent(hands=20)
    first = agent.decide(parse_matchstate(RIVER, GAME))
    detail = first.detail
    assert detail["source"] == "unsafe" and detail["solve"] == "new" and detail["root"] == "r300c/cc/cc/"
    assert detail["iterations"] >= MIN_ITERATIONS and 0 < detail["seconds"] <= detail["budget"] + 0.5
    assert detail["exploitability_pct"] >= 0
    active = agent.hand.notes["solve"]
    check = parse_matchstate("MATCHSTATE:0:0:r300c/cc/cc/c:AsKd|/2c7hKs/9d/3h", GAME)
    opened = active.subgame.node_after([check.state.actions[3][0]])
    bet = active.subgame.tree.actions(opened)[1]
    followed = agent.decide(parse_matchstate(f"MATCHSTATE:0:0:r300c/cc/cc/c{bet}:AsKd|/2c7hKs/9d/3h", GAME))
    assert followed.detail["solve"] == "followed" and followed.detail["iterations"] == detail["iterations"]


def test_a_solve_below_the_iteration_floor_is_not_played(monkeypatch):
    """A solve that cannot reach MIN_ITERATIONS is given up at its pace's first reading
    (PACE_AFTER iterations past the first), and the blueprint's row answers instead."""
    agent = make_agent(hands=20)
    monkeypatch.setattr("agent.solving.MIN_ITERATIONS", 10**9)
    monkeypatch.setattr("agent.solving.PACE_MARGIN", 0.8)  # the rule is off in the other agent tests
    counted = []
    iterate = SubgameSolver.iterate

    def counting(self, count=1, hook=None):
        counted.append(count)
        return iterate(self, count, hook)

    monkeypatch.setattr(SubgameSolver, "iterate", counting)
    assert agent.decide(parse_matchstate(RIVER, GAME)).source == "blueprint"
    assert sum(counted) == 1 + PACE_AFTER


def test_out_of_reach_projects_the_pace_to_the_deadline(monkeypatch):
    need = 20  # a margin of 0.8: given up when the forecast is under 16 in all
    monkeypatch.setattr("agent.solving.PACE_MARGIN", 0.8)  # the rule is off in the other agent tests
    assert out_of_reach(PACE_AFTER, spent=0.3, remaining=1.0, need=need)  # 10 an s: 4 + 10 < 16
    assert not out_of_reach(PACE_AFTER, spent=0.2, remaining=1.0, need=need)  # 15 an s: 4 + 15 >= 16
    assert not out_of_reach(PACE_AFTER - 1, spent=10.0, remaining=0.0, need=need)  # too early to judge
    assert not out_of_reach(need - 1, spent=10.0, remaining=0.0, need=need)  # already enough
    assert out_of_reach(9, spent=1.0, remaining=0.6, need=need)  # 10 + 5.4 < 16
    assert not out_of_reach(9, spent=1.0, remaining=0.7, need=need)  # 10 + 6.3 >= 16


def test_no_time_left_plays_the_blueprint():
    agent = make_agent(hands=0)
    agent.clock.used = 100.0  # far behind the target
    assert agent.decide(parse_matchstate(RIVER, GAME)).source == "blueprint"


def test_overrunning_solve_falls_back_in_time(monkeypatch):
    def slow_iterate(self, count=1, hook=None):
        time.sleep(4)  # an iteration far longer than the budget

    monkeypatch.setattr(SubgameSolver, "iterate", slow_iterate)
    agent = make_agent()
    started = time.monotonic()
    decision = agent.decide(parse_matchstate(RIVER, GAME))
    assert time.monotonic() - started < 3.5  # the 2 s budget, not the 4 s iteration
    assert decision.source == "blueprint"


@pytest.mark.parametrize("line", ["MATCHSTATE:1:0:r300c/cr20000:|AsKd/2c7hKs", "MATCHSTATE:1:0:r300c/cc/r20000:|AsKd/2c7hKs/9d"])
def test_facing_an_all_in_before_the_river(line):
    # Nothing is left to decide after a call: the call rule answers, purely, by equity.
    agent = make_agent()
    decision = agent.decide(parse_matchstate(line, GAME))
    assert decision.source == "call-or-fold" and decision.detail["range"] == "blueprint"
    assert [a for a, _ in decision.probs] == ["f", "c"] and sorted(p for _, p in decision.probs) == [0.0, 1.0]
    call = dict(decision.probs)["c"] == 1.0
    assert call == (decision.detail["equity"] >= decision.detail["price"])


def test_solve_from_turn_solves_a_turn_decision_with_the_early_sizes():
    """``--solve-from turn``: a turn decision where raises are possible is solved, in a
    subgame with the small early abstraction that holds the river too."""
    turn = "MATCHSTATE:0:0:r300c/cc/:AsKd|/2c7hKs/9d"
    assert not solves_here(parse_matchstate(turn, GAME).state)
    assert solves_here(parse_matchstate(turn, GAME).state, SOLVE_FROM["turn"])
    assert not solves_here(parse_matchstate("MATCHSTATE:0:0:r300c/:AsKd|/2c7hKs", GAME).state, SOLVE_FROM["turn"])
    clock = TimeManager(TimeLimits(per_hand=20.0, max_solve=6.0))  # room for a loaded machine
    stage = SolvingStage(np.random.default_rng(0))
    agent = Agent(GAME, AgentStrategist(StandInBlueprint(), stage, seed=0, rounds_early=SOLVE_FROM["turn"]), clock, seed=0)
    clock.hands = 4
    decision = agent.decide(parse_matchstate(turn, GAME))
    assert decision.source == "unsafe"  # the stand-in blueprint cannot value its subtree
    active = agent.hand.notes["solve"]
    assert active.subgame.tree.n_nodes < build_subgame(active.subgame.root, stage.abstraction).tree.n_nodes
    assert {int(r) for r in active.subgame.tree.round} == {2, 3}
    assert stage.abstraction_at(parse_matchstate(RIVER, GAME).state) is stage.abstraction


@pytest.mark.parametrize("new_round", ["estimated", "blueprint"])
def test_the_river_after_a_turn_solve_gets_its_own_safe_solve(new_round):
    """A new round is solved again from the real state (its card known, the full sizes),
    safe against the turn solve's estimates (or, with ``new_round="blueprint"``, the
    blueprint's values, as a first solve); within the round the solution is followed."""
    clock = TimeManager(TimeLimits(per_hand=20.0, max_solve=6.0))  # room for a loaded machine
    stage = SolvingStage(np.random.default_rng(0), settings=SolveSettings(new_round=new_round))
    blueprint = NavigableStandIn()  # can value its lines: a first solve is safe
    agent = Agent(GAME, AgentStrategist(blueprint, stage, seed=0, rounds_early=SOLVE_FROM["turn"]), clock, seed=0)
    clock.hands = 20
    agent.decide(parse_matchstate("MATCHSTATE:0:0:r300c/cc/:AsKd|/2c7hKs/9d", GAME))
    turn_solve = agent.hand.notes["solve"]
    assert turn_solve.kind == stage.settings.first_kind
    check = next(a for a in turn_solve.subgame.tree.actions(0) if a.kind.name == "CALL")
    after_check = turn_solve.subgame.node_after([check])
    bet = next(a for a in turn_solve.subgame.tree.actions(after_check) if a.kind.name == "RAISE")
    # We check and the opponent bets the tree's size: followed within the turn.
    facing = parse_matchstate(f"MATCHSTATE:0:0:r300c/cc/c{bet}:AsKd|/2c7hKs/9d", GAME)
    assert agent.decide(facing).detail["solve"] == "followed" and agent.hand.notes["solve"] is turn_solve
    river = parse_matchstate(f"MATCHSTATE:0:0:r300c/cc/c{bet}c/:AsKd|/2c7hKs/9d/3h", GAME)
    decision = agent.decide(river)
    river_solve = agent.hand.notes["solve"]
    assert river_solve is not turn_solve and river_solve.subgame.root.round == 3
    kind = stage.settings.later_kind if new_round == "estimated" else stage.settings.first_kind
    assert decision.source == kind and decision.detail["solve"] == "new"
    assert stage.abstraction_at(river.state) is stage.abstraction


def test_a_turn_resolve_after_an_off_tree_raise_is_safe_with_estimates_before_the_river():
    """After an off-tree raise on the turn, the last solve's estimates value the call that
    would have ended the turn at its chance node (before the river card), so the new solve
    is safe (it was solved unsafe until 2026-11-27)."""
    clock = TimeManager(TimeLimits(per_hand=20.0, max_solve=6.0))  # room for a loaded machine
    stage = SolvingStage(np.random.default_rng(0))
    strategist = AgentStrategist(StandInBlueprint(), stage, seed=0, rounds_early=SOLVE_FROM["turn"])
    agent = Agent(GAME, strategist, clock, seed=0)
    clock.hands = 20
    turn = "MATCHSTATE:0:0:r300c/cc/:AsKd|/2c7hKs/9d"
    agent.decide(parse_matchstate(turn, GAME))
    active = agent.hand.notes["solve"]
    bet = next(a for a in active.subgame.tree.actions(0) if a.kind.name == "RAISE")
    odd = f"r{bet.size * 2 + 37}"
    raised = parse_matchstate(f"MATCHSTATE:0:0:r300c/cc/{bet}{odd}:AsKd|/2c7hKs/9d", GAME)
    since = actions_since(active.root_betting, raised.state)
    found = estimated_alternatives(active.solver, since, raised.state.board, 0)
    # The opponent's best in-tree answer to the bet, per hand: at least its call's value,
    # which is the value of the river chance node the call leads to.
    sg, tree = active.subgame, active.subgame.tree
    facing = sg.node_after(since[:1])
    call = int(tree.children[tree.child_start[facing] + [a.kind.name for a in tree.actions(facing)].index("CALL")])
    weight = hand_weights(sg.hands, active.solver.reach_at(facing, raised.state.board)[0])
    live = weight > 0
    call_chips = active.solver.values_at(call, 1, raised.state.board)[live] / weight[live]
    assert np.isfinite(found).all() and (found[live] >= call_chips - 1e-9).all()
    decision = agent.decide(raised)
    assert decision.source == stage.settings.later_kind and agent.hand.notes["solve"] is not active


def _fresh_interpreter(script: str) -> str:
    """``script``'s output in a new Python process (no kernel compiled by earlier tests)."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_warm_up_with_two_threads_compiles_the_parallel_kernel_a_turn_solve_needs():
    # Compiling it cold takes about 12 s: inside a first turn solve's budget that solve
    # managed no iteration and played the blueprint with a WARNING (the deploy check).
    # A fresh interpreter, so no earlier test has compiled it already.
    script = (
        "from agent.solving import warm_up\n"
        "from solver.subgame.split import frontier_values\n"
        "warm_up(threads=1)\n"
        "print(len(frontier_values.signatures))\n"
        "warm_up(threads=2)\n"
        "print(len(frontier_values.signatures))\n"
    )
    one_thread, two_threads = (int(x) for x in _fresh_interpreter(script).split())
    assert one_thread == 0 and two_threads >= 1


def test_a_flop_mode_agent_warms_up_the_depth_limited_kernels_before_the_match():
    # Cold, the first match of a fresh checkout in flop mode gave up its first solves with
    # no iteration (four in 2,600 decisions), and its first river solve's average strategy
    # (normalize_rows) compiled after the solve's deadline (3.8 s).
    # A fresh interpreter, so no earlier test has compiled them already.
    script = (
        "from agent.strategist import build_strategist\n"
        "from protocol.gamedef import load_game\n"
        "from solver.ranges import normalize_rows\n"
        "from solver.subgame.leaf_walk import showdown_signs\n"
        "print(len(showdown_signs.signatures), len(normalize_rows.signatures))\n"
        "build_strategist(load_game('holdem.nolimit.2p'), None, blueprint_only=False, seed=0, solve_from='flop')\n"
        "print(len(showdown_signs.signatures), len(normalize_rows.signatures))\n"
    )
    before, after = ([int(x) for x in line.split()] for line in _fresh_interpreter(script).splitlines())
    assert before == [0, 0] and after[0] >= 1 and after[1] >= 2  # a float32 and a float64 average


def test_solved_rows_are_thresholded_like_blueprint_rows():
    """With an action floor, no solved action below it is played (or logged)."""
    clock = TimeManager(TimeLimits(per_hand=20.0, max_solve=6.0))  # room for a loaded machine
    strategist = AgentStrategist(StandInBlueprint(), SolvingStage(np.random.default_rng(0)), seed=0, action_floor=0.2)
    agent = Agent(GAME, strategist, clock, seed=0)
    clock.hands = 20
    decision = agent.decide(parse_matchstate(RIVER, GAME))
    assert decision.source == "unsafe"
    rows = decision.range.strategy()
    live = rows.sum(axis=1) > 0
    assert not ((rows[live] > 0) & (rows[live] < 0.2 - 1e-4)).any()
    raw = agent.hand.notes["solve"].strategy  # the solve itself keeps its crumbs
    assert ((raw > 0) & (raw < 0.2 * raw.max())).any()


IN_POSITION = "MATCHSTATE:1:0:r300c/cc/cc/{bet}:|AsKd/2c7hKs/9d/3h"  # position 1 acts last on the river


def test_round_start_roots_only_a_round_the_opponent_opened_and_no_solve_covers():
    facing = parse_matchstate(IN_POSITION.format(bet="r900"), GAME).state
    start = solving.round_start(None, facing, 1)
    assert start is not None and start.betting == "r300c/cc/cc/" and start.current_player == 0
    assert start.board == facing.board and start.hole_cards == facing.hole_cards
    assert solving.round_start(None, parse_matchstate(RIVER, GAME).state, 0) is None  # we open the round
    # We checked and the opponent bet: our first decision of the round is past.
    checked = parse_matchstate("MATCHSTATE:0:0:r300c/cc/cc/cr900:AsKd|/2c7hKs/9d/3h", GAME).state
    assert solving.round_start(None, checked, 0) is None
    agent = make_agent(hands=20)
    agent.decide(parse_matchstate(RIVER, GAME))
    assert solving.round_start(agent.hand.notes["solve"], facing, 1) is None  # a river solve covers the river


def test_solve_root_round_solves_the_opponents_bet_and_follows_it(monkeypatch):
    """With ``root="round"``, facing the opponent's opening river bet the solve is rooted at
    the start of the river and the bet is followed inside it; the default roots it at the
    decision, after the bet."""
    monkeypatch.setattr("agent.solving.draw_size_scale", lambda rng, jitter: 1.0)  # the pot bet (to 900) is in the tree
    facing = parse_matchstate(IN_POSITION.format(bet="r900"), GAME)
    agent = make_agent(hands=20, settings=SolveSettings(root="round"))
    decision = agent.decide(facing)
    active = agent.hand.notes["solve"]
    assert active.root_betting == "r300c/cc/cc/" and active.me == 1
    assert decision.detail["root"] == "r300c/cc/cc/"
    assert decision.detail["node"] == active.subgame.node_after(facing.state.actions[3])
    assert next(a for a, _ in decision.probs) == "f"
    default = make_agent(hands=20)
    default.decide(facing)
    assert default.hand.notes["solve"].root_betting == facing.state.betting


def test_solve_root_round_resolves_an_off_tree_opening_bet_nested():
    """An opening bet the round-start solve does not hold gets a nested solve at the real
    state, safe against the round-start solve's estimates."""
    agent = make_agent(hands=20, settings=SolveSettings(root="round"))
    odd = parse_matchstate(IN_POSITION.format(bet="r1234"), GAME)
    decision = agent.decide(odd)
    active = agent.hand.notes["solve"]
    assert active.root_betting == odd.state.betting and decision.source == GADGET
    assert decision.detail["solve"] == "new"


def test_an_unknown_solve_root_is_refused():
    with pytest.raises(ValueError, match="unknown solve root 'turn'"):
        SolveSettings(root="turn").validated()
    with pytest.raises(ValueError, match="new-round alternatives 'guess'"):
        SolveSettings(new_round="guess").validated()


@pytest.mark.parametrize(
    ("matchstate", "raises"),
    [
        ("MATCHSTATE:1:0:r200c/:|AsKd/2c7hKs", 0),  # the flop's start: bet, raise
        ("MATCHSTATE:1:0:r200c/r400:|AsKd/2c7hKs", 1),  # facing a flop bet: raise, re-raise
        ("MATCHSTATE:1:0:r200c/cc/r400:|AsKd/2c7hKs/9d", 1),  # facing a turn bet
        ("MATCHSTATE:0:0:r200c/cc/r400r1200:AsKd|/2c7hKs/9d", 2),  # facing a turn raise
    ],
)
def test_pre_river_subgames_raise_twice_past_their_root(matchstate, raises):
    """A flop or turn subgame lets the player to act raise and the other raise back,
    however many raises came before its root (until 2026-11-28 one raise per round,
    counting the real ones: facing a bet the subgame could only fold or call)."""
    state = parse_matchstate(matchstate, GAME).state
    assert state.num_raises_this_round == raises
    stage = SolvingStage(np.random.default_rng(0))
    sg = build_subgame(state, stage.abstraction_at(state), depth_limited=stage.depth_limited_at(state))
    tree = sg.tree
    root_raises = [a for a in tree.actions(0) if a.kind.name == "RAISE"]
    assert root_raises, "the player to act can raise"
    # Below each of our raises the opponent may raise back, except after an all-in.
    for raise_ in root_raises:
        child = sg.node_after([raise_])
        back = [a for a in tree.actions(child) if a.kind.name == "RAISE"]
        assert back or raise_.size == state.game.stack[0], f"{raise_} cannot be raised back"
        # ... and below a raise back, the round is capped: fold or call only.
        for again in back:
            grand = sg.node_after([raise_, again])
            assert [a.kind.name for a in tree.actions(grand)] == ["FOLD", "CALL"]
    # A later round in the subgame allows one raise (the turn subgame's river): a bet, no raise.
    river = [s for n, s in enumerate(tree.states) if tree.kind[n] == DECISION and s.round == 3]
    assert bool(river) != stage.depth_limited_at(state)
    for s in river:
        assert (s.num_raises_this_round < 1) == bool(stage.abstraction_at(state).raise_sizes(s))


@pytest.mark.parametrize("spot", ["flop", "turn", "turn-check"])
def test_the_depth_limited_bench_solves_the_agents_subgame(spot):
    """tests/bench/bench_depth_limited.py's default sizes at each spot are the agent's there."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "bench" / "bench_depth_limited.py"
    spec = importlib.util.spec_from_file_location("bench_depth_limited", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert set(bench.SPOTS) == set(bench.SPOT_SIZES)
    state = parse_matchstate(bench.SPOTS[spot], GAME).state
    assert SolvingStage(np.random.default_rng(0)).abstraction_at(state).spec() == bench.SPOT_SIZES[spot]


@pytest.mark.parametrize("sizes, reraise", [(SUBGAME_ABSTRACTION, False), (RIVER_RERAISE_SIZES, True)])
def test_river_sizes_decide_whether_the_opponent_can_reraise_a_river_raise(sizes, reraise):
    """Facing a river bet, a solve's raise can be re-raised in its model only with
    ``river_sizes`` allowing a third raise (the default's cap of two does not)."""
    stage = SolvingStage(np.random.default_rng(0), settings=SolveSettings(river_sizes=sizes))
    facing = parse_matchstate("MATCHSTATE:1:0:r300c/cc/cc/r400:|AsKd/2c7hKs/9d/3h", GAME).state
    subgame = build_subgame(facing, stage.abstraction_at(facing))
    ours = [a for a in subgame.tree.actions(0) if a.kind.name == "RAISE" and a.size < GAME.stack[0]]
    assert ours, "the solve can raise the bet below all-in"
    for raise_ in ours:
        theirs = subgame.tree.actions(subgame.node_after([raise_]))
        assert any(a.kind.name == "RAISE" for a in theirs) == reraise, (sizes, raise_, theirs)


def test_bad_river_sizes_are_refused_naming_them():
    with pytest.raises(ValueError, match=r"river sizes '0\.5,x'"):
        SolveSettings(river_sizes="0.5,x").validated()


def test_the_command_line_sets_every_solve_setting():
    from agent.cli import _solve_settings, build_parser

    args = build_parser().parse_args(
        ["connect", "127.0.0.1", "1", "--later-gadget", "resolve", "--solve-root", "round", "--new-round-alternatives",
         "blueprint", "--solve-iterations", "40", "--unsafe-weight", "0.5", "--river-sizes", RIVER_RERAISE_SIZES,
         "--open-unsafe-weight", "100", "--turn-search", "depth-limited"]
    )  # fmt: skip
    assert _solve_settings(args) == SolveSettings(unsafe_weight=0.5, iterations=40, later_gadget="resolve", root="round",
                                                  new_round="blueprint", river_sizes=RIVER_RERAISE_SIZES,
                                                  open_unsafe_weight=100.0, turn="depth-limited")  # fmt: skip
    assert _solve_settings(build_parser().parse_args(["connect", "127.0.0.1", "1"])) == SolveSettings()


TURN_OPEN, TURN_AFTER_CHECK = "MATCHSTATE:0:0:r300c/cc/:AsKd|/2c7hKs/9d", "MATCHSTATE:1:0:r300c/cc/c:|AsKd/2c7hKs/9d"


@pytest.mark.parametrize(
    ("matchstate", "floor"),
    [
        ("MATCHSTATE:0:0:r300c/:AsKd|/2c7hKs", solving.DL_START_MIN_BUDGET),  # we open the flop
        ("MATCHSTATE:1:0:r300c/c:|AsKd/2c7hKs", solving.DL_MIN_BUDGET),  # after the opponent's check
        ("MATCHSTATE:1:0:r300c/r600:|AsKd/2c7hKs", solving.DL_MIN_BUDGET),
        (TURN_OPEN, solving.TURN_START_MIN_BUDGET),  # we open the turn
        (TURN_AFTER_CHECK, 0.0),
        (RIVER, 0.0),
    ],
)
def test_a_solve_is_started_only_with_its_roots_least_budget(matchstate, floor):
    """The floors of the depth-limited flop and of ``--turn-search full`` (the agent before
    the depth-limited turn): under its floor a root gets no solve."""
    root = parse_matchstate(matchstate, GAME).state
    if floor > 0:
        assert solving.search_plan(root, floor * 0.99, "full") is None
    assert solving.search_plan(root, floor + 0.01, "full") in (solving.FULL, solving.DEPTH_LIMITED)
    assert solving.search_plan(root, 0.0, "full") is None


def test_the_turn_is_searched_full_depth_where_the_budget_allows_it_else_depth_limited():
    opens, checked = parse_matchstate(TURN_OPEN, GAME).state, parse_matchstate(TURN_AFTER_CHECK, GAME).state
    plan = solving.search_plan
    assert plan(opens, solving.TURN_FULL_START_BUDGET, "auto") == solving.FULL_THEN_DEPTH_LIMITED
    assert plan(opens, solving.TURN_FULL_START_BUDGET * 0.99, "auto") == solving.DEPTH_LIMITED
    assert plan(opens, solving.TURN_DL_START_MIN_BUDGET, "auto") == solving.DEPTH_LIMITED
    assert plan(opens, solving.TURN_DL_START_MIN_BUDGET * 0.99, "auto") is None
    assert plan(opens, solving.TURN_START_MIN_BUDGET, "full") == solving.FULL
    assert plan(checked, solving.TURN_FULL_BUDGET, "auto") == solving.FULL_THEN_DEPTH_LIMITED
    assert plan(checked, solving.TURN_FULL_BUDGET * 0.99, "auto") == solving.DEPTH_LIMITED
    assert plan(checked, solving.TURN_DL_MIN_BUDGET * 0.99, "auto") == solving.FULL  # a small tree may make it
    assert plan(checked, solving.TURN_DL_MIN_BUDGET, "depth-limited") == solving.DEPTH_LIMITED
    assert plan(checked, solving.TURN_DL_MIN_BUDGET * 0.99, "depth-limited") is None
    assert plan(opens, 10.0, "depth-limited") == solving.DEPTH_LIMITED
    assert plan(opens, 10.0, "auto", can_value=False) == solving.FULL  # a stand-in blueprint cannot value the leaves
    all_in = parse_matchstate("MATCHSTATE:0:0:cc/cc/r20000:AsKd|/2c7hKs/9d", GAME).state  # nothing left to bet
    assert plan(all_in, 10.0, "depth-limited") == solving.FULL
    assert plan(parse_matchstate(RIVER, GAME).state, 10.0, "depth-limited") == solving.FULL


def test_a_turn_the_agent_opens_with_too_little_time_plays_the_blueprint_without_a_solve():
    clock = TimeManager(TimeLimits(per_hand=20.0, max_solve=solving.TURN_START_MIN_BUDGET / 2))
    stage = SolvingStage(np.random.default_rng(0))
    agent = Agent(GAME, AgentStrategist(StandInBlueprint(), stage, seed=0, rounds_early=SOLVE_FROM["turn"]), clock, seed=0)
    clock.hands = 4
    built = []
    stage._start = lambda *args: built.append(args) or pytest.fail("no solve should be built")
    decision = agent.decide(parse_matchstate("MATCHSTATE:0:0:r300c/cc/:AsKd|/2c7hKs/9d", GAME))
    assert decision.source == "blueprint" and built == [] and "solve" not in agent.hand.notes
