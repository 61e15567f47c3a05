"""A TCP dealer that behaves like the ACPC reference dealer (protocol 2.0.0).

Same ports line and SCORE line on stdout, the same log and transaction log, seat
rotation, the same WARNING text for bad replies, timeouts and disconnects fatal,
resuming with ``-a``.  Differences are deliberate and safe: it listens on
127.0.0.1 unless told otherwise, bounds the memory a peer can make it use, and
after a reference ERROR line adds one sentence naming the seat and what was kept.
It also escapes the control characters a seat sends before they reach the
operator's terminal, drops one connection per seat that closes before saying its
version (a port probe), and writes SCORE to the log before stdout, whose reader
may have gone.
"""

from __future__ import annotations

import os
import random
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TextIO

from dealer.dealing import Dealer
from protocol.errors import GameDefError, IllegalActionError, WireFormatError
from protocol.gamedef import GameDef, load_game
from protocol.lines import LineReader, PeerClosed, PeerTimeout
from protocol.rules import CALL, Action, State, initial_state, with_cards
from protocol.wire import (
    VERSION,
    HandViews,
    format_score_line,
    format_state_line,
    read_action,
    read_matchstate,
)

_VERSION_MAJOR, _VERSION_MINOR, _ = (int(x) for x in VERSION.split("."))


@dataclass
class ServeOptions:
    """Everything ``dealer serve`` is told; times in milliseconds like the reference."""

    match: str
    game: GameDef
    game_label: str
    hands: int
    seed: int
    names: list[str]
    fixed_seats: bool = False
    ports: list[int] | None = None
    quiet: bool = False
    log: bool = True
    transaction_log: bool = True
    append: bool = False
    t_response: int = 600000
    t_hand: int = 600000
    t_per_hand: int = 7000
    start_timeout: int | None = None
    host: str = "127.0.0.1"
    out_dir: Path = field(default_factory=Path)


#: Characters a seat name may not hold: they separate the fields of log lines.
NAME_FORBIDDEN = "|:"
#: The largest seed: the reference seeds its 32-bit Mersenne Twister with it.
MAX_SEED = 2**32 - 1
#: How a stopped match goes on, said after why it stopped (``dealer run`` says its own instead).
RESUME_HINT = "; resume with the same command and -a"


def check_options(opts: ServeOptions) -> None:
    """Refuse options no match can be played with, before any port is opened.

    Raises:
        ValueError: naming the option and what is wrong with it.
    """
    n = opts.game.num_players
    if len(opts.names) != n:
        raise ValueError(f"the game has {n} players but {len(opts.names)} names were given")
    for name in opts.names:
        bad = [ch for ch in NAME_FORBIDDEN if ch in name]
        if bad or not name or not name.isprintable():
            what = f"'{bad[0]}'" if bad else "nothing or unprintable characters"
            raise ValueError(f"seat name {name!r} holds {what}; the log separates names with '|' and fields with ':'")
    if opts.hands < 1:
        raise ValueError("HANDS must be at least 1")
    if not 0 <= opts.seed <= MAX_SEED:
        raise ValueError(f"SEED must be between 0 and {MAX_SEED}, got {opts.seed}")
    if opts.ports is not None:
        if len(opts.ports) != n:
            raise ValueError(f"-p needs {n} ports, got {len(opts.ports)}")
        bad_ports = [port for port in opts.ports if not 0 <= port <= 65535]
        if bad_ports:
            raise ValueError(f"port {bad_ports[0]} is not between 0 and 65535")
    limits = {"--t_response": opts.t_response, "--t_hand": opts.t_hand, "--t_per_hand": opts.t_per_hand}
    if opts.start_timeout is not None:
        limits["--start_timeout"] = opts.start_timeout
    for option, value in limits.items():
        if value <= 0:
            raise ValueError(f"{option} must be a positive number of milliseconds, got {value}")


class MatchAborted(Exception):
    """A fatal problem: the match stops, finished hands stay in the log."""


