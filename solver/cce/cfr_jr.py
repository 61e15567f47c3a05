"""CFR-Jr and CFR-S (Celli, Marchesi, Bianchi, Gatti, NeurIPS 2019): coarse correlated
equilibria of any small poker game (docs/algorithms.md, "Coarse correlated equilibria").

Both run full-width CFR on the whole game (:func:`solver.cce.kernels.regret_pass`,
simultaneous updates) and build the average *joint* distribution of normal-form
plans, which converges to a CCE where the product of CFR's average strategies need
not:

* CFR-Jr turns each player's current strategy into an equivalent mixture of at most
  |Z| reduced plans every iteration (:func:`solver.cce.kernels.reconstruct`) and adds
  the product of those mixtures;
* CFR-S draws one plan per player from its current strategy, adds that joint plan,
  and every player updates its regrets against the others' drawn plans.

The distribution is a :class:`JointDistribution`: each player's distinct plans
(hashed bytes, one action per infoset) and a dictionary of terms merged across
iterations.  A CFR-S term is one joint plan; a CFR-Jr term keeps its product
factored (one plan mixture per player), since expanded it holds the product of the
players' supports — :meth:`JointDistribution.expand` gives the explicit dictionary of
joint plans when it fits.  The CCE gap comes from :mod:`solver.cce.gap`.

Variants: ``vanilla`` is the paper's (regret matching, uniform average); ``plus``
uses regret matching+ with the average weighted by iteration (t), which reaches
the same accuracy in far fewer iterations; the gap is measured exactly either way.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from solver.artifacts import ArtifactError, load_artifact, save_artifact
from solver.cce.game import FullGame, SequenceForm
from solver.cce.gap import CCEGap, GapAccumulator, product_gap
from solver.cce.kernels import (
    RECONSTRUCTION_TOLERANCE,
    mixture_realization,
    plan_to_strategy,
    realization,
    reconstruct,
    regret_pass,
    sample_plan,
)
from solver.ranges import normalized

CCE_KIND = "cce"
ALGORITHMS = ("cfr-jr", "cfr-s")
VARIANTS = ("plus", "vanilla")


class PlanBook:
    """One player's distinct reduced plans, each stored once and found by its bytes."""

    def __init__(self, n_infosets: int) -> None:
        self.n_infosets = n_infosets
        self._ids: dict[bytes, int] = {}
        self._plans: list[np.ndarray] = []

    def __len__(self) -> int:
        return len(self._plans)

    def add(self, plans: np.ndarray) -> np.ndarray:
        """(k,) int64 ids of ``plans`` (k, I) uint8, adding the new ones."""
        out = np.empty(len(plans), np.int64)
        for j, plan in enumerate(plans):
            key = plan.tobytes()
            found = self._ids.get(key)
            if found is None:
                found = self._ids[key] = len(self._plans)
                self._plans.append(plan.copy())
            out[j] = found
        return out

    def array(self) -> np.ndarray:
        """(plans, I) uint8."""
        return np.stack(self._plans) if self._plans else np.zeros((0, self.n_infosets), np.uint8)


class Term(NamedTuple):
    """A product of one plan mixture per player: ``ids[i]`` with probabilities ``probs[i]``."""

    ids: tuple[np.ndarray, ...]
    probs: tuple[np.ndarray, ...]


