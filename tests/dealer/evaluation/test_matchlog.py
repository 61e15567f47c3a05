"""Match logs: every reference log, header facts, cut-off tails and bad lines."""

from __future__ import annotations

import pytest

from dealer.bots import POLICIES
from dealer.evaluation.matchlog import MatchLogError, read_match_log
from protocol.gamedef import load_game
from tests.dealer.evaluation.simulate import simulate_match
from tests.reference import game_file_for, log_files, seed_of


@pytest.mark.parametrize("path", log_files(), ids=lambda p: p.name)
def test_reads_every_reference_log(path):
    game = load_game(game_file_for(path))
    m = read_match_log(path, game)
    assert (m.name, m.planned_hands, m.seed) == (path.stem, 1000, seed_of(path))
    assert len(m.hands) == 1000 and m.notes == ()
    assert m.seats == ("Alice", "Bob", "Carol")[: game.num_players]
    assert m.options == ("--t_response 600000", "--t_hand 600000", "--t_per_hand 7000")
    for seat, total in zip(m.seats, m.score):
        assert sum(m.seat_values(seat)) == pytest.approx(total, abs=1e-6)


def _copy(tmp_path, text, name="cut.log"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_cut_off_last_line_is_skipped_with_a_note(tmp_path):
    source = log_files()[0]
    game = load_game(game_file_for(source))
    lines = source.read_text().splitlines(keepends=True)
    # Drop SCORE and cut the last STATE line inside its values: it still parses.
    last = lines[-2]
    cut = _copy(tmp_path, "".join(lines[:-2]) + last[: last.rindex(":") - 1])
    m = read_match_log(cut, game)
    assert len(m.hands) == 999 and m.score is None
    assert any("cut off" in n for n in m.notes) and any("no SCORE" in n for n in m.notes)
    # A complete last hand without SCORE (killed between hands) keeps every hand.
    whole = read_match_log(_copy(tmp_path, "".join(lines[:-1]), "noscore.log"), game)
    assert len(whole.hands) == 1000 and [n for n in whole.notes if "cut off" in n] == []


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda ls: ls[:6] + ["STATE:5:zz:Ks|Qs:1|-1:Bob|Alice\n"] + ls[7:], r":7: .*unknown action"),
        (lambda ls: ls[:5] + ls[6:], r":6: expected hand 1, found hand 2"),
        (lambda ls: ls[:-1] + ["SCORE:1|-1:Alice|Bob\n"], r":1005: SCORE gives Alice 1"),
        (lambda ls: ls[:-1] + ["SCORE:-18495|18495:Alice|Bob\n", "STATE:1000:f:Ks|Qs:-1|1:Alice|Bob\n"], r"follow the SCORE"),
        (lambda ls: ["hello\n"] + ls[1:], r":1: not a match log"),
        (lambda ls: ls[:4] + [ls[4].replace(":1200|-1200:", ":1100|-1100:")] + ls[5:], r":5: the logged values disagree"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path, mangle, message):
    source = next(p for p in log_files() if p.name.startswith("leducnl"))
    lines = source.read_text().splitlines(keepends=True)
    path = _copy(tmp_path, "".join(mangle(lines)))
    with pytest.raises(MatchLogError, match=message) as caught:
        read_match_log(path, load_game(game_file_for(source)))
    assert str(path) in str(caught.value)


def test_game_found_from_the_header(tmp_path):
    game = load_game("leduc.limit.2p")
    written = simulate_match(game, [("A", POLICIES["random"]), ("B", POLICIES["call"])], 20, 3, name="m").write(tmp_path)
    m = read_match_log(written)
    assert m.game == game and len(m.hands) == 20 and m.seats == ("A", "B")
    (tmp_path / "m.game").unlink()
    with pytest.raises(MatchLogError, match=r"its header names the game 'm\.game', which is neither"):
        read_match_log(written)
