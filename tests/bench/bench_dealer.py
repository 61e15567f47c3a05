"""Dealer throughput: hands per second over loopback TCP with real bot processes.

    .venv/bin/python tests/bench/bench_dealer.py [--hands 4000]
    .venv/bin/python tests/bench/bench_dealer.py --busy [--rounds 3] [--hands 3000]
    .venv/bin/python tests/bench/bench_dealer.py --startup

Each configuration runs ``dealer serve`` with one ``dealer bot`` process per seat,
twice (a short and a long match), and reports (long - short) hands divided by the
difference in wall time, so process start-up does not count.  The same run measures
a baseline: the bare message exchange (a relay that sends the same number of lines
and waits for the same replies, with no rules).  The relay blocks on every read,
while the dealer and the baseline bots poll briefly first, so the dealer can beat it.

Figures move by 10-20% from run to run on a shared 2-core machine, and fall by a
third or more while another job keeps a core busy: the load average is printed
before and after.

``--busy`` measures the dealer beside a CPU hog: each round times heads-up call vs
call on the machine as it is ("idle"), then again while one extra process spins on
a core ("busy"), back to back, and prints both figures, their ratio and the load
averages.  The target is a ratio of at least 0.6.  On a machine other jobs share,
"idle" is not idle: the rounds show the spread.

``--startup`` times ``dealer bot`` from launch until its version line reaches a
listening socket (target 0.3 s), beside a bare ``python -c pass`` as the baseline.

The reference C dealer could not be built here (its sources are not available in
this environment), so its figure is quoted from the issue, not measured:
2,500-4,200 hands/s with two C random players on this machine class.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 2000.0
BUSY_TARGET = 0.6
REFERENCE_QUOTED = (2500.0, 4200.0)


def run_match(game: str, bots: list[str], hands: int, workdir: Path) -> float:
    """Wall seconds from starting the dealer to its exit."""
    names = [f"s{i}" for i in range(len(bots))]
    started = time.perf_counter()
    dealer = subprocess.Popen(
        [sys.executable, "-m", "dealer.cli", "serve", "bench", game, str(hands), "1", *names, "-q",
         "--out-dir", str(workdir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    ports = dealer.stdout.readline().split()
    seats = [
        subprocess.Popen(
            [sys.executable, "-m", "dealer.cli", "bot", kind, "127.0.0.1", port, "--game", game, "--seed", str(i)]
        )
        for i, (kind, port) in enumerate(zip(bots, ports))
    ]
    _, err = dealer.communicate()
    for seat in seats:
        seat.wait()
    if dealer.returncode != 0:
        raise SystemExit(f"bench: the dealer failed: {err.strip()[-300:]}")
    return time.perf_counter() - started


def relay_floor(messages_per_hand: int, replies_per_hand: int, hands: int) -> float:
    """Hands/s of a rules-free relay: the pure cost of the message exchange."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    # A client in another process, as a bot would be.
    child = subprocess.Popen([sys.executable, "-c", f"""
import socket
sock = socket.create_connection(("127.0.0.1", {port}))
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
reader = sock.makefile("rb")
while True:
    line = reader.readline()
    if not line:
        break
    if line.startswith(b"A"):
        sock.sendall(line[:-2] + b":c\\r\\n")
"""])
    conn, _ = server.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    reader = conn.makefile("rb")
    line = b"MATCHSTATE:0:0:cc/cc/c:7d3d|/5sKs7s/9s/6h"
    started = time.perf_counter()
    for _ in range(hands):
        for m in range(messages_per_hand):
            acting = m < replies_per_hand
            conn.sendall((b"A" if acting else b"B") + line + b"\r\n")
            if acting:
                reader.readline()
    elapsed = time.perf_counter() - started
    reader.close()  # the socket stays open while its file object does
    conn.close()
    server.close()
    child.wait()
    return hands / elapsed


