"""Typed exceptions of the protocol package.

Library code raises these; only command-line entry points turn them into one
sentence and an exit code.
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Base class of every error raised by ``protocol``."""


class GameDefError(ProtocolError):
    """A ``.game`` definition is malformed or inconsistent.

    The message names the source (file or ``<string>``) and, where known, the line.
    """

    def __init__(self, problem: str, *, source: str | None = None, line: int | None = None) -> None:
        self.problem = problem
        self.source = source
        self.line = line
        where = ""
        if source is not None:
            where = f"{source}:{line}: " if line is not None else f"{source}: "
        super().__init__(f"{where}{problem}")


class WireFormatError(ProtocolError):
    """A line of the ACPC wire or log format could not be parsed."""


class IllegalActionError(ProtocolError):
    """An action is not legal in the state it was applied to."""
