"""``dealer report``: the table, the JSON summary, the CLI's errors, and the plot's data."""

from __future__ import annotations

import argparse
import builtins
import io
import json
import subprocess
import sys

import numpy as np
import pytest

from dealer.bots import POLICIES
from dealer.evaluation.aivat import load_decision_logs, stream_decision_logs
from dealer.evaluation.arguments import add_report_arguments
from dealer.evaluation.estimates import DelayedProgress
from dealer.evaluation.matchlog import read_match_log
from dealer.evaluation.render import PlotError, cumulative_with_band, finite
from dealer.evaluation.report import report_match, run_report
from dealer.evaluation.stats import summarize
from protocol.gamedef import load_game
from tests.dealer.evaluation.simulate import evaluate_match, simulate_match
from tests.reference import GAMES, LOGS


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dealer report")
    add_report_arguments(parser)
    return run_report(parser.parse_args([str(a) for a in argv]))


@pytest.fixture(scope="module")
def mirrored(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    game = load_game("leduc.limit.2p")
    # Alice's logs name her baseline; Bob's strategy is his own (logged, never declared).
    alice, bob = ("Alice", POLICIES["random"]), ("Bob", lambda state: POLICIES["call"](state))
    sims = [
        simulate_match(game, [alice, bob], 400, 9, name="match.1"),
        simulate_match(game, [bob, alice], 400, 9, name="match.2", logging=["Bob"]),
    ]
    return folder, sims, [s.write(folder) for s in sims]


def test_report_table_and_json(mirrored, tmp_path):
    folder, sims, paths = mirrored
    out = io.StringIO()
    summary = report_match(paths, folder / "decisions", out=out, json_path=tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text()) == finite(summary.as_dict())
    (lineup,) = summary.lineups
    assert lineup.seats == ["Alice", "Bob"] and lineup.duplicate_hands == 400
    alice = lineup.results["Alice"]
    estimate = {name: e.stats for name, e in alice.estimates.items()}
    raw = np.concatenate([s.match_log().seat_values("Alice") for s in sims])
    assert estimate["raw"].as_dict() == pytest.approx(summarize(raw, 1).as_dict())
    # Alice declared her policy in match.1, so there AIVAT also averages over her cards.
    aivat = np.concatenate(
        [
            evaluate_match(
                s.match_log(), s.decision_index(), strategies={"Alice": POLICIES["random"]} if s.name == "match.1" else None
            ).aivat[:, s.seats.index("Alice")]
            for s in sims
        ]
    )
    assert estimate["aivat"].mean == pytest.approx(aivat.mean()) and estimate["aivat"].hands == 800
    # Alice logged in match.1 only; Bob in both.
    assert alice.decisions_corrected == sum(1 for seat, d in sims[0].decisions if seat == "Alice")
    assert lineup.results["Bob"].decisions_corrected == sum(1 for s in sims for seat, _ in s.decisions if seat == "Bob")
    text = out.getvalue()
    assert "Alice vs Bob" in text and "AIVAT cut the standard deviation by" in text
    assert "imaginary observations over the private cards of Alice (declares random)" in text
    assert alice.strategy_used == "random" and lineup.results["Bob"].strategy_used is None
    for estimator in ("raw", "duplicate", "aivat", "aivat+duplicate"):
        assert f"Alice  {estimator} " in text
    # Every hand is paired here, so pairing moves no mean, only the spread.
    assert estimate["aivat+duplicate"].mean == pytest.approx(estimate["aivat"].mean)
    assert estimate["duplicate"].total == pytest.approx(estimate["raw"].total / 2)
    assert alice.std_reduction["aivat"] == pytest.approx(1 - estimate["aivat"].std / estimate["raw"].std)
    assert alice.std_reduction["duplicate"] == pytest.approx(1 - estimate["duplicate"].std * np.sqrt(2) / estimate["raw"].std)


def test_cli_finds_decisions_next_to_the_logs(mirrored, capsys):
    _, _, paths = mirrored
    assert _cli(paths) == 0
    assert "AIVAT action corrections: Alice" in capsys.readouterr().out


def test_cli_on_reference_logs(capsys):
    assert _cli([LOGS / "kuhn3p_s15.log", "--game", GAMES / "kuhn.limit.3p.game"]) == 0
    text = capsys.readouterr().out
    assert "Alice vs Bob vs Carol" in text and "chance corrections only" in text
    assert "Carol  aivat" in text
    # The header names leduc.game, which is not at hand: one sentence, exit code 1.
    assert _cli([LOGS / "leducnl_s16.log"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("dealer report: ") and "'leduc.game'" in err and len(err.splitlines()) == 1


def test_cut_off_log_is_reported_with_a_note(tmp_path, capsys):
    text = (LOGS / "leducnl_s16.log").read_text()
    cut = tmp_path / "cut.log"
    cut.write_text(text[: text.rindex("STATE:") + 20])
    assert _cli([cut, "--game", GAMES / "leduc.nolimit.2p.game"]) == 0
    out = capsys.readouterr().out
    assert "999" in out and "note:" in out and "cut off" in out


def test_plot_without_matplotlib_is_one_sentence(mirrored, monkeypatch, tmp_path, capsys):
    _, _, paths = mirrored
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(PlotError, match="needs matplotlib"):
        report_match(paths[:1], None, out=io.StringIO(), plot_path=tmp_path / "p.png")
    assert _cli([paths[0], "--plot", tmp_path / "p.png"]) == 1
    assert "needs matplotlib" in capsys.readouterr().err


def test_cumulative_band_is_one_standard_error_of_the_total():
    x = np.array([1.0, -2.0, 4.0, 0.0])
    hands, total, low, high = cumulative_with_band(x)
    assert hands.tolist() == [1, 2, 3, 4] and total.tolist() == [1, -1, 3, 3]
    s = x.std(ddof=1)
    assert high - total == pytest.approx(s * np.sqrt([1, 2, 3, 4]))
    assert total - low == pytest.approx(high - total)


# --- what a new user tried (issue 16) -------------------------------------------------


def _one_sentence(err: str) -> str:
    err = err.strip()
    assert err.startswith("dealer report: ") and len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_reference_log_alone_in_a_folder_needs_no_game(tmp_path, capsys):
    """The header names the reference dealer's own game file, which is not at hand."""
    lines = (LOGS / "nolimit2p_s11.log").read_text().splitlines(keepends=True)
    alone = tmp_path / "nolimit2p_s11.log"
    alone.write_text("".join(lines[:105]))  # the header and 100 hands, no SCORE line
    assert "holdem.nolimit.2p.reverse_blinds.game" in lines[0]
    assert _cli([alone]) == 0
    assert "Alice vs Bob - holdem.nolimit.2p.reverse_blinds.game" in capsys.readouterr().out


def test_huge_hand_number_is_one_sentence(tmp_path, capsys):
    lines = (LOGS / "kuhn3p_s15.log").read_text().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith("STATE:"))
    lines[first] = lines[first].replace("STATE:0:", "STATE:" + "9" * 5000 + ":", 1)
    (tmp_path / "big.log").write_text("".join(lines))
    assert _cli([tmp_path / "big.log", "--game", "kuhn.limit.3p"]) == 1
    err = _one_sentence(capsys.readouterr().err)
    assert f"big.log:{first + 1}:" in err and len(err) < 300


def test_json_into_a_missing_folder_is_created(mirrored, tmp_path, capsys):
    _, _, paths = mirrored
    target = tmp_path / "new" / "deeper" / "r.json"
    assert _cli([paths[0], "--json", target]) == 0
    assert json.loads(target.read_text())["logs"][0]["hands"] == 400
    (tmp_path / "afile").write_text("")
    assert _cli([paths[0], "--json", tmp_path / "afile" / "r.json"]) == 1
    assert "cannot write the JSON summary" in _one_sentence(capsys.readouterr().err)


def test_log_of_another_game_names_the_mismatch(tmp_path, capsys):
    lines = (LOGS / "nolimit2p_s11.log").read_text().splitlines(keepends=True)
    short = tmp_path / "nl.log"
    short.write_text("".join(lines[:10]))
    assert _cli([short, "--game", "holdem.limit.2p"]) == 1
    err = _one_sentence(capsys.readouterr().err)
    assert "not hands of the game given, limit with 2 players" in err and "is --game right?" in err
    # The header's game file is next to the log but describes another game.
    (tmp_path / "holdem.nolimit.2p.reverse_blinds.game").write_text((GAMES / "kuhn.limit.3p.game").read_text())
    assert _cli([short]) == 1
    err = _one_sentence(capsys.readouterr().err)
    assert "not hands of the game its header names (holdem.nolimit.2p.reverse_blinds.game), limit with 3 players" in err


def test_decisions_may_name_one_file_and_a_missing_one_is_an_error(mirrored, tmp_path, capsys):
    folder, _, paths = mirrored
    (bob_log,) = [p for p in (folder / "decisions").rglob("*.dlog") if "match.2" in p.name and "Bob" in p.name]
    summary = report_match(paths[1:], bob_log, out=io.StringIO())
    assert summary.lineups[0].results["Bob"].decisions_corrected > 0
    assert summary.decision_logs == [str(bob_log)]
    assert _cli([paths[1], "--decisions", tmp_path / "nowhere"]) == 1
    assert "no such folder or decision log" in _one_sentence(capsys.readouterr().err)


def test_broken_pipe_exits_quietly(mirrored):
    """``dealer report LOG | head``: the reader is gone before the report is printed."""
    _, _, paths = mirrored
    with subprocess.Popen(
        [sys.executable, "-m", "dealer.cli", "report", str(paths[0])], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == 141 and err == ""


def test_streamed_decision_logs_give_the_in_memory_values(mirrored):
    """Decision logs are read as the hands go; a log given twice reads them over again."""
    folder, _, paths = mirrored
    files = sorted((folder / "decisions").rglob("*.dlog"))
    streamed, loaded = stream_decision_logs(files), load_decision_logs(files)
    for path in paths:
        match = read_match_log(path)
        a = evaluate_match(match, streamed)
        b = evaluate_match(match, loaded)
        assert np.array_equal(a.aivat, b.aivat) and a.decisions == b.decisions and sum(a.decisions.values()) > 0
        again = evaluate_match(match, streamed)
        assert np.array_equal(again.aivat, b.aivat)


def test_progress_bar_only_for_slow_reports(monkeypatch, capsys):
    quick = DelayedProgress(10, enabled=True)
    for _ in range(10):
        quick.advance()
    quick.close()
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(DelayedProgress, "DELAY", 0.0)
    slow = DelayedProgress(10, enabled=True)
    for _ in range(10):
        slow.advance()
    slow.close()
    err = capsys.readouterr().err
    assert "dealer report" in err and "10/10" in err
