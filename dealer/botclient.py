"""A baseline bot as a real protocol client process (``dealer bot KIND HOST PORT``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dealer.bots import POLICIES, declared, prepare
from protocol.client import Connection
from protocol.decisions import DecisionLogWriter
from protocol.gamedef import GameDef
from protocol.seeding import reseed

#: Seconds a bot polls for the dealer's next line before blocking.  A baseline bot
#: answers in microseconds, so the next line usually comes within this; polling
#: saves the wake-up from a blocking read (tens of microseconds on a virtual
#: machine) when a core is free.  When the cores are busy the reader backs off and
#: blocks instead (see :meth:`protocol.lines.LineReader._spin`).
_SPIN = 0.0002


class BotFailed(Exception):
    """The bot could not start; the message says why in one sentence."""


def play(
    kind: str,
    host: str,
    port: int,
    game: GameDef,
    *,
    seed: int = 0,
    name: str | None = None,
    match: str = "",
    decision_log: Path | None = None,
) -> int:
    """Connect and play until the dealer closes; returns the number of decisions made.

    Raises:
        BotFailed: if the bot cannot play ``game``, the decision log cannot be written
            or the dealer cannot be reached.
    """
    policy = POLICIES[kind]
    try:
        prepare(kind, game)  # before connecting: a bot that loads tables is ready for its first state
    except ValueError as exc:
        raise BotFailed(str(exc)) from None
    rng = np.random.default_rng(seed)
    declared_policy, strategy = declared(kind)
    try:
        writer = (
            DecisionLogWriter(
                decision_log, seat=name or kind, match=match, game=game, policy=declared_policy, strategy=strategy
            )
            if decision_log is not None
            else None
        )
    except OSError as exc:
        raise BotFailed(f"cannot write the decision log {decision_log}: {exc.strerror or exc}") from None
    decisions = 0
    try:
        try:
            connection = Connection.open(host, port, game, spin=_SPIN)
        except OSError as exc:  # refused, unreachable, or a host name that does not resolve
            raise BotFailed(f"cannot reach the dealer at {host}:{port} ({exc.strerror or exc})") from None
        with connection as conn:
            hand = None
            for matchstate in conn.states():
                if not matchstate.is_my_turn:
                    continue
                if hand != (matchstate.hand_number, matchstate.position):
                    hand = (matchstate.hand_number, matchstate.position)
                    reseed(rng, seed, *hand)  # common random numbers across matches on the same deals
                distribution = policy(matchstate.state)
                action = distribution.sample(rng)
                # Logged before it is sent: a bot killed between the two (Ctrl-C reaches the
                # whole process group) must not leave a hand the dealer then finished without
                # its decision, which a resumed run could never add back.
                if writer is not None:
                    writer.record(
                        hand=matchstate.hand_number,
                        position=matchstate.position,
                        state=conn.last_line,
                        probs=distribution.wire_probs(),
                        uniform_raise=distribution.uniform_raise,
                        taken=str(action),
                    )
                conn.act(matchstate, action)
                decisions += 1
    finally:
        if writer is not None:
            writer.close()
    return decisions
