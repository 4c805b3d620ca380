"""The CLI's members of the arena's error family (`protocol.errors`): `tournaments.cli.main`
maps every `ArenaError` to its message and exit code in one place.

Kept below the command modules (which import it) and the CLI entry point (which catches it), so
that no command imports back from `tournaments.cli`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from protocol.errors import ArenaError, RequestError


class UsageError(RequestError):
    """A mistake in what the user asked for: printed as one line, exit code 2."""


class InputError(ArenaError):
    """A file given to a command is not what it must be (a damaged or crafted game record):
    printed as one line naming the file and what is wrong, exit code 1."""


class BotCommandError(RequestError):
    """A bot's command, `cwd` or `files` cannot be run as written (shell syntax, a script or
    directory that is not there); the message says which word and where it was looked for."""


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions `exc` holds, in order, with every exception group opened (nested ones
    too): `[exc]` for an exception that is no group. Trio's nurseries wrap what their tasks
    raise in groups; this is the one place those groups are opened."""
    if not isinstance(exc, BaseExceptionGroup):
        return [exc]
    return [leaf for part in exc.exceptions for leaf in leaves(part)]


@contextmanager
def ungrouped() -> Iterator[None]:
    """Around a nursery: a group holding one exception is raised as that exception, so that
    callers catch it as its task raised it."""
    try:
        yield
    except BaseExceptionGroup as group:
        parts = leaves(group)
        if len(parts) == 1:
            raise parts[0] from None
        raise
