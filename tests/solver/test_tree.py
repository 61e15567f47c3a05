"""Betting trees and layouts: built from the rules, laid out per (player, round)."""

from __future__ import annotations

import numpy as np
import pytest

from protocol.cards import deck
from protocol.gamedef import load_game
from protocol.handrank import rank_hand
from protocol.rules import ActionType, with_cards
from solver.bets import AbstractionError, parse_abstraction
from solver.ranges import tabular_game
from solver.tree import CHANCE, DECISION, SHOWDOWN, TreeError, build_tree, pot_shares
from tests.solver.games import SIDE_POTS_3P


@pytest.mark.parametrize("name, infosets", [("kuhn.limit.2p", 12), ("leduc.limit.2p", 936), ("kuhn.limit.3p", 48)])
def test_infoset_counts_match_the_standard_games(name, infosets):
    game = tabular_game(load_game(name))
    tree, space = game.tree, game.space
    possible = sum(int(space.compat[tree.round[n]].sum()) for n in np.flatnonzero(tree.kind == DECISION))
    assert possible == infosets


def test_every_edge_is_the_rules_successor_and_rounds_change_through_chance_nodes():
    tree = build_tree(load_game("leduc.nolimit.2p"), parse_abstraction("0.5,1/1;allin;minraise"))
    for node in np.flatnonzero(tree.kind == DECISION):
        state = tree.states[node]
        low, high = state.raise_bounds() or (0, 0)
        sizes = []
        for action, e in zip(tree.actions(node), range(tree.child_start[node], tree.child_start[node] + tree.child_count[node])):
            child = tree.children[e]
            if tree.kind[child] == CHANCE:
                assert tree.deal_from[child] == state.round and tree.round[child] == state.round + 1
                child = tree.children[tree.child_start[child]]
            assert tree.states[child] == state.apply(action)
            if action.kind == ActionType.RAISE:
                assert low <= action.size <= high
                sizes.append(action.size)
        assert sizes == sorted(set(sizes)) and (not sizes or (sizes[-1] == high and sizes[0] == low))


def test_raise_cap_and_limit_games_need_no_abstraction():
    capped = build_tree(load_game("leduc.nolimit.2p"), parse_abstraction("1;cap=1"))
    for node in np.flatnonzero(capped.kind == DECISION):
        assert capped.states[node].num_raises_this_round <= 1
    with pytest.raises(TreeError, match="need an action abstraction"):
        build_tree(load_game("leduc.nolimit.2p"))
    assert build_tree(load_game("leduc.limit.2p")).n_nodes > 0


def test_abstraction_specs_round_trip_and_bad_specs_say_what_is_wrong():
    for text in ("0.5,1/1;allin", "1;minraise;cap=3,2", "0.25,0.75,2/1,3/1;allin;minraise"):
        assert parse_abstraction(text).spec() == text
    with pytest.raises(AbstractionError, match="unknown abstraction option 'all'"):
        parse_abstraction("1;all")
    with pytest.raises(AbstractionError, match="must be numbers"):
        parse_abstraction("half;allin")
    with pytest.raises(AbstractionError, match="positive"):
        parse_abstraction("0,1")


def test_layout_sections_hold_one_player_and_round_each():
    game = tabular_game(load_game("leduc.limit.2p"))
    tree, lay = game.tree, game.layout
    covered = 0
    for p in range(2):
        for r in range(2):
            nodes = [n for n in np.flatnonzero(tree.kind == DECISION) if tree.player[n] == p and tree.round[n] == r]
            size = sum(lay.rows[r] * int(tree.child_count[n]) for n in nodes)
            assert len(lay.section(np.zeros(lay.size), p, r)) == size
            covered += size
    assert covered == lay.size


def test_showdown_payoffs_split_side_pots_exactly_as_the_rules():
    tree = build_tree(SIDE_POTS_3P, parse_abstraction("1;allin"))
    rng = np.random.default_rng(7)
    cards_in_play = deck(SIDE_POTS_3P)
    assert (tree.kind == SHOWDOWN).sum() > 20
    for node in np.flatnonzero(tree.kind == SHOWDOWN):
        state = tree.states[node]
        for _ in range(6):
            cards = [int(c) for c in rng.permutation(cards_in_play)[:4]]
            holes, board = tuple((c,) for c in cards[:3]), (cards[3],)
            ranks = np.array([rank_hand([h[0], board[0]]) for h in holes])
            expected = with_cards(state, holes, board).values()
            np.testing.assert_allclose(pot_shares(tree.spent[node], tree.folded[node], ranks), expected, atol=1e-12)
