"""What the command lines share: argument types, sub-commands, and running a command.

The argument types (argparse ``type=`` functions) turn a bad value into one sentence
that argparse prints after the usage line, before any work starts.
:func:`command_line` and :func:`add_command` declare a console script and its
sub-commands, whose help keeps its examples as written;
:func:`run_command` turns a command's expected failures into one line and an exit status.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def port(text: str) -> int:
    """A TCP port, 1..65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is between 1 and 65535, got {value}")
    return value


def nonnegative(text: str) -> int:
    """A whole number >= 0 (seeds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def command_line(
    prog: str, description: str, epilog: str | None = None
) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """A console script's parser and its sub-commands (one is required; ``args.command``
    names it).  ``epilog`` (default: where each command's options are) keeps its line breaks."""
    if epilog is None:
        parser = argparse.ArgumentParser(
            prog=prog, description=description, epilog=f"Run '{prog} COMMAND --help' for each command's options and examples."
        )
    else:
        parser = argparse.ArgumentParser(
            prog=prog, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
        )
    return parser, parser.add_subparsers(dest="command", required=True, metavar="COMMAND")


def add_command(
    sub: argparse._SubParsersAction, name: str, summary: str, description: str, epilog: str
) -> argparse.ArgumentParser:
    """Sub-command ``name`` (``summary`` in its parent's list); its ``description`` and
    ``epilog`` (the examples) are printed with their line breaks as written."""
    return sub.add_parser(
        name, help=summary, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )


def run_command(
    handler: Callable[[], int | None], prog: str, errors: tuple[type[Exception], ...], *,
    file_errors: bool = False, error_label: str | None = None, interrupted: str = "interrupted",
) -> int:
    """Run a command's ``handler`` and return its exit status.

    A failure the command expects (one of ``errors``, and OSError too with
    ``file_errors``) is printed on stderr as one line, ``LABEL: message`` (``LABEL``
    is ``error_label``, default ``prog``), with status 2 instead of a traceback;
    Ctrl-C prints ``PROG: interrupted`` (or ``interrupted``'s text) with status 130.
    """
    label = error_label or prog
    try:
        return int(handler() or 0)
    except errors as exc:
        print(f"{label}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. an output folder under a file, or a full disk
        if not file_errors:
            raise
        print(f"{label}: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: {interrupted}", file=sys.stderr)
        return 130
