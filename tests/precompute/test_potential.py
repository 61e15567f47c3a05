"""Potential-aware card abstraction: the quick preset partitions every canonical hand, is
reproducible from its seed, and a blueprint trains on it, saves and loads."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from precompute.blueprint import Blueprint
from precompute.bucketing import PRESETS, AbstractionError, build_abstraction, round_indexer
from precompute.cli import main
from precompute.potential import RIVER_FILE, build_card_abstraction, load_river
from protocol.cards import parse_cards
from protocol.gamedef import load_game
from solver.artifacts import load_artifact
from solver.tree import DECISION

GAME = load_game("holdem.nolimit.2p")
QUICK = PRESETS["potential-quick"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``precompute blueprint --quick --cards potential-quick``: the card build, then 4,096 iterations."""
    out = tmp_path_factory.mktemp("potential")
    args = ["blueprint", "--game", "holdem.nolimit.2p", "--quick", "--cards", "potential-quick", "--quiet"]
    assert main([*args, "--out", str(out)]) == 0
    return out


def test_buckets_partition_every_canonical_hand(trained):
    for round_, name in ((0, "preflop"), (1, "flop"), (2, "turn")):
        buckets = np.asarray(load_artifact(trained / "cards" / f"{name}.buckets", "buckets").arrays["buckets"])
        k = QUICK.buckets[round_]
        assert buckets.shape == (round_indexer(round_).size,)
        assert buckets.max() < k  # every index has a bucket in range (the build refuses unassigned ones)
        assert (np.bincount(buckets, minlength=k) > 0).all()  # and no bucket is empty
    river = load_river(trained / "cards", GAME)
    assert river.centers.shape == (QUICK.buckets[3], QUICK.ochs_clusters)
    assert set(np.unique(river.pair_cluster)) == set(range(QUICK.ochs_clusters))


def test_the_blueprint_plays_the_potential_river(trained):
    bp = Blueprint.load(trained / "blueprint.art")
    assert bp.params["card_preset"] == "potential-quick" and bp.params["river"] == "ochs"
    assert bp.cards.river is not None
    np.testing.assert_array_equal(bp.cards.river.centers, load_river(trained / "cards", GAME).centers)
    board = parse_cards("Ah7c2d9sKh")
    # The nuts and air on the river land in different buckets, and a range row is a distribution.
    assert bp.bucket(3, parse_cards("AcAd"), board) != bp.bucket(3, parse_cards("4c3h"), board)
    river_node = next(n for n in range(bp.tree.n_nodes) if bp.tree.round[n] == 3 and bp.tree.kind[n] == DECISION)
    rows = bp.range_strategy(river_node, board)
    live = rows.sum(axis=1) > 0
    np.testing.assert_allclose(rows[live].sum(axis=1), 1.0)
    assert live.sum() == 1081


@pytest.mark.slow
def test_an_interrupted_build_resumes_to_the_same_arrays(trained, tmp_path):
    """Reproducible from the seed: a build stopped after one flop assignment chunk (its
    centers and partial buckets checkpointed) and run again equals the first array for
    array.  The rounds built before the flop are the fixture's (a finished round is
    loaded, not rebuilt; every round's assignment is the same chunked code, so the flop,
    the cheapest, stands for the turn)."""
    for name in ("preflop.buckets", "turn.buckets", RIVER_FILE):
        shutil.copy(trained / "cards" / name, tmp_path / name)
    build_card_abstraction(GAME, tmp_path, QUICK, show_progress=False, stop_after_chunks=1)
    again = load_artifact(tmp_path / "checkpoints" / "flop.centers", "kmeans_centers").arrays["centers"]
    built = load_artifact(trained / "cards" / "flop.buckets", "buckets").arrays["centers"]
    np.testing.assert_array_equal(again, built)
    assert not (tmp_path / "flop.buckets").exists()
    assert any(path.name != "flop.centers" for path in (tmp_path / "checkpoints").iterdir())  # a partial assignment
    build_card_abstraction(GAME, tmp_path, QUICK, show_progress=False)
    for name in ("preflop.buckets", "flop.buckets", "turn.buckets", RIVER_FILE):
        kind = "river_ochs" if name == RIVER_FILE else "buckets"
        a, b = (load_artifact(folder / name, kind).arrays for folder in (tmp_path, trained / "cards"))
        assert a.keys() == b.keys()
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
    assert not (tmp_path / "checkpoints").exists()


def test_the_equity_builder_refuses_a_potential_configuration(tmp_path):
    with pytest.raises(AbstractionError, match="potential-aware"):
        build_abstraction(GAME, tmp_path, QUICK, show_progress=False)


def test_worker_processes_train_on_the_potential_river(trained, tmp_path):
    """--workers ships the river centers to the worker processes, and the artifact keeps them."""
    shutil.copytree(trained / "cards", tmp_path / "cards")
    args = ["blueprint", "--game", "holdem.nolimit.2p", "--cards", "potential-quick", "--quiet", "--iterations", "512"]
    assert main([*args, "--block", "256", "--workers", "1", "--out", str(tmp_path)]) == 0
    regret = load_artifact(tmp_path / "checkpoint.mccfr", "mccfr-checkpoint").arrays["regret"]
    assert np.count_nonzero(regret) > 0
    bp = Blueprint.load(tmp_path / "blueprint.art")
    assert bp.params["workers"] == 1 and bp.cards.river is not None
    np.testing.assert_array_equal(bp.cards.river.centers, load_river(trained / "cards", GAME).centers)
