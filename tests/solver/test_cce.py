"""CFR-Jr / CFR-S: reconstruction, CCE gap against brute force, convergence, CLI."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import card_rank
from protocol.gamedef import load_game, parse_gamedef
from protocol.rules import ActionType, with_cards
from solver.bestresponse import deal_exploitability, tabulate_policy
from solver.cce.cfr_jr import CCESolver, load_joint
from solver.cce.game import UNREACHED, full_game
from solver.cce.gap import product_gap
from solver.cce.kernels import RECONSTRUCTION_TOLERANCE, mixture_realization, realization, reconstruct
from solver.cli import main
from solver.ranges import normalized, tabular_game
from solver.tree import DECISION, FOLD_END, SHOWDOWN

KUHN2 = full_game(load_game("kuhn.limit.2p"))
K3_4 = full_game(load_game("kuhn.limit.3p.r4"))
L3_3 = full_game(load_game("leduc.limit.3p.r3"))
#: Three-player Kuhn with three cards: 12 infosets per player, 4096 plans to enumerate.
K3_3 = full_game(
    parse_gamedef(
        "GAMEDEF\nlimit\nnumPlayers = 3\nnumRounds = 1\nblind = 1 1 1\nraiseSize = 1\nmaxRaises = 1\n"
        "numSuits = 1\nnumRanks = 3\nnumHoleCards = 1\nnumBoardCards = 0\nEND GAMEDEF\n",
        source="k3-3",
    )
)


def _random_strategy(fg, rng, denominator=None):
    """Random probabilities on every row; multiples of 1/denominator when given (exact in floats)."""
    out = normalized(fg.layout, fg.tree, np.zeros(fg.layout.size))  # uniform, also on rows no deal reaches
    for form in fg.forms:
        for base, n_a in zip(form.base, form.n_actions):
            if denominator:
                cuts = np.sort(rng.integers(0, denominator + 1, n_a - 1))
                out[base : base + n_a] = np.diff(np.concatenate([[0], cuts, [denominator]])) / denominator
            else:
                out[base : base + n_a] = rng.dirichlet(np.ones(n_a) * 0.5)
    return out


def _terminal_distribution(fg, strategy):
    """(deals, T) reach of each terminal under a behavioural profile, by walking the tree per deal (chance left out,
    so that dyadic strategies give exact products)."""
    tree, lay = fg.tree, fg.layout
    out = np.zeros(fg.payoff.shape[:2])
    for d in range(len(fg.hands)):
        stack = [(0, 1.0)]
        while stack:
            node, p = stack.pop()
            if fg.term_index[node] >= 0:
                out[d, fg.term_index[node]] += p
                continue
            first, n_a = tree.child_start[node], tree.child_count[node]
            if tree.kind[node] != DECISION:
                stack.append((tree.children[first], p))
                continue
            who = tree.player[node]
            base = lay.offset[node] + fg.rows[d, who, tree.round[node]] * n_a
            for a in range(n_a):
                stack.append((tree.children[first + a], p * strategy[base + a]))
    return out


def _mixture_terminal_distribution(fg, mixtures):
    """(deals, T) reach of each terminal when player j plays the mixture (plans, probs) ``mixtures[j]`` (chance left out)."""
    dist = np.ones(fg.payoff.shape[:2])
    for j, (plans, probs) in enumerate(mixtures):
        reach = mixture_realization(plans, probs, fg.forms[j].seq_start)
        seq = fg.term_seq[j]
        dist *= np.where(seq < 0, 1.0, reach[np.maximum(seq, 0)])
    return dist


def _reconstruct_all(fg, strategy):
    out = []
    for f in fg.forms:
        omega = realization(strategy, f.base, f.n_actions, f.seq_start, f.parent_seq)
        plans, weights = reconstruct(
            omega, f.terminal, f.empty_terminal, f.n_actions, f.seq_start, f.parent_seq, RECONSTRUCTION_TOLERANCE
        )
        assert len(plans) <= int(f.terminal.sum()) + 1 <= fg.n_terminals
        assert (weights > 0).all()
        out.append((plans, weights))
    return out


@pytest.mark.parametrize("fg", [K3_4, L3_3, KUHN2], ids=["kuhn3-4", "leduc3-3", "kuhn2"])
def test_reconstruction_is_exactly_realization_equivalent_on_dyadic_strategies(fg):
    strategy = _random_strategy(fg, np.random.default_rng(1), denominator=16)
    mixtures = _reconstruct_all(fg, strategy)
    for _, weights in mixtures:
        assert weights.sum() == 1.0
    assert np.array_equal(_mixture_terminal_distribution(fg, mixtures), _terminal_distribution(fg, strategy))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_reconstruction_matches_random_behavioural_strategies(seed):
    for fg in (K3_4, L3_3):
        strategy = _random_strategy(fg, np.random.default_rng(seed))
        mixtures = _reconstruct_all(fg, strategy)
        np.testing.assert_allclose(_mixture_terminal_distribution(fg, mixtures), _terminal_distribution(fg, strategy), atol=1e-10)


def _kuhn_nash(state, actions):
    """Kuhn's equilibrium with alpha = 0 (player 1 never bets; player 2 bluffs 1/3 of J)."""
    card = ("J", "Q", "K")[sorted({10, 11, 12}).index(card_rank(state.hole_cards[state.current_player][0]))]
    history = "".join("r" if a.kind == ActionType.RAISE else "c" for a in state.actions[0])
    facing_bet = any(a.kind == ActionType.FOLD for a in actions)
    if history == "":
        return [1.0, 0.0]
    if history == "c":
        return [1.0 - {"J": 1 / 3, "Q": 0.0, "K": 1.0}[card], {"J": 1 / 3, "Q": 0.0, "K": 1.0}[card]]
    assert facing_bet
    call = {"J": 0.0, "Q": 1 / 3, "K": 1.0}[card]
    return [1.0 - call, call]


