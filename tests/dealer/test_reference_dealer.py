"""Our dealer against the reference dealer's transcripts, traces and logs."""

from __future__ import annotations

import re

import pytest

from dealer.dealing import Dealer
from protocol.gamedef import load_game
from protocol.wire import parse_state_line
from tests.dealer.driver import TRANSCRIPT, ScriptedSeat, replay_transcript, start_dealer, strip_stamps
from tests.reference import EDGE_CASES, GAMES, game_file_for, log_files, seed_of, trace_files


@pytest.mark.parametrize("path", log_files(), ids=lambda p: p.name)
def test_dealing_is_seed_compatible(path):
    game = load_game(game_file_for(path))
    dealer = Dealer(game, seed_of(path))
    for line in path.read_text().splitlines():
        if line.startswith("STATE:"):
            logged = parse_state_line(line, game).state
            holes, board = dealer.deal()
            assert holes == logged.hole_cards
            assert board[: game.board_cards_through(logged.round)] == logged.board


EDGE = {
    "bad_replies.nolimit.dealer_stderr.txt": ("nltest", "holdem.nolimit.2p.reverse_blinds.game", 3, 42),
    "bad_replies.limit.dealer_stderr.txt": ("ltest", "holdem.limit.2p.reverse_blinds.game", 2, 7),
}


@pytest.mark.parametrize("name", sorted(EDGE))
def test_edge_case_transcripts_get_the_same_reactions(tmp_path, name):
    match, game_file, hands, seed = EDGE[name]
    reference = (EDGE_CASES / name).read_text().splitlines()
    wrong_version = any(line.startswith("ERROR: this server is currently using version") for line in reference)
    dealer = start_dealer(tmp_path, match, str(GAMES / game_file), hands, seed, ["ProbeA", "ProbeB"])
    seats = [ScriptedSeat(dealer.ports[0]), ScriptedSeat(dealer.ports[1], "VERSION:2.1.0" if wrong_version else "VERSION:2.0.0")]
    sent = replay_transcript(seats, reference)
    code, out, err = dealer.finish()
    assert code == 0, err
    expected_to = [m.group(3) for m in map(TRANSCRIPT.match, reference) if m and m.group(1) == "TO"]
    assert sent == expected_to
    # Every line the reference printed (stamps aside), in the same order, except the
    # log-header lines that open the transcript file.
    ours = [strip_stamps(line) for line in err.splitlines()]
    theirs = [strip_stamps(line) for line in reference if not line.startswith("#")]
    assert ours == theirs
    assert out.strip() == next(line for line in reference if line.startswith("SCORE:"))
    for seat in seats:
        seat.close()


@pytest.mark.parametrize("path", trace_files(), ids=lambda p: p.name)
def test_traces_same_lines_for_same_seed_and_replies(tmp_path, path):
    game_file = game_file_for(path)
    game = load_game(game_file)
    names = ["Alice", "Bob", "Carol"][: game.num_players]
    reference = path.read_text().splitlines()
    # The trace is the start of a 1000-hand match and stops in hand 30.
    dealer = start_dealer(tmp_path, "t", str(game_file), 1000, seed_of(path), names, "-q")
    seats = [ScriptedSeat(port) for port in dealer.ports]
    sent = replay_transcript(seats, reference)
    expected_to = [m.group(3) for m in map(TRANSCRIPT.match, reference) if m and m.group(1) == "TO"]
    assert sent == expected_to
    for seat in seats:
        seat.close()
    code, out, err = dealer.finish()
    # Hanging up mid-match is fatal, with no SCORE line, and the error names the seat.
    assert code == 1 and "SCORE" not in out
    assert re.search(r"ERROR: could not get action from seat \d", err)
    assert "dealer: match stopped: seat" in err and "30 finished hands are in" in err
    # The log's hands are the reference log's first 30 hands, byte for byte.
    log = path.parent.parent / "logs" / path.name.replace(".first30hands.trace", ".log")
    reference_states = [line for line in log.read_text().splitlines() if line.startswith("STATE:")][:30]
    ours = [line for line in (tmp_path / "t.log").read_text().splitlines() if line.startswith("STATE:")]
    assert ours == reference_states
