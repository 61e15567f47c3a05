"""The agent's connection loop: read every MATCHSTATE line, answer on its turn, log.

The state is rebuilt from every line by :mod:`protocol` (``Connection.states``:
comment lines skipped, a malformed line logged and skipped, the end of the match or
a dropped connection ends the iteration).  Each decision is written to the decision
log (flushed) just before the reply is sent, so a crash loses nothing already played:
a hand the dealer finished has every decision of ours logged.

Nothing a decision raises ends the match: the line is logged with the error and
answered with a check/call (always legal on the seat's turn), logged as a decision
from the source ``"fallback"``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import structlog

from agent.player import Agent, AgentDecision
from protocol.client import Connection
from protocol.decisions import ROW_TOTAL, DecisionLogWriter, LoggedRange
from protocol.rules import CALL
from protocol.wire import MatchState

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
        try:
            agent.observe(match)
        except Exception as exc:  # on our turn the decision below falls back to a check/call
            log.error("following the hand failed", line=conn.last_line, error=repr(exc))
        if not match.is_my_turn:
            continue
        agent.clock.start_action()
        decision = _decide(agent, match, conn.last_line)
        seconds = time.monotonic() - received
        # Logged before it is sent: a seat killed between the two must not leave a hand the
        # dealer finished without its decision (a resumed run would then miss it for good).
        if writer is not None:
            try:
                writer.record(
                    hand=match.hand_number, position=match.position, state=conn.last_line, probs=decision.probs,
                    taken=str(decision.action), range=decision.range, seconds=seconds, detail=decision.detail,
                )  # fmt: skip
            except Exception as exc:  # a row the log cannot take must not end the match
                log.error("decision not logged", line=conn.last_line, error=repr(exc))
        try:
            conn.act(match, decision.action)
        except OSError as exc:
            log.warning("could not reply; the dealer is gone", hand=match.hand_number, error=str(exc))
            summary.ended = "connection lost"
            return summary
        except Exception as exc:  # the wire refuses lines no reply can echo; should this slip past, go on
            log.error("could not reply to the line; skipped", line=conn.last_line, error=repr(exc))
            agent.clock.end_action()
            continue
        agent.clock.end_action()
        summary.action_seconds.append(seconds)
        summary.decisions += 1
        summary.sources[decision.source] = summary.sources.get(decision.source, 0) + 1
    if last is not None and not last.state.finished:
        summary.ended = "connection lost"
    return summary


def _decide(agent: Agent, match: MatchState, line: str) -> AgentDecision:
    """``agent.decide(match)``, or a logged check/call if anything in it raises.

    The agent already turns a failing strategist into a check/call; this covers the
    rest (its hand memory, sampling, a line the wire let through that it cannot use),
    so that no line costs the match.
    """
    try:
        return agent.decide(match)
    except Exception as exc:
        log.error("decision failed; checking/calling", line=line, hand=match.hand_number, error=repr(exc))
        logged: LoggedRange | None
        try:
            logged = _call_range(agent, match)
        except Exception:  # the agent's memory is broken too: the call is logged without a range
            logged = None
        detail = {"source": "fallback", "error": repr(exc)[:200]}
        return AgentDecision(CALL, [(str(CALL), 1.0)], logged, "fallback", detail)  # type: ignore[arg-type]


def _call_range(agent: Agent, match: MatchState) -> LoggedRange:
    """The range of a check/call with every hand, weighted by the agent's reach if it has one.

    Logged so that the decision log still gives the seat's strategy at every node it
    answered (range-based evaluation needs one at each); the reach is left as it was,
    as calling with everything leaves it.
    """
    blocked = agent.blocked(match)
    counts = np.where(blocked, 0, ROW_TOTAL).astype(np.uint16)[:, None]
    hand = agent.hand
    ours = hand is not None and (hand.number, hand.position) == (match.hand_number, match.position)
    reach = hand.reach if ours and hand.reach.shape == blocked.shape else np.ones(blocked.shape)  # type: ignore[union-attr]
    return LoggedRange.pack(counts, np.where(blocked, 0.0, reach))
