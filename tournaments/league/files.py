"""A league's files, opened (`League`): its file's settings, its registry (authors, versions),
its stores of games and the folder of its uploaded bots — and the tournament each ladder round
plays. (What runs the league is `service.LeagueService`.)

A league is a tournament file with a `[league]` table: the same settings, store, schedule,
runner, ratings and tables; its participants are its house bots (the file's `[participants]`)
and the playing version of every uploaded bot.

An uploaded version runs confined to its own folder (`referee.BotSpec.folder`): its command is
an argument list run there, nothing of it resolved on the host, and its identity is the hash
its check made of that folder, so the ladder never reads a version's files.
"""

from __future__ import annotations

import fcntl
import os
import re
from pathlib import Path

import msgspec

from bots import BUILTIN_BOTS
from protocol.errors import RequestError
from referee import BotSpec, Limits
from tournaments.errors import BotCommandError
from tournaments.league.errors import Taken
from tournaments.league.fingerprint import fingerprints_path
from tournaments.league.registry import Registry, Season, Version, name_key
from tournaments.league.unpack import UploadLimits
from tournaments.plan.botcommands import split_command
from tournaments.plan.config import ConfigError, LeagueSettings, Tournament, db_path, load_league
from tournaments.plan.entrants import Entrant
from tournaments.plan.prepare import resolve

BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""An uploaded bot's name: safe in tables, URLs, paths and pages (no `@`, which marks older
versions' labels in the store)."""


