"""One chunk of a paired comparison that takes several sittings, pooled with the chunks before it.

    .venv/bin/python tests/bench/paired_chunk.py --seed 302                  # flop search vs river search, 1,000 pairs
    .venv/bin/python tests/bench/paired_chunk.py --seed 302 --hands 500 --out matches/chunks
    .venv/bin/python tests/bench/paired_chunk.py --quick --candidate raise --baseline call --opponent random \\
        --data /tmp/chunks/raise-vs-call                                        # the plumbing in seconds
    .venv/bin/python tests/bench/paired_chunk.py --seed 311 --candidate agent --candidate-name agent-reraise \\
        --candidate-options "--river-sizes '0.5,1,2;raise=1;allin;cap=3'" --data /tmp/chunks/reraise  # an agent option

Plays the candidate and the baseline against the same opponent on the same deals
(``dealer run SEAT OPPONENT --duplicate --hands N --seed S``, candidate first, each into
``OUT/NAME-seedS``; ``--candidate-options`` adds ``agent connect`` options to an agent
candidate, then named ``--candidate-name``), compares them (``dealer compare``, AIVAT's check-down ṽ, no guard),
saves the chunk's paired per-hand values as ``DATA-seedS.json.gz`` and prints the pooled
comparison of every ``DATA-seed*.json.gz`` chunk: the figures of all the chunks' logs
together, without the logs (:mod:`dealer.evaluation.pooled`).  A seed already in DATA is
refused before anything is played (the same deals twice would count twice).
``--baseline-logs FOLDER`` takes the baseline's side from a finished ``dealer run`` of
the same seat, opponent, seed and hands (its ``run.json`` is checked) instead of playing
it again: the same code plays the same deals the same way, so only the candidate is new.
``--baseline-values FILE`` takes it from an earlier chunk's saved values instead (a chunk of
the same seed, hands and opponent whose baseline is this one): the baseline's per-hand
values depend only on its own logs, so the logs need not be kept.

The default is the pre-registered comparison of issue 26 (docs/results/2026-11-28-no-raises-in-early-searches.md):
``agent-flop`` against ``agent`` facing ``equity``, seeds 301, 302, 303 until 2,500 pairs;
its chunks live in ``docs/results/data/flop2-vs-river-seed*.json.gz`` (``flop-vs-river``:
chunk 1 of the comparison before flop and turn searches could raise, closed).  Decide the chunks and
the headline before the first one; stopping when p crosses a line is not a test.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from repo_root import ROOT

from dealer.provenance import code_version, describe

DEFAULT_DATA = ROOT / "docs" / "results" / "data" / "flop2-vs-river"


def chunk_path(data: Path, seed: int) -> Path:
    return data.with_name(f"{data.name}-seed{seed}.json.gz")


def earlier_chunks(data: Path) -> list[Path]:
    return sorted(data.parent.glob(f"{data.name}-seed*.json.gz"))


def run_args(kind: str, options: str) -> list[str]:
    """``dealer run``'s seat and options for ``kind`` with extra ``agent connect``
    ``options`` (``--agent-args``).  Raises ValueError for options on a non-agent kind."""
    from dealer.run import AGENTS

    if not options:
        return [kind]
    if kind not in AGENTS:
        raise ValueError(f"options {options!r} need an agent seat kind ({', '.join(AGENTS)}), not {kind!r}")
    return [kind, f"--agent-args={options}"]


def baseline_mismatch(folder: Path, wanted: dict) -> str | None:
    """Why ``folder`` cannot stand for the baseline's run (``wanted``: ``run.json``'s
    values it must have), or None when it can."""
    try:
        run = json.loads((folder / "run.json").read_text())
    except (OSError, json.JSONDecodeError) as e:
        return f"no readable run.json ({e.__class__.__name__})"
    for key, value in wanted.items():
        if run.get(key) != value:
            return f"its run.json has {key} {run.get(key)!r}, this chunk needs {value!r}"
    if len(list(folder.glob("*.log"))) != 2:
        return "it does not hold the two match logs of a finished duplicate run"
    return None


def save_with_stored_baseline(logs: list[str], name: str, stored, stored_path: Path, target: Path) -> None:
    """Save the candidate's values from ``logs`` beside ``stored``'s baseline column as
    ``target`` and print the chunk's comparison."""
    from dealer.evaluation.comparison import CompareError
    from dealer.evaluation.pooled import load_values, save_values, with_stored_baseline

    own = target.with_name(f".{target.name}.own.json.gz")  # hidden: never taken for a chunk
    _dealer("compare", *logs, "--baseline", *logs, "--seat", name, "--save-values", str(own))
    try:
        chunk = with_stored_baseline(load_values(own), stored, str(stored_path))
    except CompareError as e:
        raise SystemExit(f"paired_chunk: --baseline-values: {e}") from None
    save_values(target, chunk)
    own.unlink()
    _dealer("compare", "--pool", str(target))


