"""The saved checkpoint of the shipped blueprint's training run (precompute/data/training/):
it continues the shipped recipe's run (same seed, schedule, tree, block and card maps), its file is
the one its README names, and it holds at least the shipped blueprint's iterations."""

from __future__ import annotations

import hashlib
import re

from precompute.blueprint import DEFAULT_PATH, RECIPE_PATH
from solver.artifacts import decompressed, load_artifact, read_header
from solver.cfr.mccfr import CHECKPOINT_KIND

TRAINING = DEFAULT_PATH.parent / "training"
CHECKPOINT = TRAINING / "holdem.nolimit.2p.checkpoint.xz"
README = TRAINING / "README.md"


def test_the_saved_checkpoint_continues_the_shipped_run_and_matches_its_readme(tmp_path):
    header = read_header(CHECKPOINT)[0]
    shipped = read_header(DEFAULT_PATH)[0]["params"]
    assert header["kind"] == CHECKPOINT_KIND
    ours = header["params"]
    assert ours["config"] == shipped["schedule"] and ours["seed"] == shipped["seed"]
    assert ours["nodes"] == shipped["nodes"] and ours["action_abstraction"] == shipped["action_abstraction"]
    assert ours["block"] == shipped["block"] and ours["abstraction"] == shipped["card_preset"]
    # It continues on the shipped blueprint's own card maps (--cards-from that file), no others.
    assert ours["cards_hash"] == shipped["cards_hash"]
    text = README.read_text()
    digest = hashlib.sha256(CHECKPOINT.read_bytes()).hexdigest()
    assert f"sha256: {digest}" in text
    unpacked = decompressed(CHECKPOINT, tmp_path)
    iterations = int(load_artifact(unpacked, CHECKPOINT_KIND).arrays["iterations"][0])
    assert iterations >= shipped["iterations"]
    assert f"iterations: `{iterations:,}`" in text
    # The command that continues it names the shipped recipe's schedule.
    schedule = re.search(r"--schedule-iterations (\d+)", RECIPE_PATH.read_text()).group(1)
    assert f"--resume-from {CHECKPOINT.relative_to(DEFAULT_PATH.parents[2])}" in text
    assert f"--schedule-iterations {schedule}" in text
