"""``precompute health``: shares that add up on the quick blueprint (and agree with a plain
walk through the public API), a uniform strategy reported untrained, planted defects caught
by the probes, the shipped blueprint's report, and the LBR pointer's flags."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import agent.cli
from precompute import health
from precompute.blueprint import BLUEPRINT_KIND, Blueprint
from precompute.cli import main
from protocol.cards import parse_cards
from protocol.fasteval import HOLE_PAIRS
from protocol.rules import raise_to
from solver.action_floor import ACTION_FLOOR, threshold
from solver.artifacts import load_artifact, save_artifact
from solver.tree import CHANCE, DECISION


@pytest.fixture(scope="module")
def quick(tmp_path_factory, quick_blueprint):
    """The shared quick blueprint run (a copy): its folder holds blueprint.art and
    checkpoint.mccfr."""
    out = tmp_path_factory.mktemp("quick") / "run"
    shutil.copytree(quick_blueprint, out)
    return out


def _copy(bp: Blueprint, strategy: np.ndarray) -> Blueprint:
    """The same blueprint with other strategy numbers (in memory)."""
    return Blueprint(bp.game, bp.tree, bp.layout, strategy, bp.cards, bp.params, bp.path)


def _save_copy(source, strategy: np.ndarray, target):
    """A blueprint artifact like ``source`` with ``strategy`` instead of its own."""
    art = load_artifact(source, BLUEPRINT_KIND)
    arrays = {**{k: np.asarray(v) for k, v in art.arrays.items()}, "strategy": strategy}
    return save_artifact(target, BLUEPRINT_KIND, arrays, game=Blueprint.load(source).game, params=art.params)


def _tv(rows: np.ndarray) -> np.ndarray:
    p = rows / rows.sum(axis=1, keepdims=True)
    return 0.5 * np.abs(p - 1 / rows.shape[1]).sum(axis=1)


def test_quick_report_shares_are_consistent(quick):
    bp = Blueprint.load(quick / "blueprint.art")
    hands = 2000
    report = health.health_report(bp, hands=hands, checkpoint=quick / "checkpoint.mccfr")
    assert [r.name for r in report.rounds] == ["preflop", "flop", "turn", "river"]
    assert sum(r.infosets for r in report.rounds) == len(health.infoset_index(bp)[1])
    for r in report.rounds:
        assert 0 < r.visited <= r.infosets and r.visited <= r.visits
        shares = (r.near_uniform_reached, r.near_uniform_all, r.untouched_reached, r.untouched_all, r.tiny_reached, r.tiny_all)
        assert all(0.0 <= s <= 1.0 for s in shares), r
        # Untouched regrets are tiny ones too.
        assert r.untouched_reached <= r.tiny_reached and r.untouched_all <= r.tiny_all
    assert report.rounds[0].visits >= hands  # every hand has a preflop decision
    assert report.checkpoint_iterations == 4096 and len(report.probes) == 4
    assert report.gate == {"flop": report.rounds[1].near_uniform_reached, "turn": report.rounds[2].near_uniform_reached}
    # The preflop shares recomputed from the rows directly.
    visits = health.self_play_visits(bp, hands, 0)
    start, _ = health.infoset_index(bp)
    table = np.asarray(load_artifact(bp.path, BLUEPRINT_KIND).arrays["strategy"], np.float64)
    near, weight = [], []
    for node in np.flatnonzero((bp.tree.kind == DECISION) & (bp.tree.round == 0)):
        n_a, base = int(bp.tree.child_count[node]), int(bp.layout.offset[node])
        near.append(_tv(table[base : base + 169 * n_a].reshape(169, n_a)) < health.NEAR_UNIFORM_TV)
        weight.append(visits[start[node] : start[node] + 169])
    near, weight = np.concatenate(near), np.concatenate(weight)
    assert report.rounds[0].near_uniform_all == pytest.approx(near.mean())
    assert report.rounds[0].near_uniform_reached == pytest.approx(weight[near].sum() / weight.sum())
    text = health.format_report(report)
    assert "untouched reached" in text and text.count("FAIL (") + text.count("PASS (") == 4


def test_self_play_visits_match_a_walk_through_the_public_api(quick):
    bp = Blueprint.load(quick / "blueprint.art")
    hands, seed = 150, 5
    visits = health.self_play_visits(bp, hands, seed)
    start, _ = health.infoset_index(bp)
    cards = health.random_deals(hands, seed)
    draws = np.random.default_rng([seed, 1]).random((hands, 64))  # the draws self_play_visits makes
    expected = np.zeros_like(visits)
    t = bp.tree
    for i in range(hands):
        holes, board = (cards[i, 0:2], cards[i, 2:4]), cards[i, 4:9]
        node, step = 0, 0
        while t.kind[node] in (CHANCE, DECISION):
            if t.kind[node] == CHANCE:
                node = int(t.children[t.child_start[node]])
                continue
            p, r = int(t.player[node]), int(t.round[node])
            seen = board[: (0, 3, 4, 5)[r]]
            expected[start[node] + bp.bucket(r, holes[p], seen)] += 1
            probs = bp.strategy_at(node, holes[p], seen)
            a = min(int(np.searchsorted(np.cumsum(probs), draws[i, step], side="right")), len(probs) - 1)
            node, step = int(t.children[t.child_start[node] + a]), step + 1
    np.testing.assert_array_equal(visits, expected)


def test_a_uniform_strategy_is_all_near_uniform_and_fails(quick, tmp_path):
    source = quick / "blueprint.art"
    uniform = np.ones(Blueprint.load(source).layout.size, np.uint8)
    path = _save_copy(source, uniform, tmp_path / "uniform.art")
    out = tmp_path / "report.json"
    assert main(["health", str(path), "--hands", "500", "--json", str(out)]) == 1
    report = json.loads(out.read_text())
    assert all(r["near_uniform_reached"] == 1.0 and r["near_uniform_all"] == 1.0 for r in report["rounds"])
    assert not report["passed"] and not any(p["passed"] for p in report["probes"])
    assert report["lbr_command"][-2:] == ["--blueprint", str(path)]


def _fold_rows(bp: Blueprint, rounds: tuple[int, ...]):
    """(node, fold column) of every decision node of ``rounds`` where the player faces a bet."""
    t = bp.tree
    for node in np.flatnonzero((t.kind == DECISION) & np.isin(t.round, rounds)):
        start = int(t.child_start[node])
        if t.edge_action[start] == 0:
            yield int(node), 0


def _set_row(strategy: np.ndarray, bp: Blueprint, node: int, bucket: int, row: list[int]) -> None:
    n_a = int(bp.tree.child_count[node])
    base = int(bp.layout.offset[node]) + bucket * n_a
    strategy[base : base + n_a] = row + [0] * (n_a - len(row))


def test_planted_aa_fold_fails_probe_a(quick):
    bp = Blueprint.load(quick / "blueprint.art")
    aces = bp.bucket(0, parse_cards("AsAh"))
    assert all(bp.bucket(0, h) == aces for h in HOLE_PAIRS if h[0] // 4 == h[1] // 4 == 12)
    repaired = np.array(np.asarray(load_artifact(bp.path, BLUEPRINT_KIND).arrays["strategy"]))
    for node, _ in _fold_rows(bp, (0,)):
        _set_row(repaired, bp, node, aces, [0, 255])  # AA always calls a bet
    probe = health.probe_aces(_copy(bp, repaired))
    assert probe.passed and probe.figure == 0.0
    planted = repaired.copy()
    node = bp.node_after([raise_to(300)])  # the big blind facing an open raise: AA's own play always gets there
    _set_row(planted, bp, node, aces, [128, 127])
    probe = health.probe_aces(_copy(bp, planted))
    assert not probe.passed and probe.figure == pytest.approx(128 / 255)
    assert "'r300' (big blind to act)" in probe.detail and "folds 50.2%" in probe.detail


def test_the_floor_reports_the_rows_the_agent_plays(quick):
    """``--floor``: every row of the floored blueprint is the agent's thresholded row, so a
    small planted AA fold fails the raw probe and is gone as played; a large one stays."""
    bp = Blueprint.load(quick / "blueprint.art")
    floored = health.floored(bp, ACTION_FLOOR)
    for node in np.flatnonzero(bp.tree.kind == DECISION)[::97]:
        board = () if bp.tree.round[node] == 0 else parse_cards("2c7hKs9d3s")[: 2 + int(bp.tree.round[node])]
        raw = bp.range_strategy(int(node), board)
        np.testing.assert_allclose(floored.range_strategy(int(node), board), threshold(raw, ACTION_FLOOR), atol=1e-12)
    aces = bp.bucket(0, parse_cards("AsAh"))
    strategy = np.array(np.asarray(load_artifact(bp.path, BLUEPRINT_KIND).arrays["strategy"]))
    for node, _ in _fold_rows(bp, (0,)):
        _set_row(strategy, bp, node, aces, [0, 255])
    node = bp.node_after([raise_to(300)])
    _set_row(strategy, bp, node, aces, [8, 247])  # folds 3.1%: below the floor
    assert not health.probe_aces(_copy(bp, strategy)).passed
    assert health.probe_aces(health.floored(_copy(bp, strategy), ACTION_FLOOR)).figure == 0.0
    _set_row(strategy, bp, node, aces, [20, 235])  # folds 7.8%: played
    assert health.probe_aces(health.floored(_copy(bp, strategy), ACTION_FLOOR)).figure == pytest.approx(20 / 255)
    report = health.health_report(bp, hands=200, floor=ACTION_FLOOR)
    assert report.floor == ACTION_FLOOR and "actions below 5% dropped" in health.format_report(report)
    for bad in (1.0, -0.05):
        with pytest.raises(ValueError, match="--floor must be in"):
            health.health_report(bp, hands=10, floor=bad)


def test_planted_open_shoves_fail_probe_d(quick):
    bp = Blueprint.load(quick / "blueprint.art")
    equity = health.preflop_equity(boards=500)
    strategy = np.array(np.asarray(load_artifact(bp.path, BLUEPRINT_KIND).arrays["strategy"]))
    root, n_a = bp.root, int(bp.tree.child_count[bp.root])
    for bucket in range(bp.layout.rows[0]):
        _set_row(strategy, bp, root, bucket, [0, 255])  # nobody shoves: every hand limps
    assert health.probe_open_shove(_copy(bp, strategy), equity).figure == 0.0
    seven_deuce = bp.bucket(0, parse_cards("7d2c"))
    _set_row(strategy, bp, root, seven_deuce, [0] * (n_a - 1) + [255])  # the last edge is the all-in
    probe = health.probe_open_shove(_copy(bp, strategy), equity)
    bottom = health.ranked_share(equity, health.BOTTOM_SHARE, top=False)
    combos = np.count_nonzero(bp.cards.range_buckets(0, ())[bottom] == seven_deuce)
    assert combos >= 12 and not probe.passed and probe.figure == pytest.approx(combos / bottom.sum())
    assert "most shoved: 7" in probe.detail or "most shoved: 2" in probe.detail


def test_a_checkpoint_of_another_kind_is_a_one_line_error(quick, capsys):
    assert main(["health", str(quick / "blueprint.art"), "--checkpoint", str(quick / "blueprint.art"), "--hands", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("precompute health:") and "mccfr-checkpoint" in err and "\n" not in err.strip()
    assert main(["health", str(quick / "blueprint.art"), "--hands", "0"]) == 2


def test_the_lbr_pointer_uses_real_agent_flags():
    cmd = health.lbr_command(None)
    assert cmd[:2] == ["agent", "lbr"]
    args = agent.cli.build_parser().parse_args(cmd[1:])
    assert args.blueprint_only and args.setting == "fc" and args.hands == 3000 and str(args.out) == "DIR"
    assert args.blueprint is None
    assert agent.cli.build_parser().parse_args(health.lbr_command("x.art", 10, "o")[1:]).blueprint.name == "x.art"


def test_the_shipped_blueprint_report():
    report = health.health_report(Blueprint.load(), hands=20_000, default_blueprint=True)
    assert report.iterations and report.lbr_command == ["agent", "lbr", "--blueprint-only", "--setting", "fc", "--hands",
                                                        "3000", "--out", "DIR"]  # fmt: skip
    assert set(report.gate) == {"flop", "turn"} and all(0.0 <= v <= 1.0 for v in report.gate.values())
    assert [p.key for p in report.probes] == ["a", "b", "c", "d"]
    assert report.passed == (all(p.passed for p in report.probes) and max(report.gate.values()) <= health.GATE_SHARE)
    assert "verdict: " in health.format_report(report)
    # The shipped blueprint (134M iterations, averaged on every round) meets the near-uniform
    # gate and probes (c), (d); (a) and (b) still fail their 1% (2.43% and 1.16% measured; the
    # 134M blueprint averaged on two rounds had 2.09% and 1.14%), but must stay below the
    # 8.4M-iteration blueprint (3.85% and 5.63%).
    assert max(report.gate.values()) <= health.GATE_SHARE
    probes = {p.key: p for p in report.probes}
    assert probes["c"].passed and probes["d"].passed
    assert probes["a"].figure < 0.0385 and probes["b"].figure < 0.0563
    # As the agent plays it (actions under its 5% floor dropped), it passes the whole report
    # (measured: (a) 0.82%, (b) 0.39%, (c) 32.30%, (d) 0.00%).
    played = health.health_report(Blueprint.load(), hands=20_000, default_blueprint=True, floor=ACTION_FLOOR)
    assert played.passed, health.format_report(played)
