"""The ``equity`` bot: a heuristic heads-up hold'em player (``dealer bot equity``).

What a bot author writes in an afternoon, and not trivially beaten: it plays its
equity against a range it narrows from the opponent's actions, with pot odds.

The opponent's range is a weight on each of the 1,326 hole pairs (0 for pairs meeting
the bot's cards or the board).  Each opponent action of the hand so far, replayed from
the public betting, reshapes it by the pairs' *strength* on that round:

* preflop strength: a pair's percentile among the 1,326 by its exact equity against a
  random hand (from the shipped pre-flop margins, :func:`dealer.evaluation.margins.preflop_table`);
* from the flop on: a pair's showdown percentile among all pairs, averaged over the
  round's run-outs (every river card on the turn, two sampled river cards per turn
  card on the flop), so draws count for what they may become;
* a raise keeps, softly, the strongest part of the range: the top 40% / 15% / 7% / 4%
  of its weight for the round's first, second, third and later raise preflop, 50% /
  25% / 12% / 8% after the flop, narrower for bigger raises (relative to the pot), with
  a floor of 15% of the weight everywhere for bluffs;
* a call of a bet keeps the top 70% (preflop) or 75%, floored at 25%, and takes a
  little off the very top (strong hands would have raised); a check or a limp takes
  half off the top 15% (strong hands would have bet).

The bot's equity is exact before the flop (the margins table against the weighted
range) and over the same run-outs after it.  Then:

* preflop: raise the top 20% of hands unopened (3 big blinds from the small blind, 4
  over a limp), limp the next 45%, fold the bottom 35% in the small blind; facing a
  raise, re-raise the top 5% (3-bet; 1.5% and 0.7% for the 4-bet and later), call when
  the equity beats the pot odds by 2%, else fold.  The top 3% never fold;
* after the flop: bet 2/3 pot with equity above about 0.66 (the pot above 0.85;
  monsters check 15% of the time before the river), bluff 10% of rivers and 8% of
  flops with equity under 0.30; facing a bet, raise (0.8 of a pot raise) with equity
  above about 0.82 most of the time, call when it beats the pot odds by 4%, else fold.

Thresholds are ramps 4 points wide, so play mixes near them.  Bets that would commit
more than 55% of what is left go all-in.  Limit hold'em works too (every raise is the
fixed one).

Deterministic per state: the distribution is a function of what the seat sees (its
cards, the board so far, the betting), and the sampled run-outs are drawn from a
generator seeded by those cards, so the same state always gives the same distribution
(as :mod:`dealer.bots` requires, and a replay in AIVAT relies on).  Its decisions take
a few milliseconds (numba kernels over :mod:`protocol.fasteval`; a round's run-outs are
ranked once per hand).  Its play depends on its cards, so its decision log declares a
card-dependent strategy and no baseline policy: AIVAT corrects its decisions at the
cards it held.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit

from dealer.evaluation.margins import is_holdem, preflop_table
from dealer.policy import Distribution
from protocol.fasteval import HOLE_PAIRS, NUM_CARDS, NUM_HOLE_PAIRS, EvalTables, eval_tables, range_ranks
from protocol.gamedef import GameDef
from protocol.rules import CALL, FOLD, Action, ActionType, State, initial_state, raise_to

# --- the opponent's range ---------------------------------------------------------------

#: Top fraction of the range kept by the round's first, second, third and later raise.
PREFLOP_RAISE_TOP = (0.40, 0.15, 0.07, 0.04)
POSTFLOP_RAISE_TOP = (0.50, 0.25, 0.12, 0.08)
#: Weight every pair keeps after a raise (bluffs) or a call (slow plays, loose calls).
RAISE_FLOOR, CALL_FLOOR = 0.15, 0.25
#: Top fraction of the range kept by a call of a bet, preflop and after the flop.
PREFLOP_CALL_TOP, POSTFLOP_CALL_TOP = 0.70, 0.75
#: A check or a limp takes CAP_CUT of the weight off the top CAP_TOP of the range.
CAP_TOP, CAP_CUT = 0.15, 0.5
#: Softness of the cuts, in strength percentiles.
TEMPERATURE = 0.04

# --- the bot's own play --------------------------------------------------------------------

#: Ramps are this wide around each threshold (the play mixes inside them).
RAMP = 0.04
OPEN_TOP, LIMP_TOP = 0.20, 0.65
#: Preflop percentile to re-raise facing the round's first, second and later raises.
RERAISE = (0.95, 0.985, 0.993)
#: Never fold these before the flop (the top 3%: aces, kings, queens, ...).
NEVER_FOLD = 0.97
PREFLOP_MARGIN, POSTFLOP_MARGIN = 0.02, 0.04
VALUE_EQUITY, BIG_VALUE_EQUITY, RAISE_EQUITY = 0.66, 0.85, 0.82
#: Share of strong hands that raise a bet (the rest call).
RAISE_SHARE = 0.8
SLOWPLAY_EQUITY, SLOWPLAY = 0.92, 0.15
BLUFF_EQUITY, RIVER_BLUFF, FLOP_BLUFF = 0.30, 0.10, 0.08
#: Bet sizes as fractions of the pot (after calling, for raises).
BET, BIG_BET, RAISE_SIZE = 0.67, 1.0, 0.8
#: Opening raise to 3 big blinds; over a limp, a raise of 1.5 pots (to 4 big blinds).
OPEN_BLINDS, ISOLATE_POT = 3, 1.5
#: A bet committing more than this share of what is left goes all-in.
COMMIT = 0.55

# --- run-outs -----------------------------------------------------------------------------

#: River cards sampled per turn card for the flop's run-outs.
RIVERS_PER_TURN = 2
_SEED_SALT = 0x6571  # keeps these draws apart from any other use of the cards as a seed
_PREFLOP, _RIVER = 0, 3


class UnsupportedGame(ValueError):
    """The bot plays heads-up hold'em only."""


