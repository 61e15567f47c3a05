"""Reproducible small-game versions of the Libratus subgame-solving tables.

The games ship as ``.game`` files in ``solver/experiments/games/`` (see the README's
"Subgame-solving experiments" section for their definitions and how they differ from
the paper's).  :data:`TABLE1` lists Table 1's games with their abstractions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from protocol.gamedef import GameDef, load_game

GAMES_DIR = Path(__file__).parent / "games"


class CommandError(Exception):
    """A request the experiment commands cannot carry out (one sentence).

    Here, not in :mod:`solver.experiments.commands`, so that every command module can
    raise it without importing the others.
    """


def experiment_game(key: str) -> GameDef:
    """The experiment game ``games/KEY.game``."""
    return load_game(GAMES_DIR / f"{key}.game")


@dataclass(frozen=True)
class ExperimentGame:
    """One column of a table: a game, its abstractions and how long each solve runs.

    Attributes:
        key: short name, also the ``.game`` file's stem.
        label: the column heading.
        abstraction: the real game's bet sizes (an action-abstraction spec).
        buckets: strength buckets per round for the blueprint (None: no card abstraction).
        subgame_round: subgames start at every public state at the start of this round (0-based).
        blueprint_iterations, subgame_iterations: DCFR iterations.
        published: the paper's figures for this column, by row name (mbb/hand).
    """

    key: str
    label: str
    abstraction: str
    buckets: tuple[int | None, ...]
    subgame_round: int
    blueprint_iterations: int
    subgame_iterations: int
    published: dict[str, float]

    def game(self) -> GameDef:
        return experiment_game(self.key)


TABLE1 = (
    ExperimentGame("small2", "small 2-round", "0.5,1;allin;cap=2", (None, 6), 1, 400, 150,
                   {"blueprint": 91.3, "unsafe": 5.51, "safe": 22.6}),
    ExperimentGame("large2", "large 2-round", "0.5,1;allin;cap=2", (None, 8), 1, 300, 120,
                   {"blueprint": 41.3, "unsafe": 397, "safe": 9.84}),
    ExperimentGame("three3", "3-round", "0.5,1;allin;cap=2,1,1", (None, 4, 4), 1, 300, 120,
                   {"blueprint": 346, "unsafe": 79.3, "safe": 72.6}),
)
#: The cheap setting the tests run: one tiny game (2-card flop, 6 big blinds), few iterations.
TABLE1_QUICK = (
    ExperimentGame("quick2", "tiny 2-round (quick)", "0.5,1;allin;cap=2", (None, 3), 1, 60, 40, {}),
)
