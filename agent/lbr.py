"""Local best response (Lisý & Bowling 2017): a lower bound on how exploitable a policy is.

LBR plays against a *full-range policy*: a function of the public state returning the
action probabilities of the player to act for every private hand it could hold.  LBR
keeps that player's range exactly (Bayes' rule over those probabilities, card removal
for its own cards and the board) and, at each of its decisions, picks among a fixed
action set the action of largest value assuming both players only check/call
afterwards to the showdown.

Pot convention (the paper's): values are chips won relative to folding now, so chips
already committed are sunk.  ``pot`` is every chip committed so far by both players
(``State.pot``, the opponent's outstanding bet included), ``to_call`` the chips LBR
must add to call and ``bet`` the chips a raise adds beyond the call (raise-to minus the
largest commitment, i.e. what the opponent must then call):

    fold = 0;  call = wp·pot − (1 − wp)·to_call;
    bet  = fp·pot + (1 − fp)·(wp′·(pot + bet) − (1 − wp′)·(to_call + bet)),

with ``wp`` LBR's equity (ties count half) against the range, ``fp`` the range-weighted
probability that the policy folds to the bet (read from the policy at the state after
the bet) and ``wp′`` the equity against the range that does not fold.  A non-fold
answer is treated as a call.  Ties between values go to the earlier action of fold,
call, then raises from small to large.  Pot-fraction raises are sized as everywhere in
this project (:meth:`solver.bets.ActionAbstraction.raise_sizes`: a fraction of
the pot after calling, clamped to the legal range).

Equity: :class:`TabularEquity` is exact for games :mod:`solver.deals` can enumerate
(Leduc, Kuhn); :class:`HoldemEquity` ranks the 1,326 hole pairs with
``protocol.fasteval`` and is exact on the turn and river, sampled before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import NamedTuple, Protocol

import numpy as np
from scipy import stats

from protocol.fasteval import HOLE_PAIRS, NUM_CARDS, fast_rank_hand, rank_range
from protocol.gamedef import GameDef
from protocol.rules import CALL, FOLD, Action, State, initial_state, raise_to, with_cards
from protocol.wire import format_state_line
from solver.bets import ActionAbstraction
from solver.deals import CardSpace
from solver.tree import pot_shares

#: policy(public state) -> (actions, probabilities (n_hands, n_actions)) for the player to act.
RangePolicy = Callable[[State], tuple[list[Action], np.ndarray]]


@dataclass(frozen=True)
class LBRSetting:
    """LBR's action set per round: ``None`` = always check/call, else an abstraction for its raises.

    ``bets[r]`` is ``None`` on check/call rounds; on deciding rounds it is a tuple of pot
    fractions (possibly empty: fold/call only) and ``all_in`` adds the all-in raise there.
    """

    name: str
    bets: tuple[tuple[float, ...] | None, ...]
    all_in: tuple[bool, ...]

    def raises(self, state: State) -> list[int]:
        """LBR's raise-to amounts in ``state`` (legal, ascending, distinct)."""
        fractions, all_in = self.bets[state.round], self.all_in[state.round]
        if fractions is None or state.raise_bounds() is None or not (fractions or all_in):
            return []
        if not fractions:
            return [state.raise_bounds()[1]]  # type: ignore[index]
        return ActionAbstraction(pot_fractions=(fractions,), all_in=all_in).raise_sizes(state)


#: The paper's 56 pot fractions 0.05·1.15^k, k = 0…55.
FIFTY_SIX = tuple(0.05 * 1.15**k for k in range(56))


def lbr_setting(name: str, num_rounds: int) -> LBRSetting:
    """A named action-set preset of the paper for a game of ``num_rounds`` rounds.

    ``fc``: fold/call on every round.  ``fcpa``: check/call on every round but the last
    two (hold'em: preflop, flop), then fold/call/pot/all-in.  ``56``: check/call, then
    fold/call, the 56 pot fractions and all-in on the last two rounds.  Games with two
    rounds or fewer (Leduc) therefore decide on every round in ``fcpa`` and ``56``.

    Raises:
        ValueError: for an unknown name.
    """
    late = max(num_rounds - 2, 0)
    if name == "fc":
        return LBRSetting(name, ((),) * num_rounds, (False,) * num_rounds)
    table = {"fcpa": (1.0,), "56": FIFTY_SIX}
    if name not in table:
        raise ValueError(f"unknown LBR setting {name!r}; choose one of fc, fcpa, 56")
    bets = tuple(None if r < late else table[name] for r in range(num_rounds))
    return LBRSetting(name, bets, tuple(r >= late for r in range(num_rounds)))


