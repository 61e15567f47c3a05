"""Feed the agent 10,000 (or --lines) random and mutated MATCHSTATE lines; report what happened.

    nice -n 10 .venv/bin/python tests/bench/fuzz_agent_lines.py [--lines 10000] [--seed 0]

Streams as in ``tests/agent/test_line_fuzz.py`` (random hands from a random seat, some
lines mutated, some wholly random), played through the agent's real loop with the
placeholder strategist.  Counts lines sent, lines answered, lines skipped as bad,
decisions that fell back to a check/call, and any failure: an exception out of the
loop, or a reply that is not the legal answer to a line the seat had to answer.
Exits 1 if anything failed.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
import traceback
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for tests.*

from tests.agent.line_fuzz import GAME_NAMES, check_replies, classify, game_named, hostile_stream, random_edits, run_stream


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=10_000, help="how many lines to send in all (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the streams (default 0)")
    args = parser.parse_args()
    # The skipped lines are logged as warnings, one each: keep errors only (fallbacks are counted).
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    rng = random.Random(args.seed)
    sent_lines = answered = due_total = bad_total = streams = fallbacks = 0
    failures: list[str] = []
    started = time.monotonic()
    while sent_lines < args.lines:
        name = rng.choice(GAME_NAMES)
        game = game_named(name)
        seed = rng.randrange(2**32)
        lines = hostile_stream(game, seed, rng.randrange(game.num_players), random_edits(rng, rng.randrange(1, 7)))
        lines = lines[: args.lines - sent_lines]
        try:
            summary, sent = run_stream(name, lines, seed)
            check_replies(game, lines, sent)
        except Exception:  # a failure to report, not to stop at
            failures.append(f"{name} seed {seed}: {traceback.format_exc(limit=3)}")
            sent, summary = [], None
        streams += 1
        sent_lines += len(lines)
        answered += len(sent)
        due, bad = classify(game, lines)
        due_total += len(due)
        bad_total += bad
        if summary is not None:
            fallbacks += summary.sources.get("fallback", 0)
    seconds = time.monotonic() - started
    print(
        f"{sent_lines} lines in {streams} streams ({seconds:.1f} s): {bad_total} refused as no view a dealer "
        f"sends, {due_total} the seat's turn ({answered} answered), {sent_lines - bad_total - due_total} others "
        f"(other seats' turns, hand ends, comments); {fallbacks} check/call fallbacks; {len(failures)} failures"
    )
    for failure in failures[:10]:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
