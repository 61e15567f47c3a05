"""``precompute blueprint --quick``: trains, checkpoints, resumes exactly (with 1 or 2 threads),
saves a blueprint the loading API plays from; the shipped default loads and matches its recipe."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from precompute.blueprint import DEFAULT_PATH, RECIPE_PATH, Blueprint, OffTreeAction
from precompute.blueprint_train import stronger_recipe
from precompute.bucketing import KIND as CARDS_KIND
from precompute.cli import main
from precompute.treecache import ARRAYS, LazyStates, cached_tree
from protocol.fasteval import HOLE_PAIRS
from protocol.gamedef import load_game
from protocol.rules import CALL, FOLD, raise_to
from solver.artifacts import ArtifactError, compress, load_artifact, read_header, save_artifact
from solver.bets import parse_abstraction
from solver.tree import build_tree
from tests.precompute.conftest import QUICK_BLUEPRINT

QUICK = QUICK_BLUEPRINT


@pytest.fixture(scope="module")
def runs(tmp_path_factory, quick_blueprint):
    """One straight quick run (2 threads, 4,096 iterations: the shared one) and one
    (1 thread) trained to 2,048 iterations on the schedule of 4,096, then continued to 4,096."""
    straight = tmp_path_factory.mktemp("straight") / "run"
    shutil.copytree(quick_blueprint, straight)
    resumed = tmp_path_factory.mktemp("resumed")
    shutil.copytree(straight / "cards", resumed / "cards")  # deterministic; saves rebuilding it
    first = ["--out", str(resumed), "--threads", "1", "--iterations", "2048", "--schedule-iterations", "4096"]
    assert main([*QUICK, *first]) == 0
    halfway = load_artifact(resumed / "checkpoint.mccfr", "mccfr-checkpoint")
    assert int(halfway.arrays["iterations"][0]) == 2048
    shutil.copy(resumed / "checkpoint.mccfr", resumed / "halfway.mccfr")  # for the --resume-from test
    assert read_header(resumed / "blueprint.art")[0]["params"]["schedule_iterations"] == 4096
    assert main([*QUICK, "--out", str(resumed), "--threads", "1", "--iterations", "4096"]) == 0
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


def test_averaging_every_round_changes_the_strategy_played_not_the_regrets(runs, tmp_path):
    # --average-rounds 4 keeps the average on turn and river too: no extra random draw,
    # so the regrets equal the default run's and only the played strategy differs there.
    straight = runs[0]
    shutil.copytree(straight / "cards", tmp_path / "cards")
    assert main([*QUICK, "--out", str(tmp_path), "--average-rounds", "4"]) == 0
    a = load_artifact(straight / "checkpoint.mccfr", "mccfr-checkpoint").arrays
    b = load_artifact(tmp_path / "checkpoint.mccfr", "mccfr-checkpoint").arrays
    np.testing.assert_array_equal(a["regret"], b["regret"])
    kept = a["avg"] != 0
    np.testing.assert_array_equal(a["avg"][kept], b["avg"][kept])
    assert np.count_nonzero(b["avg"]) > 1.5 * np.count_nonzero(a["avg"])  # turn and river averaged too
    sa = load_artifact(straight / "blueprint.art", "blueprint").arrays["strategy"]
    sb = load_artifact(tmp_path / "blueprint.art", "blueprint").arrays["strategy"]
    assert sa.shape == sb.shape and not np.array_equal(sa, sb)
    assert main([*QUICK, "--out", str(tmp_path / "x"), "--average-rounds", "5"]) != 0


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


def test_bad_options_are_one_sentence_errors(tmp_path, capsys, runs):
    assert main([*QUICK, "--out", str(tmp_path), "--stop-at", "1000"]) == 2
    assert "multiple of the block (512)" in capsys.readouterr().err
    assert main([*QUICK, "--out", str(tmp_path), "--schedule-iterations", "0"]) == 2
    assert "--schedule-iterations must be positive" in capsys.readouterr().err
    # Continuing a finished run to more iterations needs the schedule it was trained on.
    more = tmp_path / "more"
    shutil.copytree(runs[0], more)
    assert main([*QUICK, "--out", str(more), "--iterations", "8192"]) == 2
    err = capsys.readouterr().err
    assert "another Pluribus schedule; continue it with --schedule-iterations 4096" in err and "\n" not in err.strip()
    assert main([*QUICK, "--out", str(more), "--iterations", "2048", "--schedule-iterations", "4096"]) == 2
    assert "has 4096 iterations, more than --iterations 2048" in capsys.readouterr().err
    assert main([*QUICK, "--out", str(more), "--iterations", "8192", "--schedule-iterations", "4096",
                 "--average-rounds", "4"]) == 2  # fmt: skip
    assert "trained with --average-rounds 2; continue it with --average-rounds 2" in capsys.readouterr().err
    assert main(["blueprint", "--game", "holdem.nolimit.2p", "--out", str(tmp_path)]) == 2
    assert "give --iterations" in capsys.readouterr().err


def test_the_shipped_default_loads_matches_its_recipe_and_the_quick_layout(runs):
    assert DEFAULT_PATH.exists() and DEFAULT_PATH.stat().st_size <= 50 * 2**20
    bp = Blueprint.load(verify=True)
    header = read_header(bp.path)[0]
    assert header["content_hash"] == read_recipe_hash(RECIPE_PATH)
    assert f"seed: `{bp.params['seed']}`" in RECIPE_PATH.read_text()
    assert "\n".join(stronger_recipe(bp.params)) in RECIPE_PATH.read_text()
    quick = Blueprint.load(runs[0] / "blueprint.art")
    assert quick.layout.rows == bp.layout.rows
    np.testing.assert_array_equal(quick.layout.offset, bp.layout.offset)
    assert quick.params["action_abstraction"] == bp.params["action_abstraction"]
    p = bp.strategy_at(bp.root, [48, 49])  # aces
    assert p.sum() == pytest.approx(1) and p[0] == 0  # nobody folds aces first in


def test_a_cached_tree_reads_back_equal_to_the_built_one(tmp_path):
    game = load_game("holdem.nolimit.2p")
    abstraction = parse_abstraction("0.5,1/1;allin;cap=2")
    built = build_tree(game, abstraction)
    first = cached_tree(game, abstraction, tmp_path)  # builds and saves
    (path,) = tmp_path.glob("tree-*.npz")
    again = cached_tree(game, abstraction, tmp_path)  # reads
    assert isinstance(again.states, LazyStates) and again.n_nodes == built.n_nodes == first.n_nodes
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(again, name), getattr(built, name), err_msg=name)
    order = np.random.default_rng(0).permutation(built.n_nodes)  # any order: deep nodes first too
    assert all(again.states[int(n)] == built.states[int(n)] for n in order)
    # Another abstraction is another file; a damaged file is rebuilt, not trusted.
    cached_tree(game, parse_abstraction("1;allin;cap=2"), tmp_path)
    assert len(list(tmp_path.glob("tree-*.npz"))) == 2
    path.write_bytes(b"not an npz")
    rebuilt = cached_tree(game, abstraction, tmp_path)
    assert not isinstance(rebuilt.states, LazyStates) and rebuilt.n_nodes == built.n_nodes
    assert isinstance(cached_tree(game, abstraction, tmp_path).states, LazyStates)


def test_loading_a_blueprint_caches_its_tree(runs, tmp_path, monkeypatch):
    monkeypatch.setenv("ACPC_CACHE_DIR", str(tmp_path))
    first = Blueprint.load(runs[0] / "blueprint.art")
    assert len(list((tmp_path / "trees").glob("tree-*.npz"))) == 1
    second = Blueprint.load(runs[0] / "blueprint.art")
    assert isinstance(second.tree.states, LazyStates)
    np.testing.assert_array_equal(first.layout.offset, second.layout.offset)
    node = second.node_after([raise_to(300), CALL])
    assert second.tree.states[node] == first.tree.states[node] and second.tree.round[node] == 1


def read_recipe_hash(path: Path = RECIPE_PATH) -> str:
    """The ``content_hash:`` line of a RECIPE.md (the shipped blueprint's arrays' SHA-256).

    Raises:
        ArtifactError: if the file has no such line.
    """
    for line in path.read_text().splitlines():
        if line.strip().startswith("content_hash:"):
            return line.split(":", 1)[1].strip().strip("`")
    raise ArtifactError(f"{path} records no 'content_hash:' line")


def test_a_run_resumes_from_a_saved_compressed_checkpoint_in_a_new_folder(runs, tmp_path, capsys):
    """``--resume-from``: a checkpoint saved elsewhere (xz) starts a new folder, and the run
    continues exactly: the same arrays as the straight run."""
    straight, resumed = runs
    # The fixture's run stopped at 2,048 iterations of 4,096 (--threads 1: the same arrays).
    saved = compress(resumed / "halfway.mccfr", tmp_path / "saved.mccfr.xz", preset=1)  # the format, not the size
    later = tmp_path / "later"
    shutil.copytree(straight / "cards", later / "cards")
    assert main([*QUICK, "--out", str(later), "--iterations", "4096", "--resume-from", str(saved)]) == 0
    a = load_artifact(straight / "checkpoint.mccfr", "mccfr-checkpoint").arrays
    b = load_artifact(later / "checkpoint.mccfr", "mccfr-checkpoint").arrays
    for name in ("regret", "avg", "rng", "iterations"):
        np.testing.assert_array_equal(a[name], b[name])
    capsys.readouterr()
    # A folder with its own checkpoint is not overwritten; a missing or broken file is one sentence.
    assert main([*QUICK, "--out", str(later), "--iterations", "4096", "--resume-from", str(saved)]) == 2
    assert "already holds a checkpoint" in capsys.readouterr().err
    assert main([*QUICK, "--out", str(tmp_path / "x"), "--resume-from", str(tmp_path / "none.xz")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "bad.xz").write_bytes(b"not xz")
    assert main([*QUICK, "--out", str(tmp_path / "y"), "--resume-from", str(tmp_path / "bad.xz")]) == 2
    assert "not valid xz data" in capsys.readouterr().err


def test_a_run_never_continues_on_other_card_maps(runs, tmp_path, capsys):
    """The checkpoint records its card maps' hash: a folder whose maps differ in one entry
    (a rebuild on another machine: 2026-11-30, 0.067% of the flop map) is refused in one sentence,
    and ``--cards-from`` the run's own blueprint puts its maps back and continues it exactly."""
    straight, resumed = runs
    header = read_header(straight / "checkpoint.mccfr")[0]["params"]
    assert header["cards_hash"] == read_header(straight / "blueprint.art")[0]["params"]["cards_hash"]
    moved = tmp_path / "moved"
    moved.mkdir()
    shutil.copy(resumed / "halfway.mccfr", moved / "checkpoint.mccfr")  # 2,048 of 4,096 iterations
    shutil.copytree(straight / "cards", moved / "cards")
    flop = load_artifact(moved / "cards" / "flop.buckets", CARDS_KIND)
    buckets = np.array(flop.arrays["buckets"])
    buckets[0] = (buckets[0] + 1) % (buckets.max() + 1)
    save_artifact(moved / "cards" / "flop.buckets", CARDS_KIND, {**flop.arrays, "buckets": buckets},
                  game=load_game("holdem.nolimit.2p"), params=flop.params)  # fmt: skip
    assert main([*QUICK, "--out", str(moved), "--iterations", "4096"]) == 2
    err = capsys.readouterr().err
    assert "was trained on other card maps" in err and "--cards-from" in err and "\n" not in err.strip()
    # --cards-from refuses a folder holding other maps; in a new folder it continues exactly.
    assert main([*QUICK, "--out", str(moved), "--iterations", "4096", "--cards-from", str(straight / "blueprint.art")]) == 2
    assert "holds other flop buckets than --cards-from" in capsys.readouterr().err
    again = tmp_path / "again"
    again.mkdir()
    shutil.copy(resumed / "halfway.mccfr", again / "checkpoint.mccfr")
    assert main([*QUICK, "--out", str(again), "--iterations", "4096", "--cards-from", str(straight / "blueprint.art")]) == 0
    a = load_artifact(straight / "checkpoint.mccfr", "mccfr-checkpoint").arrays
    b = load_artifact(again / "checkpoint.mccfr", "mccfr-checkpoint").arrays
    for name in ("regret", "avg", "rng", "iterations"):
        np.testing.assert_array_equal(a[name], b[name])
    capsys.readouterr()
    assert main([*QUICK, "--out", str(tmp_path / "z"), "--cards-from", str(tmp_path / "none.art")]) == 2
    assert "--cards-from" in (err := capsys.readouterr().err) and "no such file" in err
