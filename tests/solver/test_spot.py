"""Spots in range-solver terms (:mod:`solver.spot`) and the bench's spot mode
(``tests/bench/bench_subgame.py --spot FILE --quick``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from protocol.cards import parse_cards
from protocol.gamedef import parse_gamedef
from protocol.rules import CALL, initial_state, with_cards
from solver.bets import parse_abstraction
from solver.spot import SpotError, apply_size_flags, load_spot, read_spot_file, size_flag, spot_from_mapping
from solver.tree import DECISION, build_tree

BENCH = Path(__file__).resolve().parents[1] / "bench"
SPOTS = BENCH / "spots"
#: The game the bench's cases were built in before spot files (blinds 50/50, 400 behind).
OLD_GAME = parse_gamedef(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 450 450\nblind = 50 50\nfirstPlayer = 2 1 1 1\n"
    "numSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n",
    source="old-bench",
)


def _old_tree(round_: int, spec: str):
    state = initial_state(OLD_GAME)
    while state.round < round_:
        state = state.apply(CALL)
    board = parse_cards("QsJh2h8d3c")[: OLD_GAME.board_cards_through(round_)]
    return build_tree(OLD_GAME, parse_abstraction(spec), root=with_cards(state, ((), ()), board))


@pytest.mark.parametrize(
    ("name", "round_", "spec", "nodes", "decisions"),
    [
        # The old river spec listed 0.33 too, but 33 chips were below the big blind of 50.
        ("river.toml", 3, "0.33,0.67,1,1.5;raise=0.5,1;allin;allinabove=0.67", 69, 24),
        ("turn.toml", 2, "0.5,1;raise=1;allin;allinabove=0.67", 224, 80),
    ],
)
def test_shipped_spots_give_the_old_bench_trees_node_for_node(name, round_, spec, nodes, decisions):
    spot = load_spot(SPOTS / name)
    tree = build_tree(spot.game(), spot.abstraction(), root=spot.root())
    old = _old_tree(round_, spec)
    assert (tree.n_nodes, int((tree.kind == DECISION).sum())) == (nodes, decisions)
    for field in ("kind", "player", "round", "child_count", "edge_action", "edge_size"):
        np.testing.assert_array_equal(getattr(tree, field), getattr(old, field))
    assert spot.root().pot == 100 and spot.root().spent == (50, 50)


def test_a_small_bet_is_in_the_tree_and_dropped_sizes_are_reported():
    spot = load_spot(SPOTS / "river33.toml")
    abstraction = spot.abstraction()
    tree = build_tree(spot.game(), abstraction, root=spot.root())
    assert [str(a) for a in tree.actions(0)] == ["c", "r83", "r117", "r150", "r200", "r450"]  # raise-to chips: 50 in
    assert (tree.n_nodes, int((tree.kind == DECISION).sum())) == (105, 36)
    assert abstraction.never_offered() == []
    river = load_spot(SPOTS / "river.toml")
    abstraction = river.abstraction()
    build_tree(river.game(), abstraction, root=river.root())
    # The 100% raise adds more than 0.67 of the chips behind wherever it could be made.
    assert abstraction.never_offered() == [(3, 0, "raise", 1.0), (3, 1, "raise", 1.0)]


def test_sizes_per_player_and_street():
    data = {"board": "QsJh2h8d", "pot": 20, "effective_stack": 100,
            "turn": {"oop": {"bet": [50]}, "ip": {"bet": [100], "allin": True}}, "river": {"oop": {"bet": [25]}}}
    spot = spot_from_mapping(data)
    tree = build_tree(spot.game(), spot.abstraction(), root=spot.root())
    assert spot.root().current_player == spot.game().first_player[1]  # OOP acts first
    assert [str(a) for a in tree.actions(0)] == ["c", "r20"]  # OOP: 50% of 20 on top of the 10 in
    ip = int(tree.children[tree.child_start[0]])
    assert [str(a) for a in tree.actions(ip)] == ["c", "r30", "r110"]  # IP after a check: 100% or all-in
    # A river with only OOP sizes: IP can only check or call there.
    river = [n for n in np.flatnonzero(tree.kind == DECISION) if tree.round[n] == 3]
    assert river and all(
        len(tree.actions(n)) <= 2 for n in river if tree.player[n] != spot.game().first_player[1]
    )


def test_flags_read_like_the_file_and_errors_name_the_bad_part(tmp_path):
    flags = ["oop,river,bet,67,100,150", "ip,river,bet,67,100,150", "oop,river,raise,50,100", "ip,river,raise,50,100",
             "oop,river,allin", "ip,river,allin"]
    scalars = {"board": "QsJh2h8d3c", "pot": 100, "effective_stack": 400, "allin_threshold": 0.67, "accuracy": 0.1}
    from_flags = spot_from_mapping(apply_size_flags({}, flags), scalars)
    from_file = load_spot(SPOTS / "river.toml", {"max_iterations": None})
    assert from_flags.describe().splitlines()[1:] == from_file.describe().splitlines()[1:]
    path = tmp_path / "river.json"
    path.write_text(json.dumps(read_spot_file(SPOTS / "river.toml")))
    assert load_spot(path) == from_file
    assert size_flag("ip,turn,allin") == ("ip", "turn", "allin", ())
    for bad, message in [
        ({"pot": 101}, "even number"),
        ({"board": "QsQs2h"}, "distinct"),
        ({"board": "Qx2h3c"}, "board"),
        ({"flop": {"oop": {"bet": [50]}}}, "starts on the river"),
        ({"river": {"oop": {"bet": [-5]}}}, "river.oop.bet"),
        ({"colour": 1}, "unknown spot key"),
    ]:
        with pytest.raises(SpotError, match=message):
            spot_from_mapping({**read_spot_file(SPOTS / "river.toml"), **bad})
    with pytest.raises(SpotError, match="SEAT,STREET,KIND"):
        size_flag("river,oop,bet,50")


def _bench_json(*args: str) -> dict:
    run = subprocess.run(
        [sys.executable, str(BENCH / "bench_subgame.py"), *args, "--quick", "--json"],
        capture_output=True, text=True, check=True, timeout=600,
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_bench_quick_spot_mode_prints_the_tree_and_a_falling_exploitability():
    out = _bench_json("--spot", str(SPOTS / "river.toml"))
    assert out["tree"] == {"nodes": 69, "decisions": 24, "infoset_rows": 25_944, "hands": 1081,
                           "root_actions": ["c", "r117", "r150", "r200", "r450"]}
    assert out["never_offered"] == ["river OOP raise 100%", "river IP raise 100%"]
    (n1, e1), (n2, e2), (n3, e3) = out["curve"]
    assert (n1, n2, n3) == (10, 20, 40)
    assert e1 > e2 > e3 > 0 and e3 < 0.5 * e1
    assert out["threads"] == 1 and out["memory_bytes"] > 0 and out["peak_rss_mb"] > 0
    # The same spot from flags alone: the same tree and, bit for bit, the same curve.
    flags = ["--board", "QsJh2h8d3c", "--pot", "100", "--stack", "400", "--allin-threshold", "0.67"]
    for seat in ("oop", "ip"):
        flags += ["--bet-sizes", f"{seat},river,bet,67,100,150", "--bet-sizes", f"{seat},river,raise,50,100",
                  "--bet-sizes", f"{seat},river,allin"]
    again = _bench_json(*flags)
    assert again["tree"] == out["tree"] and again["curve"] == out["curve"]
