"""AIVAT's corrections term by term (``dealer report --by-term``): the terms sum to the
estimator's corrections on every path, sit near zero when the logged rows are what a seat
drew from, and show a seat whose rows are not."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from dealer.bots import call_policy, random_policy
from dealer.evaluation.aivat import KINDS, evaluate_hands
from dealer.evaluation.report import report_match
from dealer.evaluation.terms import Term, TermSums
from dealer.evaluation.values import CheckDownValue
from dealer.policy import Distribution
from protocol.rules import CALL
from tests.dealer.evaluation.simulate import simulate_match
from tests.dealer.evaluation.test_rangeaivat import LEDUC, NL_LEDUC, opponent_policy, ranged_match, ranged_policy


def _terms(sim, *, full_range: bool = True, strategies=None) -> tuple[np.ndarray, TermSums]:
    """The corrections of every hand by seat (``float64[H, S]``) and the same hands' terms."""
    sums = TermSums()
    match = sim.match_log()
    result = evaluate_hands(
        match.name, match.seats, match.hands, sim.decision_index(), CheckDownValue(sim.game),
        strategies=strategies, full_range=full_range, terms=sums,
    )  # fmt: skip
    return result.corrections.sum(axis=1), sums


def _sum_of_terms(sums: TermSums, seat: str) -> np.ndarray:
    return sum(sums.values(seat, s.term) for s in sums.stats(seat)[:-1])


@pytest.mark.parametrize("game", [LEDUC, NL_LEDUC], ids=["limit", "nolimit"])
@pytest.mark.parametrize("full_range", [True, False], ids=["range", "held"])
def test_terms_sum_to_each_hands_correction(game, full_range):
    """Range-averaged hands, hands corrected at the cards held, both seats' decisions logged."""
    sim = ranged_match(game, 150, 3, opponent_logs=True)
    corrections, sums = _terms(sim, full_range=full_range)
    for k, seat in enumerate(sim.seats):
        assert sums.hands(seat) == len(sim.hands)
        np.testing.assert_allclose(_sum_of_terms(sums, seat), corrections[:, k], atol=1e-9)
        total = sums.stats(seat)[-1]
        assert total.term == Term("total") and total.mean == pytest.approx(corrections[:, k].mean(), abs=1e-9)
    kinds = {s.term.kind for s in sums.stats(sim.seats[0])}
    assert kinds == {"deal", "board", "action", "total"} | ({"imaginary"} if full_range else set())
    actors = {s.term.actor for s in sums.stats(sim.seats[0]) if s.term.kind == "action"}
    assert actors == {"ranged", "bot"}


@pytest.mark.parametrize("known", [("random",), ("random", "call")], ids=["private-deals", "closed-form"])
def test_terms_sum_to_the_corrections_averaged_over_known_strategies(known):
    """Baseline bots whose whole strategies are known: the average over their private deals
    (one known: enumerated; both, card-independent: one replay with hidden hands)."""
    policies = {"random": random_policy, "call": call_policy}
    sim = simulate_match(LEDUC, list(policies.items()), 200, 8)
    corrections, sums = _terms(sim, strategies={k: policies[k] for k in known})
    for k, seat in enumerate(sim.seats):
        np.testing.assert_allclose(_sum_of_terms(sums, seat), corrections[:, k], atol=1e-9)
    sources = {s.term.source for s in sums.stats("random") if s.term.kind == "action"}
    assert "known strategy" in sources
    assert any(s.term.kind == "imaginary" and abs(s.mean) > 0 for s in sums.stats("random"))


@dataclass(frozen=True, slots=True)
class _Calls(Distribution):
    """Logs its probabilities but always calls: the logged rows are not what it drew from."""

    def sample(self, rng: np.random.Generator):
        return CALL


def lying_policy(state):
    return _Calls(ranged_policy(state).probs)


def _largest_z(policy, seeds=range(4), hands=300) -> dict[Term, float]:
    """Per action term of the ranged seat, its z over several seeds' hands together."""
    pooled = TermSums()
    for seed in seeds:
        sim = simulate_match(LEDUC, [("ranged", policy), ("bot", opponent_policy)], hands, seed, logging=["ranged"],
                             ranged=["ranged"])  # fmt: skip
        match = sim.match_log()
        evaluate_hands(match.name, match.seats, match.hands, sim.decision_index(), CheckDownValue(LEDUC), terms=pooled)
    return {s.term: s.z for s in pooled.stats("ranged")}


def test_the_terms_sit_near_zero_for_honest_rows_and_show_rows_that_were_not_played():
    """The check can fail: a seat that logs one strategy and plays another moves its action
    terms many standard errors from zero; the honest seat's terms stay within luck."""
    honest = _largest_z(ranged_policy)
    assert max(abs(z) for t, z in honest.items() if t.kind != "total") < 3.5, honest
    lying = _largest_z(lying_policy)
    worst = max(abs(z) for t, z in lying.items() if t.kind == "action" and t.actor == "ranged")
    assert worst > 6, lying


def test_report_prints_the_terms(tmp_path):
    sim = ranged_match(LEDUC, 150, 3, opponent_logs=True)
    log = sim.write(tmp_path / "m")

    class Out(list):
        def write(self, text):
            self.append(text)

        def flush(self):
            pass

    out = Out()
    report_match([log], tmp_path / "m" / "decisions", out=out, by_term=True)  # type: ignore[arg-type]
    text = "".join(out)
    assert "AIVAT's corrections term by term" in text
    for line in ("action, ranged, preflop, unlabelled", "board, flop", "deal", "imaginary", "total"):
        assert line in text, line
    assert KINDS == ("deal", "board", "action", "imaginary")
