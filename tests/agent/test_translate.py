"""Translation inside the agent: off-tree bets map to neighbouring tree actions with the
pseudoharmonic probabilities, the Libratus rule, and tree actions mapped back to real sizes."""

from __future__ import annotations

import numpy as np
import pytest

from agent.translate import TranslationMemory, real_actions, skip_chance, translate_action, walk
from protocol.gamedef import load_game
from protocol.rules import CALL, FOLD, raise_to
from protocol.wire import parse_matchstate
from solver.abstraction import parse_abstraction
from solver.translation import pseudoharmonic
from solver.tree import build_tree

GAME = load_game("holdem.nolimit.2p")  # position 1 is the small blind and acts first preflop
TREE = build_tree(GAME, parse_abstraction("0.5,1/1;allin;cap=2"))


def state(betting: str, position: int = 0):
    board = "/2c7hKs" if "/" in betting else ""
    cards = "AsKd|" if position == 0 else "|AsKd"
    return parse_matchstate(f"MATCHSTATE:{position}:0:{betting}:{cards}{board}", GAME).state


def node_of(betting: str, me: int) -> int:
    found = walk(TREE, state(betting, me), TranslationMemory(), np.random.default_rng(0), me)
    assert found is not None
    return found[0]


def frequencies(node, real, action, draws=4000):
    rng = np.random.default_rng(1)
    counts: dict[int, int] = {}
    for _ in range(draws):
        edge, translated = translate_action(TREE, node, real, action, rng)
        assert translated
        counts[edge] = counts.get(edge, 0) + 1
    return {TREE.actions(node)[e - TREE.child_start[node]]: n / draws for e, n in counts.items()}


def test_off_tree_raise_maps_to_its_neighbours_pseudoharmonically():
    root = skip_chance(TREE, 0)
    assert TREE.actions(root) == [FOLD, CALL, raise_to(200), raise_to(300), raise_to(20000)]
    # A raise to 250 with 200 in the pot after calling: 0.75 pot, between 0.5 (200) and 1 (300).
    got = frequencies(root, state(""), raise_to(250))
    assert set(got) == {raise_to(200), raise_to(300)}
    assert got[raise_to(200)] == pytest.approx(pseudoharmonic(0.5, 1.0, 0.75), abs=0.025)


def test_small_bet_may_translate_to_a_check_that_does_not_end_the_round():
    # Flop (tree sizes: pot, all-in), first to act (position 0) bets the minimum, 100
    # into 200 (a raise to 200 in all): half a pot, read as a check one time in three.
    node = node_of("cc/", me=1)
    got = frequencies(node, state("cc/", 1), raise_to(200))
    assert set(got) == {CALL, raise_to(300)}
    assert got[CALL] == pytest.approx(pseudoharmonic(0.0, 1.0, 0.5), abs=0.025)


def test_libratus_rule_never_translates_into_a_round_ending_call():
    # Flop, position 0 checked and position 1 bets the minimum: a check would end the round.
    node = node_of("cc/c", me=0)
    got = frequencies(node, state("cc/c", 0), raise_to(200), draws=500)
    assert got == {raise_to(300): 1.0}


def test_walk_remembers_each_translation_for_the_hand():
    memory = TranslationMemory()
    rng = np.random.default_rng(5)
    real = state("r250c/", 0)
    first = walk(TREE, real, memory, rng, me=0)
    for _ in range(20):
        assert walk(TREE, real, memory, rng, me=0) == first
    node, steps = first
    assert [s.player for s in steps] == [1, 0] and steps[0].translated and not steps[1].translated
    assert TREE.round[node] == 1 and TREE.player[node] == 0


def test_own_actions_translate_back_to_the_tree_and_sizes_scale_with_the_real_pot():
    # The opponent's 250 maps to the tree's 300 or 200; our pot raise in the real state
    # (pot 500 after calling) is 250 + 500 = 750, whatever the abstract history.
    real = state("r250", 0)
    node, _ = walk(TREE, real, TranslationMemory(), np.random.default_rng(0), me=0)
    actions = real_actions(TREE, node, real)
    assert actions[:2] == (FOLD, CALL) and raise_to(750) in actions and actions[-1] == raise_to(20000)
    after = state("r250r750", 1)
    found = walk(TREE, after, TranslationMemory(), np.random.default_rng(0), me=1)
    assert found is None or TREE.player[found[0]] == 1


def test_path_leaving_the_tree_gives_none():
    # Raises beyond the tree's cap of 2 per round: the third maps to a call that ends
    # the tree's round while the real hand is still preflop.
    real = state("r300r900r2700r8100", 1)
    assert walk(TREE, real, TranslationMemory(), np.random.default_rng(0), me=1) is None


def test_other_blinds_and_stacks_follow_the_tree_by_role():
    from protocol.gamedef import parse_gamedef

    # Blinds seated the other way (position 0 posts the small blind and acts first
    # preflop), 1/2 blinds and 100 big blinds deep.
    other = parse_gamedef(
        "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 200 200\nblind = 1 2\nfirstPlayer = 1 2 2 2\n"
        "numSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
    )
    real = parse_matchstate("MATCHSTATE:1:0:r6:|AsKd", other).state  # position 0 (the SB) opened to 3 big blinds
    node, steps = walk(TREE, real, TranslationMemory(), np.random.default_rng(0), me=1)
    assert steps[0].player == 0 and TREE.player[node] == 0  # the tree's big blind is its position 0
    assert TREE.actions(node)[:2] == [FOLD, CALL]
    actions = real_actions(TREE, node, real)
    assert all(a.size <= 200 for a in actions) and actions[-1] == raise_to(200)


def test_a_bet_short_of_all_in_never_becomes_the_trees_all_in():
    # Preflop open to 5,881 (29 pots): pseudoharmonic would send it to the all-in 88% of
    # the time; once called, the tree would be at a showdown while the real hand goes on.
    root = skip_chance(TREE, 0)
    got = frequencies(root, state(""), raise_to(5881), draws=300)
    assert got == {raise_to(300): 1.0}
    edge, translated = translate_action(TREE, root, state(""), raise_to(20000), np.random.default_rng(0))
    assert TREE.edge_size[edge] == 20000 and not translated  # a real all-in stays one
