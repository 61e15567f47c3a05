"""In-process matches between known policies, and their AIVAT values, for tests and figures.

A simulated match deals exactly what the dealer would for its seed
(:class:`dealer.dealing.Dealer`, so mirrored matches give each position the same
cards), rotates seats every hand as the reference does (position p of hand h is seat
``(p + h) % N``), samples each action from the seat's :data:`dealer.policy.Policy`, and
keeps every decision's distribution.  It can be written as the files a real match
leaves: ``NAME.log`` (reference format), the game file it names, and
``decisions/NAME.SEAT.dlog``.

A seat named in ``ranged`` logs, like our agent, its whole range at every decision
(:class:`protocol.decisions.LoggedRange`): its policy is asked at every private hand it
could hold (those meeting the visible board get zero rows), and its probabilities must
be multiples of 1/65,535 so the logged rows are exactly what it draws from.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dealer.bots import declared, policy_name
from dealer.dealing import Dealer
from dealer.evaluation.aivat import DecisionIndex, MatchAivat, evaluate_hands
from dealer.evaluation.matchlog import HEADER_TAG, MatchLog
from dealer.evaluation.rangeaivat import CheckDown
from dealer.evaluation.values import CheckDownValue, ValueFunction
from dealer.policy import Policy
from protocol.decisions import CARD_DEPENDENT, ROW_TOTAL, Decision, DecisionLogWriter, LoggedRange, private_hands
from protocol.gamedef import GameDef, format_gamedef
from protocol.rules import Action, State, initial_state, with_cards
from protocol.wire import (
    LoggedHand,
    format_matchstate,
    format_score_line,
    format_state_line,
    view_for,
)


@dataclass(frozen=True, slots=True)
class SimulatedMatch:
    """A played match: its hands, the decisions of the seats that log them, and the
    baseline policy each logging seat declares (when it plays a card-independent one);
    ``ranged``: logging seats whose decisions carry their range; ``card_dependent``:
    logging seats that declare a card-dependent strategy (ranged or not)."""

    name: str
    game: GameDef
    seed: int
    seats: tuple[str, ...]
    hands: tuple[LoggedHand, ...]
    decisions: tuple[tuple[str, Decision], ...]
    policies: dict[str, str]
    ranged: frozenset[str] = frozenset()
    card_dependent: frozenset[str] = frozenset()

    def match_log(self) -> MatchLog:
        """The match as :func:`dealer.evaluation.matchlog.read_match_log` would return it."""
        totals = tuple(sum(h.values[h.names.index(s)] for h in self.hands) for s in self.seats)
        return MatchLog(
            path=Path(f"<simulated {self.name}>"),
            name=self.name,
            game_file=f"{self.name}.game",
            game=self.game,
            planned_hands=len(self.hands),
            seed=self.seed,
            options=(),
            hands=self.hands,
            seats=self.seats,
            score=totals,
            notes=(),
        )

    def decision_index(self) -> DecisionIndex:
        return DecisionIndex.of(self.decisions, policies={(self.name, s): p for s, p in self.policies.items()})

    def write(self, folder: Path) -> Path:
        """Write the match log, its game file and the decision logs; returns the log's path."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{self.name}.game").write_text(format_gamedef(self.game))
        lines = [f"{HEADER_TAG} {self.name} {self.name}.game {len(self.hands)} {self.seed}"]
        lines += [format_state_line(h.state, h.values, h.names) for h in self.hands]
        lines.append(format_score_line(self.match_log().score, self.seats))  # type: ignore[arg-type]
        path = folder / f"{self.name}.log"
        path.write_text("\n".join(lines) + "\n")
        writers: dict[str, DecisionLogWriter] = {}
        try:
            for seat, d in self.decisions:
                if seat not in writers:
                    writers[seat] = DecisionLogWriter(
                        folder / "decisions" / f"{self.name}.{seat}.dlog", seat=seat, match=self.name, game=self.game,
                        policy=self.policies.get(seat), strategy=CARD_DEPENDENT if seat in self.card_dependent else None,
                    )  # fmt: skip
                writers[seat].record(
                    hand=d.hand, position=d.position, state=d.state, probs=list(d.probs), taken=d.taken,
                    uniform_raise=d.uniform_raise, range=d.range,
                )
        finally:
            for writer in writers.values():
                writer.close()
        return path