class JointDistribution:
    """A distribution over joint reduced plans: weighted product terms, merged when equal."""

    def __init__(self, forms: tuple[SequenceForm, ...]) -> None:
        self.forms = forms
        self.books = tuple(PlanBook(f.n_infosets) for f in forms)
        self._index: dict[bytes, int] = {}
        self.terms: list[Term] = []
        self.weights: list[float] = []

    @property
    def total_weight(self) -> float:
        return float(sum(self.weights))

    def add(self, plans: list[np.ndarray], probs: list[np.ndarray], weight: float) -> list[np.ndarray]:
        """Add ``weight`` x the product of the players' mixtures; returns their realization plans."""
        ids = tuple(book.add(p) for book, p in zip(self.books, plans))
        key = b"|".join(i.tobytes() + b":" + q.tobytes() for i, q in zip(ids, probs))
        at = self._index.get(key)
        if at is None:
            self._index[key] = len(self.terms)
            self.terms.append(Term(ids, tuple(np.asarray(q, np.float64) for q in probs)))
            self.weights.append(weight)
        else:
            self.weights[at] += weight
        return [mixture_realization(p, q, f.seq_start) for p, q, f in zip(plans, probs, self.forms)]

    def sizes(self) -> dict[str, int]:
        """Stored sizes: distinct plans per player, terms, stored (plan, probability) pairs and bytes."""
        pairs = sum(len(i) for t in self.terms for i in t.ids)
        plan_bytes = sum(len(b) * b.n_infosets for b in self.books)
        return {
            "plans": [len(b) for b in self.books],
            "terms": len(self.terms),
            "pairs": pairs,
            "joint_upper_bound": sum(math.prod(len(i) for i in t.ids) for t in self.terms),
            "bytes": plan_bytes + pairs * 16 + len(self.terms) * 8,
        }

    def expand(self, limit: int = 1_000_000) -> dict[tuple[int, ...], float]:
        """The explicit dictionary joint plan ids → probability (normalized).

        Raises:
            ValueError: if it could hold more than ``limit`` entries.
        """
        bound = self.sizes()["joint_upper_bound"]
        if bound > limit:
            raise ValueError(f"the explicit joint distribution could hold {bound:,} joint plans, more than the limit {limit:,}")
        total = self.total_weight
        out: dict[tuple[int, ...], float] = {}
        for term, weight in zip(self.terms, self.weights):
            for combo in itertools.product(*(zip(i.tolist(), q.tolist()) for i, q in zip(term.ids, term.probs))):
                key = tuple(plan for plan, _ in combo)
                out[key] = out.get(key, 0.0) + weight / total * math.prod(q for _, q in combo)
        return out

    def gap(self, fg: FullGame) -> CCEGap:
        """The CCE gap of this distribution on ``fg`` (recomputed from the stored plans)."""
        acc = GapAccumulator(fg)
        plans = [b.array() for b in self.books]
        for term, weight in zip(self.terms, self.weights):
            reaches = [mixture_realization(p[i], q, f.seq_start) for p, i, q, f in zip(plans, term.ids, term.probs, self.forms)]
            acc.add(reaches, weight)
        return acc.gap()


class CCEStats(NamedTuple):
    """Per run: iterations, the most plans one player's mixture needed in one iteration, and |Z|."""

    iterations: int
    max_plans: int
    n_terminals: int


