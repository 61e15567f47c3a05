"""``agent lbr``: local best response against the real agent on heads-up no-limit hold'em.

A run lives in a folder: ``hands.jsonl`` (a header naming the run's configuration,
then one line per finished hand, flushed as it ends) and ``result.json`` (the summary
so far, rewritten after every hand).  Running again into the same folder with the
same configuration resumes with the hands not yet finished: deals depend only on the
seed and the hand number (:func:`agent.lbr.deal_hand`), so a resumed run plays the
same cards; the agent's own randomness and clock start afresh, as in a new match.
Hands are played one after the other here, or by several processes at once
(:mod:`agent.lbr_jobs`), whose hands finish out of order: a run's hands are the set of
hand numbers it has finished, and the next ones are the lowest numbers missing.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import TextIO

import numpy as np

from agent.lbr import HoldemEquity, LocalBestResponse, Settle, Summary, deal_hand, lbr_setting, play_hand, summarize
from agent.lbr_policy import AgentRangePolicy
from agent.solving import SUBGAME_ABSTRACTION
from protocol.fasteval import HOLE_PAIRS, NUM_CARDS
from protocol.gamedef import GameDef

#: Published LBR figures (Lisý & Bowling 2017; DeepStack, Moravčík et al. 2017), mbb/hand ± 95%.
PUBLISHED = {
    "fc": "Slumbot 2016 +522 ± 50, DeepStack −428 ± 87",
    "fcpa": "Slumbot 2016 +4,020 ± 115, DeepStack −383 ± 219",
    "56": "none quoted here for this setting (see Lisý & Bowling 2017)",
}


class RunError(Exception):
    """A run cannot start (bad options, a folder holding another run)."""


@dataclass(frozen=True)
class RunConfig:
    """What a run's hands depend on; a folder resumes only with the same configuration."""

    game: str
    setting: str
    seed: int
    blueprint: str | None
    blueprint_only: bool
    time_budget: float
    target: float | None
    equity_samples: int
    action_floor: float
    all_in: str
    solve_from: str
    gadget: str
    later_gadget: str | None
    unsafe_weight: float
    solve_iterations: int
    solve_root: str = "decision"  # runs written before the option existed resume with it
    new_round_alternatives: str = "estimated"  # likewise
    river_sizes: str = SUBGAME_ABSTRACTION  # likewise
    open_unsafe_weight: float | None = None  # likewise
    turn_search: str = "full"  # what runs written before the option played


@dataclass
class HandRecord:
    """One finished hand: LBR's chips and their showdown expectation over the agent's range
    (:class:`agent.lbr.HandResult`), wall and CPU seconds of the whole hand, and the
    agent's seconds on its real decisions (what the hand would cost it in a match), and the
    hand as a dealer log's ``STATE`` line (empty in runs written before it was kept)."""

    hand: int
    chips: float
    expected: float
    wall: float
    cpu: float
    agent: float
    line: str = ""


def check_game(game: GameDef) -> None:
    """Raises RunError unless ``game`` is heads-up no-limit hold'em (LBR's equity is hold'em's)."""
    board = game.board_cards_through(game.num_rounds - 1)
    shape = (game.num_players, game.num_hole_cards, game.num_suits * game.num_ranks, board)
    if not game.is_nolimit or shape != (2, 2, NUM_CARDS, 5):
        raise RunError("agent lbr plays heads-up no-limit hold'em only (its equity ranks hold'em hands)")


def load_records(folder: Path, config: RunConfig) -> list[HandRecord]:
    """The finished hands of the run in ``folder`` (none if it holds no run yet).

    Raises:
        RunError: if the folder holds a run with another configuration.
    """
    path = folder / "hands.jsonl"
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    try:
        there = json.loads(lines[0])["config"] if lines else {}
    except (json.JSONDecodeError, KeyError, TypeError):
        raise RunError(f"{path} is not an LBR run's log; choose another --out") from None
    here = asdict(config)
    there = {**{f.name: f.default for f in fields(RunConfig) if f.default is not MISSING}, **there}
    if there != here:
        name = next(k for k in here if there.get(k, "missing") != here[k])
        raise RunError(f"{folder} holds a run with another configuration: {name} {here[name]} here, "
                       f"{there.get(name, 'missing')} there; choose another --out or the same options")  # fmt: skip
    records, seen = [], set()
    for line in lines[1:]:
        try:
            record = HandRecord(**json.loads(line))
        except (json.JSONDecodeError, TypeError):
            break  # a line cut short by a kill: the hand is played again
        if record.hand not in seen:
            seen.add(record.hand)
            records.append(record)
    return records


def hands_to_play(records: list[HandRecord], total: int) -> list[int]:
    """The hand numbers that bring ``records`` to ``total`` hands: the lowest not finished."""
    done = {r.hand for r in records}
    todo: list[int] = []
    number = 0
    while len(done) + len(todo) < total:
        if number not in done:
            todo.append(number)
        number += 1
    return todo