def check_game(game: GameDef) -> None:
    """Raise :class:`UnsupportedGame` unless ``game`` is heads-up hold'em (limit or no-limit)."""
    if game.num_players != 2 or not is_holdem(game) or game.num_rounds != 4:
        raise UnsupportedGame("the equity bot plays heads-up hold'em only (52 cards, 2 hole cards, a 3-1-1 board)")


def prepare(game: GameDef) -> None:
    """Check ``game``, load the tables and compile the kernels before a match."""
    check_game(game)
    state = initial_state(game, 0, ((0, 1), (50, 51)), (10, 20, 30, 40, 44))
    equity_policy(state)
    for action in (CALL, CALL, CALL):  # limp, check, check: a flop decision compiles the kernels
        state = state.apply(action)
    equity_policy(state)


# --- tables ----------------------------------------------------------------------------


def pair_index(cards: tuple[int, ...]) -> int:
    """Row of a hole pair in :data:`protocol.fasteval.HOLE_PAIRS`."""
    low, high = sorted(cards)
    return high * (high - 1) // 2 + low


@dataclass(frozen=True)
class _Preflop:
    margins: np.ndarray  # float64 (1326, 1326): [opponent, pair] P(win) - P(lose) of pair
    strength: np.ndarray  # float64 (1326,): percentile by equity against a random hand
    order: np.ndarray  # pairs, strongest first


@cache
def _preflop() -> _Preflop:
    margins = preflop_table()
    # Every pair meets 1,225 others: the table's zeros for the 101 it shares a card with add nothing.
    equity = 0.5 + 0.5 * margins.sum(axis=0) / math.comb(NUM_CARDS - 2, 2)
    strength = _percentiles(np.round(equity, 9))
    return _Preflop(margins, strength, np.argsort(-strength, kind="stable"))


def _percentiles(values: np.ndarray) -> np.ndarray:
    """Each value's percentile among ``values`` (ties share their mean position), in [0, 1]."""
    ordered = np.sort(values)
    below = np.searchsorted(ordered, values, side="left")
    equal = np.searchsorted(ordered, values, side="right") - below
    return (below + (equal - 1) / 2) / (len(values) - 1)


@cache
def _pairs_with_card() -> np.ndarray:
    """bool (52, 1326): which pairs hold each card."""
    out = np.zeros((NUM_CARDS, NUM_HOLE_PAIRS), dtype=bool)
    for i, (a, b) in enumerate(HOLE_PAIRS):
        out[a, i] = out[b, i] = True
    return out


def _blocked(cards: tuple[int, ...]) -> np.ndarray:
    """bool (1326,): pairs sharing a card with ``cards``."""
    return _pairs_with_card()[list(cards)].any(axis=0) if cards else np.zeros(NUM_HOLE_PAIRS, dtype=bool)