class CCESolver:
    """CFR-Jr or CFR-S on a :class:`FullGame`.

    Args:
        algorithm: ``"cfr-jr"`` or ``"cfr-s"``.
        variant: ``"plus"`` (RM+, average weighted by t) or ``"vanilla"`` (the paper's).
        seed: CFR-S's sampling seed.

    Raises:
        ValueError: for an unknown algorithm or variant.
    """

    def __init__(self, fg: FullGame, algorithm: str = "cfr-jr", variant: str = "plus", seed: int = 0) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown CCE algorithm {algorithm!r} (expected one of {', '.join(ALGORITHMS)})")
        if variant not in VARIANTS:
            raise ValueError(f"unknown CFR variant {variant!r} (expected one of {', '.join(VARIANTS)})")
        self.fg, self.algorithm, self.variant, self.seed = fg, algorithm, variant, seed
        self.regret = np.zeros(fg.layout.size)
        self.avg_reach = [np.zeros(f.n_sequences) for f in fg.forms]  # for CFR's product of averages
        self.joint = JointDistribution(fg.forms)
        self.accumulator = GapAccumulator(fg)
        self.rng = np.array([seed], np.uint64)
        self.iterations = 0
        self.max_plans = 0
        t = fg.tree
        self._tree = (t.kind, t.player, t.round, t.child_start, t.child_count, t.children, fg.layout.offset, fg.term_index)

    def current_strategy(self) -> np.ndarray:
        """The regret-matching strategy of the next iteration (tabular layout)."""
        return normalized(self.fg.layout, self.fg.tree, self.regret, positive_part=True)

    def run(self, iterations: int, progress: Callable[[int], None] | None = None) -> None:
        """Run ``iterations`` more iterations (``progress(iterations)`` after each).

        Raises:
            ValueError: if ``iterations`` is negative.
        """
        if iterations < 0:
            raise ValueError(f"the number of iterations must not be negative, got {iterations}")
        for _ in range(iterations):
            self._iterate()
            if progress is not None:
                progress(self.iterations)

    def _iterate(self) -> None:
        fg = self.fg
        self.iterations += 1
        weight = float(self.iterations) if self.variant == "plus" else 1.0
        sigma = self.current_strategy()
        plans, probs, own_reach = [], [], []
        for f in fg.forms:
            omega = realization(sigma, f.base, f.n_actions, f.seq_start, f.parent_seq)
            own_reach.append(omega)
            if self.algorithm == "cfr-jr":
                p, w = reconstruct(
                    omega, f.terminal, f.empty_terminal, f.n_actions, f.seq_start, f.parent_seq, RECONSTRUCTION_TOLERANCE
                )
                plans.append(p)
                probs.append(w / w.sum())
            else:
                plans.append(sample_plan(sigma, f.base, f.n_actions, f.seq_start, f.parent_seq, self.rng)[None, :])
                probs.append(np.ones(1))
            self.max_plans = max(self.max_plans, len(plans[-1]))
        for total, omega in zip(self.avg_reach, own_reach):
            total += weight * omega
        reaches = self.joint.add(plans, probs, weight)
        self.accumulator.add(reaches, weight)
        if self.algorithm == "cfr-jr":
            others = sigma
        else:  # every player updates against the plans the others drew
            others = np.zeros_like(sigma)
            for p, f in zip(plans, fg.forms):
                plan_to_strategy(p[0], f.base, others)
        delta = np.zeros_like(self.regret)
        regret_pass(sigma, others, delta, *self._tree, fg.rows, fg.payoff, fg.chance)
        self.regret += delta
        if self.variant == "plus":
            np.maximum(self.regret, 0.0, out=self.regret)

    def gap(self) -> CCEGap:
        """The CCE gap of the joint distribution built so far."""
        return self.accumulator.gap()

    def cfr_product_gap(self) -> CCEGap:
        """The CCE gap of the product of the players' average behavioural strategies
        (what plain CFR would output)."""
        return product_gap(self.fg, [r / self.joint.total_weight for r in self.avg_reach])

    def stats(self) -> CCEStats:
        return CCEStats(self.iterations, self.max_plans, self.fg.n_terminals)

    def save(self, path: str | Path, result: CCEGap) -> Path:
        """Write the joint distribution, its plans and its gap as a ``cce`` artifact."""
        fg, joint = self.fg, self.joint
        arrays: dict[str, np.ndarray] = {"term_weight": np.array(joint.weights, np.float64)}
        for i, (book, form) in enumerate(zip(joint.books, fg.forms)):
            arrays[f"plans_{i}"] = book.array()
            arrays[f"infoset_node_{i}"] = form.node
            arrays[f"infoset_row_{i}"] = form.row
            sizes = [len(t.ids[i]) for t in joint.terms]
            arrays[f"term_start_{i}"] = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
            arrays[f"term_ids_{i}"] = np.concatenate([t.ids[i] for t in joint.terms]) if joint.terms else np.zeros(0, np.int64)
            arrays[f"term_probs_{i}"] = np.concatenate([t.probs[i] for t in joint.terms]) if joint.terms else np.zeros(0)
        params = {
            "algorithm": self.algorithm,
            "variant": self.variant,
            "iterations": self.iterations,
            "seed": self.seed,
            "epsilon": result.epsilon,
            "alpha": result.alpha,
            "payoff_range": result.payoff_range,
            "nodes": fg.tree.n_nodes,
            "action_abstraction": fg.tree.abstraction.spec() if fg.tree.abstraction else "",
        }
        return save_artifact(path, CCE_KIND, arrays, game=fg.game, params=params)


def load_joint(path: str | Path, fg: FullGame) -> JointDistribution:
    """Load a joint distribution saved by :meth:`CCESolver.save` for the game ``fg``.

    Raises:
        ArtifactError: if the file is not a CCE artifact for this game and tree.
    """
    art = load_artifact(path, CCE_KIND, game=fg.game, rebuild="solver solve --algo cfr-jr ...")
    if art.params.get("nodes") != fg.tree.n_nodes:
        nodes = art.params.get("nodes")
        raise ArtifactError(f"{path} was made on a different betting tree ({nodes} nodes, this one has {fg.tree.n_nodes})")
    joint = JointDistribution(fg.forms)
    plans = [np.array(art.arrays[f"plans_{i}"]) for i in range(fg.n_players)]
    for t, weight in enumerate(art.arrays["term_weight"]):
        chosen, probs = [], []
        for i in range(fg.n_players):
            lo, hi = art.arrays[f"term_start_{i}"][t : t + 2]
            chosen.append(plans[i][np.array(art.arrays[f"term_ids_{i}"][lo:hi])])
            probs.append(np.array(art.arrays[f"term_probs_{i}"][lo:hi]))
        joint.add(chosen, probs, float(weight))
    return joint