def printable(text: str) -> str:
    """``text`` safe for a terminal: control and other unprintable characters escaped.

    A seat's bytes reach the operator's stderr (``FROM`` lines); raw, ``\x1b]0;...\x07``
    would retitle the terminal, and other sequences move the cursor or rewrite what
    is shown.  Printable text, every line a well-behaved seat sends, is unchanged.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _stamp(t: float) -> str:
    seconds = int(t)
    return f"{seconds}.{int((t - seconds) * 1e6):06d}"


class _Seat:
    """One seat: its time used (charged from the transaction log too) and, once connected, its socket."""

    def __init__(self, index: int, name: str) -> None:
        self.index = index
        self.name = name
        self.sock: socket.socket | None = None
        self.reader: LineReader | None = None
        self.used_hand = 0.0
        self.used_match = 0.0
        self.held = b""  # bytes queued to go out with the next line

    def connect(self, sock: socket.socket) -> None:
        self.sock = sock
        # Spinning briefly before blocking cuts the wake-up latency of each reply while a
        # core is free; the reader backs off when spinning does not pay.
        self.reader = LineReader(sock, spin=0.0002)


class MatchServer:
    """Runs one match.  Call :meth:`run`; it returns the process exit code."""

    def __init__(self, opts: ServeOptions, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        """Raises ValueError (see :func:`check_options`) for options no match can use."""
        check_options(opts)
        self.o = opts
        self.game = opts.game
        self.out = out
        self.err = err
        self.seats = [_Seat(index, name) for index, name in enumerate(opts.names)]
        self.totals = [0.0] * opts.game.num_players
        self.hand = 0
        self.player0_seat = 0
        self.log_file: TextIO | None = None
        self.tlog_file: BinaryIO | None = None
        self.logged_hands = 0
        self.last_sent = 0.0  # when the last state went to an acting seat

    # --- output helpers ---------------------------------------------------------

    def _print_out(self, text: str) -> None:
        """A line on stdout (the ports line, the SCORE line); a closed stdout is no error.

        Whoever reads stdout may stop reading after the ports line; the match still
        runs and its log is complete.  Later writes go nowhere (and so does the flush
        at exit, which would otherwise report the broken pipe again).
        """
        try:
            print(text, file=self.out, flush=True)
        except (BrokenPipeError, ValueError):  # ValueError: the stream object was closed
            self.out = _silenced(self.out)

    def _say(self, text: str) -> None:
        try:
            self.err.write(text + "\n")
            self.err.flush()
        except (BrokenPipeError, ValueError):  # the same for stderr (`2>&1 | head -1`)
            self.err = _silenced(self.err)

    def _warn(self, text: str) -> None:
        self._say(f"WARNING: {text}")

    @property
    def log_path(self) -> Path:
        return self.o.out_dir / f"{self.o.match}.log"

    @property
    def tlog_path(self) -> Path:
        return self.o.out_dir / f"{self.o.match}.tlog"

    def _seat_of(self, position: int) -> int:
        return (position + self.player0_seat) % self.game.num_players

    def _position_of(self, seat: int) -> int:
        return (seat + self.game.num_players - self.player0_seat) % self.game.num_players

    # --- connection -------------------------------------------------------------

    def _listen(self) -> list[socket.socket]:
        n = self.game.num_players
        if self.o.ports is not None:
            candidates = [self.o.ports]
        else:
            # Random ports derived from the match seed, as the reference does; if
            # they are taken (another match with the same seed), let the OS choose.
            rng = random.Random(self.o.seed)
            candidates = [[rng.randrange(20000, 60000) for _ in range(n)], [0] * n]
        last_error: OSError | None = None
        for ports in candidates:
            listeners = []
            try:
                for port in ports:
                    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    listeners.append(sock)
                    sock.bind((self.o.host, port))
                    sock.listen(1)
                return listeners
            except OSError as exc:
                last_error = exc
                for sock in listeners:
                    sock.close()
        raise MatchAborted(f"cannot listen on {self.o.host} ports {candidates[0]}: {last_error}")

    def _connect_seats(self) -> None:
        listeners = self._listen()
        self._print_out(" ".join(str(s.getsockname()[1]) for s in listeners))
        deadline = None if self.o.start_timeout is None else time.monotonic() + self.o.start_timeout / 1000
        try:
            for seat, listener in zip(self.seats, listeners):
                self._accept(seat, listener, deadline)
            # The listeners stay open until every seat has said its version: a seat whose
            # first connection was a stray one is accepted again on its port.
            for seat, listener in zip(self.seats, listeners):
                self._check_version(seat, listener, deadline)
        finally:
            for listener in listeners:
                listener.close()

    def _accept(self, seat: _Seat, listener: socket.socket, deadline: float | None) -> None:
        """Wait for ``seat``'s connection on ``listener`` (until ``deadline``, if any)."""
        if deadline is not None:
            listener.settimeout(max(deadline - time.monotonic(), 0.001))
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            self._say(f"ERROR: seat {seat.index + 1} did not connect in time")
            raise MatchAborted(
                f"seat {seat.index + 1} ({seat.name}) did not connect within --start_timeout {self.o.start_timeout} ms"
            ) from None
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        seat.connect(conn)

    def _check_version(self, seat: _Seat, listener: socket.socket, deadline: float | None) -> None:
        line = None
        for attempt in range(2):
            timeout = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            assert seat.reader is not None and seat.sock is not None
            try:
                line = seat.reader.readline(timeout)
                break
            except PeerTimeout:
                break
            except PeerClosed:
                if attempt:
                    break
                # A connection that closed without a word (a port probe, a health check, a
                # bot started too early) is dropped once; the seat's real client may follow.
                self._say(
                    f"dealer: a connection to seat {seat.index + 1}'s port closed before its version line; "
                    "dropped, waiting for the seat to connect again"
                )
                seat.sock.close()
                self._accept(seat, listener, deadline)
        if line is None:
            self._say(f"ERROR: could not read version string from seat {seat.index + 1}")
            raise MatchAborted(f"seat {seat.index + 1} ({seat.name}) sent no version line")
        parts = line[len("VERSION:") :].split(".") if line.startswith("VERSION:") else []
        numbers = [leading_int(p) for p in parts[:3]]
        if len(numbers) < 3 or None in numbers:
            self._say(f"ERROR: invalid version string {printable(line)}")
            raise MatchAborted(f"seat {seat.index + 1} ({seat.name}) sent {line[:80]!r} instead of VERSION:2.0.0")
        if numbers[0] != _VERSION_MAJOR or numbers[1] > _VERSION_MINOR:  # type: ignore[operator]
            self._say(f"ERROR: this server is currently using version {VERSION}")

    # --- the match ----------------------------------------------------------------

    def _new_hand_state(self, dealer: Dealer) -> State:
        holes, board = dealer.deal()
        return with_cards(initial_state(self.game, self.hand), holes, board)

    def _check_times(self, seat: _Seat, sent: float, received: float) -> bool:
        """Charge a reply's time to the seat; False if a limit is exceeded."""
        if received < sent:
            return True
        used = received - sent
        seat.used_hand += used
        seat.used_match += used
        return (
            used * 1000 <= self.o.t_response
            and seat.used_hand * 1000 <= self.o.t_hand
            and seat.used_match * 1000 <= self.o.t_per_hand * self.o.hands
        )

    def _send(self, seat: _Seat, line: str, hold: bool = False) -> float:
        """Send ``line`` to ``seat``; with ``hold``, queue it to go out with the next line.

        The end-of-hand line is held so that it and the next hand's first line
        leave in one write: the same bytes, one system call and wake-up fewer.
        """
        data = seat.held + line.encode() + b"\r\n"
        seat.held = b""
        if hold:
            seat.held = data
        else:
            self._write(seat, data)
        sent = time.time()
        if not self.o.quiet:
            self._say(f"TO {seat.index + 1} at {_stamp(sent)} {line}")
        return sent

    def _write(self, seat: _Seat, data: bytes) -> None:
        assert seat.sock is not None
        try:
            seat.sock.sendall(data)
        except OSError:
            self._say(f"ERROR: could not send state to seat {seat.index + 1}")
            raise MatchAborted(f"seat {seat.index + 1} ({seat.name}) disconnected") from None

    def _read_action(self, seat: _Seat, state: State, position: int, sent_line: str, sent: float) -> tuple[Action, float]:
        """The reference's readPlayerResponse: returns the action to play and when it came."""
        prefix = sent_line + ":"
        assert seat.reader is not None
        # One deadline for the whole response, counted from when the state went out: every
        # line the seat sends meanwhile (comments, stale or bad replies) spends its time, as
        # in the reference, so no stream of them holds the match past --t_response.
        started = time.monotonic() - max(time.time() - sent, 0.0)
        deadline = started + self.o.t_response / 1000
        # The first read waits the whole --t_response (unchanged from read to read, so the
        # reader sets no new socket timeout: the usual reply costs no system call more).
        timeout = self.o.t_response / 1000
        while True:
            try:
                line = seat.reader.readline(timeout)
                timeout = max(deadline - time.monotonic(), 0.0)
            except (PeerClosed, PeerTimeout) as exc:
                waited = time.monotonic() - started
                self._say(f"ERROR: could not get action from seat {seat.index + 1}")
                self._say(f"{waited:.1f} seconds spent waiting; timeout {self.o.t_response / 1000:.1f}")
                what = "timed out" if isinstance(exc, PeerTimeout) else "disconnected"
                raise MatchAborted(f"seat {seat.index + 1} ({seat.name}) {what} in hand {self.hand}") from None
            received = time.time()
            if not self.o.quiet:
                self._say(f"FROM {seat.index + 1} at {_stamp(received)} {printable(line)}")
            if line[:1] in ("#", ";"):
                continue
            if not self._check_times(seat, sent, received):
                self._say(f"ERROR: seat {seat.index + 1} ran out of time")
                raise MatchAborted(f"seat {seat.index + 1} ({seat.name}) ran out of time in hand {self.hand}")
            if line.startswith(prefix):
                rest = line[len(prefix) :]
            else:
                try:
                    match, used = read_matchstate(line, self.game)
                except WireFormatError:
                    self._warn("bad state format in response")
                    continue
                if not _same_match_state(match.position, match.state, position, state):
                    self._warn("ignoring un-requested response")
                    continue
                if not line.startswith(":", used):
                    self._warn("bad action format in response, changed to call")
                    return CALL, received
                rest = line[used + 1 :]
            try:
                action, _ = read_action(rest, self.game)
            except WireFormatError:
                self._warn("bad action format in response, changed to call")
                return CALL, received
            if action is None:
                self._warn("invalid action, changed to call")
                return CALL, received
            fixed, warnings = state.fix_action(action)
            for text in warnings:
                self._warn(text)
            return fixed, received

    def _finish_hand(self, state: State) -> None:
        values = state.values()
        for position, value in enumerate(values):
            self.totals[self._seat_of(position)] += value
        if self.log_file is not None and self.hand >= self.logged_hands:
            names = tuple(self.o.names[self._seat_of(p)] for p in range(self.game.num_players))
            self.log_file.write(format_state_line(state, values, names) + "\n")
            self.log_file.flush()
            self.logged_hands = self.hand + 1

    def _next_hand(self, dealer: Dealer) -> State:
        self.hand += 1
        if not self.o.fixed_seats:
            self.player0_seat = (self.player0_seat + 1) % self.game.num_players
        for seat in self.seats:
            seat.used_hand = 0.0
        return self._new_hand_state(dealer)

    def _replay_transactions(self, dealer: Dealer, state: State) -> State:
        """Resume (``-a``): replay the transaction log as the reference does.

        Runs before any seat connects, so a match that cannot be resumed is refused
        without waiting for seats.
        """
        for number, raw in enumerate(self.tlog_path.read_text(errors="replace").splitlines(), start=1):
            where = f"{self.tlog_path}:{number}"
            try:
                action, used = read_action(raw, self.game)
            except WireFormatError:
                action = None
            if action is None:
                self._say(f"ERROR: could not parse transaction action {raw}")
                raise MatchAborted(f"{where}: unreadable action")
            fields = raw[used:].split()
            try:
                hand, sent, received = int(fields[0]), float(fields[1]), float(fields[2])
            except (IndexError, ValueError):
                self._say(f"ERROR: could not parse transaction stamp {raw}")
                raise MatchAborted(f"{where}: unreadable time stamps") from None
            if hand != self.hand:
                self._say(f"ERROR: handId mismatch in transaction log: {raw}")
                raise MatchAborted(f"{where}: expected hand {self.hand}, found {hand}")
            seat = self.seats[self._seat_of(state.current_player)]  # type: ignore[arg-type]
            if not self._check_times(seat, sent, received):
                self._say(f"ERROR: seat {seat.index + 1} ran out of time in transaction file")
                raise MatchAborted(f"{where}: seat {seat.index + 1} ran out of time")
            try:
                state = state.apply(action)
            except IllegalActionError:
                self._say(f"ERROR: invalid action in transaction log: {raw}")
                raise MatchAborted(f"{where}: invalid action") from None
            if state.finished:
                self._finish_hand(state)
                state = self._next_hand(dealer)
        return state

    def _header(self) -> str:
        return f"# name/game/hands/seed {self.o.match} {self.o.game_label} {self.o.hands} {self.o.seed}"

    def _check_resumed_log(self, lines: list[str]) -> None:
        """Refuse to append to the log of another match (``-a``)."""
        found = lines[0] if lines else ""
        if found == self._header():
            if any(line.startswith("SCORE:") for line in lines):
                raise MatchAborted(f"cannot resume: the match in {self.log_path} is finished (it has its SCORE line)")
            return
        fields = found.removeprefix("# name/game/hands/seed ").rsplit(" ", 3)
        if not found.startswith("# name/game/hands/seed ") or len(fields) != 4:
            raise MatchAborted(f"cannot resume: {self.log_path} does not start with a dealer log header")
        given = [self.o.match, self.o.game_label, str(self.o.hands), str(self.o.seed)]
        differ = [
            f"{what} {old!r} (given {new!r})"
            for what, old, new in zip(("match", "game", "hands", "seed"), fields, given)
            if old != new and not (what == "game" and _same_game(old, self.game))
        ]
        if differ:
            raise MatchAborted(f"cannot resume: {self.log_path} is a match with {', '.join(differ)}")

    def _open_logs(self) -> None:
        """Open the log and transaction log; with ``-a``, first check they belong to this match.

        A refused resume leaves every file as it was.
        """
        if self.o.append and not self.tlog_path.is_file():
            raise MatchAborted(
                f"cannot resume: there is no transaction log {self.tlog_path} (was the match started "
                "with -t, in another folder or under another name?)"
            )
        if self.o.out_dir.exists() and not self.o.out_dir.is_dir():
            raise MatchAborted(f"--out-dir {self.o.out_dir} is a file, not a folder")
        try:
            self.o.out_dir.mkdir(parents=True, exist_ok=True)
            if self.o.log:
                if self.o.append and self.log_path.exists():
                    lines = self.log_path.read_text(errors="replace").splitlines()
                    self._check_resumed_log(lines)
                    self.logged_hands = sum(1 for line in lines if line.startswith("STATE:"))
                    self.log_file = open(self.log_path, "a")  # noqa: SIM115 (open for the whole match)
                else:
                    self.log_file = open(self.log_path, "w")  # noqa: SIM115
                    self.log_file.write(
                        f"{self._header()}\n#--t_response {self.o.t_response}\n#--t_hand {self.o.t_hand}\n"
                        f"#--t_per_hand {self.o.t_per_hand}\n"
                    )
                    self.log_file.flush()
            if self.o.transaction_log:
                # Unbuffered: each transaction reaches the OS (one write) as it happens, so a
                # killed dealer leaves every action it played for -a.
                self.tlog_file = open(self.tlog_path, "ab" if self.o.append else "wb", buffering=0)  # noqa: SIM115
        except OSError as exc:
            raise MatchAborted(f"cannot write the logs in {self.o.out_dir}: {exc.strerror or exc}") from None

    def run(self) -> int:
        """Play the match; returns 0 on success, 1 on a fatal error (no SCORE line)."""
        try:
            self._open_logs()
            dealer = Dealer(self.game, self.o.seed)
            state = self._new_hand_state(dealer)
            if self.o.append:
                state = self._replay_transactions(dealer, state)
            self._connect_seats()
            self._play(dealer, state)
        except MatchAborted as exc:
            kept = f"; {self.logged_hands} finished hands are in {self.log_path}" if self.log_file else ""
            # How to go on, when there is something to go on from: -a replays the transaction log.
            again = RESUME_HINT if self.tlog_file is not None else ""
            self._say(f"dealer: match stopped: {exc}{kept}{again}")
            return 1
        finally:
            self._close()
        return 0

    def _play(self, dealer: Dealer, state: State) -> None:
        if not self.o.quiet:
            self._say(f"STARTED at {_stamp(time.time())}")
        self.last_sent = time.time()
        while self.hand < self.o.hands:
            views = HandViews(state)
            state = self._play_hand(state, views)
            self._finish_hand(state)
            for seat in self.seats:
                self._send(seat, views.line(state, self._position_of(seat.index)), hold=True)
            if not self.o.quiet and self.hand % 100 == 0:
                for seat in self.seats:
                    self._say(f"Seconds cumulatively spent in match for seat {seat.index}: {int(seat.used_match)}")
            state = self._next_hand(dealer)
        for seat in self.seats:
            if seat.held:
                self._write(seat, seat.held)
                seat.held = b""
        if not self.o.quiet:
            self._say(f"FINISHED at {_stamp(self.last_sent)}")
        score = format_score_line(tuple(self.totals), tuple(self.o.names))
        # The log first: it is the record of the match, and stdout may be gone (a reader
        # such as `| head -1` that took the ports line and left).
        if self.log_file is not None:
            self.log_file.write(score + "\n")
            self.log_file.flush()
        self._print_out(score)
        self._say(score)

    def _play_hand(self, state: State, views: HandViews) -> State:
        """Send every seat each state of the hand and play the replies; returns the finished state."""
        positions = [self._position_of(seat.index) for seat in self.seats]
        while not state.finished:
            current = state.current_player
            assert current is not None
            acting_line = ""
            for seat, position in zip(self.seats, positions):
                line = views.line(state, position)
                sent = self._send(seat, line)
                if position == current:
                    acting_line, self.last_sent = line, sent
            acting = self.seats[self._seat_of(current)]
            action, received = self._read_action(acting, state, current, acting_line, self.last_sent)
            if self.tlog_file is not None:
                self.tlog_file.write(f"{action} {self.hand} {_stamp(self.last_sent)} {_stamp(received)}\n".encode())
            state = state.apply(action)
        return state

    def _close(self) -> None:
        for seat in self.seats:
            if seat.sock is not None:
                seat.sock.close()
        for f in (self.log_file, self.tlog_file):
            if f is not None:
                f.close()


