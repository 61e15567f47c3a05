"""The command lines of ``dealer report``, ``dealer compare`` and ``dealer hands``.

Kept apart from the evaluation itself (numpy, scipy): ``--help`` and a wrong option
cost only argparse.  The evaluation modules load when a command runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

#: dealer.evaluation.guard.WARMUP, copied so that --help imports no evaluation module
#: (tests/dealer/evaluation/test_arguments.py checks they agree).
WARMUP = 10
#: The value functions AIVAT's whole-range estimator can use (``--value``).
VALUES = ("check-down", "blueprint")

TILDE_V = "ṽ: the value function AIVAT uses to estimate each state's value (--value)"

REPORT_DESCRIPTION = """\
Did A beat B, by how much, and how sure are we?  Raw chips, duplicate-paired and
AIVAT values per seat, with 95% confidence intervals and one-tailed t tests."""

REPORT_EPILOG = f"""examples:
  dealer run random raise --hands 2000 --duplicate --seed 5 --out matches/demo   # logs to report on
  dealer report matches/demo/*.log                 # decision logs from matches/demo/decisions
  dealer report matches/demo/*.log --json demo.json --plot demo.png
  dealer report matches/demo/match.1.log --decisions matches/demo/decisions/match.1.random.dlog   # one decision log
  dealer report matches/demo/*.log --game holdem.nolimit.2p   # the game of every log, whatever the headers say
  dealer report tests/data/reference/logs/nolimit2p_s11.log   # a reference dealer's log (in the project folder)
  dealer run agent call --hands 200 --duplicate --out matches/agent
  dealer report matches/agent/*.log --value blueprint --jobs 2   # ṽ from the blueprint, a log per process
  dealer report matches/agent/*.log --by-term      # each correction term's mean against 0: are the rows what was played?

AIVAT corrects chance everywhere and the decisions of every seat that wrote a
decision log; when every seat's log names the baseline policy it plays (dealer bot
does), it also averages over the hands each could have held.  In a two-player
match, a seat whose log carries its whole range at every decision (the agent's
does) is averaged over every hand it could have held, weighted by its own reach
(--no-full-range: correct only the hands held); --value blueprint values its nodes by
the blueprint played by both seats to the end of the betting round instead of checking
down (far less spread between two agents).  After a log's first {WARMUP} hands, a
seat whose AIVAT values had a larger spread than its raw chips over the log's
earlier hands gets its raw chips for the next hand (a choice made from the past
only, so still unbiased; --no-guard turns it off).  p(win) is a one-tailed t
test that the seat's mean is above 0.  A log's header names its game: a bundled
game, a reference dealer's game file, or a .game file in the log's own folder
(anything else: give --game).
{TILDE_V}."""

COMPARE_DESCRIPTION = """\
Did bot X win more than bot Y against the same opponents, on the same deals?  The paired
difference per hand (raw, duplicate, AIVAT), a 95% confidence interval and a one-tailed t test."""

COMPARE_EPILOG = f"""examples:
  dealer run raise random --duplicate --hands 2000 --seed 21 --names bot,opponent --out a
  dealer run call random --duplicate --hands 2000 --seed 21 --names bot,opponent --out b
  dealer compare a/*.log --baseline b/*.log --seat bot   # raise against call, both facing random
  dealer run agent random --duplicate --hands 500 --seed 21 --names agent,opponent --out c
  dealer run agent-blueprint random --duplicate --hands 500 --seed 21 --names blueprint,opponent --out d
  dealer compare c/*.log --baseline d/*.log --value blueprint --json cmp.json   # what subgame solving adds
  dealer compare a/*.log --baseline b/*.log --seat bot --save-values day1.json.gz
  dealer compare a2/*.log --baseline b2/*.log --seat bot --pool day1.json.gz   # day 2's seed pooled with day 1's
  dealer compare --pool day1.json.gz day2.json.gz                              # the saved chunks alone

Play both sets with the same --seed (and --duplicate or not alike): a log is paired with
the baseline log of the same game, seed and seat order once the candidate's name is
replaced by the baseline's.  Decision logs come from the 'decisions' folder beside each
log unless given.  p(better) is a one-tailed t test that the candidate's mean minus the
baseline's is above 0; "pairing cut" is how much smaller the spread of the paired
difference is than that of two independent matches of the same length.  A comparison
too long for one sitting is played in chunks, a seed each: --save-values keeps a chunk's
paired values, --pool adds them to a later one (chunks of the same seed are refused).
{TILDE_V}."""

HANDS_DESCRIPTION = "Print chosen hands with every decision: cards, betting, the seat's probabilities and their source."

HANDS_EPILOG = """examples:
  dealer run agent call --hands 200 --out matches/agent
  dealer hands matches/agent/*.log --seat agent --biggest 5          # the agent's five biggest losses
  dealer hands matches/agent/match.log --hand 42                     # one hand, every seat's decisions
  dealer hands matches/agent/*.log --seat agent --biggest 5 --won    # its five biggest wins

Each decision shows the seat's cards, the betting so far, the probability the seat gave
each action holding those cards (from its decision log) and the action taken.  For our
agent, the row's source: 'blueprint' (tree node, card bucket, translated actions) or a
subgame solve ('new' for the decision it was made for, 'followed' after), its
iterations, seconds, and exploitability in % of the pot inside its own subgame against
the modelled ranges (for a safe solve a hint: it optimises margins, not this figure)."""


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return n


def _describe(parser: argparse.ArgumentParser, description: str, epilog: str) -> None:
    parser.description = description
    parser.epilog = epilog
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``dealer report``'s arguments to ``parser``."""
    _describe(parser, REPORT_DESCRIPTION, REPORT_EPILOG)
    parser.add_argument("logs", metavar="LOG", nargs="+", type=Path, help="match logs (MATCH.log)")
    parser.add_argument(
        "--decisions", metavar="DIR|FILE", type=Path,
        help="a decision log (.dlog) or a folder of them; default: the 'decisions' folder next to each log, if any",
    )  # fmt: skip
    parser.add_argument("--json", metavar="FILE", type=Path, help="also write the summary as JSON")
    parser.add_argument("--plot", metavar="FILE.png", type=Path, help="draw cumulative winnings (needs matplotlib)")
    parser.add_argument(
        "--no-full-range", dest="full_range", action="store_false",
        help="do not average over a seat's logged range (compare with the estimator that corrects only the hands held)",
    )  # fmt: skip
    parser.add_argument(
        "--no-guard", dest="guard", action="store_false",
        help="keep every hand's AIVAT value, even for a seat whose corrections added spread on the log's earlier hands",
    )  # fmt: skip
    parser.add_argument(
        "--by-term", action="store_true",
        help="also print each seat's AIVAT corrections term by term (the deal, boards, each seat's decisions by round "
        "and where their rows came from), each mean against zero: a check that the logged rows are what the seats "
        "drew from",
    )  # fmt: skip
    add_evaluation_arguments(parser)


def add_evaluation_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of how logs are evaluated, shared with ``dealer compare``:
    ``--value``, ``--blueprint``, ``--game`` and ``--jobs``."""
    parser.add_argument(
        "--value", choices=VALUES, default="check-down",
        help="the value function (ṽ) AIVAT uses to estimate each state's value: check-down (default, under 5 ms "
        "a hand) or the agent's blueprint (both seats play it to the end of each betting round; more spread "
        "removed, tens of ms a hand)",
    )  # fmt: skip
    parser.add_argument(
        "--blueprint", metavar="FILE", type=Path,
        help="the blueprint artifact --value blueprint uses (default: the shipped one)",
    )  # fmt: skip
    parser.add_argument(
        "--game", metavar="GAME",
        help="the game of every log (.game file or bundled name), when the file a log's header names is not at hand",
    )  # fmt: skip
    parser.add_argument(
        "--jobs", metavar="N", type=positive, default=1,
        help="evaluate up to N logs at once, each in its own process that loads its own value function "
        "(default 1; 2 halves a --value blueprint report of a duplicate match on 2 cores)",
    )  # fmt: skip


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``dealer compare``'s arguments to ``parser``."""
    _describe(parser, COMPARE_DESCRIPTION, COMPARE_EPILOG)
    parser.add_argument("logs", metavar="LOG", nargs="*", type=Path, help="match logs with the candidate seat")
    parser.add_argument(
        "--baseline", metavar="LOG", nargs="+", type=Path,
        help="match logs with the baseline seat, played with the same seeds and seat orders",
    )  # fmt: skip
    parser.add_argument("--seat", metavar="NAME", help="the compared seat's name when it is the same in both sets")
    parser.add_argument("--decisions", metavar="DIR|FILE", type=Path, help="decision logs of the first set")
    parser.add_argument("--baseline-decisions", metavar="DIR|FILE", type=Path, help="decision logs of the baseline set")
    parser.add_argument("--json", metavar="FILE", type=Path, help="also write the comparison as JSON")
    parser.add_argument(
        "--save-values", metavar="FILE", type=Path,
        help="save the paired per-hand values (pooled ones with --pool; gzip when FILE ends in .gz) for a later --pool",
    )  # fmt: skip
    parser.add_argument(
        "--pool", metavar="FILE", nargs="+", type=Path,
        help="per-hand values saved by earlier comparisons (--save-values), pooled with the logs' or alone: "
        "one comparison played in chunks (a seed each) over several sittings",
    )  # fmt: skip
    parser.add_argument(
        "--guard", action="store_true",
        help="let AIVAT fall back to raw chips per log as dealer report does (off: it breaks the pairing)",
    )  # fmt: skip
    add_evaluation_arguments(parser)


def add_hands_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``dealer hands``'s arguments to ``p``."""
    _describe(p, HANDS_DESCRIPTION, HANDS_EPILOG)
    p.add_argument("logs", nargs="+", type=Path, metavar="LOG", help="match logs (MATCH.log)")
    p.add_argument("--seat", help="the seat whose chips pick the hands and whose decisions are shown (default: every seat)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--biggest", type=int, metavar="N", help="the N hands --seat lost most in (default 5)")
    which.add_argument("--hand", type=int, metavar="K", action="append", help="hand number K (repeatable)")
    p.add_argument("--won", action="store_true", help="with --biggest: the hands --seat won most in instead")
    p.add_argument("--decisions", type=Path, metavar="DIR", help="folder of decision logs (default: 'decisions' beside each log)")


def missing_log(args: argparse.Namespace) -> str | None:
    """The first LOG (or --baseline LOG) that is not a readable file, said in one sentence; else None.

    Checked before the evaluation loads (seconds on a busy machine) so that a typo is
    answered at once.
    """
    if hasattr(args, "pool"):  # dealer compare: logs on both sides, or none and --pool
        if args.logs and not args.baseline:
            return "--baseline LOG ... is required with match logs"
        if args.baseline and not args.logs:
            return "give the candidate's match logs with the --baseline logs"
        if not args.logs and not args.pool:
            return "give match logs and --baseline logs, or --pool values files"
    for path in [*args.logs, *(getattr(args, "baseline", None) or [])]:
        if not path.exists():
            return f"{path}: no such match log"
        if path.is_dir():
            return f"{path} is a folder; give its match logs (e.g. {path / '*.log'})"
    return None
