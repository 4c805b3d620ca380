"""The `arena` command line: parses, calls the library, renders. The library never prints."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from protocol.errors import ArenaError
from tournaments.commands.common import (
    EXIT_CODES,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Terminated,
)
from tournaments.errors import leaves

COMMANDS = (
    "games",
    "match",
    "replay",
    "rerun",
    "export",
    "report",
    "run",
    "add",
    "serve",
    "league",
    "submit",
    "fetch",
    "remove",
    "workers",
    "table",
    "compare",
    "bench",
)


def version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("tile-arena")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "unknown (not installed)"


class ShowVersion(argparse.Action):
    """`--version`: the installed version, looked up only when asked (reading the installed
    packages' metadata is work every other start would pay)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"arena {version()}")
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of `argv`'s command alone when it names one (each command's module imports
    what it runs, and the others' imports would slow every start), else of every
    command (help, a mistake)."""
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Bot tournaments for tile-drafting board games (Azul family, Alhambra, 5211).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=ShowVersion, nargs=0, help="show the version and exit")
    # dest is not "command": `arena add` has a COMMAND argument of its own.
    subparsers = parser.add_subparsers(dest="subcommand", required=True, metavar="COMMAND")
    for name in _named(sys.argv[1:] if argv is None else argv):
        importlib.import_module(f"tournaments.commands.{name}").register(subparsers)
    return parser


def _named(argv: Sequence[str]) -> Sequence[str]:
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    return (command,) if command in COMMANDS else COMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser(argv).parse_args(argv)
    where = f"arena {args.subcommand}"
    try:
        code: int = args.handler(args)
    except ArenaError as exc:
        print(f"{where}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BaseExceptionGroup as group:
        # A store failure inside `arena run`'s workers reaches here wrapped by their nurseries.
        failed = leaves(group)
        if not all(isinstance(part, ArenaError) for part in failed):
            raise
        error = failed[0]
        assert isinstance(error, ArenaError)
        print(f"{where}: error: {error}", file=sys.stderr)
        return error.exit_code
    except BrokenPipeError:
        # The reader went away (`arena table db | head`): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"{where}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print(f"{where}: terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    return code
