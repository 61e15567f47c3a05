"""``solver spot``: a river spot solved through the command, its JSON policy, ``--load``,
``--line`` and ``--hand``, the ranges restricting the solve, errors, and the docs' example."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from protocol.cards import parse_cards
from solver.cli import main
from solver.export import policy_strategy, read_policy
from solver.range_notation import CLASS_NAMES, PAIR_CLASS, parse_range
from solver.spot import spot_from_mapping
from solver.spot_solution import build_spot, load_solution, save_solution, solve_spot
from solver.tree import DECISION

DOCS = Path(__file__).resolve().parents[2] / "docs" / "solver.md"
BOARD = "QsJh2h8d3c"
OOP = "22+,A2s+,K9s+,QTs+,JTs,T9s,98s,ATo+,KJo+,QJo,72o"
IP = "AA-99,AK,AQs,KQs,QJs,JTs:0.5,QJo:0.25"
SPOT = [
    "spot", "--board", BOARD, "--pot", "100", "--stack", "400", "--oop-range", OOP, "--ip-range", IP,
    "--bet-sizes", "both,river,bet,50,100", "--bet-sizes", "both,river,raise,100", "--bet-sizes", "both,river,allin",
    "--accuracy", "1", "--max-iterations", "60", "--check-every", "10",  # checks at fixed iterations: a repeatable stop
]  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def table(out: str) -> list[str]:
    """The node's lines: from ``node:`` to the end."""
    lines = out.splitlines()
    return lines[next(i for i, line in enumerate(lines) if line.startswith("node:")) :]


