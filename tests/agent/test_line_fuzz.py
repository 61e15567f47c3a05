"""Fuzz the agent's line handling (hypothesis): no line ends the match, every reply is legal.

Random hands seen from a random seat, some lines mutated (see ``tests/agent/line_fuzz.py``),
go through the agent's real loop and decision path; the 10,000-line run is
``tests/bench/fuzz_agent_lines.py``.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.agent.line_fuzz import GAME_NAMES, MUTATIONS, PIECES, Edit, check_replies, game_named, hostile_stream, run_stream

edits = st.lists(
    st.builds(
        Edit,
        index=st.integers(0, 63),
        kind=st.sampled_from(MUTATIONS),
        at=st.integers(0, 10**6),
        piece=st.sampled_from(PIECES) | st.text(max_size=4),
    ),
    max_size=6,
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(GAME_NAMES), seed=st.integers(0, 2**32 - 1), position=st.integers(0, 2), changes=edits)
def test_mutated_streams_never_end_the_match_and_every_reply_is_legal(name, seed, position, changes):
    game = game_named(name)
    lines = hostile_stream(game, seed, position % game.num_players, changes)
    summary, sent = run_stream(name, lines, seed)
    check_replies(game, lines, sent)
    # The wire lets through only lines the agent can use: no decision fell back.
    assert "fallback" not in summary.sources


@settings(max_examples=100, deadline=None)
@given(name=st.sampled_from(GAME_NAMES), lines=st.lists(st.text(max_size=60).map(lambda t: "MATCHSTATE:" + t), max_size=5))
def test_random_text_after_the_header_is_skipped(name, lines):
    lines = [line.replace("\r", " ").replace("\n", " ") for line in lines]
    summary, sent = run_stream(name, lines)
    check_replies(game_named(name), lines, sent)
    assert summary.decisions == len(sent)
