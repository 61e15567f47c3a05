"""Baseline bots: known, seeded strategies that play over the real protocol.

Each bot is a :data:`dealer.policy.Policy`: a function from the state it must act in to the exact
distribution it samples from.  Because the distribution is explicit, every bot can
write a decision log (what AIVAT needs) and simulations can use the same policies
in-process.

Kinds (``dealer bot KIND ...``):

``random``  the reference example player: fold 0.06 (only when facing a bet), call
            and raise 0.47 each, renormalised over the legal actions; a no-limit
            raise-to amount uniform over the legal range.
``call``    always check or call.
``raise``   the minimum legal raise, else call.
``allin``   raise all-in (limit games: the maximum raise), else call.
``fold``    fold when facing a bet, else check.
``equity``  a heuristic heads-up hold'em player (:mod:`dealer.equitybot`): its equity
            against a range narrowed by the opponent's actions, pot odds, value bets
            and a few bluffs.  Its play depends on its cards, so it is not in
            :data:`CARD_INDEPENDENT` and its decision log declares a card-dependent
            strategy instead of a policy.
"""

from __future__ import annotations

from dealer.policy import Distribution, Policy
from protocol.gamedef import GameDef
from protocol.rules import CALL, FOLD, Action, ActionType, State, raise_to


def _raise_action(state: State, amount: int) -> Action:
    return raise_to(amount) if state.game.is_nolimit else Action(ActionType.RAISE)


def random_policy(state: State) -> Distribution:
    """The reference random player (see the module docstring)."""
    weights = {ActionType.FOLD: 0.06, ActionType.CALL: 0.47, ActionType.RAISE: 0.47}
    legal = state.legal_action_types()
    total = sum(weights[k] for k in legal)
    probs: list[tuple[Action, float]] = []
    if ActionType.FOLD in legal:
        probs.append((FOLD, weights[ActionType.FOLD] / total))
    probs.append((CALL, weights[ActionType.CALL] / total))
    raise_mass = weights[ActionType.RAISE] / total if ActionType.RAISE in legal else 0.0
    if raise_mass:
        low, high = state.raise_bounds()  # type: ignore[misc]
        if state.game.is_nolimit and high > low:
            return Distribution(tuple(probs), (raise_mass, low, high))
        probs.append((_raise_action(state, low), raise_mass))
    return Distribution(tuple(probs))


def call_policy(state: State) -> Distribution:
    return Distribution(((CALL, 1.0),))


def raise_policy(state: State) -> Distribution:
    bounds = state.raise_bounds()
    if bounds is None:
        return Distribution(((CALL, 1.0),))
    return Distribution(((_raise_action(state, bounds[0]), 1.0),))


def allin_policy(state: State) -> Distribution:
    bounds = state.raise_bounds()
    if bounds is None:
        return Distribution(((CALL, 1.0),))
    return Distribution(((_raise_action(state, bounds[1]), 1.0),))


def fold_policy(state: State) -> Distribution:
    return Distribution(((FOLD if state.can_fold() else CALL, 1.0),))


def equity_policy(state: State) -> Distribution:
    """The equity bot (:func:`dealer.equitybot.equity_policy`), imported on first use so
    that its tables and numba kernels cost the other bots nothing."""
    from dealer.equitybot import equity_policy as policy

    return policy(state)


POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "call": call_policy,
    "raise": raise_policy,
    "allin": allin_policy,
    "fold": fold_policy,
    "equity": equity_policy,
}

#: Policies whose distribution never depends on the acting seat's own cards (every
#: baseline but ``equity``): AIVAT can average over such a seat's private cards in closed form.
CARD_INDEPENDENT: frozenset[Policy] = frozenset(p for p in POLICIES.values() if p is not equity_policy)


def declared(kind: str) -> tuple[str | None, str]:
    """What a decision log's header says ``kind`` plays: ``(policy, strategy)``.

    A card-independent bot names its policy (an evaluator may then replay it at any
    cards); a card-dependent one declares only that its play depends on its cards.
    """
    from protocol.decisions import BASELINE, CARD_DEPENDENT

    if POLICIES[kind] in CARD_INDEPENDENT:
        return kind, BASELINE
    return None, CARD_DEPENDENT


def prepare(kind: str, game: GameDef) -> None:
    """Ready bot ``kind`` for a match of ``game`` (tables loaded, kernels compiled).

    Raises:
        ValueError: (one sentence) if the bot cannot play ``game``.
    """
    if kind == "equity":
        from dealer.equitybot import prepare as prepare_equity

        prepare_equity(game)


def game_problem(kind: str, game: GameDef) -> str | None:
    """Why bot ``kind`` cannot play ``game``, or None if it can (loads no table)."""
    if kind == "equity":
        from dealer.equitybot import UnsupportedGame, check_game

        try:
            check_game(game)
        except UnsupportedGame as exc:
            return str(exc)
    return None


def policy_name(policy: Policy) -> str | None:
    """The baseline name of ``policy``, or None if it is not a baseline."""
    return next((name for name, p in POLICIES.items() if p is policy), None)