def class_rows(out: str) -> dict[str, list[float]]:
    """Class name -> [combos, action %...] of the node's class table."""
    rows = {}
    for line in table(out):
        parts = line.split()
        if parts and parts[0] in CLASS_NAMES:
            rows[parts[0]] = [float(x) for x in parts[1:]]
    return rows


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The spot solved once through the command, saved to JSON (capsys is per test: captured by hand)."""
    out_file = tmp_path_factory.mktemp("spot") / "river.json"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*SPOT, "--out", str(out_file)])
    return {"code": code, "out": out.getvalue(), "err": err.getvalue(), "file": out_file}


def test_a_river_spot_solves_and_reports_its_figures_and_root_table(solved):
    assert solved["code"] == 0, solved["err"]
    out, err = solved["out"], solved["err"]
    assert "solving the river spot" in err and re.search(r"solving: .* \d+/60 .* exploitability [\d.]+% of the pot", err)
    nodes, iterations = (
        int(x.replace(",", "")) for x in re.search(r"tree: ([\d,]+) nodes.*\nsolve: ([\d,]+) iterations", out).groups()
    )
    assert nodes > 10 and 0 < iterations <= 60
    assert re.search(r"exploitability [\d.]+% of the pot \(target 1%: (met|not met, stopped by the iterations)\)", out)
    assert re.search(r"memory: solver arrays [\d.]+ MB, process peak \d+ MB; [\d.]+ bytes per infoset row", out)
    node = table(out)
    assert node[0].startswith("node: root -- OOP to act on the river, pot 100")
    header = next(line for line in node if line.startswith("class"))
    assert header.split()[1:] == ["combos", "check", "bet50", "bet100", "allin"]
    # One row per class of OOP's range, its combos the range's (board combos removed), each row a distribution.
    weights = parse_range(OOP, parse_cards(BOARD))
    expected = np.bincount(PAIR_CLASS, weights=weights, minlength=169)
    rows = class_rows(out)
    assert set(rows) == {CLASS_NAMES[c] for c in np.flatnonzero(expected)}
    for name, (combos, *pcts) in rows.items():
        assert combos == pytest.approx(expected[CLASS_NAMES.index(name)]) and sum(pcts) == pytest.approx(100, abs=0.3)
    overall = [float(x) for x in re.findall(r" ([\d.]+)%", next(line for line in node if line.startswith("range:")))]
    assert sum(overall) == pytest.approx(100, abs=0.3)


def test_the_json_is_a_policy_that_reads_back_and_load_prints_the_same_table(solved, capsys, tmp_path):
    document = read_policy(solved["file"])
    spot = spot_from_mapping(document["spot"])
    assert (spot.oop_range, spot.ip_range, spot.pot, spot.effective_stack) == (OOP, IP, 100, 400)
    built = build_spot(spot)
    sg = built.subgame
    strategy = policy_strategy(sg.tabular, document)  # every entry is a decision, board and hand of the rebuilt tree
    # Every entry is well formed, and the ranges restrict them: each hand is in its seat's range.
    ranges = {spot.oop: parse_range(OOP, sg.root.board), 1 - spot.oop: parse_range(IP, sg.root.board)}
    for entry in document["entries"]:
        assert set(entry) == {"seat", "hole", "board", "betting", "probabilities"} and entry["board"] == BOARD
        # float32 probabilities (the solver's storage): each rounds by up to 6e-8 of itself.
        assert abs(sum(entry["probabilities"].values()) - 1) < 1e-6
        low, high = sorted(parse_cards(entry["hole"]))
        assert ranges[entry["seat"]][high * (high - 1) // 2 + low] > 0
    assert set(document["ranges"]) == {"oop", "ip"} and len(document["ranges"]["ip"]) == int(
        np.count_nonzero(ranges[1 - spot.oop])
    )
    loaded = load_solution(solved["file"])
    np.testing.assert_array_equal(loaded.strategy, strategy)
    # The file holds exactly the strategy a solve from Python reaches, on every row a seat's range plays.
    direct = solve_spot(spot, progress=False)
    assert direct.figures["iterations"] == loaded.figures["iterations"]
    played = np.zeros(sg.tabular.layout.size, bool)
    for node in np.flatnonzero(sg.tree.kind == DECISION):
        n_a, r = int(sg.tree.child_count[node]), int(sg.tree.round[node])
        rows = np.repeat(direct.ranges[sg.tree.player[node]] > 0, n_a)
        start = int(sg.tabular.layout.offset[node])
        for b in range(sg.space.n_boards[r]):
            played[start + b * rows.size : start + (b + 1) * rows.size] = rows
    assert played.sum() == sum(len(e["probabilities"]) for e in document["entries"])
    np.testing.assert_array_equal(loaded.strategy[played], direct.strategy[played])
    code, out, _ = run(capsys, "spot", "--load", str(solved["file"]))
    assert code == 0 and table(out) == table(solved["out"])
    assert f"solve (as saved in {solved['file']}):" in out
    # Compressed, the same strategy comes back.
    again = tmp_path / "river.json.gz"
    assert save_solution(again, loaded) == len(document["entries"])
    np.testing.assert_array_equal(load_solution(again).strategy, strategy)


def test_line_and_hand_show_another_node_and_zero_weight_hands_have_no_row(solved, capsys):
    code, out, _ = run(capsys, "spot", "--load", str(solved["file"]), "--line", "check", "--hand", "72o,AhKh")
    assert code == 0
    node = table(out)
    assert node[0].startswith("node: check -- IP to act on the river, pot 100")
    rows = class_rows(out)
    assert "72o" not in rows and "T9s" not in rows and {"AA", "AKo", "QJo"} <= set(rows)
    assert rows["QJo"][0] == pytest.approx(7 * 0.25)  # IP has not acted yet: its 7 QJo combos at weight 0.25
    combo = re.compile(r"^[2-9TJQKA][cdhs][2-9TJQKA][cdhs] ")
    hands = {line.split()[0]: [float(x) for x in line.split()[1:]] for line in node if combo.match(line)}
    assert len(hands) == 10  # AhKh, and the 9 combos of 72o without the board's 2h
    assert hands["AhKh"][0] > 0 and all(reach == 0 for h, (reach, *_) in hands.items() if h.startswith("7"))
    assert "never used" not in out  # AhKh reaches the node
    code, out, _ = run(capsys, "spot", "--load", str(solved["file"]), "--line", "check", "--hand", "72o")
    assert "never used" in out  # 72o is not in IP's range
    # ACPC text names the same node; a card or an action the tree lacks is refused before anything is shown.
    code, acpc, _ = run(capsys, "spot", "--load", str(solved["file"]), "--line", "c")
    assert code == 0 and table(acpc) == node[: len(table(acpc))]
    code, _, err = run(capsys, "spot", "--load", str(solved["file"]), "--line", "check,bet33")
    assert code == 2 and "--line token 2 ('bet33') is not an action here; the IP can: check (c), bet50 (r100)" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--oop-range", "AA,KK,AKx"], "oop_range: 'AKx': unknown suit letter 'x' in token 3"),
        (["--ip-range", "QsQh,8d8c"], "ip_range: the range 'QsQh,8d8c' is empty once the combos holding a board card"),
        (["--ip-range", "AA:2"], "ip_range: 'AA:2': the weight 2 is outside [0, 1] in token 1"),
        (["--bet-sizes", "both,river,bet,-50"], "size 'both,river,bet,-50': sizes must be positive % of the pot"),
        (["--bet-sizes", "oop,turn,bet,50"], "the spot starts on the river, so it has no turn sizes"),
        (["--pot", "101"], "the pot must be an even number of chips"),
        (["--line", "check,check"], "ends where no one acts: the hand is over"),
        (["--hand", "AhKx"], "--hand: 'AhKx': unknown suit letter 'x' in token 1"),
    ],
)
def test_errors_name_the_bad_token_or_size(capsys, args, message):
    code, out, err = run(capsys, *SPOT, *args)
    assert code == 2 and out == "" and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_load_refuses_spot_flags_and_files_that_are_not_saved_spots(solved, capsys, tmp_path):
    code, _, err = run(capsys, "spot", "--load", str(solved["file"]), "--pot", "200")
    assert code == 2 and "drop --pot" in err
    other = tmp_path / "other.json"
    other.write_text('{"format": "something-else"}')
    code, _, err = run(capsys, "spot", "--load", str(other))
    assert code == 2 and "is not a policy file" in err
    document = json.loads(solved["file"].read_text())
    del document["solve"]["seconds"]
    other.write_text(json.dumps(document))
    code, _, err = run(capsys, "spot", "--load", str(other))
    assert code == 2 and "the saved solve lacks the figures ['seconds']" in err
    document["solve"]["seconds"] = 1.0
    document["entries"][3]["betting"] += "r999"
    other.write_text(json.dumps(document))
    code, _, err = run(capsys, "spot", "--load", str(other))
    assert code == 2 and "entry 3 " in err and "is not a decision, board and hand" in err
    code, _, err = run(capsys, "spot", "--board", BOARD, "--pot", "100", "--stack", "400")
    assert code == 2 and "has no bet sizes" in err
    code, _, err = run(capsys, "spot")
    assert code == 2 and "give a spot: --board, --pot, --stack and --bet-sizes, or --spot FILE" in err
    code, _, err = run(capsys, *SPOT, "--out", str(tmp_path))
    assert code == 2 and "is a folder" in err


def docs_examples() -> list[str]:
    """The ``solver spot`` commands of the docs' worked river example, as written."""
    text = DOCS.read_text()
    section = text[text.index("## `solver spot`") :]
    block = section[section.index("```sh") + 5 : section.index("```", section.index("```sh") + 5)]
    joined = block.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("solver spot")]


def test_the_docs_river_example_runs_as_written(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    examples = docs_examples()
    assert len(examples) >= 2 and any("--out" in e for e in examples) and any("--load" in e for e in examples)
    for example in examples:
        code, out, err = run(capsys, *shlex.split(example)[1:])
        assert code == 0, (example, err)
        assert class_rows(out)