# --- a round's run-outs ------------------------------------------------------------------


@dataclass(frozen=True)
class _Street:
    """A round seen from the bot's cards: run-outs of the board, every pair's rank on each."""

    ranks: np.ndarray  # int32 (R, 1326): rank on each run-out, 0 where the pair meets it
    strength: np.ndarray  # float64 (1326,): mean showdown percentile over the run-outs
    order: np.ndarray  # pairs, strongest first


@njit(cache=True)
def _rank_runouts(t: EvalTables, boards: np.ndarray, out: np.ndarray) -> None:
    """Rank every pair on each five-card board (``boards`` int64 (R, 5)) into ``out`` (int32 (R, 1326))."""
    for r in range(boards.shape[0]):
        range_ranks(t, boards[r], 5, out[r])


#: Showdown ranks are compared for strength by category and two top cards: ``rank >> 12``
#: (:mod:`protocol.handrank`'s encoding), which lets a run-out's pairs be counted, not sorted.
_STRENGTH_SHIFT = 12
_STRENGTH_BINS = (10 << 20) >> _STRENGTH_SHIFT


@njit(cache=True)
def _mean_percentiles(ranks: np.ndarray) -> np.ndarray:
    """Each pair's showdown percentile among the pairs a run-out allows (hands alike in
    category and top two cards tie and share their mean position), averaged over the
    run-outs that allow it."""
    runs, hands = ranks.shape
    total = np.zeros(hands)
    count = np.zeros(hands)
    bins = np.zeros(_STRENGTH_BINS, np.int64)
    position = np.zeros(_STRENGTH_BINS)
    for r in range(runs):
        row = ranks[r]
        bins[:] = 0
        n = 0
        for h in range(hands):
            if row[h] > 0:
                bins[row[h] >> _STRENGTH_SHIFT] += 1
                n += 1
        if n < 2:
            continue
        # The mean position of the pairs in each bin.
        below = 0
        for b in range(_STRENGTH_BINS):
            if bins[b]:
                position[b] = below + (bins[b] - 1) / 2
                below += bins[b]
        for h in range(hands):
            if row[h] > 0:
                total[h] += position[row[h] >> _STRENGTH_SHIFT] / (n - 1)
                count[h] += 1
    out = np.zeros(hands)
    for h in range(hands):
        if count[h] > 0:
            out[h] = total[h] / count[h]
    return out


@njit(cache=True)
def _equity(ranks: np.ndarray, me: int, weights: np.ndarray) -> float:
    """Equity of pair ``me`` against ``weights`` over the run-outs (ties count half)."""
    won = 0.0
    total = 0.0
    for r in range(ranks.shape[0]):
        mine = ranks[r, me]
        for h in range(ranks.shape[1]):
            w = weights[h]
            theirs = ranks[r, h]
            if w > 0 and theirs > 0:
                total += w
                if theirs < mine:
                    won += w
                elif theirs == mine:
                    won += 0.5 * w
    return won / total if total > 0 else 0.5


def _runouts(hole: tuple[int, ...], board: tuple[int, ...]) -> np.ndarray:
    """int64 (R, 5): the boards the round can end on, seeded by the cards (see the module doc)."""
    seen = set(hole) | set(board)
    rest = [c for c in range(NUM_CARDS) if c not in seen]
    need = 5 - len(board)
    if need == 0:
        return np.array([board], dtype=np.int64)
    if need == 1:
        return np.array([(*board, c) for c in rest], dtype=np.int64)
    rng = np.random.default_rng([_SEED_SALT, *sorted(hole), *board])
    boards = []
    for turn in rest:
        rivers = [c for c in rest if c != turn]
        for river in rng.choice(rivers, RIVERS_PER_TURN, replace=False):
            boards.append((*board, turn, int(river)))
    return np.array(boards, dtype=np.int64)


#: The last few rounds ranked (a hand asks for each round's again at every later decision).
_STREETS: OrderedDict[tuple[tuple[int, ...], tuple[int, ...]], _Street] = OrderedDict()
STREETS_KEPT = 8