def _clash(hands: np.ndarray, cards: tuple[int, ...] | np.ndarray) -> np.ndarray:
    """(n_hands,) bool: hands sharing a card with ``cards``."""
    return np.isin(hands, np.asarray(cards, np.int64)).any(axis=1)


class TabularEquity:
    """Exact equity of one hand against a range by enumerating board completions."""

    def __init__(self, space: CardSpace) -> None:
        self.space = space
        self.last = space.game.num_rounds - 1

    def __call__(self, hand: tuple[int, ...], board: tuple[int, ...], weights: np.ndarray) -> float:
        """LBR's probability of winning (ties half) against ``weights`` over ``space.hands``.

        Weights on hands clashing with ``hand`` or ``board`` are ignored; 0 if none is left.
        """
        space = self.space
        r, b = space.board_index(board)
        width = space.extensions(r, self.last)
        ranks = space.final_rank[b * width : (b + 1) * width]  # boards extending ``board``
        mine = ranks[:, space.hand_index(hand)]
        w = np.where(_clash(space.hands, hand), 0.0, weights)[None, :] * ((ranks >= 0) & (mine >= 0)[:, None])
        total = w.sum()
        if total <= 0:
            return 0.0
        score = (mine[:, None] > ranks) + 0.5 * (mine[:, None] == ranks)
        return float((w * score).sum() / total)


Equity = Callable[[tuple[int, ...], tuple[int, ...], np.ndarray], float]


