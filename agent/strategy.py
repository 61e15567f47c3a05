"""Range strategies: what the agent plays at a node with every private hand it could hold.

A :class:`RangeStrategy` is the output of every stage of the strategist
(blueprint, subgame solve, fallback): concrete actions and one row of probabilities
per private hand (:func:`protocol.decisions.private_hands` order).  Here it is made
legal (:func:`legalize`: raise sizes clamped through ``State.raise_bounds``, a fold
that is not allowed becomes a check, duplicates merged) and quantised to the exact
rows the agent samples from and logs (:func:`quantize`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from protocol.decisions import ROW_TOTAL
from protocol.rules import CALL, Action, ActionType, State, raise_to


@dataclass(frozen=True, slots=True)
class RangeStrategy:
    """``probs[h, i]``: probability of ``actions[i]`` holding private hand ``h``.

    ``source`` names the strategist's stage that made it (``blueprint``, ``unsafe``,
    ``maxmargin``, ``fallback`` ...), for the decision log and the figures; ``detail``
    says more for a person reading the hand (blueprint node and bucket, the solve's
    iterations and seconds ...): JSON-like values only, it goes into the decision log.
    """

    actions: tuple[Action, ...]
    probs: np.ndarray
    source: str
    detail: dict | None = None


def legal_action(state: State, action: Action) -> Action:
    """The legal action closest to ``action``: raises clamped into range (or a call
    when raising is not allowed), a fold that is not allowed turned into a check."""
    if action.kind == ActionType.RAISE:
        bounds = state.raise_bounds()
        if bounds is None:
            return CALL
        if not state.game.is_nolimit:
            return Action(ActionType.RAISE)
        return raise_to(min(max(round(action.size), bounds[0]), bounds[1]))
    if action.kind == ActionType.FOLD and not state.can_fold():
        return CALL
    return Action(action.kind)


def legalize(state: State, strategy: RangeStrategy) -> RangeStrategy:
    """``strategy`` over legal, distinct actions (columns of actions that became equal are summed).

    Raises:
        ValueError: if ``probs`` does not have one column per action.
    """
    probs = np.asarray(strategy.probs, dtype=np.float64)
    if probs.ndim != 2 or probs.shape[1] != len(strategy.actions):
        raise ValueError(f"a strategy over {len(strategy.actions)} actions has probabilities of shape {probs.shape}")
    merged: dict[Action, int] = {}
    columns: list[int] = []
    for action in strategy.actions:
        columns.append(merged.setdefault(legal_action(state, action), len(merged)))
    if len(merged) == len(strategy.actions) and all(a == b for a, b in zip(merged, strategy.actions)):
        return RangeStrategy(strategy.actions, probs, strategy.source, strategy.detail)
    out = np.zeros((probs.shape[0], len(merged)))
    for source, column in enumerate(columns):
        out[:, column] += probs[:, source]
    return RangeStrategy(tuple(merged), out, strategy.source, strategy.detail)


def quantize(probs: np.ndarray, blocked: np.ndarray, fallback_column: int) -> np.ndarray:
    """Rows of ``probs`` as uint16 counts that sum to exactly :data:`ROW_TOTAL`.

    Rounds by largest remainder.  Blocked hands (bool ``(hands,)``) get all-zero rows;
    a row with no positive mass (or NaNs) puts everything on ``fallback_column``.
    Returns uint16 ``(hands, actions)``.
    """
    p = np.where(np.isfinite(probs), np.maximum(probs, 0.0), 0.0)
    sums = p.sum(axis=1)
    empty = sums <= 0
    p[empty] = 0.0
    p[empty, fallback_column] = 1.0
    sums[empty] = 1.0
    scaled = p * (ROW_TOTAL / sums[:, None])
    counts = np.floor(scaled).astype(np.int64)
    short = ROW_TOTAL - counts.sum(axis=1)
    # Give the missing units to the columns with the largest remainders.
    order = np.argsort(-(scaled - counts), axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(p.shape[1])[None, :].repeat(p.shape[0], axis=0), axis=1)
    counts += rank < short[:, None]
    counts[blocked] = 0
    return counts.astype(np.uint16)