def simulate_match(
    game: GameDef,
    seats: Sequence[tuple[str, Policy]],
    hands: int,
    seed: int,
    *,
    name: str = "sim",
    logging: Collection[str] | None = None,
    action_seed: int | None = None,
    ranged: Collection[str] = (),
) -> SimulatedMatch:
    """Play ``hands`` hands between ``seats`` (name, policy) in seat order.

    Args:
        logging: names of the seats that keep decision logs (default: all).
        action_seed: seeds the policies' sampling (default: derived from ``seed``
            and the seat order, so mirrored matches sample independently).
        ranged: names of logging seats whose decisions carry their whole range.

    Raises:
        ValueError: if a ranged seat's policy is not a multiple of 1/65,535, gives
            different actions for different hands, or draws a uniform raise.
    """
    if len(seats) != game.num_players:
        raise ValueError(f"the game needs {game.num_players} seats, got {len(seats)}")
    names = tuple(n for n, _ in seats)
    logging = set(names if logging is None else logging)
    # crc32, not hash(): Python salts string hashes per process.
    order_tag = [zlib.crc32(n.encode()) for n in names]
    rng = np.random.default_rng([seed, *order_tag] if action_seed is None else action_seed)
    dealer = Dealer(game, seed)
    n = game.num_players
    played: list[LoggedHand] = []
    decisions: list[tuple[str, Decision]] = []
    for h in range(hands):
        holes, board = dealer.deal()
        at = [(p + h) % n for p in range(n)]
        state = initial_state(game, h, holes, board)
        reach = {p: np.ones(len(private_hands(game))) for p in range(n) if seats[at[p]][0] in ranged}
        while not state.finished:
            p = state.current_player
            assert p is not None
            seat_name, policy = seats[at[p]]
            dist = policy(state)
            action = dist.sample(rng)
            logged_range = None
            if p in reach:
                logged_range, column = _range_of(policy, state, p, reach[p], action)
                reach[p] = reach[p] * logged_range.strategy()[:, column]
            if seat_name in logging:
                decisions.append(
                    (
                        seat_name,
                        Decision(
                            match=name,
                            hand=h,
                            position=p,
                            state=format_matchstate(view_for(state, p)),
                            probs=tuple(dist.wire_probs()),
                            uniform_raise=dist.uniform_raise,
                            taken=str(action),
                            range=logged_range,
                        ),
                    )
                )
            state = state.apply(action)
        shown = state.game.board_cards_through(state.round)
        final = state if len(board) == shown else with_cards(state, holes, board[:shown])
        played.append(LoggedHand(final, final.values(), tuple(names[i] for i in at)))
    kinds = {n: kind for n, policy in seats if n in logging and (kind := policy_name(policy)) is not None}
    # A card-dependent bot (equity) names no policy: its header says what dealer bot's does.
    policies = {n: kind for n, kind in kinds.items() if declared(kind)[0] is not None}
    ranged = frozenset(ranged) & logging
    card_dependent = ranged | {n for n, kind in kinds.items() if declared(kind)[1] == CARD_DEPENDENT}
    return SimulatedMatch(name, game, seed, names, tuple(played), tuple(decisions), policies, ranged, card_dependent)


def _range_of(policy: Policy, state: State, position: int, reach: np.ndarray, taken: Action) -> tuple[LoggedRange, int]:
    """``policy``'s rows at ``state`` for every private hand of ``position``, and the
    column of ``taken``, the action it drew holding its own cards."""
    game = state.game
    visible = set(state.board[: game.board_cards_through(state.round)])
    actions = [a for a, _ in policy(state).probs]
    counts = np.zeros((len(private_hands(game)), len(actions)), dtype=np.int64)
    for i, cards in enumerate(private_hands(game)):
        if visible.intersection(cards):
            continue
        holes = tuple(cards if q == position else h for q, h in enumerate(state.hole_cards))
        dist = policy(with_cards(state, holes, state.board))
        if dist.uniform_raise is not None or [a for a, _ in dist.probs] != actions:
            raise ValueError("a ranged policy must give the same actions, none a uniform raise, for every private hand")
        counts[i] = np.rint(np.array([q for _, q in dist.probs]) * ROW_TOTAL)
        if counts[i].sum() != ROW_TOTAL or np.abs(counts[i] / ROW_TOTAL - [q for _, q in dist.probs]).max() > 1e-12:
            raise ValueError("a ranged policy's probabilities must be multiples of 1/65,535")
    weights = np.where(counts.sum(axis=1) > 0, reach, 0.0)
    return LoggedRange.pack(counts, weights), actions.index(taken)


def evaluate_match(
    match: MatchLog,
    decisions: DecisionIndex | None = None,
    value: ValueFunction | None = None,
    *,
    strategies: Mapping[str, Policy] | None = None,
    max_private_deals: int = 200,
    full_range: bool = True,
    seat_values: CheckDown | None = None,
) -> MatchAivat:
    """AIVAT values of every hand of ``match`` (see :func:`evaluate_hands`)."""
    return evaluate_hands(
        match.name, match.seats, match.hands, decisions, value or CheckDownValue(match.game),
        strategies=strategies, max_private_deals=max_private_deals, full_range=full_range, seat_values=seat_values,
    )  # fmt: skip
