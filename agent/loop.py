"""The agent's connection loop: read every MATCHSTATE line, answer on its turn, log.

The state is rebuilt from every line by :mod:`protocol` (``Connection.states``:
comment lines skipped, a malformed line logged and skipped, the end of the match or
a dropped connection ends the iteration).  Each decision is logged to the decision
log as soon as the reply is sent, so a crash loses nothing already played.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import structlog

from agent.policy import Agent
from protocol.client import Connection
from protocol.decisions import DecisionLogWriter

log = structlog.get_logger("agent.loop")


@dataclass
class MatchSummary:
    """What happened over one connection.

    ``ended`` is ``"match over"`` when the dealer closed after a finished hand, else
    ``"connection lost"`` (closed or broken mid-hand).
    """

    hands: int = 0
    decisions: int = 0
    ended: str = "match over"
    action_seconds: list[float] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return self.ended == "match over"


def play(conn: Connection, agent: Agent, writer: DecisionLogWriter | None = None) -> MatchSummary:
    """Play every hand the dealer sends over ``conn`` until it closes."""
    summary = MatchSummary()
    last = None
    seen_hand = None
    for match in conn.states():
        received = time.monotonic()
        last = match
        if match.hand_number != seen_hand:
            seen_hand = match.hand_number
            summary.hands += 1
        agent.observe(match)
        if not match.is_my_turn:
            continue
        agent.clock.start_action()
        decision = agent.decide(match)
        try:
            conn.act(match, decision.action)
        except OSError as exc:
            log.warning("could not reply; the dealer is gone", hand=match.hand_number, error=str(exc))
            summary.ended = "connection lost"
            return summary
        agent.clock.end_action()
        seconds = time.monotonic() - received
        summary.action_seconds.append(seconds)
        summary.decisions += 1
        summary.sources[decision.source] = summary.sources.get(decision.source, 0) + 1
        if writer is not None:
            writer.record(
                hand=match.hand_number, position=match.position, state=conn.last_line, probs=decision.probs,
                taken=str(decision.action), range=decision.range, seconds=seconds, detail=decision.detail,
            )  # fmt: skip
    if last is not None and not last.state.finished:
        summary.ended = "connection lost"
    return summary