def _reaches(fg, strategy):
    return [realization(strategy, f.base, f.n_actions, f.seq_start, f.parent_seq) for f in fg.forms]


def test_gap_of_a_known_equilibrium_is_zero_and_product_gaps_match_best_response():
    ranks = sorted({card_rank(int(c)) for c in KUHN2.space.deck})
    assert ranks == [10, 11, 12], ranks
    strategy = tabulate_policy(tabular_game(load_game("kuhn.limit.2p")), _kuhn_nash)
    gap = product_gap(KUHN2, _reaches(KUHN2, strategy))
    assert gap.epsilon < 1e-12
    assert gap.values[0] == pytest.approx(-1 / 18)
    # Off equilibrium, the gains equal the deal-enumeration best responses of solver.bestresponse.
    for fg, name in ((K3_4, "kuhn.limit.3p.r4"), (L3_3, "leduc.limit.3p.r3")):
        strategy = _random_strategy(fg, np.random.default_rng(5))
        gap = product_gap(fg, _reaches(fg, strategy))
        expected = deal_exploitability(tabular_game(load_game(name)), strategy)
        np.testing.assert_allclose(gap.gains, expected.gains, atol=1e-10)
        np.testing.assert_allclose(gap.values, expected.values, atol=1e-10)
        assert gap.epsilon > 0.01


def _infoset_index(fg):
    return [{(int(n), int(r)): i for i, (n, r) in enumerate(zip(f.node, f.row))} for f in fg.forms]


def _play(fg, index, d, plans):
    """Chips of every player when each plays its full plan on deal ``d`` (payoffs from protocol.rules)."""
    tree, node = fg.tree, 0
    while tree.kind[node] not in (FOLD_END, SHOWDOWN):
        if tree.kind[node] == DECISION:
            p = tree.player[node]
            a = plans[p][index[p][(node, int(fg.rows[d, p, tree.round[node]]))]]
            node = tree.children[tree.child_start[node] + a]
        else:
            node = tree.children[tree.child_start[node]]
    if (node, d) not in _PAYOFFS:
        space = fg.space
        holes = tuple(tuple(space.hands[h].tolist()) for h in fg.hands[d])
        board = tuple(space.boards[-1][fg.boards[d, -1]].tolist())
        _PAYOFFS[node, d] = with_cards(tree.states[node], holes, board).values()
    return _PAYOFFS[node, d]


_PAYOFFS: dict = {}  # (terminal node, deal) -> chips from protocol.rules; one game per test run below


