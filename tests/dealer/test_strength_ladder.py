"""The strength ladder (``tests/bench/strength_ladder.py``) on two cheap rungs, and the
``dealer run`` command-seat placeholders its frozen agent seat relies on."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from protocol.decisions import read_decision_log

LADDER = Path(__file__).resolve().parents[1] / "bench" / "strength_ladder.py"


def _rows(markdown: str) -> dict[str, list[str]]:
    """The table's rows by rung (cells stripped)."""
    rows = {}
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 9 and cells[0] not in ("rung", "---"):
            rows[cells[0]] = cells
    return rows


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def test_quick_ladder_on_two_rungs_prints_finite_figures_and_keeps_finished_rungs(tmp_path):
    cmd = [sys.executable, str(LADDER), "--quick", "--rungs", "call,equity", "--hands", "10", "--out", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    table = (tmp_path / "ladder.md").read_text()
    assert table.split("\n\n")[-1].strip() in done.stdout
    rows = _rows(table)
    assert list(rows) == ["call", "equity"]
    for rung, cells in rows.items():
        _, against, hands, mbb, ci, p, per_hand, load, estimator = cells
        assert against == rung and _number(hands) == 20 and estimator == "aivat+duplicate"
        low, high = (_number(x) for x in ci.strip("[]").split(", "))
        assert math.isfinite(_number(mbb)) and low <= _number(mbb) <= high
        assert p.startswith(("<", ">")) or 0 <= float(p) <= 1
        assert _number(per_hand) > 0 and _number(load) >= 0
    # Run again: both rungs are read back, not replayed.
    logs = {p: p.stat().st_mtime_ns for p in tmp_path.glob("*/match.*.log")}
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert {p: p.stat().st_mtime_ns for p in tmp_path.glob("*/match.*.log")} == logs
    assert _rows((tmp_path / "ladder.md").read_text()) == rows


def test_agent_options_seat_the_agent_as_a_command_with_them(tmp_path):
    cmd = [sys.executable, str(LADDER), "--rungs", "call", "--hands", "3", "--out", str(tmp_path),
           "--agent-options", "--solve-from turn --later-gadget resolve"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    seat = json.loads((tmp_path / "call" / "run.json").read_text())["seats"][0]
    assert seat.split()[1:4] == ["-m", "agent.cli", "connect"] and seat.endswith("--solve-from turn --later-gadget resolve")
    assert "agent options --solve-from turn --later-gadget resolve" in (tmp_path / "ladder.md").read_text()
    assert "call" in _rows((tmp_path / "ladder.md").read_text())
    bad = subprocess.run([*cmd[:-1], '--solve-from "turn'], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--agent-options: No closing quotation" in bad.stderr


def test_a_command_seat_gets_its_placeholders_and_its_decision_log_is_read(tmp_path):
    bot = (f"{sys.executable} -m dealer.cli bot call --game {{game}} --seed {{seed}} --name {{name}} --match {{match}} "
           "--decision-log {decision_log}")  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "dealer.cli", "run", "equity", bot, "--names", "equity,caller", "--hands", "15",
         "--duplicate", "--seed", "4", "--quiet", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for match in ("match.1", "match.2"):
        header, decisions = read_decision_log(tmp_path / "decisions" / f"{match}.caller.dlog")
        assert (header["seat"], header["match"], header["policy"]) == ("caller", match, "call")
        assert sum(1 for _ in decisions) > 0
    results = json.loads((tmp_path / "report.json").read_text())["lineups"][0]["results"]
    assert results["caller"]["decisions_corrected"] > 0 and results["equity"]["decisions_corrected"] > 0
