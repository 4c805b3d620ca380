"""A bot joining a tournament between runs (`arena add`): its
name checked free, its command resolved, its check game played, and it written into the
tournament file — or, where the file cannot be written, kept by the store. Nothing here prints.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from protocol.errors import RequestError
from tournaments.plan.config import ConfigError
from tournaments.plan.entrants import Entrant, portable_command
from tournaments.plan.prepare import Prepared, resolve
from tournaments.plan.tomledit import add_participant
from tournaments.play.admission import check_bot


class Enrolled(msgspec.Struct, frozen=True):
    """Where the new participant was written: `entry` in the file, or `kept_by_store` saying
    why the file could not take it (later runs include it all the same)."""

    entry: str | None
    kept_by_store: str | None


def candidate(prepared: Prepared, name: str, command: str) -> tuple[Entrant, str]:
    """The entrant `name` would be, and its command as the file will hold it (paths made
    absolute); RequestError for a name taken or a command that cannot run."""
    if name in prepared.tournament.participants:
        raise RequestError(f"{name!r} is already a participant in {prepared.file}")
    written = portable_command(command)
    return resolve(name, written, None), written


async def check(prepared: Prepared, entrant: Entrant) -> None:
    """The entrant's check game (handshake and one game against random); `Rejected` with the
    reason in the author's terms."""
    await check_bot(prepared.tournament, entrant, prepared.limits)


def enrol(prepared: Prepared, file: Path, entrant: Entrant, command: str) -> Enrolled:
    """Write the checked entrant into `file` (comments and layout kept), or, if that fails,
    into the store's list of added bots."""
    try:
        return Enrolled(add_participant(file, entrant.name, command), None)
    except (ConfigError, OSError) as exc:
        prepared.store.bot(entrant.name, entrant.command, entrant.hash, added=True)
        return Enrolled(None, str(exc))
