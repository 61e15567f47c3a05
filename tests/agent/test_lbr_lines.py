"""LBR's winnings by its last bet and the hand's end (agent/lbr_lines.py)."""

from __future__ import annotations

import pytest

from agent.lbr_lines import Line, classify, format_lines, line_table
from protocol.gamedef import load_game
from protocol.wire import WireFormatError

GAME = load_game("holdem.nolimit.2p")
#: LBR (position 0) bets the turn pot and the river pot; the agent folds the river.
RIVER_FOLD = "STATE:92:r200c/cr600c/r1800c/r5400f:6dJd|2d2s/4c2h5c/2c/Kc:1800|-1800:lbr|agent"
#: LBR (position 1 here) shoves the turn over a check; the agent calls.
TURN_SHOVE = "STATE:3:r200c/cc/cr20000c/:2d2s|6dJd/4c2h5c/2c/Kc:-20000|20000:agent|lbr"
#: A limped pot checked down: LBR never bets.
CHECKED = "STATE:4:cc/cc/cc/cc:2d2s|6dJd/4c2h5c/2c/Kc:100|-100:agent|lbr"
#: The agent bets the river; LBR folds in a limped pot (LBR never bets).
LBR_FOLDS = "STATE:5:cc/cc/cc/r300f:2d2s|6dJd/4c2h5c/2c/Kc:100|-100:agent|lbr"
#: LBR bets half the pot on the flop and the agent folds.
HALF = "STATE:6:r200c/r400f:6dJd|2d2s/4c2h5c:200|-200:lbr|agent"


def test_classify_names_lbrs_last_bet_and_the_end():
    assert classify(RIVER_FOLD, GAME) == Line("river", "pot", "agent folds")
    assert classify(TURN_SHOVE, GAME) == Line("turn", "all-in", "showdown")
    assert classify(CHECKED, GAME) == Line("-", "-", "showdown")
    assert classify(LBR_FOLDS, GAME) == Line("-", "-", "LBR folds")
    assert classify(HALF, GAME) == Line("flop", "0.50 pot", "agent folds")
    with pytest.raises(WireFormatError, match="seats"):
        classify(RIVER_FOLD.replace("lbr|agent", "a|b"), GAME)


def test_line_table_splits_lbrs_mbb_per_hand_over_all_hands():
    hands = [(RIVER_FOLD, 1800.0), (RIVER_FOLD, 1800.0), (TURN_SHOVE, -5000.0), (CHECKED, -200.0), ("", 50.0)]
    rows, unread = line_table(hands, GAME)
    assert unread == 1
    # Shares of LBR's mbb/hand over all 5 hands (big blind 100): the unread hand counts in the mean.
    found = [(r.line.street, r.hands, round(r.mbb, 6)) for r in rows]
    assert found == [("river", 2, 7200.0), ("-", 1, -400.0), ("turn", 1, -10000.0)]
    text = format_lines(rows, unread)
    assert "river pot" in text and "agent folds" in text and "1 hands without a readable line" in text
