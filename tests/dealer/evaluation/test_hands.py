"""``dealer hands``: the chosen hands, their decisions and the agent's row sources."""

from __future__ import annotations

import shutil

import pytest

from dealer.cli import main
from dealer.evaluation.hands import choose_hands, describe_detail
from dealer.evaluation.matchlog import EvaluationError, read_match_log
from protocol.decisions import DecisionLogWriter
from tests.reference import LOGS

LOG = LOGS / "nolimit2p_s11.log"


@pytest.fixture()
def run(tmp_path):
    """A reference log with a decision log of Bob's decisions in hand 0, one with a detail."""
    log = tmp_path / "m.log"
    shutil.copy(LOG, log)
    match = read_match_log(log)
    game = match.game
    writer = DecisionLogWriter(tmp_path / "decisions" / "m.Bob.dlog", seat="Bob", match=match.name, game=game,
                               strategy="card-dependent")
    writer.record(hand=0, position=1, state="MATCHSTATE:1:0:r8703:|9d6c", probs=[("f", 0.25), ("c", 0.75)], taken="r19091",
                  detail={"source": "blueprint", "node": 17, "abstract": "r8703", "bucket": 42, "translated": 1})
    writer.record(hand=0, position=1, state="MATCHSTATE:1:0:r8703r19091r20000:|9d6c", probs=[("f", 0.1), ("c", 0.9)],
                  taken="c")
    writer.close()
    return log, match


def test_the_biggest_losses_come_first_and_won_reverses_them(run):
    log, match = run
    values = match.seat_values("Alice")
    chosen = choose_hands([log], "Alice", None, 3, won=False)
    assert [c.hand.values[c.hand.names.index("Alice")] for c in chosen] == sorted(values)[:3]
    won = choose_hands([log], "Alice", None, 2, won=True)
    assert [c.hand.values[c.hand.names.index("Alice")] for c in won] == sorted(values, reverse=True)[:2]


def test_a_hand_prints_cards_betting_probabilities_and_the_row_source(run, capsys):
    log, _ = run
    assert main(["hands", str(log), "--hand", "0", "--seat", "Bob"]) == 0
    out = capsys.readouterr().out
    assert "hand 0 of nolimit2p_s11" in out and "position 1 Bob: 9d6c" in out
    assert "betting r8703r19091r20000c///" in out and "board 6d7hAs Ks Td" in out
    assert "preflop Bob 9d6c after 'r8703': f 0.250  c 0.750 -> r19091" in out
    assert "[blueprint node 17, abstract 'r8703', bucket 42, 1 action(s) translated]" in out
    assert out.index("after 'r8703'") < out.index("after 'r8703r19091r20000'")


def test_a_solve_detail_names_iterations_seconds_and_exploitability():
    text = describe_detail({"source": "unsafe", "solve": "new", "root": "cc/cc/cc/", "node": 0, "iterations": 120,
                            "seconds": 0.05, "budget": 1.5, "exploitability_pct": 0.8})
    assert text == ("[unsafe solve (new), root 'cc/cc/cc/', node 0, 120 iterations, 0.050 s of 1.50, "
                    "exploitability 0.80% of the pot (modelled ranges)]")


def test_bad_requests_get_one_sentence(run, capsys, tmp_path):
    log, _ = run
    assert main(["hands", str(log), "--seat", "Carol"]) == 1
    assert capsys.readouterr().err.strip() == "dealer hands: no log has a seat named 'Carol'"
    assert main(["hands", str(log), "--hand", "5000"]) == 1
    assert "hand 5000 is in none of the logs" in capsys.readouterr().err
    assert main(["hands", str(tmp_path / "missing.log")]) == 1
    assert "no such match log" in capsys.readouterr().err
    with pytest.raises(EvaluationError):
        choose_hands([tmp_path / "missing.log"], None, None, None, False)


def test_each_log_shows_its_own_runs_decisions(run, tmp_path, capsys):
    """Two runs whose matches have the same name: a hand of each shows the decisions
    logged beside its own log, never the other run's for the same hand number."""
    log, match = run
    other = tmp_path / "other"
    (other / "decisions").mkdir(parents=True)
    shutil.copy(log, other / "m.log")
    writer = DecisionLogWriter(other / "decisions" / "m.Bob.dlog", seat="Bob", match=match.name, game=match.game,
                               strategy="card-dependent")
    writer.record(hand=0, position=1, state="MATCHSTATE:1:0:r8703:|9d6c", probs=[("f", 0.6), ("c", 0.4)], taken="f")
    writer.close()
    assert main(["hands", str(log), str(other / "m.log"), "--hand", "0", "--seat", "Bob"]) == 0
    first, second = capsys.readouterr().out.split("hand 0 of")[1:]
    assert "f 0.250  c 0.750" in first and "f 0.600" not in first
    assert "f 0.600  c 0.400" in second and "f 0.250" not in second