class HoldemEquity:
    """Equity of a hold'em hand against weights over ``protocol.fasteval.HOLE_PAIRS``.

    Exact over every board completion when there are at most ``max_boards`` of them (the
    river: one board; the turn: 46 rivers), otherwise the mean over ``samples``
    completions drawn uniformly from the cards LBR cannot see (seeded), each weighting
    only the opponent hands it does not clash with.

    Args:
        max_boards: enumerate completions up to this many (default: turn and river).
        samples: completions drawn on earlier rounds.
        seed: seeds the sampling (an int, or a list of ints such as a run's seed and a worker's number).
    """

    def __init__(self, max_boards: int = 46, samples: int = 200, seed: int | list[int] = 0) -> None:
        self.max_boards, self.samples = max_boards, samples
        self.rng = np.random.default_rng(seed)
        self.hands = HOLE_PAIRS
        self._cached: tuple[tuple[tuple[int, ...], tuple[int, ...]], np.ndarray, np.ndarray] | None = None

    def outcomes(self, hand: tuple[int, ...], board: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Per opponent pair: (wins + ties/2, completions it is live in) over the completions.

        The last answer is kept, so one decision's candidates (call and every bet) share
        the completions and pay for them once.
        """
        if self._cached is not None and self._cached[0] == (hand, board):
            return self._cached[1], self._cached[2]
        unseen = np.setdiff1d(np.arange(NUM_CARDS), np.array(hand + board, np.int64))
        missing = 5 - len(board)
        if comb(len(unseen), missing) <= self.max_boards:
            completions = [tuple(c) for c in combinations(unseen.tolist(), missing)]
        else:
            completions = [tuple(self.rng.choice(unseen, missing, replace=False).tolist()) for _ in range(self.samples)]
        won, live = np.zeros(len(HOLE_PAIRS)), np.zeros(len(HOLE_PAIRS))
        blocked = _clash(HOLE_PAIRS, hand)
        for rest in completions:
            full = board + rest
            ranks = rank_range(full)
            mine = fast_rank_hand(hand + full)
            alive = (ranks > 0) & ~blocked  # rank 0: the pair shares a card with the board
            won += alive * ((mine > ranks) + 0.5 * (mine == ranks))
            live += alive
        self._cached = ((hand, board), won, live)
        return won, live

    def __call__(self, hand: tuple[int, ...], board: tuple[int, ...], weights: np.ndarray) -> float:
        """LBR's probability of winning (ties half); 0 if no weight is left."""
        won, live = self.outcomes(hand, board)
        total = float(weights @ live)
        return float(weights @ won) / total if total > 0 else 0.0


class LocalBestResponse:
    """LBR's decision rule against a full-range policy (see the module docstring).

    Args:
        game: a two-player no-limit game.
        hands: (n_hands, k) cards of the private hands the policy's rows refer to.
        policy: the full-range policy.
        equity: equity of LBR's hand against weights over ``hands``.
        setting: the action set (:func:`lbr_setting`).
    """

    def __init__(self, game: GameDef, hands: np.ndarray, policy: RangePolicy, equity: Equity, setting: LBRSetting) -> None:
        if game.num_players != 2 or not game.is_nolimit:
            raise ValueError("LBR needs a two-player no-limit game")
        if len(setting.bets) != game.num_rounds:
            raise ValueError(f"the LBR setting has {len(setting.bets)} rounds, the game {game.num_rounds}")
        self.game, self.hands, self.policy, self.equity, self.setting = game, hands, policy, equity, setting

    def initial_range(self, hand: tuple[int, ...]) -> np.ndarray:
        """The opponent's range before any action: every hand avoiding LBR's cards."""
        return (~_clash(self.hands, hand)).astype(np.float64)

    def deal(self, weights: np.ndarray, board: tuple[int, ...]) -> np.ndarray:
        """The range after board cards ``board`` are seen (card removal)."""
        return np.where(_clash(self.hands, board), 0.0, weights)

    def observe(self, public: State, action: Action, weights: np.ndarray) -> np.ndarray:
        """The range after the policy's ``action`` at ``public`` (Bayes' rule, unnormalized)."""
        actions, probs = self.policy(public)
        return weights * probs[:, actions.index(action)]

    def values(self, public: State, hand: tuple[int, ...], weights: np.ndarray) -> list[tuple[Action, float]]:
        """Every candidate action at LBR's decision ``public`` with its check-down value."""
        pot, to_call = public.pot, public.amount_to_call()
        wp = self.equity(hand, public.board, weights)
        out = [(FOLD, 0.0)] if public.can_fold() else []
        out.append((CALL, wp * pot - (1 - wp) * to_call))
        total = weights.sum()
        for size in self.setting.raises(public):
            actions, probs = self.policy(public.apply(raise_to(size)))
            fold = probs[:, actions.index(FOLD)] if FOLD in actions else np.zeros(len(weights))
            fp = float(weights @ fold / total) if total > 0 else 0.0
            wp2 = self.equity(hand, public.board, weights * (1 - fold))
            bet = size - public.max_spent
            out.append((raise_to(size), fp * pot + (1 - fp) * (wp2 * (pot + bet) - (1 - wp2) * (to_call + bet))))
        return out

    def act(self, public: State, hand: tuple[int, ...], weights: np.ndarray) -> Action:
        """LBR's action: check/call on check/call rounds, else the best-valued candidate."""
        if self.setting.bets[public.round] is None:
            return CALL
        candidates = self.values(public, hand, weights)
        return max(candidates, key=lambda c: c[1])[0]  # max keeps the first of equal values


def showdown_chips(state: State, seat: int) -> tuple[float, float, float]:
    """``seat``'s chips at the finished showdown ``state`` if it wins, ties, loses (the rules' pot splitting)."""
    spent, folded = np.array(state.spent, np.int64), np.array(state.folded)
    return tuple(pot_shares(spent, folded, np.array(x[:: 1 - 2 * seat], np.int64))[seat] for x in ([1, 0], [0, 0], [0, 1]))  # type: ignore[return-value]


def public_state(state: State, board: tuple[int, ...]) -> State:
    """``state`` without hole cards and with the board dealt so far."""
    return with_cards(state, ((),) * state.game.num_players, board[: state.game.board_cards_through(state.round)])


class _Walk(NamedTuple):
    """What stays fixed while :func:`exact_value` walks one LBR hand's tree."""

    lbr: LocalBestResponse
    space: CardSpace
    seat: int
    hand: int


def exact_value(lbr: LocalBestResponse, space: CardSpace, seat: int) -> float:
    """LBR's exact expected chips per hand at ``seat`` against its policy, over every deal.

    Enumerates LBR's hands, the policy's hands and every board (small games only); LBR's
    choices are deterministic, the policy's are weighted by their probabilities.
    """
    game, last = space.game, space.game.num_rounds - 1
    total = 0.0
    for h in range(space.n_hands):
        hand = tuple(space.hands[h].tolist())
        # w[final board, opponent hand]: the deals consistent with LBR's hand.
        valid = (space.final_rank >= 0) & (space.final_rank[:, h] >= 0)[:, None] & ~_clash(space.hands, hand)[None, :]
        total += _exact(_Walk(lbr, space, seat, h), initial_state(game), 0, 0, valid.astype(float), lbr.initial_range(hand))
    return total * space.hand_probability() * space.deal_probability(-1, last)


def _exact(walk: _Walk, state: State, r: int, b: int, w: np.ndarray, weights: np.ndarray) -> float:
    """Sum over the deals in ``w`` (final boards × opponent hands, reach-weighted) of LBR's chips below ``state``.

    ``r``, ``b``: the round and index of the board dealt so far; ``weights``: LBR's range.
    """
    lbr, space, seat = walk.lbr, walk.space, walk.seat
    if state.finished and not state.is_showdown:
        return float(w.sum() * state.values()[seat])
    if state.round > r:  # deal the next round's board: one branch per extension
        width = space.extensions(r, state.round)
        below = len(w) // space.n_boards[state.round]  # final boards per board of the new round
        out = 0.0
        for nb in range(b * width, (b + 1) * width):
            part = np.zeros_like(w)
            part[nb * below : (nb + 1) * below] = w[nb * below : (nb + 1) * below]
            if part.sum() > 0:
                board = tuple(space.boards[state.round][nb].tolist())
                out += _exact(walk, state, state.round, nb, part, lbr.deal(weights, board))
        return out
    if state.finished:  # showdown
        outcome = showdown_chips(state, seat)
        mine = space.final_rank[:, walk.hand][:, None]
        chips = np.where(mine > space.final_rank, outcome[0], np.where(mine == space.final_rank, outcome[1], outcome[2]))
        return float((w * chips).sum())
    board = tuple(space.boards[r][b].tolist()) if space.game.board_cards_through(r) else ()
    public = public_state(state, board)
    if state.current_player == seat:
        action = lbr.act(public, tuple(space.hands[walk.hand].tolist()), weights)
        return _exact(walk, state.apply(action), r, b, w, weights)
    actions, probs = lbr.policy(public)
    out = 0.0
    for a, action in enumerate(actions):
        if probs[:, a].any():
            out += _exact(walk, state.apply(action), r, b, w * probs[:, a][None, :], weights * probs[:, a])
    return out


class Opponent(Protocol):
    """LBR's opponent in a sampled match: plays the policy LBR reads, from its own cards."""

    def start(self, state: State, seat: int, gen: np.random.Generator) -> None:
        """A new hand: ``state`` is its first state with every card dealt; the opponent sits at ``seat``."""

    def act(self, public: State) -> Action:
        """The opponent's action at ``public`` (its turn; no hole cards shown)."""


class PolicySampler:
    """Samples the policy's action for the hand held, with the hand's generator.

    Args:
        policy: the full-range policy.
        hand_index: row of a private hand (its cards) in the policy's probabilities.
    """

    def __init__(self, policy: RangePolicy, hand_index: Callable[[tuple[int, ...]], int]) -> None:
        self.policy, self.hand_index = policy, hand_index
        self.row, self.gen = 0, np.random.default_rng()

    def start(self, state: State, seat: int, gen: np.random.Generator) -> None:
        self.row, self.gen = self.hand_index(state.hole_cards[seat]), gen

    def act(self, public: State) -> Action:
        actions, probs = self.policy(public)
        row = probs[self.row]
        return actions[int(self.gen.choice(len(actions), p=row / row.sum()))]


class HandResult(NamedTuple):
    """One sampled hand: LBR's chips, and their expectation given all but the opponent's cards.

    ``expected`` replaces a showdown's outcome by its mean over the hands the opponent
    could hold (LBR's range: their exact posterior) and over the board cards dealt after
    the betting ended (see :class:`Settle`); hands ending in a fold count as played.
    Its mean over hands estimates the same value as ``chips`` (law of total expectation:
    it is the conditional expectation of the chips given what it keeps) with less variance.
    ``line``: the finished hand as a dealer log's ``STATE`` line (seats named ``lbr`` and
    ``agent``), so the hands LBR wins can be read.
    """

    chips: float
    expected: float
    line: str = ""


@dataclass(frozen=True)
class Settle:
    """How :func:`play_hand` values a showdown by expectation.

    ``equity`` must be exact (every completion enumerated) for the board as it stood
    when the betting ended, or as of round ``from_round`` if that is later (hold'em:
    from the flop, since 1.7 million preflop completions are too many to enumerate).
    """

    equity: Equity
    from_round: int = 0


def play_hand(
    lbr: LocalBestResponse, state: State, seat: int, opponent: Opponent, gen: np.random.Generator, settle: Settle | None = None,
) -> HandResult:  # fmt: skip
    """One hand from its first ``state`` (every card dealt), LBR at ``seat``.

    ``settle``: how showdowns are valued by expectation; None: LBR's own equity on the
    final board (exact for every equity here).
    """
    holes, board, game = state.hole_cards, state.board, state.game
    opponent.start(state, 1 - seat, gen)
    weights, seen, last = lbr.initial_range(holes[seat]), 0, 0
    while not state.finished:
        public = public_state(state, board)
        if len(public.board) > seen:
            weights, seen = lbr.deal(weights, public.board), len(public.board)
        if state.current_player == seat:
            action = lbr.act(public, holes[seat], weights)
        else:
            action = opponent.act(public)
            weights = lbr.observe(public, action, weights)
        last = state.round
        state = state.apply(action)
    chips = float(state.values()[seat])
    names = ("lbr", "agent") if seat == 0 else ("agent", "lbr")
    line = format_state_line(state, state.values(), names)
    if not state.is_showdown:
        return HandResult(chips, chips, line)
    equity, known = lbr.equity, board
    if settle is not None:
        equity, known = settle.equity, board[: game.board_cards_through(max(last, settle.from_round))]
    win, _, lose = showdown_chips(state, seat)
    wp = equity(holes[seat], known, lbr.deal(weights, known))
    return HandResult(chips, wp * win + (1 - wp) * lose, line)  # heads-up, a tie pays (win + lose) / 2


def deal_hand(game: GameDef, deck: np.ndarray, number: int, seed: int) -> tuple[State, np.random.Generator]:
    """Hand ``number`` of a match seeded ``seed``: its first state with every card dealt, and
    the generator the hand's other randomness draws from (a hand's deal depends only on
    ``seed`` and ``number``, so a match can resume at any hand)."""
    gen = np.random.default_rng([seed, number])
    k, n_board = game.num_hole_cards, game.board_cards_through(game.num_rounds - 1)
    cards = gen.permutation(deck)[: 2 * k + n_board].tolist()
    return initial_state(game, number, (tuple(cards[:k]), tuple(cards[k : 2 * k])), tuple(cards[2 * k :])), gen


def play_match(
    lbr: LocalBestResponse, deck: np.ndarray, opponent: Opponent, hands: int, seed: int, first: int = 0,
    settle: Settle | None = None,
) -> np.ndarray:  # fmt: skip
    """LBR against ``opponent`` for hands ``first`` … ``first + hands - 1``, seats alternating
    (LBR is seat ``i % 2`` in hand i).

    Args:
        deck: the cards to deal from.
        opponent: plays LBR's policy (:class:`PolicySampler`, or the agent itself).
        seed: seeds the deals and the hands' generators.
        settle: how showdowns are valued by expectation (:func:`play_hand`).

    Returns:
        (hands, 2) float64: per hand, LBR's chips and their expectation (:class:`HandResult`).
    """
    out = np.empty((hands, 2))
    for j, i in enumerate(range(first, first + hands)):
        state, gen = deal_hand(lbr.game, deck, i, seed)
        out[j] = play_hand(lbr, state, i % 2, opponent, gen, settle)[:2]
    return out


@dataclass(frozen=True)
class Summary:
    """LBR's winnings: mean and 95% confidence half-width (Student t), mbb/hand."""

    hands: int
    mbb_per_hand: float
    ci95: float


def summarize(chips: np.ndarray, big_blind: int) -> Summary:
    """Mean and 95% CI of per-hand chips, in milli-big-blinds per hand.

    Raises:
        ValueError: with fewer than two hands.
    """
    x = 1000.0 * np.asarray(chips, np.float64) / big_blind
    if len(x) < 2:
        raise ValueError("a confidence interval needs at least two hands")
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    return Summary(len(x), float(x.mean()), half)