class League:
    """The league of `file`, its registry open (close it, or use `with`), and the season now.

    The season now is the one mutable part: `store_path`, `logs_dir` and `hidden` follow it,
    so a season's change (`season_now`, by the service alone) moves them under every reader.
    A reader that must keep to one season's games asks `season_store(number)` instead.
    """

    def __init__(self, file: Path) -> None:
        tournament = load_league(file)
        assert tournament.league is not None
        self.file = file
        self.tournament = tournament
        self.settings: LeagueSettings = tournament.league
        self.base_path = db_path(tournament, file)
        """The first season's store; the registry, the bots and the lock are named after it."""
        self.registry = Registry(self.base_path.with_suffix(".league.sqlite"))
        self.bots_dir = self.base_path.with_suffix(".bots")
        self._season: Season = self.registry.season()
        self._house: list[Entrant] | None = None

    @property
    def season(self) -> Season:
        """The season now (this process alone writes the registry: `ServeLock`)."""
        return self._season

    def season_now(self, season: Season) -> None:
        """Make `season` (as the registry just stored it: frozen, or the next one opened) the
        season now: from here on `store_path` and `logs_dir` are its files."""
        self._season = season

    @property
    def store_path(self) -> Path:
        """The store of the season now: its ladder's games."""
        return self.season_store(self.season.number)

    @property
    def logs_dir(self) -> Path:
        """The bots' stderr logs of the season now (beside its store, as a tournament's)."""
        return self.store_path.with_suffix(".logs")

    def season_store(self, number: int) -> Path:
        """Season `number`'s ladder store (the first season's is the league file's store, as
        before there were seasons)."""
        base = self.base_path
        return base if number == 1 else base.with_name(f"{base.stem}.season-{number}{base.suffix}")

    def final_store(self, number: int) -> Path:
        """Season `number`'s final: a store of its own, whose games alone rate it."""
        base = self.base_path
        return base.with_name(f"{base.stem}.season-{number}-final{base.suffix}")

    @property
    def scrimmage_store(self) -> Path:
        """Every season's scrimmages: a store of their own, which no rating reads."""
        base = self.base_path
        return base.with_name(f"{base.stem}.scrimmages{base.suffix}")

    @property
    def fingerprints_path(self) -> Path:
        """The fingerprints of its versions and the secret of their games (organisers' only)."""
        return fingerprints_path(self.base_path)

    def report_dir(self, number: int) -> Path:
        """The static report of season `number`'s final, written when it is published."""
        return self.final_store(number).with_suffix(".report")

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

    @property
    def hidden(self) -> tuple[str, ...]:
        """The league's own files, which no bot and no build may see wherever the league lives
        (masked where a sandbox would show them: under `/opt`, say)."""
        ends = ("", "-wal", "-shm")
        stores = [self.registry.path, self.scrimmage_store]
        for number in range(1, self.season.number + 1):
            stores += [self.season_store(number), self.final_store(number)]
        resolved = [store.resolve() for store in (*stores, self.fingerprints_path)]
        files = [store.with_name(store.name + end) for store in resolved for end in ends]
        folders = [self.bots_dir, *(store.with_suffix(".logs") for store in stores[1:])]
        folders += [self.report_dir(number) for number in range(1, self.season.number + 1)]
        return (*map(str, files), *(str(folder.resolve()) for folder in folders))

    def limits(self, base: Limits) -> Limits:
        """The tournament's referee limits (`base`) with the league's files hidden too, the
        league's cap on a bot's stderr in one game and its runtimes' folders."""
        return msgspec.structs.replace(
            base,
            hidden=(*base.hidden, *self.hidden),
            stderr_cap_bytes=self.settings.log_kb * 1024,
            runtimes=tuple(self.settings.runtimes),
        )

    @property
    def staging_dir(self) -> Path:
        """Where uploads and builds are unpacked before they are a version's (a name no bot
        can have: bots' names start with a letter or digit)."""
        return self.bots_dir / ".staging"

    def version_dir(self, version: Version) -> Path:
        """Where a version's files live: one folder per bot and content hash, never reused."""
        return self.bots_dir / version.bot / version.hash

    def entrant(self, version: Version) -> Entrant:
        """A version as a tournament entrant: its command as written, run in its own folder
        and nowhere else, known by the identity its check made (never hashed again here)."""
        spec = BotSpec(
            name=version.bot,
            command=split_command(version.command),
            folder=str(self.version_dir(version)),
        )
        return Entrant(version.bot, version.command, version.identity or version.hash, spec)

    def house(self) -> list[Entrant]:
        """The house bots (the file's participants), resolved and hashed once per server."""
        if self._house is None:
            t = self.tournament
            self._house = [
                resolve(name, entry, self.file.parent, t.resources(name), t.own_time(name))
                for name, entry in t.participants.items()
            ]
        return self._house

    def tournament_for(self, candidate: str, deals: int) -> Tournament:
        """The tournament one ladder round plays: every seat-set holding `candidate` (a
        gauntlet), deals 0 to `deals - 1` (the store already holds the earlier ones, so only
        the new deals and new opponents are played)."""
        return msgspec.structs.replace(
            self.tournament, schedule="gauntlet", candidate=candidate, deals=deals
        )

    def check_bot_name(self, name: str) -> None:
        """RequestError unless `name` may name an uploaded bot: its characters, and no house
        or built-in bot's name however written (`Taken`)."""
        if not BOT_NAME.fullmatch(name):
            raise RequestError(
                f"bot name {name!r}: use 1-64 letters, digits, '_', '.' or '-', starting with "
                "a letter or digit"
            )
        reserved = [*self.tournament.participants, *BUILTIN_BOTS]
        for house in reserved:
            if name_key(house) == name_key(name):
                raise Taken(
                    f"the bot name {name!r} is too close to the league's house bot {house!r}: "
                    "choose another"
                )


def confined_command(command: str) -> list[str]:
    """An uploaded bot's command as the argument list it runs as (in its own folder), or
    `RequestError` saying what is wrong with it."""
    try:
        return split_command(command)
    except BotCommandError as exc:
        raise RequestError(str(exc)) from None


class ServeLock:
    """The league's lock: one `arena serve` per league, the second refused with the first
    one's PID. A lock file beside the store, held (flock) as long as the server runs; the
    kernel lets go of it when the process ends, however it ends."""

    def __init__(self, league: League, busy: str | None = None) -> None:
        self.path = league.base_path.with_suffix(".serve.lock")
        self.busy = busy or "stop it first; two servers on one league would check its uploads twice"
        """Why the lock is refused while another process holds it."""
        self._fd: int | None = None

    def __enter__(self) -> ServeLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise ConfigError(
                f"another `arena serve` (PID {holder}) serves this league ({self.path}): "
                f"{self.busy}"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