def _child_cpu() -> float:
    """CPU seconds (user + system) of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def heads_up_rate(hands: int, workdir: Path) -> tuple[float, float]:
    """Heads-up call vs call: hands/s and CPU microseconds per hand (dealer and both bots),
    start-up excluded (a short and a long match)."""
    short = max(hands // 10, 100)
    cpu0 = _child_cpu()
    t_short = run_match("holdem.nolimit.2p", ["call", "call"], short, workdir)
    cpu1 = _child_cpu()
    t_long = run_match("holdem.nolimit.2p", ["call", "call"], hands, workdir)
    cpu2 = _child_cpu()
    return (hands - short) / (t_long - t_short), ((cpu2 - cpu1) - (cpu1 - cpu0)) / (hands - short) * 1e6


def _loads() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def busy_main(rounds: int, hands: int) -> None:
    """Idle and busy figures back to back, ``rounds`` times."""
    print(f"machine: {os.cpu_count()} cores; heads-up no-limit call vs call, {hands} hands; hog: one spinning process")
    print(f"{'round':>5s} {'idle hands/s':>13s} {'busy hands/s':>13s} {'busy/idle':>10s} {'CPU us/hand idle, busy':>23s}"
          "   load averages: before idle | before busy | after")  # fmt: skip
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(1, rounds + 1):
            before = _loads()
            idle, idle_cpu = heads_up_rate(hands, Path(tmp))
            hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            try:
                time.sleep(0.5)  # let the hog settle on a core
                middle = _loads()
                busy, busy_cpu = heads_up_rate(hands, Path(tmp))
            finally:
                hog.kill()
                hog.wait()
            ratios.append(busy / idle)
            print(f"{r:5d} {idle:13,.0f} {busy:13,.0f} {busy / idle:10.2f} {idle_cpu:11,.0f} {busy_cpu:11,.0f}"
                  f"   {before} | {middle} | {_loads()}")  # fmt: skip
    ratios.sort()
    median = ratios[len(ratios) // 2]
    verdict = "met" if ratios[0] >= BUSY_TARGET else "met in the median" if median >= BUSY_TARGET else "missed"
    print(f"busy/idle: min {ratios[0]:.2f}, median {median:.2f}, max {ratios[-1]:.2f} (target >= {BUSY_TARGET}: {verdict})")


def bot_startup() -> tuple[float, float]:
    """Seconds from launching ``dealer bot`` to its version line arriving, and the CPU
    seconds the bot used in all (start-up, then an immediate close)."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    cpu = _child_cpu()
    started = time.perf_counter()
    bot = subprocess.Popen(
        [sys.executable, "-m", "dealer.cli", "bot", "call", "127.0.0.1", str(port), "--game", "holdem.nolimit.2p"]
    )
    conn, _ = server.accept()
    conn.recv(64)
    elapsed = time.perf_counter() - started
    conn.close()
    server.close()
    bot.wait()
    return elapsed, _child_cpu() - cpu


def startup_main(rounds: int) -> None:
    print(f"load averages before: {_loads()}")
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare = time.perf_counter() - started
        wall, cpu = bot_startup()
        print(f"dealer bot to its version line: {wall:.3f} s wall, {cpu:.3f} s CPU "
              f"(bare python start-up {bare:.3f} s wall; target 0.3 s)")  # fmt: skip
    print(f"load averages after: {_loads()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=4000, help="hands in the long match (default 4000)")
    parser.add_argument("--busy", action="store_true", help="idle against busy (one CPU hog), see above")
    parser.add_argument("--rounds", type=int, default=3, help="--busy, --startup: rounds to measure (default 3)")
    parser.add_argument("--startup", action="store_true", help="time dealer bot's start-up instead")
    args = parser.parse_args()
    if args.startup:
        startup_main(args.rounds)
        return
    if args.busy:
        busy_main(args.rounds, args.hands)
        return
    short = max(args.hands // 10, 100)
    configs = [
        ("heads-up no-limit, call vs call", "holdem.nolimit.2p", ["call", "call"]),
        ("heads-up no-limit, random vs random", "holdem.nolimit.2p", ["random", "random"]),
        ("3-player no-limit, 3 x random", "holdem.nolimit.3p", ["random", "random", "random"]),
    ]
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} (other work skews these figures)")
    print(f"{'configuration':40s} {'hands/s':>9s} {'vs target 2000':>15s}")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, game, bots in configs:
            t_short = run_match(game, bots, short, Path(tmp))
            t_long = run_match(game, bots, args.hands, Path(tmp))
            rate = (args.hands - short) / (t_long - t_short)
            results[label] = rate
            print(f"{label:40s} {rate:9,.0f} {rate / TARGET:14.2f}x")
    # call vs call heads-up: 8 actions and 9 states per seat per hand (cc/cc/cc/cc).
    floor = relay_floor(messages_per_hand=18, replies_per_hand=8, hands=args.hands)
    call_rate = results["heads-up no-limit, call vs call"]
    print(f"{'baseline: rules-free relay, same traffic':40s} {floor:9,.0f}   (our dealer reaches {call_rate / floor:.0%} of it)")
    low, high = REFERENCE_QUOTED
    random_rate = results["heads-up no-limit, random vs random"]
    print(
        f"reference C dealer + C random players (quoted, not measured here): {low:,.0f}-{high:,.0f} hands/s; "
        f"ours with random bots: {random_rate / high:.2f}-{random_rate / low:.2f}x of it"
    )
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
