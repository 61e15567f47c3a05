"""``agent lbr``: a quick hold'em run with the blueprint-only agent, resuming a run folder,
and one-sentence errors."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

import agent.cli
import agent.strategist
from agent.cli import main
from agent.lbr_run import RunConfig
from protocol.gamedef import load_game
from protocol.wire import parse_state_line


@pytest.fixture(autouse=True)
def keep_logging(monkeypatch):
    """main() would point structlog at this test's captured stderr, which later tests'
    cached loggers would then write to after it is closed."""
    monkeypatch.setattr(agent.cli, "configure_logging", lambda verbose: None)


@pytest.fixture(scope="module")
def blueprint():
    """The shipped blueprint, loaded once (loading costs seconds)."""
    return agent.strategist.load_blueprint(None)


def _records(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "hands.jsonl").read_text().splitlines()[1:]]


def test_quick_run_then_resume(tmp_path, capsys, monkeypatch, blueprint):
    monkeypatch.setattr(agent.strategist, "load_blueprint", lambda path: blueprint)
    out = tmp_path / "run"
    args = ["lbr", "--quick", "--blueprint-only", "--setting", "fcpa", "--out", str(out)]
    assert main([*args, "--hands", "3"]) == 0
    first = _records(out)
    assert [r["hand"] for r in first] == [0, 1, 2]
    printed = capsys.readouterr().out
    assert "LBR (fcpa) against the agent:" in printed and "mbb/hand (95% CI, 3 hands" in printed
    assert "LBR's winnings by its last bet and the hand's end" in printed  # agent/lbr_lines.py's table

    assert main([*args, "--hands", "5"]) == 0  # the same folder and options: resumes after hand 2
    records = _records(out)
    assert [r["hand"] for r in records] == [0, 1, 2, 3, 4] and records[:3] == first
    result = json.loads((out / "result.json").read_text())
    chips, expected = ([r[k] for r in records] for k in ("chips", "expected"))
    assert result["hands"] == 5 and result["chips_won"]["mbb_per_hand"] == pytest.approx(1000 * sum(chips) / 5 / 100)
    assert result["showdown_expectation"]["mbb_per_hand"] == pytest.approx(1000 * sum(expected) / 5 / 100)
    assert "5 hands" in capsys.readouterr().out
    for i, r in enumerate(records):  # each hand kept as a dealer log line, LBR's value its chips
        hand = parse_state_line(r["line"], load_game("holdem.nolimit.2p"))
        assert hand.state.hand_number == i and hand.values[hand.names.index("lbr")] == r["chips"]
        assert hand.names[i % 2] == "lbr"  # LBR sits in seat i % 2


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["--hands", "1"], "--hands must be at least 2, got 1"),
        (["--game", "leduc.nolimit.2p"], "heads-up no-limit hold'em only"),
        (["--out", "FILE"], "--out FILE is a file, not a folder"),
        (["--out", "RUN", "--seed", "9"], "RUN holds a run with another configuration: seed 9 here, 0 there"),
        (["--out", "RUN", "--solve-from", "turn"], "another configuration: solve_from turn here, river there"),
        (["--out", "RUN", "--all-in", "equity"], "another configuration: all_in equity here, solve there"),
        (["--out", "RUN", "--later-gadget", "resolve"], "another configuration: later_gadget resolve here, None there"),
    ],
)
def test_bad_options_get_one_sentence(tmp_path, monkeypatch, capsys, args, sentence):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FILE").write_text("not a folder\n")
    (tmp_path / "RUN").mkdir()
    config = RunConfig("holdem.nolimit.2p", "fc", 0, None, False, 7.0, None, 200, 0.05, "solve", "river",
                       "maxmargin-unsafe", None, 0.01, 300)  # the defaults
    (tmp_path / "RUN" / "hands.jsonl").write_text(json.dumps({"config": asdict(config)}) + "\n")
    assert main(["lbr", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and sentence in err[0]


def test_hands_to_play_fills_the_lowest_missing_numbers():
    from agent.lbr_run import HandRecord, hands_to_play

    done = [HandRecord(h, 0.0, 0.0, 0.0, 0.0, 0.0) for h in (0, 1, 3, 6)]
    assert hands_to_play(done, 7) == [2, 4, 5]
    assert hands_to_play(done, 4) == []  # four finished: nothing left, whatever their numbers
    assert hands_to_play([], 3) == [0, 1, 2]


def test_two_processes_play_the_same_deals_and_resume(tmp_path, capsys):
    """--jobs 2: every hand number once, the deals of a one-process run (the cards depend
    only on the seed and the hand), each worker's agent loaded in its own process."""
    one, two = tmp_path / "one", tmp_path / "two"
    base = ["lbr", "--quick", "--blueprint-only", "--setting", "fcpa"]
    assert main([*base, "--hands", "4", "--out", str(one)]) == 0
    assert main([*base, "--hands", "4", "--jobs", "2", "--out", str(two)]) == 0
    assert "on 2 process(es)" in capsys.readouterr().out
    game = load_game("holdem.nolimit.2p")

    def cards(folder) -> dict[int, tuple]:
        hands = {}
        for r in _records(folder):
            hand = parse_state_line(r["line"], game)
            hands[r["hand"]] = (hand.state.hole_cards, hand.state.board)
        return hands

    first = cards(two)
    assert sorted(first) == [0, 1, 2, 3] and first == cards(one)
    assert main([*base, "--hands", "6", "--jobs", "2", "--out", str(two)]) == 0  # resumes with hands 4 and 5
    again = cards(two)
    assert sorted(again) == [0, 1, 2, 3, 4, 5] and {h: again[h] for h in range(4)} == first
    result = json.loads((two / "result.json").read_text())
    assert result["hands"] == 6 and result["this_session"]["agent_sources"]["blueprint"] > 0


def test_a_failing_worker_is_one_sentence_and_keeps_the_run(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["lbr", "--quick", "--blueprint-only", "--jobs", "2", "--blueprint", str(tmp_path / "none.art"),
                 "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "agent lbr: worker" in err and "none.art" in err and "run again to resume" in err
    assert (out / "hands.jsonl").exists() and _records(out) == []
