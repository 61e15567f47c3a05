"""The ``solver`` command: the curve, the saved strategy, and one-sentence errors."""

from __future__ import annotations

import pytest

from protocol.gamedef import load_game
from solver.bestresponse import exploitability
from solver.cli import main
from solver.ranges import tabular_game
from solver.strategies import load_strategy


def test_solve_prints_a_falling_curve_and_saves_a_strategy_that_eval_reads(tmp_path, capsys):
    out = tmp_path / "kuhn.strategy"
    args = ["solve", "--game", "kuhn.limit.2p", "--algo", "cfr+", "--iterations", "300", "--evaluations", "4", "--out", str(out)]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines if line.strip() and line.split()[0].replace(",", "").isdigit()]
    assert [int(r[0].replace(",", "")) for r in rows][-1] == 300
    nash_conv = [float(r[2]) for r in rows]
    assert nash_conv[0] == pytest.approx(11 / 12, abs=1e-5) and nash_conv[-1] < 2e-3
    saved = load_strategy(out, load_game("kuhn.limit.2p"))
    assert saved.params["algorithm"] == "cfr+" and saved.params["iterations"] == 300
    game = tabular_game(load_game("kuhn.limit.2p"))
    assert exploitability(game, saved.strategy).nash_conv == pytest.approx(nash_conv[-1], rel=1e-4)
    assert main(["eval", str(out), "--game", "kuhn.limit.2p"]) == 0
    assert "best-response gain" in capsys.readouterr().out


def test_mccfr_checkpoints_resume_and_no_limit_games_take_an_abstraction(tmp_path, capsys):
    ckpt = tmp_path / "run.ckpt"
    args = [
        "solve", "--game", "kuhn.limit.3p", "--algo", "mccfr", "--iterations", "20000",
        "--checkpoint", str(ckpt), "--out", str(tmp_path / "k3"),
    ]  # fmt: skip
    assert main(args) == 0 and ckpt.exists()
    assert main([*args[:6], "40000", *args[7:]]) == 0
    assert "resumed" in capsys.readouterr().out
    args = [
        "solve", "--game", "leduc.nolimit.2p", "--abstraction", "1;allin;cap=2", "--iterations", "20",
        "--out", str(tmp_path / "nl"),
    ]  # fmt: skip
    assert main(args) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", "--game", "kuhn.limit.3p", "--algo", "cfr", "--iterations", "5"], "solves two-player games"),
        (["solve", "--game", "nope", "--iterations", "5"], "no such game file or bundled game"),
        (["solve", "--game", "kuhn.limit.2p", "--iterations", "0"], "at least 1"),
        (["solve", "--game", "kuhn.limit.2p", "--iterations", "5", "--abstraction", "1"], "no-limit games only"),
        (["solve", "--game", "leduc.nolimit.2p", "--iterations", "5", "--abstraction", "1;huge"], "unknown abstraction option"),
        (["eval", "missing.strategy", "--game", "kuhn.limit.2p"], "does not exist"),
    ],
)
def test_bad_requests_fail_with_one_sentence(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("solver: error: ") and message in err and "Traceback" not in err
