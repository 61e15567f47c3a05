"""Real matches over sockets: ``dealer run`` with its default lineup (our agent against
the call bot) and ``agent connect`` against a dealer that goes away mid-hand."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

import numpy as np

from dealer.evaluation.matchlog import read_match_log
from protocol.decisions import CARD_DEPENDENT, private_hands, read_decision_log
from protocol.gamedef import load_game
from protocol.wire import parse_action, parse_matchstate

GAME = load_game("holdem.nolimit.2p")


def dealer_run(out, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """``dealer run ARGS --out OUT --quiet`` as a user types it."""
    command = [sys.executable, "-m", "dealer.cli", "run", *args, "--out", str(out), "--quiet"]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def test_dealer_run_plays_our_agent_by_default(tmp_path):
    # A tight per-hand budget (1 s, so the agent aims at 0.25 s) keeps the test short.
    result = dealer_run(tmp_path, "--hands", "30", "--seed", "4", "--t_per_hand", "1000")
    assert result.returncode == 0, result.stderr
    log = read_match_log(tmp_path / "match.log")
    assert len(log.hands) == 30 and sorted(log.seats) == ["agent", "call"]
    assert "WARNING" not in (tmp_path / "match.dealer.err").read_text()  # no illegal or late action
    assert "agent" in result.stdout and "mbb/hand" in result.stdout  # the report
    agent_said = (tmp_path / "match.agent.out").read_text()
    assert "match over after 30 hands" in agent_said and "Traceback" not in agent_said
    header, decisions = read_decision_log(tmp_path / "decisions" / "match.agent.dlog")
    assert header["strategy"] == CARD_DEPENDENT and header["policy"] is None
    index = {h: i for i, h in enumerate(private_hands(GAME))}
    hands = np.array(private_hands(GAME))
    count = 0
    for d in decisions:
        match = parse_matchstate(d.state, GAME)
        assert match.state.illegal_reason(parse_action(d.taken, GAME)) is None
        rows = d.range.strategy()
        assert [p for _, p in d.probs] == list(rows[index[tuple(sorted(match.my_cards))]])
        blocked = np.isin(hands, match.state.board).any(axis=1)
        assert np.allclose(rows[~blocked].sum(axis=1), 1.0) and not rows[blocked].any()
        count += 1
    assert count >= 30


def test_agent_connect_reports_a_lost_connection(tmp_path):
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def dealer() -> None:
        conn, _ = server.accept()
        conn.recv(100)  # the version line
        conn.sendall(b"not a match state\r\nMATCHSTATE:0:0:r300:AsKd|\r\n")
        conn.recv(1000)  # the agent's reply
        conn.close()  # gone mid-hand

    thread = threading.Thread(target=dealer, daemon=True)
    thread.start()
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "connect", "127.0.0.1", str(port), "--blueprint-only"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    server.close()
    assert result.returncode == 1
    assert "agent: the connection to the dealer was lost during hand 1" in result.stderr
    assert "bad line from dealer skipped" in result.stderr and "Traceback" not in result.stderr


def test_dealer_run_seats_the_blueprint_only_agent_with_its_decision_log(tmp_path):
    result = dealer_run(tmp_path, "agent-blueprint", "raise", "--hands", "6", "--seed", "2")
    assert result.returncode == 0, result.stderr
    said = (tmp_path / "match.agent-blueprint.out").read_text()
    assert "match over after 6 hands" in said
    sources = said.split("per decision; ")[1]
    assert "blueprint" in sources and "maxmargin" not in sources and "unsafe" not in sources  # it never solved
    header, decisions = read_decision_log(tmp_path / "decisions" / "match.agent-blueprint.dlog")
    assert header["strategy"] == CARD_DEPENDENT and len(list(decisions)) >= 6
    limit = dealer_run(tmp_path / "limit", "agent-blueprint", "call", "--game", "holdem.limit.2p", timeout=60)
    assert limit.returncode != 0 and "heads-up no-limit games only" in limit.stderr
