"""Every command's --help: a description, copy-paste examples, no markup, and no heavy import.

(How fast --help answers is measured, not asserted: timings depend on the machine.)
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from agent.cli import build_parser as agent_parser
from dealer.cli import build_parser as dealer_parser
from precompute.cli import build_parser as precompute_parser
from solver.cli import build_parser as solver_parser

PARSERS = {"dealer": dealer_parser, "solver": solver_parser, "precompute": precompute_parser, "agent": agent_parser}
MARKUP = ("``", ":mod:", ":func:", ":data:", ":class:", ":meth:")


def commands(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """``parser``'s leaf commands: (words after the program, parser)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [(words, parser)]
    return [leaf for name, child in subs[0].choices.items() for leaf in commands(child, (*words, name))]


ALL = [(program, words, p) for program, make in PARSERS.items() for words, p in commands(make(), ())]


@pytest.mark.parametrize(("program", "words", "parser"), ALL, ids=[" ".join((c[0], *c[1])) for c in ALL])
def test_help_describes_shows_examples_and_holds_no_markup(program, words, parser):
    text = parser.format_help()
    assert parser.description and len(parser.description) > 40, "no description paragraph"
    examples = text.split("examples:\n", 1)[1] if "examples:\n" in text else ""
    assert f"  {program} {' '.join(words)}" in examples, "no example of this very command"
    assert not [m for m in MARKUP if m in text]
    if "ṽ" in text:
        assert "value function" in text


def test_help_loads_no_numerical_library():
    # Each command's --help in one interpreter, then: was numpy, scipy or numba imported?
    calls = "\n".join(
        f"with contextlib.suppress(SystemExit): {program}_main([{', '.join(repr(w) for w in words)}, '--help'])"
        for program, words, _ in ALL
    )
    script = (
        "import contextlib, io, sys\n"
        "from dealer.cli import main as dealer_main\nfrom solver.cli import main as solver_main\n"
        "from precompute.cli import main as precompute_main\nfrom agent.cli import main as agent_main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n" + "\n".join("    " + line for line in calls.splitlines()) + "\n"
        "print(sorted(m for m in ('numpy', 'scipy', 'numba', 'structlog', 'msgpack') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_help_constants_agree_with_the_modules_they_stand_for():
    import agent.cli
    import precompute.cli
    import solver.cli
    from agent.solving import RIVER_RERAISE_SIZES, SAFE_ITERATIONS, SUBGAME_ABSTRACTION, TURN_SEARCHES
    from agent.strategist import ALL_IN_RULES
    from dealer.evaluation.arguments import WARMUP
    from dealer.evaluation.guard import WARMUP as GUARD_WARMUP
    from precompute.blueprint_train import DEFAULT_ACTIONS, QUICK_ITERATIONS
    from precompute.bucketing import PRESETS
    from solver.action_floor import ACTION_FLOOR
    from solver.cce.cfr_jr import ALGORITHMS, VARIANTS
    from solver.cfr.fullwidth import PRESETS as CFR_PRESETS
    from solver.subgame.alternatives import SAFE_GADGETS
    from solver.subgame.gadgets import UNSAFE_WEIGHT

    assert agent.cli.ACTION_FLOOR == ACTION_FLOOR and WARMUP == GUARD_WARMUP
    assert agent.cli.UNSAFE_WEIGHT == UNSAFE_WEIGHT
    assert agent.cli.SAFE_ITERATIONS == SAFE_ITERATIONS and agent.cli.SAFE_GADGETS == SAFE_GADGETS
    assert agent.cli.ALL_IN_RULES == ALL_IN_RULES
    assert (agent.cli.SUBGAME_ABSTRACTION, agent.cli.RIVER_RERAISE_SIZES) == (SUBGAME_ABSTRACTION, RIVER_RERAISE_SIZES)
    assert agent.cli.TURN_SEARCHES == TURN_SEARCHES
    assert set(precompute.cli.PRESET_NAMES) == set(PRESETS)
    assert set(precompute.cli.BLUEPRINT_CARDS) == {name for name, config in PRESETS.items() if not config.river_map}
    assert (precompute.cli.DEFAULT_ACTIONS, precompute.cli.QUICK_ITERATIONS) == (DEFAULT_ACTIONS, QUICK_ITERATIONS)
    assert (*CFR_PRESETS, "mccfr", *ALGORITHMS) == solver.cli.ALGORITHMS
    assert solver.cli.CCE_ALGORITHMS == ALGORITHMS and solver.cli.CCE_VARIANTS == VARIANTS