@pytest.mark.parametrize("fg, algorithm, iterations", [(KUHN2, "cfr-jr", 4), (K3_3, "cfr-s", 3)], ids=["kuhn2-jr", "kuhn3-3-s"])
def test_cce_gap_matches_brute_force_over_every_normal_form_plan(fg, algorithm, iterations):
    solver = CCESolver(fg, algorithm, "vanilla", seed=4)
    solver.run(iterations)
    _PAYOFFS.clear()
    joint = solver.joint.expand()
    assert sum(joint.values()) == pytest.approx(1.0)
    plans = [b.array() for b in solver.joint.books]
    index = _infoset_index(fg)
    n_deals = len(fg.hands)

    def full(plan):  # fill unreached infosets with action 0: a full normal-form plan
        return np.where(plan == UNREACHED, 0, plan)

    gains = []
    for i, form in enumerate(fg.forms):
        recommended = ([full(plans[j][k[j]]) for j in range(fg.n_players)] for k in joint)
        value = sum(w * _play(fg, index, d, pr)[i] for w, pr in zip(joint.values(), recommended) for d in range(n_deals))
        value /= n_deals
        best = -np.inf
        for choice in itertools.product(*(range(n) for n in form.n_actions)):
            mine = np.array(choice, np.uint8)
            total = 0.0
            for k, w in joint.items():
                profile = [mine if j == i else full(plans[j][k[j]]) for j in range(fg.n_players)]
                total += w * sum(_play(fg, index, d, profile)[i] for d in range(n_deals))
            best = max(best, total / n_deals)
        gains.append(best - value)
    gap = solver.gap()
    np.testing.assert_allclose(gap.gains, gains, atol=1e-9)
    assert solver.joint.gap(fg).epsilon == pytest.approx(gap.epsilon, abs=1e-12)


@pytest.mark.parametrize("variant, iterations, bound", [("plus", 300, 0.002), ("vanilla", 300, 0.006)])
def test_cfr_jr_gap_falls_below_a_bound_on_kuhn3_4(variant, iterations, bound):
    solver = CCESolver(K3_4, "cfr-jr", variant)
    solver.run(iterations)
    gap = solver.gap()
    assert gap.alpha < bound
    assert solver.max_plans <= K3_4.n_terminals
    assert solver.joint.gap(K3_4).epsilon == pytest.approx(gap.epsilon, abs=1e-9)


def test_cfr_s_is_reproducible_from_its_seed():
    runs = []
    for seed in (3, 3, 4):
        solver = CCESolver(K3_4, "cfr-s", seed=seed)
        solver.run(200)
        runs.append((solver.gap().epsilon, solver.joint.sizes(), solver.joint.expand()))
    assert runs[0] == runs[1]
    assert runs[0][2] != runs[2][2]
    assert all(len(k) == 3 for k in runs[0][2])


def test_cli_prints_epsilon_and_alpha_and_saves_a_loadable_joint_distribution(tmp_path, capsys):
    out = tmp_path / "k.cce"
    args = ["solve", "--game", "kuhn.limit.3p.r4", "--algo", "cfr-jr", "--iterations", "50", "--evaluations", "3"]
    args += ["--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("CCE gap:"))
    epsilon, alpha = (float(part.split("=")[1].split()[0]) for part in line.removeprefix("CCE gap:").split(","))
    assert alpha == pytest.approx(epsilon / 6, rel=1e-4)
    assert load_joint(out, K3_4).gap(K3_4).epsilon == pytest.approx(epsilon, rel=1e-5)
    assert main(["solve", "--game", "kuhn.limit.3p.r4", "--algo", "cfr-s", "--iterations", "0"]) == 2
    assert "--iterations must be at least 1" in capsys.readouterr().err


def test_cli_refuses_what_cce_solving_cannot_do(tmp_path, capsys):
    big = tmp_path / "big.game"
    big.write_text(
        "GAMEDEF\nlimit\nnumPlayers = 3\nnumRounds = 1\nblind = 1 1 1\nraiseSize = 1\nmaxRaises = 1\n"
        "numSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0\nEND GAMEDEF\n"
    )
    checkpoint = ["--checkpoint", str(tmp_path / "c")]
    cases = [
        (["--game", str(big), "--algo", "cfr-jr"], "deals, more than the 200,000 deal enumeration handles"),
        (["--game", "kuhn.limit.3p.r4", "--algo", "cfr-s", *checkpoint], "--checkpoint applies to --algo mccfr only"),
        (["--game", "kuhn.limit.2p", "--algo", "dcfr", "--variant", "vanilla"], "--variant applies to"),
    ]
    for args, message in cases:
        assert main(["solve", *args, "--iterations", "3"]) == 2
        assert message in capsys.readouterr().err
