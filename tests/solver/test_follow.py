"""Translation inside the agent: off-tree bets map to neighbouring tree actions with the
pseudoharmonic probabilities, the Libratus rule, and tree actions mapped back to real sizes."""

from __future__ import annotations

import numpy as np
import pytest

from protocol.gamedef import load_game
from protocol.rules import CALL, FOLD, raise_to
from protocol.wire import parse_matchstate
from solver.bets import parse_abstraction
from solver.follow import TranslationMemory, real_actions, skip_chance, translate_action, walk
from solver.translation import pseudoharmonic
from solver.tree import build_tree

GAME = load_game("holdem.nolimit.2p")  # position 1 is the small blind and acts first preflop
TREE = build_tree(GAME, parse_abstraction("0.5,1/1;allin;cap=2"))


def state(betting: str, position: int = 0):
    board = "/2c7hKs" if "/" in betting else ""
    cards = "AsKd|" if position == 0 else "|AsKd"
    return parse_matchstate(f"MATCHSTATE:{position}:0:{betting}:{cards}{board}", GAME).state


def node_after(tree, betting: str, me: int) -> int:
    found = walk(tree, state(betting, me), TranslationMemory(), np.random.default_rng(0), me)
    assert found is not None
    return found[0]


def node_of(betting: str, me: int) -> int:
    return node_after(TREE, betting, me)


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


def test_only_a_tiny_bet_may_translate_to_a_check_that_does_not_end_the_round():
    # Flop (tree sizes: pot, all-in), first to act (position 0).  A tiny bet, 30 into 200
    # (a raise to 130 in all, 0.15 pot), is read as a check with the pseudoharmonic odds.
    node = node_of("cc/", me=1)
    got = frequencies(node, state("cc/", 1), raise_to(130))
    assert set(got) == {CALL, raise_to(300)}
    assert got[CALL] == pytest.approx(pseudoharmonic(0.0, 1.0, 0.15), abs=0.025)
    # A half-pot bet, 100 into 200, never is: the tree's answer to a check (check or bet,
    # played as call or raise) would leave us no fold against it.
    got = frequencies(node, state("cc/", 1), raise_to(200), draws=500)
    assert got == {raise_to(300): 1.0}


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


def test_raise_past_the_cap_takes_the_tree_back_to_the_last_node_facing_a_raise():
    # The tree's cap is 2 raises a round: preflop the SB (position 1) opens to 300 and
    # the BB (position 0) re-raises to 900, the cap.  The SB's r2700 has no tree raise:
    # the BB now faces it as it faced the 300, so the tree goes back to that node.
    node, steps = walk(TREE, state("r300r900r2700", 0), TranslationMemory(), np.random.default_rng(0), me=0)
    assert node == node_of("r300", me=0)
    assert steps[-1].collapsed and steps[-1].translated and steps[-1].player == 1
    assert not any(s.collapsed for s in steps[:-1])
    # The war goes on: every raise pair past the cap comes back there, on every round.
    assert TREE.player[node_of("r300r900r2700r8100", me=1)] == 1
    assert node_of("r300r900r2700r8100r15000", me=0) == node
    # Flop: a pot bet, a pot raise (the cap) and a min-raise past it.
    flop = node_of("r300c/r900r2700r4500", me=1)
    assert flop == node_of("r300c/r900", me=1) and TREE.round[flop] == 1


def test_raise_past_the_cap_with_nothing_to_go_back_to_leaves_the_tree():
    tree = build_tree(GAME, parse_abstraction("1;allin;cap=1"))
    # Flop: position 0 bets (the cap of 1), position 1 raises: no node of this round
    # where position 0 faced a bet, so the path leaves the tree.
    real = state("r300c/r600r1200", 0)
    assert walk(tree, real, TranslationMemory(), np.random.default_rng(0), me=0) is None


def test_a_raise_short_of_all_in_where_the_tree_only_shoves_goes_back_too():
    # Four-pot raises: the SB opens to 900, the BB re-raises to 8,100, and there the
    # tree's only raise is all-in.  The SB's min-raise to 15,300 leaves chips behind, so
    # it does not become the tree's all-in: the BB is back where it faced the 900.
    tree = build_tree(GAME, parse_abstraction("4;allin;cap=4"))
    assert [a.size for a in tree.actions(node_after(tree, "r900r8100", 1))][2:] == [20000]
    node, steps = walk(tree, state("r900r8100r15300", 0), TranslationMemory(), np.random.default_rng(0), me=0)
    assert steps[-1].collapsed and node == node_after(tree, "r900", 0)


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
