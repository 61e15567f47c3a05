"""``dealer compare``: two bots against the same opponent on the same deals, paired per hand."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dealer.evaluation.compare import CompareError, compare_matches
from dealer.evaluation.estimates import default_decisions
from dealer.evaluation.matchlog import EvaluationError, read_match_log
from dealer.evaluation.render import finite
from dealer.evaluation.report import report_match

RUNS = {  # name: seats, seat names, seed
    "random": ("random call", "random,call", 4),
    "twin": ("random call", "twin,call", 4),  # the same bot under another name
    "fold": ("fold call", "folder,call", 4),
    "other-seed": ("fold call", "folder,call", 5),
    "random-5": ("random call", "random,call", 5),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, list[Path]]:
    """Five duplicate 200-hand matches (``dealer run``), started together."""
    root = tmp_path_factory.mktemp("compare")
    procs = {}
    for name, (seats, names, seed) in RUNS.items():
        command = [sys.executable, "-m", "dealer.cli", "run", *seats.split(), "--hands", "200", "--duplicate",
                   "--seed", str(seed), "--names", names, "--out", str(root / name), "--quiet"]  # fmt: skip
        procs[name] = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for name, proc in procs.items():
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{name}: {err}"
    return {name: sorted((root / name).glob("*.log")) for name in RUNS}


def test_the_same_bot_under_another_name_plays_every_hand_alike(runs):
    # Per-hand random streams: the twin draws what `random` drew, hand by hand.
    result = compare_matches(runs["random"], runs["twin"], out=io.StringIO())
    assert (result.candidate, result.baseline, result.opponents) == ("random", "twin", ["call"])
    assert result.hands == 400 and result.hands_alike == 400
    for name in ("raw", "duplicate", "aivat", "aivat+duplicate"):
        assert result.results[name].difference.mean == 0.0


def test_the_difference_is_the_candidates_mean_minus_the_baselines(runs, tmp_path):
    out = io.StringIO()
    result = compare_matches(runs["random"], runs["fold"], out=out, json_path=tmp_path / "c.json")
    raw = result.results["raw"]
    # Each side's own mean is what its own logs say.
    chips = [np.mean([v for p in runs[k] for v in read_match_log(p).seat_values(seat)]) for k, seat in
             (("random", "random"), ("fold", "folder"))]  # fmt: skip
    assert raw.candidate.mean == pytest.approx(chips[0]) and raw.baseline.mean == pytest.approx(chips[1])
    assert raw.difference.mean == pytest.approx(chips[0] - chips[1])
    # ... and their AIVAT means are dealer report's.
    report = report_match(runs["random"], runs["random"][0].parent / "decisions", out=io.StringIO(), guard=False)
    mine = report.lineups[0].results["random"].estimates["aivat"].stats.mean
    assert result.results["aivat"].candidate.mean == pytest.approx(mine)
    # Hands where `random` folds its small blind at once end alike against the folder.
    assert 0 < result.hands_alike < 400
    text = out.getvalue()
    assert "Paired comparison: random against folder, each facing call" in text and "p(better)" in text
    assert json.loads((tmp_path / "c.json").read_text())["results"]["raw"]["difference"]["hands"] == 400


def test_logs_that_cannot_be_paired_are_refused_in_one_sentence(runs):
    with pytest.raises(CompareError, match="no baseline log has the game, seed"):
        compare_matches(runs["random"], runs["other-seed"], out=io.StringIO())
    with pytest.raises(CompareError, match="differ in exactly one seat name"):
        compare_matches(runs["random"], runs["random"], out=io.StringIO())
    with pytest.raises(CompareError, match="--seat nobody: no log of the first set"):
        compare_matches(runs["random"], runs["random"], seat="nobody", out=io.StringIO())
    # With --seat, one name compared in both sets (here the same logs: every hand alike).
    assert compare_matches(runs["random"], runs["random"], seat="random", out=io.StringIO()).hands_alike == 400


def test_the_command_line(runs):
    ok = subprocess.run(
        [sys.executable, "-m", "dealer.cli", "compare", *map(str, runs["random"]), "--baseline", *map(str, runs["fold"])],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert "random against folder" in ok.stdout and "aivat+duplicate" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "dealer.cli", "compare", *map(str, runs["random"]), "--baseline", *map(str, runs["other-seed"])],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 1 and bad.stderr.startswith("dealer compare: no baseline log") and bad.stderr.count("\n") == 1


def test_logs_of_several_runs_read_the_decision_logs_beside_them(runs):
    # Both runs name their matches match.1 and match.2; one index over both folders
    # would see two seats log the same position of the same hand.
    logs = runs["random"] + runs["twin"]
    report = report_match(logs, default_decisions(logs, None), out=io.StringIO(), guard=False)
    lineups = {tuple(sorted(lu.seats)): lu for lu in report.lineups}
    assert lineups[("call", "random")].results["random"].decisions_corrected > 0
    assert lineups[("call", "twin")].results["twin"].decisions_corrected > 0
    assert len(report.decision_logs) == 8
    with pytest.raises(EvaluationError, match="logged decisions for position 0 of hand 0"):
        folder = logs[0].parent.parent
        report_match(logs, folder, out=io.StringIO())  # every decision log under one folder: ambiguous


def test_logs_evaluated_in_worker_processes_give_the_same_report(runs):
    logs = runs["random"] + runs["fold"]
    one = report_match(logs, default_decisions(logs, None), out=io.StringIO())
    two = report_match(logs, default_decisions(logs, None), out=io.StringIO(), jobs=2)
    assert json.dumps(finite(two.as_dict())) == json.dumps(finite(one.as_dict()))
    paired = compare_matches(runs["random"], runs["fold"], out=io.StringIO(), jobs=2).as_dict()["results"]
    alone = compare_matches(runs["random"], runs["fold"], out=io.StringIO()).as_dict()["results"]
    assert json.dumps(finite(paired)) == json.dumps(finite(alone))
    bad = subprocess.run([sys.executable, "-m", "dealer.cli", "report", str(logs[0]), "--jobs", "0"],
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert bad.returncode == 2 and "--jobs: expected a whole number of at least 1, got '0'" in bad.stderr


def test_chunks_saved_and_pooled_equal_the_comparison_of_all_their_logs(runs, tmp_path):
    # A comparison played in two sittings (seeds 4 and 5), each chunk saved, then pooled.
    day1, both = tmp_path / "day1.json.gz", tmp_path / "both.json"
    compare_matches(runs["random"], runs["fold"], out=io.StringIO(), save_values_path=day1)
    out = io.StringIO()
    pooled = compare_matches(runs["random-5"], runs["other-seed"], out=out, pool_files=[day1], save_values_path=both)
    together = compare_matches(runs["random"] + runs["random-5"], runs["fold"] + runs["other-seed"], out=io.StringIO())
    assert pooled.hands == together.hands == 800 and pooled.hands_alike == together.hands_alike
    for name in ("raw", "duplicate", "aivat", "aivat+duplicate"):
        mine, theirs = pooled.results[name], together.results[name]
        assert mine.difference.hands == theirs.difference.hands
        assert mine.difference.mean == pytest.approx(theirs.difference.mean, abs=1e-12)
        assert mine.difference.p_value == pytest.approx(theirs.difference.p_value, rel=1e-9, nan_ok=True)
        assert mine.difference.std == pytest.approx(theirs.difference.std, rel=1e-9, nan_ok=True)
    assert "pooled: the logs given + " in out.getvalue()
    # The saved pool alone, from the command line, says the same.
    ok = subprocess.run([sys.executable, "-m", "dealer.cli", "compare", "--pool", str(both), "--json", str(tmp_path / "c.json")],
                        capture_output=True, text=True, timeout=120)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    saved = json.loads((tmp_path / "c.json").read_text())["results"]["aivat+duplicate"]["difference"]
    assert saved["mean"] == pytest.approx(pooled.results["aivat+duplicate"].difference.mean, abs=1e-12)


def test_pooling_the_same_deals_twice_or_other_seats_is_refused(runs, tmp_path):
    day1 = tmp_path / "day1.json"
    compare_matches(runs["random"], runs["fold"], out=io.StringIO(), save_values_path=day1)
    with pytest.raises(CompareError, match=r"both hold the deals of seed 4 .* count those hands twice"):
        compare_matches(runs["random"], runs["fold"], out=io.StringIO(), pool_files=[day1])
    twin = tmp_path / "twin.json"
    compare_matches(runs["random-5"], runs["random-5"], seat="random", out=io.StringIO(), save_values_path=twin)
    with pytest.raises(CompareError, match=r"has baseline 'random' where .* has 'folder'; only comparisons of the same"):
        compare_matches([], [], out=io.StringIO(), pool_files=[day1, twin])
    (tmp_path / "junk.json").write_text("{}")
    with pytest.raises(CompareError, match=r"junk\.json is not a values file written by dealer compare --save-values"):
        compare_matches([], [], out=io.StringIO(), pool_files=[tmp_path / "junk.json"])
    for argv, said in ((["--pool"], "expected at least one argument"),
                       ([str(runs["random"][0])], "--baseline LOG ... is required with match logs"),
                       ([], "give match logs and --baseline logs, or --pool values files")):  # fmt: skip
        bad = subprocess.run([sys.executable, "-m", "dealer.cli", "compare", *argv], capture_output=True, text=True, timeout=60)
        assert bad.returncode in (1, 2) and said in bad.stderr, bad.stderr
