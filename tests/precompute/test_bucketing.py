"""Card abstraction: a tiny end-to-end build, resuming, loading with compatibility checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from precompute.bucketing import (
    ROUND_NAMES,
    AbstractionConfig,
    AbstractionError,
    CardAbstraction,
    build_abstraction,
    round_indexer,
)
from precompute.cli import main
from protocol.cards import parse_cards
from protocol.gamedef import load_game

GAME = load_game("holdem.nolimit.2p")
TINY = AbstractionConfig(
    buckets=(169, 8, 8, 8), preflop_boards=500, flop_runouts=10, turn_runouts=3, train_points=5_000, max_iter=5
)
TINY_ARGS = [
    "--preset", "small", "--buckets", "169,8,8,8", "--preflop-boards", "500", "--flop-runouts", "10",
    "--turn-runouts", "3", "--train-points", "5000", "--max-iter", "5", "--quiet",
]  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("abstraction")
    build_abstraction(GAME, out, TINY, show_progress=False)
    return out


def test_every_canonical_hand_has_a_bucket(built):
    abstraction = CardAbstraction.load(built, GAME, config=TINY)
    for round_, k in enumerate(TINY.buckets):
        buckets = np.asarray(abstraction.maps[round_])
        assert len(buckets) == round_indexer(round_).size
        # The build fails on an unassigned hand, so check the range and that no bucket is empty.
        assert np.bincount(buckets, minlength=k).size == k and (np.bincount(buckets) > 0).all()
    assert sorted(np.asarray(abstraction.maps[0]).tolist()) == list(range(169))  # lossless preflop


def test_buckets_follow_hand_strength_and_ignore_suit_names(built):
    abstraction = CardAbstraction.load(built, GAME)
    board = parse_cards("Ah7c2d9sKh")
    # The nuts and air on the river, a set and nothing on the flop: different buckets.
    assert abstraction.bucket(3, parse_cards("AcAd"), board) != abstraction.bucket(3, parse_cards("4c3h"), board)
    assert abstraction.bucket(1, parse_cards("7h7d"), board) != abstraction.bucket(1, parse_cards("4c3h"), board)
    # Renaming suits (c<->s, d<->h) moves no hand to another bucket.
    swap = {0: 3, 3: 0, 1: 2, 2: 1}
    rng = np.random.default_rng(0)
    for _ in range(50):
        cards = rng.permutation(52)[:7]
        renamed = [c - c % 4 + swap[c % 4] for c in cards]
        for round_, n in enumerate((0, 3, 4, 5)):
            assert abstraction.bucket(round_, cards[:2], cards[2 : 2 + n]) == abstraction.bucket(
                round_, renamed[:2], renamed[2 : 2 + n]
            )


def test_interrupted_build_resumes_to_the_same_result(built, tmp_path):
    # Stop inside the flop, then inside the turn (after the flop's checkpoint), then finish.
    # The river's map (123M entries, most of a build's time) is the fixture's: a finished
    # round is loaded, not rebuilt, and the river's assignment is the same chunked code.
    shutil.copy(built / "river.buckets", tmp_path / "river.buckets")
    build_abstraction(GAME, tmp_path, TINY, show_progress=False, stop_after_chunks=3)
    assert (tmp_path / "preflop.buckets").exists() and not (tmp_path / "flop.buckets").exists()
    assert (tmp_path / "checkpoints" / "flop.partial").exists()
    build_abstraction(GAME, tmp_path, TINY, show_progress=False, stop_after_chunks=60)
    assert (tmp_path / "flop.buckets").exists() and not (tmp_path / "turn.buckets").exists()
    build_abstraction(GAME, tmp_path, TINY, show_progress=False)
    assert not (tmp_path / "checkpoints").exists()
    resumed = CardAbstraction.load(tmp_path, GAME)
    straight = CardAbstraction.load(built, GAME)
    for name, a, b in zip(ROUND_NAMES, resumed.maps, straight.maps, strict=True):
        assert np.array_equal(a, b), name


def test_mismatches_are_refused(built, tmp_path):
    with pytest.raises(AbstractionError, match="different game"):
        CardAbstraction.load(built, load_game("holdem.limit.2p"))
    with pytest.raises(AbstractionError, match="built with config="):
        CardAbstraction.load(built, GAME, config=AbstractionConfig(buckets=(169, 8, 8, 9)))
    with pytest.raises(AbstractionError, match="built with config="):
        build_abstraction(GAME, built, AbstractionConfig(buckets=(169, 8, 8, 9)), show_progress=False)
    with pytest.raises(AbstractionError, match="does not exist"):
        CardAbstraction.load(tmp_path, GAME)
    with pytest.raises(AbstractionError, match="hold'em"):
        build_abstraction(load_game("leduc.limit.2p"), tmp_path, TINY)
    for bad in [{"buckets": (169, 8, 8)}, {"buckets": (170, 8, 8, 8)}, {"train_points": 4}, {"bins": 1}]:
        with pytest.raises(AbstractionError):
            AbstractionConfig(**bad)


def test_command_line(built, capsys):
    assert main(["abstraction", "--game", "holdem.nolimit.2p", "--out", str(built), *TINY_ARGS]) == 0
    assert "abstraction written" in capsys.readouterr().out
    other = ["--preset", "small", "--quiet"]
    assert main(["abstraction", "--game", "holdem.nolimit.2p", "--out", str(built), *other]) == 2
    assert "built with config=" in capsys.readouterr().err
    assert main(["equity", "AsAd", "Kh7c2d"]) == 0
    assert capsys.readouterr().out.startswith("0.887285 (exact")
    assert main(["index", "AsAdKh7c2d"]) == 0
    assert "of 1286792" in capsys.readouterr().out
    assert main(["equity", "AsAs"]) == 2
    assert "twice" in capsys.readouterr().err
    assert main(["abstraction", "--game", "kuhn.limit.2p", "--out", "unused"]) == 2
    assert "hold'em" in capsys.readouterr().err
