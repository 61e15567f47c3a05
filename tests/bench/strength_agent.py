"""Superseded by ``strength_ladder.py``: the agent against the baseline bots and its own
blueprint-only mode, as rungs of the ladder.  Kept so that the commands recorded in the
README still run; its options are translated to the ladder's (one table instead of one
line per match):

    .venv/bin/python tests/bench/strength_agent.py --hands 200 --opponents call,raise --no-self
    (= strength_ladder.py --hands 200 --rungs call,raise)

``--opponents`` lists bot kinds (rungs); the self match is the ``blueprint`` rung,
re-evaluated with ``dealer report --value blueprint`` unless ``--no-blueprint-value``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import strength_ladder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=3000, help="hands per side of each duplicate match (default 3000)")
    parser.add_argument("--opponents", default="random,call,raise,allin,fold")
    parser.add_argument("--no-self", action="store_true", help="skip the full agent vs blueprint-only match")
    parser.add_argument("--no-blueprint-value", action="store_true", help="skip the self match's dealer report --value blueprint")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--t-per-hand", type=int, default=7000, help="the dealer's ms per hand (the agent aims at a quarter)")
    parser.add_argument("--out", type=Path, default=Path("matches") / time.strftime("strength-%Y%m%d-%H%M%S"))
    args = parser.parse_args()
    rungs = [o for o in args.opponents.split(",") if o] + ([] if args.no_self else ["blueprint"])
    if not rungs:
        parser.error("nothing to play: no --opponents and --no-self")
    argv = ["--hands", str(args.hands), "--seed", str(args.seed), "--rungs", ",".join(rungs), "--out", str(args.out),
            "--t-per-hand", str(args.t_per_hand)]  # fmt: skip
    if not args.no_self and not args.no_blueprint_value:
        argv.append("--blueprint-value")
    return strength_ladder.main(argv)


if __name__ == "__main__":
    sys.exit(main())
