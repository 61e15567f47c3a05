"""Games for solver tests: bundled ones laid out for the tabular solvers, and small custom ones."""

from __future__ import annotations

from protocol.gamedef import load_game, parse_gamedef
from solver.ranges import tabular_game

KUHN = tabular_game(load_game("kuhn.limit.2p"))
KUHN3 = tabular_game(load_game("kuhn.limit.3p"))
LEDUC = tabular_game(load_game("leduc.limit.2p"))

#: Two hole cards from an 8-card deck, one board card: exercises two-card card removal.
TINY_HOLDEM = parse_gamedef(
    """GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 1 2
raiseSize = 2 4
firstPlayer = 2 1
maxRaises = 2 2
numSuits = 2
numRanks = 4
numHoleCards = 2
numBoardCards = 0 1
END GAMEDEF
""",
    source="tiny-holdem",
)

#: Three players with uneven stacks: all-ins and side pots.
SIDE_POTS_3P = parse_gamedef(
    """GAMEDEF
nolimit
numPlayers = 3
numRounds = 2
stack = 4 7 10
blind = 1 2 0
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
""",
    source="side-pots-3p",
)
