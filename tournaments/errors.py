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
    """Around a nursery: a group of exceptions all of one class (one, or the same failure in
    several tasks at once) is raised as its first, so that callers catch it as its task raised
    it; the others are kept as a note. A group of different failures stays a group."""
    try:
        yield
    except BaseExceptionGroup as group:
        first, *others = leaves(group)
        if any(type(other) is not type(first) for other in others):
            raise
        if others:
            said = sorted({str(other) for other in others} - {str(first)})
            first.add_note(f"{len(others)} more failed alike" + "".join(f"; {s}" for s in said))
        raise first from None
