"""``precompute blueprint --quick``: trains, checkpoints, resumes exactly (with 1 or 2 threads),
saves a blueprint the loading API plays from; the shipped default loads and matches its recipe."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from precompute.blueprint import DEFAULT_PATH, RECIPE_PATH, Blueprint, OffTreeAction, read_recipe_hash
from precompute.cli import main
from protocol.fasteval import HOLE_PAIRS
from protocol.rules import CALL, FOLD, raise_to
from solver.artifacts import load_artifact, read_header

QUICK = ["blueprint", "--game", "holdem.nolimit.2p", "--quick", "--quiet", "--block", "512"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One straight quick run (2 threads) and one stopped halfway then resumed (1 thread)."""
    straight = tmp_path_factory.mktemp("straight")
    assert main([*QUICK, "--out", str(straight)]) == 0
    resumed = tmp_path_factory.mktemp("resumed")
    shutil.copytree(straight / "cards", resumed / "cards")  # deterministic; saves rebuilding it
    assert main([*QUICK, "--out", str(resumed), "--threads", "1", "--stop-at", "2048"]) == 0
    halfway = load_artifact(resumed / "checkpoint.mccfr", "mccfr-checkpoint")
    assert int(halfway.arrays["iterations"][0]) == 2048
    assert main([*QUICK, "--out", str(resumed), "--threads", "1"]) == 0
    return straight, resumed


def test_resumed_run_with_one_thread_equals_the_straight_run_with_two(runs):
    straight, resumed = runs
    a = load_artifact(straight / "checkpoint.mccfr", "mccfr-checkpoint").arrays
    b = load_artifact(resumed / "checkpoint.mccfr", "mccfr-checkpoint").arrays
    assert int(a["iterations"][0]) == int(b["iterations"][0]) == 4096
    for name in ("regret", "avg", "rng"):
        np.testing.assert_array_equal(a[name], b[name])
    assert np.count_nonzero(a["regret"]) > 10_000  # it trained
    ha, hb = read_header(straight / "blueprint.art")[0], read_header(resumed / "blueprint.art")[0]
    assert ha["content_hash"] == hb["content_hash"]


def test_strategies_are_distributions_along_a_hand(runs):
    bp = Blueprint.load(runs[0] / "blueprint.art", verify=True)
    board = [10, 23, 31, 44, 50]
    node = bp.root
    assert bp.tree.round[node] == 0
    rounds = []
    for _ in range(6):  # check it down: rounds 0, 1, 1, 2, 2, 3
        node = bp.child(node, CALL)
        rounds.append(int(bp.tree.round[node]))
        seen = board[: (0, 3, 4, 5)[rounds[-1]]]
        p = bp.strategy_at(node, [0, 1], seen)
        assert p.shape == (len(bp.actions(node)),) and (p >= 0).all() and p.sum() == pytest.approx(1)
        table = bp.range_strategy(node, seen)
        blocked = np.isin(HOLE_PAIRS, seen).any(axis=1)
        assert table.shape == (1326, len(bp.actions(node)))
        np.testing.assert_allclose(table[~blocked].sum(axis=1), 1.0)
        assert (table[blocked] == 0).all()
        np.testing.assert_allclose(table[0], p)  # HOLE_PAIRS[0] is (0, 1)
    assert rounds == [0, 1, 1, 2, 2, 3]
    assert bp.node_after([CALL, CALL]) == bp.child(bp.child(bp.root, CALL), CALL)
    with pytest.raises(OffTreeAction, match="r333 is not in the blueprint's tree"):
        bp.child(bp.root, raise_to(333))
    assert bp.tree.kind[bp.child(bp.root, FOLD)] != 0  # a fold ends the hand


def test_bad_options_are_one_sentence_errors(tmp_path, capsys):
    assert main([*QUICK, "--out", str(tmp_path), "--stop-at", "1000"]) == 2
    assert "multiple of the block (512)" in capsys.readouterr().err
    assert main(["blueprint", "--game", "holdem.nolimit.2p", "--out", str(tmp_path)]) == 2
    assert "give --iterations" in capsys.readouterr().err


def test_the_shipped_default_loads_matches_its_recipe_and_the_quick_layout(runs):
    assert DEFAULT_PATH.exists() and DEFAULT_PATH.stat().st_size <= 50 * 2**20
    bp = Blueprint.load(verify=True)
    header = read_header(bp.path)[0]
    assert header["content_hash"] == read_recipe_hash(RECIPE_PATH)
    assert f"seed: `{bp.params['seed']}`" in RECIPE_PATH.read_text()
    quick = Blueprint.load(runs[0] / "blueprint.art")
    assert quick.layout.rows == bp.layout.rows
    np.testing.assert_array_equal(quick.layout.offset, bp.layout.offset)
    assert quick.params["action_abstraction"] == bp.params["action_abstraction"]
    p = bp.strategy_at(bp.root, [48, 49])  # aces
    assert p.sum() == pytest.approx(1) and p[0] == 0  # nobody folds aces first in