def _street(hole: tuple[int, ...], board: tuple[int, ...]) -> _Street:
    """The round whose board so far is ``board``, from the cards ``hole``, ranked (cached)."""
    key = (tuple(sorted(hole)), board)
    found = _STREETS.get(key)
    if found is not None:
        _STREETS.move_to_end(key)
        return found
    boards = _runouts(key[0], board)
    ranks = np.empty((len(boards), NUM_HOLE_PAIRS), dtype=np.int32)
    _rank_runouts(eval_tables(), boards, ranks)
    strength = _mean_percentiles(ranks)
    street = _Street(ranks, strength, np.argsort(-strength, kind="stable"))
    _STREETS[key] = street
    if len(_STREETS) > STREETS_KEPT:
        _STREETS.popitem(last=False)
    return street


# --- narrowing the range -----------------------------------------------------------------


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -50.0, 50.0)))


def _cut(weights: np.ndarray, strength: np.ndarray, order: np.ndarray, top: float) -> float:
    """The strength above which the strongest ``top`` of the range's weight lies."""
    cumulative = np.cumsum(weights[order])
    k = int(np.searchsorted(cumulative, top * cumulative[-1]))
    return float(strength[order[min(k, len(order) - 1)]])


def _keep_top(weights: np.ndarray, strength: np.ndarray, order: np.ndarray, top: float, floor: float) -> None:
    """Keep about the strongest ``top`` of the range, softly, and ``floor`` of the rest (in place)."""
    cut = _cut(weights, strength, order, top)
    weights *= floor + (1.0 - floor) * _sigmoid((strength - cut) / TEMPERATURE)


def _cap(weights: np.ndarray, strength: np.ndarray, order: np.ndarray, top: float, share: float) -> None:
    """Take ``share`` of the weight off the strongest ``top`` of the range, softly (in place)."""
    cut = _cut(weights, strength, order, top)
    weights *= 1.0 - share * _sigmoid((strength - cut) / TEMPERATURE)


def _size_factor(before: State, after: State) -> float:
    """How much a raise widens (small) or narrows (big) the kept top: 1 at 3/4 of the pot."""
    increment = after.max_spent - before.max_spent
    pot = before.pot + before.amount_to_call()
    fraction = max(increment / max(pot, 1), 1e-3)
    return float(np.clip((0.75 / fraction) ** 0.35, 0.6, 1.35))


def _narrow(weights: np.ndarray, before: State, action: Action, after: State, strength: np.ndarray, order: np.ndarray) -> None:
    """Reshape the opponent's range by one of its actions (``before`` it, ``after`` it)."""
    preflop = before.round == _PREFLOP
    if action.kind == ActionType.RAISE:
        tops = PREFLOP_RAISE_TOP if preflop else POSTFLOP_RAISE_TOP
        top = tops[min(before.num_raises_this_round, len(tops) - 1)] * _size_factor(before, after)
        _keep_top(weights, strength, order, min(top, 1.0), RAISE_FLOOR)
    elif action.kind == ActionType.CALL:
        limp = preflop and before.num_raises_this_round == 0
        if before.amount_to_call() > 0 and not limp:
            _keep_top(weights, strength, order, PREFLOP_CALL_TOP if preflop else POSTFLOP_CALL_TOP, CALL_FLOOR)
            _cap(weights, strength, order, 0.05, 0.3)
        else:  # a check, or the small blind's limp
            _cap(weights, strength, order, CAP_TOP, CAP_CUT)


def opponent_range(state: State, me: int) -> np.ndarray:
    """float64 (1326,): the opponent's range as the bot reads it at ``state`` (unnormalised)."""
    game = state.game
    board = state.board[: game.board_cards_through(state.round)]
    weights = np.where(_blocked(tuple(state.hole_cards[me]) + board), 0.0, 1.0)
    before = initial_state(game, state.hand_number)
    for r, (actions, actors) in enumerate(zip(state.actions, state.actors)):
        if r == _PREFLOP:
            strength, order = _preflop().strength, _preflop().order
        else:
            street = _street(state.hole_cards[me], board[: game.board_cards_through(r)])
            strength, order = street.strength, street.order
        for action, actor in zip(actions, actors):
            after = before.apply(action)
            if actor != me:
                _narrow(weights, before, action, after, strength, order)
            before = after
    return weights


def equity(state: State, me: int, weights: np.ndarray) -> float:
    """The bot's equity at ``state`` against the range ``weights``."""
    hole = tuple(state.hole_cards[me])
    index = pair_index(hole)
    if state.round == _PREFLOP:
        live = weights.sum()
        return float(0.5 + 0.5 * (weights @ _preflop().margins[:, index]) / live) if live > 0 else 0.5
    board = state.board[: state.game.board_cards_through(state.round)]
    return float(_equity(_street(hole, board).ranks, index, weights))


