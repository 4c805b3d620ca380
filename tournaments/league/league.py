"""An open league: its file's settings, its registry (authors, versions), its store of games
and the folder of its uploaded bots — and the tournament each ladder round plays.

A league is a tournament file with a `[league]` table: the same settings, store, schedule,
runner, ratings and tables; its participants are its house bots (the file's `[participants]`)
and the playing version of every uploaded bot.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from protocol.errors import RequestError
from tournaments.config import LeagueSettings, Participant, Tournament, db_path, load
from tournaments.league.registry import Registry, Version
from tournaments.league.unpack import UploadLimits

BOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""An uploaded bot's name: safe in tables, URLs, paths and pages (no `@`, which marks older
versions' labels in the store)."""


class League:
    """The league of `file`, its registry open (close it, or use `with`)."""

    def __init__(self, file: Path) -> None:
        tournament = load(file)
        if tournament.league is None:
            raise RequestError(
                f"{file} has no [league] table: it is a tournament file (`arena run {file}`)"
            )
        self.file = file
        self.tournament = tournament
        self.settings: LeagueSettings = tournament.league
        self.store_path = db_path(tournament, file)
        self.registry = Registry(self.store_path.with_suffix(".league.sqlite"))
        self.bots_dir = self.store_path.with_suffix(".bots")

    def close(self) -> None:
        self.registry.close()

    def __enter__(self) -> League:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def upload_limits(self) -> UploadLimits:
        s = self.settings
        return UploadLimits(archive_mb=s.upload_mb, unpacked_mb=s.unpacked_mb, files=s.files)

    def version_dir(self, version: Version) -> Path:
        """Where a version's files live: one folder per bot and content hash, never reused."""
        return self.bots_dir / version.bot / version.hash

    def participant(self, version: Version) -> Participant:
        """A version as a tournament participant: its command, run in its own folder."""
        return Participant(command=version.command, cwd=str(self.version_dir(version)))

    def tournament_for(self, versions: list[Version], candidate: str, deals: int) -> Tournament:
        """The tournament one ladder round plays: the house bots and these versions, every
        seat-set holding `candidate` (a gauntlet), deals 0 to `deals - 1` (the store already
        holds the earlier ones, so only the new deals and new opponents are played)."""
        uploaded = {version.bot: self.participant(version) for version in versions}
        return msgspec.structs.replace(
            self.tournament,
            participants={**self.tournament.participants, **uploaded},
            schedule="gauntlet",
            candidate=candidate,
            deals=deals,
        )


def check_bot_name(name: str) -> None:
    """RequestError unless `name` may name an uploaded bot."""
    if not BOT_NAME.match(name):
        raise RequestError(
            f"bot name {name!r}: use 1-64 letters, digits, '_', '.' or '-', starting with a "
            "letter or digit"
        )
