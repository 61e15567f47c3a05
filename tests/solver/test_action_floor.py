"""``solver.action_floor``: the one thresholding rule the agent and the health report share."""

from __future__ import annotations

import numpy as np

from solver.action_floor import kept_actions, threshold


def test_kept_actions_on_counts_and_probabilities_agree():
    counts = np.array([[200, 48, 7], [3, 3, 249], [85, 85, 85], [0, 0, 0], [10, 10, 5]], np.uint8)
    keep = kept_actions(counts, 0.05)
    assert keep.tolist() == [[True, True, False], [False, False, True], [True] * 3, [False] * 3, [True] * 3]
    probs = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    assert np.array_equal(kept_actions(probs, 0.05), keep)
    # A row whose every action is below the floor keeps its largest.
    assert kept_actions(np.array([[0.3, 0.3, 0.4]]), 0.5).tolist() == [[False, False, True]]


def test_threshold_renormalises_what_is_kept():
    out = threshold(np.array([[0.6, 0.37, 0.03], [0.0, 0.0, 0.0]]), 0.05)
    np.testing.assert_allclose(out, [[0.6 / 0.97, 0.37 / 0.97, 0.0], [0.0, 0.0, 0.0]])
    assert threshold(np.array([[0.25, 0.75]]), 0.0).tolist() == [[0.25, 0.75]]