class RunLog:
    """The run's folder: appends each hand to ``hands.jsonl`` and rewrites ``result.json``."""

    def __init__(self, folder: Path, config: RunConfig, records: list[HandRecord]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.config = folder, config
        path = folder / "hands.jsonl"
        # Rewrite what was kept (drops a line cut short), then append.
        with path.open("w") as f:
            f.write(json.dumps({"config": asdict(config)}) + "\n")
            f.writelines(json.dumps(asdict(r)) + "\n" for r in records)
        self._file: TextIO = path.open("a")

    def add(self, record: HandRecord) -> None:
        self._file.write(json.dumps(asdict(record)) + "\n")
        self._file.flush()

    def write_result(self, result: dict) -> None:
        tmp = self.folder / "result.json.tmp"
        tmp.write_text(json.dumps(result, indent=2) + "\n")
        os.replace(tmp, self.folder / "result.json")

    def close(self) -> None:
        self._file.close()


def _estimates(records: list[HandRecord], big_blind: int) -> dict[str, Summary | None]:
    """Both estimates of LBR's winnings (None with fewer than two hands)."""
    if len(records) < 2:
        return {"chips": None, "expected": None}
    return {
        "chips": summarize(np.array([r.chips for r in records]), big_blind),
        "expected": summarize(np.array([r.expected for r in records]), big_blind),
    }


def session_of(policy: AgentRangePolicy) -> dict:
    """What the agent answered in this process: its real decisions per row source, the
    answers it computed and how many of them were hypothetical (LBR's what-ifs)."""
    return {"agent_sources": dict(policy.sources), "answers": policy.questions, "hypothetical": policy.hypothetical}


def merge_sessions(sessions: list[dict]) -> dict:
    """Several processes' :func:`session_of` summed."""
    sources: dict[str, int] = {}
    for s in sessions:
        for k, v in s["agent_sources"].items():
            sources[k] = sources.get(k, 0) + v
    return {"agent_sources": sources, "answers": sum(s["answers"] for s in sessions),
            "hypothetical": sum(s["hypothetical"] for s in sessions)}  # fmt: skip


def result_of(config: RunConfig, records: list[HandRecord], big_blind: int, session: dict | None) -> dict:
    """The run's summary as written to ``result.json`` (``session``: :func:`session_of`)."""
    wall = sum(r.wall for r in records)
    estimates = {
        name: {"mbb_per_hand": s.mbb_per_hand, "ci95": s.ci95} if s else None
        for name, s in _estimates(records, big_blind).items()
    }
    out = {
        "config": asdict(config),
        "hands": len(records),
        "showdown_expectation": estimates["expected"],
        "chips_won": estimates["chips"],
        "wall_seconds": wall,
        "cpu_seconds": sum(r.cpu for r in records),
        "agent_seconds_per_hand": sum(r.agent for r in records) / len(records) if records else None,
        "hands_per_second": len(records) / wall if wall > 0 else None,
        "published": PUBLISHED[config.setting],
        "load_average": os.getloadavg(),
    }
    if session is not None:
        out["this_session"] = session
    return out


def describe(records: list[HandRecord], big_blind: int, setting: str) -> str:
    """The verdict: LBR's winnings (showdown expectation, and chips won) with 95% CIs, and the published anchors."""
    estimates = _estimates(records, big_blind)
    best, chips = estimates["expected"], estimates["chips"]
    if best is None or chips is None:
        return f"LBR ({setting}): {len(records)} hand(s) played, too few for a confidence interval"
    low, high = best.mbb_per_hand - best.ci95, best.mbb_per_hand + best.ci95
    verdict = "LBR wins" if low > 0 else "LBR loses" if high < 0 else "not significant"
    return (
        f"LBR ({setting}) against the agent: {best.mbb_per_hand:+,.0f} ± {best.ci95:,.0f} mbb/hand "
        f"(95% CI, {len(records)} hands, showdowns by expectation; {verdict}); "
        f"chips won {chips.mbb_per_hand:+,.0f} ± {chips.ci95:,.0f}.\nPublished: {PUBLISHED[setting]}."
    )


class HandPlayer:
    """LBR and the agent set up to play hands of a run one at a time (in one process);
    ``equity_seed`` seeds LBR's equity samples (default: the run's seed)."""

    def __init__(
        self, config: RunConfig, game: GameDef, agent_policy: AgentRangePolicy, equity_seed: int | list[int] | None = None
    ) -> None:
        self.config, self.game, self.policy = config, game, agent_policy
        seed = config.seed if equity_seed is None else equity_seed
        self.lbr = LocalBestResponse(game, HOLE_PAIRS, agent_policy, HoldemEquity(samples=config.equity_samples, seed=seed),
                                     lbr_setting(config.setting, game.num_rounds))  # fmt: skip
        self.deck = np.arange(NUM_CARDS)
        # Showdowns by expectation from the flop on: the flop's 1,081 turn-river completions are enumerated.
        self.settle = Settle(HoldemEquity(max_boards=1081), from_round=1)

    def play(self, number: int) -> HandRecord:
        """Hand ``number`` of the run, LBR in seat ``number % 2``."""
        wall, cpu, agent = time.monotonic(), time.process_time(), self.policy.agent_seconds
        state, gen = deal_hand(self.game, self.deck, number, self.config.seed)
        result = play_hand(self.lbr, state, number % 2, self.policy, gen, self.settle)
        wall, cpu, agent = time.monotonic() - wall, time.process_time() - cpu, self.policy.agent_seconds - agent
        return HandRecord(number, result.chips, result.expected, wall, cpu, agent, result.line)


def play(
    config: RunConfig, game: GameDef, agent_policy: AgentRangePolicy, records: list[HandRecord], total: int,
    log: RunLog | None, progress,
) -> list[HandRecord]:  # fmt: skip
    """Play until ``records`` holds ``total`` hands, appending and logging each as it ends
    (an interruption leaves ``records`` with every hand finished so far)."""
    player = HandPlayer(config, game, agent_policy)
    for number in hands_to_play(records, total):
        records.append(player.play(number))
        if log is not None:
            log.add(records[-1])
            log.write_result(result_of(config, records, game.big_blind, session_of(agent_policy)))
        progress(records)
    return records
