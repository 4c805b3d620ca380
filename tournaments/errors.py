"""Errors every `arena` sub-command may raise; `tournaments.cli.main` turns them into exit codes.

Kept below the command modules (which import it) and the CLI entry point (which catches it), so
that no command imports back from `tournaments.cli`.
"""

from __future__ import annotations


class UsageError(Exception):
    """A mistake in what the user asked for: printed as one line, exit code 2."""


class InputError(Exception):
    """A file given to a command is not what it must be (a damaged or crafted game record):
    printed as one line naming the file and what is wrong, exit code 1."""