def _dealer(*args: str) -> None:
    cmd = [sys.executable, "-m", "dealer.cli", *args]
    print("+ dealer " + " ".join(args), flush=True)
    done = subprocess.run(cmd, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"paired_chunk: 'dealer {args[0]}' failed (exit {done.returncode}); see its output above")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, required=True, help="this chunk's deals (one seed per chunk)")
    p.add_argument("--hands", type=int, default=1000, help="hands per side of each duplicate match (default 1000)")
    p.add_argument("--candidate", default="agent-flop", help="the seat kind compared (default agent-flop)")
    p.add_argument("--baseline", default="agent", help="the seat kind it is compared with (default agent)")
    p.add_argument("--candidate-options", default="", metavar="OPTIONS",
                   help="extra 'agent connect' options of an agent candidate (then --candidate-name is needed)")
    p.add_argument("--candidate-name", help="the candidate's seat and folder name (default: its kind)")
    p.add_argument("--opponent", default="equity", help="the opponent both face (default equity)")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA,
                   help="the chunks' files are DATA-seedS.json.gz (default docs/results/data/flop2-vs-river)")  # fmt: skip
    p.add_argument("--out", type=Path, default=ROOT / "matches" / "chunks", help="match folders (default matches/chunks)")
    p.add_argument("--baseline-logs", type=Path, metavar="FOLDER",
                   help="a finished 'dealer run' of the baseline on this seed: its logs instead of playing it again")
    p.add_argument("--baseline-values", type=Path, metavar="FILE",
                   help="an earlier chunk's saved values (same seed, hands, opponent, baseline): its baseline column "
                        "instead of playing the baseline again")  # fmt: skip
    p.add_argument("--quick", action="store_true", help="10 hands a side (the tests' run of the plumbing)")
    args = p.parse_args(argv)
    hands = 10 if args.quick else args.hands
    if hands < 1:
        p.error("--hands must be at least 1")
    name = args.candidate_name or args.candidate
    if args.candidate_options and not args.candidate_name:
        p.error("--candidate-options needs --candidate-name (the seat's name in the logs)")
    if name in (args.baseline, args.opponent):
        p.error("the candidate's name must differ from the baseline's and the opponent's")
    try:
        seats = {name: run_args(args.candidate, args.candidate_options), args.baseline: [args.baseline]}
    except ValueError as e:
        p.error(str(e))
    if args.baseline_logs is not None and args.baseline_values is not None:
        p.error("give --baseline-logs or --baseline-values, not both")
    stored = None
    if args.baseline_values is not None:
        from dealer.evaluation.comparison import CompareError
        from dealer.evaluation.pooled import load_values

        try:
            stored = load_values(args.baseline_values)
        except CompareError as e:
            p.error(f"--baseline-values: {e}")
        seeds = sorted({q.seed for q in stored.pairs})
        if stored.baseline != args.baseline or seeds != [args.seed]:
            p.error(f"--baseline-values {args.baseline_values}: its baseline is {stored.baseline} on seed(s) {seeds}; "
                    f"this chunk needs {args.baseline} on seed {args.seed}")  # fmt: skip
    if args.baseline_logs is not None:
        wanted = {"seed": args.seed, "hands": hands, "duplicate": True, "names": f"{args.baseline},{args.opponent}",
                  "seats": [args.baseline, args.opponent], "agent_args": ""}  # fmt: skip
        wrong = baseline_mismatch(args.baseline_logs, wanted)
        if wrong:
            p.error(f"--baseline-logs {args.baseline_logs}: {wrong}")
    target = chunk_path(args.data, args.seed)
    if target.exists():
        p.error(f"{target} exists: seed {args.seed} is already a chunk; play another seed")
    before = earlier_chunks(args.data)
    started = time.monotonic()
    folders = {}
    for seat, (kind, *options) in seats.items():
        if seat == args.baseline and stored is not None:
            print(f"+ the baseline's values: {args.baseline_values}", flush=True)
            continue
        if seat == args.baseline and args.baseline_logs is not None:
            folders[seat] = args.baseline_logs
            code = json.loads((args.baseline_logs / "run.json").read_text()).get("code")
            print(f"+ the baseline's logs: {args.baseline_logs} (played by {describe(code)}; this chunk's "
                  f"candidate by {describe(code_version())})", flush=True)  # fmt: skip
            continue
        folders[seat] = args.out / f"{seat}-seed{args.seed}"
        _dealer("run", kind, args.opponent, *options, "--duplicate", "--hands", str(hands), "--seed", str(args.seed), "--out",
                str(folders[seat]), "--names", f"{seat},{args.opponent}", *(["--quiet"] if args.quick else []))  # fmt: skip
    logs = {seat: sorted(str(x) for x in folder.glob("*.log")) for seat, folder in folders.items()}
    if stored is None:
        _dealer("compare", *logs[name], "--baseline", *logs[args.baseline], "--save-values", str(target))
    else:
        save_with_stored_baseline(logs[name], name, stored, args.baseline_values, target)
    if before:
        print(f"\nPooled with {len(before)} earlier chunk(s):", flush=True)
        _dealer("compare", "--pool", *map(str, before), str(target))
    print(f"\nchunk seed {args.seed}: {hands} hands a side, {time.monotonic() - started:.0f} s; values in {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