# --- the bot's play -------------------------------------------------------------------------


def _ramp(x: float, threshold: float) -> float:
    """0 well below ``threshold``, 1 well above, linear across :data:`RAMP`."""
    return float(np.clip((x - threshold) / RAMP + 0.5, 0.0, 1.0))


def _raise(state: State, target: float) -> Action | None:
    """A raise to about ``target`` chips, within the legal range; all-in when it commits
    most of what is left; None if raising is not legal."""
    bounds = state.raise_bounds()
    if bounds is None:
        return None
    if not state.game.is_nolimit:
        return Action(ActionType.RAISE)
    low, high = bounds
    me = state.current_player
    spent = state.spent[me]  # type: ignore[index]
    amount = min(max(round(target), low), high)
    if amount - spent > COMMIT * (state.game.stack[me] - spent):  # type: ignore[index]
        amount = high
    return raise_to(amount)


def _pot_raise(state: State, fraction: float) -> Action | None:
    """A raise of ``fraction`` of the pot after calling, on top of the call."""
    return _raise(state, state.max_spent + fraction * (state.pot + state.amount_to_call()))


def _preflop_play(state: State, strength: float, eq: float) -> tuple[float, float, Action | None]:
    """(raise, continue, raise action): the probability of raising, of raising or calling."""
    to_call, raises = state.amount_to_call(), state.num_raises_this_round
    if raises == 0 and to_call > 0:  # the small blind, unopened
        raised = _raise(state, OPEN_BLINDS * state.game.big_blind)
        return _ramp(strength, 1 - OPEN_TOP), _ramp(strength, 1 - LIMP_TOP), raised
    if raises == 0:  # the big blind after a limp
        return _ramp(strength, 1 - OPEN_TOP), 1.0, _pot_raise(state, ISOLATE_POT)
    raising = _ramp(strength, RERAISE[min(raises, len(RERAISE)) - 1])
    required = to_call / (state.pot + to_call)
    going_on = 1.0 if strength >= NEVER_FOLD else _ramp(eq, required + PREFLOP_MARGIN)
    return raising, max(going_on, raising), _pot_raise(state, 1.0)


def _postflop_play(state: State, eq: float) -> tuple[float, float, Action | None]:
    """(raise, continue, raise action) after the flop: see the module doc."""
    to_call = state.amount_to_call()
    if to_call == 0:
        betting = _ramp(eq, VALUE_EQUITY)
        if eq >= SLOWPLAY_EQUITY and state.round < _RIVER:
            betting *= 1 - SLOWPLAY
        if eq < BLUFF_EQUITY and state.round in (1, _RIVER):
            betting = RIVER_BLUFF if state.round == _RIVER else FLOP_BLUFF
        size = BIG_BET if eq >= BIG_VALUE_EQUITY else BET
        return betting, 1.0, _pot_raise(state, size)
    raising = RAISE_SHARE * _ramp(eq, RAISE_EQUITY)
    required = to_call / (state.pot + to_call)
    return raising, max(_ramp(eq, required + POSTFLOP_MARGIN), raising), _pot_raise(state, RAISE_SIZE)


def equity_policy(state: State) -> Distribution:
    """The equity bot's distribution at ``state`` (the seat to act is ``state.current_player``)."""
    check_game(state.game)
    me = state.current_player
    assert me is not None
    weights = opponent_range(state, me)
    eq = equity(state, me, weights)
    if state.round == _PREFLOP:
        strength = float(_preflop().strength[pair_index(tuple(state.hole_cards[me]))])
        raising, going_on, raised = _preflop_play(state, strength, eq)
    else:
        raising, going_on, raised = _postflop_play(state, eq)
    if raised is None:
        raising = 0.0
    probs: dict[Action, float] = {}
    for action, p in ((FOLD, 1.0 - going_on), (CALL, going_on - raising), (raised, raising)):
        if action is not None and p > 0:
            action = action if action != FOLD or state.can_fold() else CALL  # checking is free
            probs[action] = probs.get(action, 0.0) + p
    total = sum(probs.values())
    return Distribution(tuple((a, p / total) for a, p in probs.items()))