def _silenced(stream: TextIO) -> TextIO:
    """``stream`` whose reader has gone, made to write nowhere from now on.

    Its descriptor is pointed at /dev/null, so that what is still buffered, and the
    interpreter's flush at exit, go there instead of failing again.
    """
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # no descriptor (or closed): a sink that keeps nothing
        return open(os.devnull, "w")  # stays open until exit, as the stream it replaces
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
    return stream


def leading_int(text: str) -> int | None:
    """sscanf("%u")-like: the integer at the start of ``text``, or None.

    Like ``strtoul`` a number too long to hold is clamped (to 10**18, far above any version).
    """
    digits = ""
    # ASCII only, as C's isspace and isdigit: str.isdigit also takes other scripts' digits.
    for ch in text.strip(" \t\n\r\f\v"):
        if ch not in "0123456789":
            break
        digits += ch
    if len(digits) > 18:
        return 10**18
    return int(digits) if digits else None


def _same_game(label: str, game: GameDef) -> bool:
    """Whether the game a log header names (bundled name or file) is ``game``."""
    try:
        return load_game(label) == game
    except (GameDefError, OSError):
        return False


def _same_match_state(position: int, got: State, expected_position: int, expected: State) -> bool:
    """The reference's matchStatesEqual: viewer, hand, betting, board so far, viewer's cards."""
    if position != expected_position or got.hand_number != expected.hand_number:
        return False
    if got.round != expected.round or got.actions != expected.actions:
        return False
    shown = expected.game.board_cards_through(expected.round)
    if got.board[:shown] != expected.board[:shown]:
        return False
    return got.hole_cards[position] == expected.hole_cards[position]
