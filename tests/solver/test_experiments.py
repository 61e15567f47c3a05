"""The experiment commands' quick settings and the JSON policy export."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from protocol.cards import parse_cards
from protocol.gamedef import load_game
from solver.bestresponse import exploitability
from solver.bets import parse_abstraction
from solver.cfr.fullwidth import DCFR, CFRSolver
from solver.cli import main
from solver.experiments import TABLE1_QUICK
from solver.experiments.blueprint import best_completion, bucketed_cfr, player_rows
from solver.experiments.buckets import strength_buckets
from solver.export import FORMAT, export_policy, policy_strategy, read_policy
from solver.ranges import tabular_game
from solver.strategies import save_strategy


def _numbers(line: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"-?[\d,]+\.\d+|nan|inf", line)]


def test_subgames_quick_prints_a_finite_table(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    assert main(["experiment", "subgames", "--quick", "--save", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line.split() and line.split()[0] in (
        "blueprint", "unsafe", "resolve", "maxmargin", "estimated-maxmargin", "reach-maxmargin", "reach-estimated-maxmargin",
        "reach-maxmargin-nosplit", "maxmargin-unsafe", "reach-maxmargin-unsafe", "floor")}
    assert len(rows) == 11
    # Our gadgets' rows say they are not the paper's.
    assert "(ours)" in rows["maxmargin-unsafe"] and "(ours)" in rows["reach-maxmargin-unsafe"]
    assert "(ours)" not in rows["maxmargin"]
    for line in rows.values():
        values = _numbers(line)
        assert values and all(math.isfinite(v) and v >= 0 for v in values)
    assert "target 4x" in out
    # Saved combined strategies export to JSON.
    saved = tmp_path / "quick2-reach-maxmargin.strategy"
    policy = tmp_path / "policy.json"
    assert main(["export", str(saved), "--game", "quick2", "--out", str(policy)]) == 0
    assert json.loads(policy.read_text())["format"] == FORMAT


def test_best_completion_keeps_the_first_round_and_is_bounded_by_both_ends() -> None:
    spec = TABLE1_QUICK[0]
    tg = tabular_game(spec.game(), parse_abstraction(spec.abstraction))
    blueprint = bucketed_cfr(tg, strength_buckets(tg.space, spec.buckets), 30)
    base = exploitability(tg, blueprint).exploitability_mbb
    profile, floor = best_completion(tg, blueprint, 1, 150)
    early = np.concatenate([player_rows(tg, p, [0]) for p in range(2)])
    assert np.array_equal(profile[early], blueprint[early])
    assert floor == pytest.approx(exploitability(tg, profile).exploitability_mbb)
    assert floor < base
    # Freezing every round leaves the blueprint; freezing none solves the game.
    assert best_completion(tg, blueprint, 2, 5)[1] == pytest.approx(base)
    assert best_completion(tg, blueprint, 0, 150)[1] < min(floor, 0.05 * base)


def test_nested_quick_prints_a_finite_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "nested", "--quick"]) == 0
    out = capsys.readouterr().out
    for row in ("translation", "nested unsafe", "nested safe"):
        line = next(line for line in out.splitlines() if line.startswith(row + " "))
        assert all(math.isfinite(v) and v >= 0 for v in _numbers(line))
    assert "target 10x" in out


def test_nested_real_sizes_must_read_and_hold_the_blueprints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "nested", "--quick", "--real", "1/0.5,x;allin"]) == 2
    assert "pot fractions" in capsys.readouterr().err
    # The blueprint bets the pot on every round; a real game without it is refused.
    assert main(["experiment", "nested", "--quick", "--real", "1/0.5,2;allin;cap=2"]) == 2
    assert "must offer every size of the blueprint's" in capsys.readouterr().err


def test_export_round_trips_the_strategy(tmp_path) -> None:
    tg = tabular_game(load_game("leduc.nolimit.2p"), parse_abstraction("0.5,1;allin"))
    solver = CFRSolver(tg, DCFR)
    solver.run(30)
    strategy = solver.average_strategy()
    path = tmp_path / "leduc.strategy"
    save_strategy(path, tg.tree, tg.layout, strategy, algorithm="dcfr")
    out = tmp_path / "leduc.json"
    assert main(["export", str(path), "--game", "leduc.nolimit.2p", "--out", str(out)]) == 0
    document = json.loads(out.read_text())
    space, tree, lay = tg.space, tg.tree, tg.layout
    index = {}
    for node in np.flatnonzero(tree.kind == 0):
        index[(int(tree.player[node]), tree.states[node].betting)] = int(node)
    seen = 0
    for entry in document["entries"]:
        node = index[(entry["seat"], entry["betting"])]
        r = int(tree.round[node])
        board = tuple(space.boards[r][b].tolist() for b in range(space.n_boards[r]))
        b = board.index(list(parse_cards(entry["board"]))) if entry["board"] else 0
        h = space.hand_index(parse_cards(entry["hole"]))
        n_a = int(tree.child_count[node])
        start = lay.offset[node] + (b * space.n_hands + h) * n_a
        names = [str(a) for a in tree.actions(node)]
        assert list(entry["probabilities"]) == names
        assert list(entry["probabilities"].values()) == strategy[start : start + n_a].tolist()
        seen += 1
    # Every (node, board, hand) row whose hand fits the board is there exactly once.
    expected = sum(int(space.compat[tree.round[n]].sum()) for n in np.flatnonzero(tree.kind == 0))
    assert seen == expected == len({(e["seat"], e["betting"], e["board"], e["hole"]) for e in document["entries"]})
    # The reader gives the strategy back exactly, and refuses the file for another abstraction or a foreign entry.
    np.testing.assert_array_equal(policy_strategy(tg, read_policy(out)), strategy)
    with pytest.raises(ValueError, match="another game or action abstraction"):
        policy_strategy(tabular_game(load_game("leduc.nolimit.2p"), parse_abstraction("1;allin")), document)
    document["entries"][5]["hole"] = "2c"
    with pytest.raises(ValueError, match=r"entry 5 .* is not a decision, board and hand"):
        policy_strategy(tg, document)


def test_export_refuses_a_strategy_of_another_game(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    tg = tabular_game(load_game("kuhn.limit.2p"))
    path = tmp_path / "kuhn.strategy"
    save_strategy(path, tg.tree, tg.layout, tg.uniform_strategy())
    assert main(["export", str(path), "--game", "leduc.limit.2p", "--out", str(tmp_path / "x.json")]) == 2
    assert "different game" in capsys.readouterr().err
    with pytest.raises(ValueError, match="tabular layout"):
        export_policy(tmp_path / "y.json", tg, np.zeros(3))
