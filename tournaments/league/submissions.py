"""An author's upload becoming a queued version: name and rate checked, files unpacked safely
into a folder named by their content hash, the command and the optional build step taken from
the manifest (or the command from the single file's kind). The build runs later, before the
version's check (`checks.check_version`). Each refusal says what was wrong in the author's terms.

The unpacking and hashing run in a worker thread: an upload of the largest size the league
allows never holds up the pages. The registry is written only once the files are in hand, and
the files are moved into place only once the registry has the version: a refused upload leaves
nothing behind.
"""

from __future__ import annotations

import functools
import secrets
import time
from pathlib import Path
from typing import ClassVar

import msgspec
import trio

from protocol.errors import RequestError
from tournaments.league.files import League, confined_command
from tournaments.league.folders import remove, upload_hash
from tournaments.league.registry import Author, RateLimited, Taken, Version
from tournaments.league.unpack import MANIFEST, manifest, single_file_command, unpack


class TooLarge(RequestError):
    """An upload over the league's size limit (HTTP 413)."""

    http_status: ClassVar[int] = 413


class Staged(msgspec.Struct, frozen=True):
    """An upload unpacked into a staging folder: how it runs and what it hashes to."""

    folder: Path
    command: str
    build: str | None
    hash: str


def refuse_early(league: League, author: Author, bot: str) -> None:
    """What can be refused before the upload's bytes are read: the name (its characters, a
    house bot's, another author's or one like it)."""
    league.check_bot_name(bot)
    alike = league.registry.look_alike(bot)
    if alike is not None and alike != bot:
        raise Taken(
            f"the bot name {bot!r} is too close to the league's bot {alike!r} (names differing "
            "only in case or punctuation are one name): choose another"
        )
    owner = league.registry.owner(bot)
    if owner is not None and owner != author.id:
        raise Taken(f"the bot name {bot!r} belongs to another author: upload yours under another")


async def submit(
    league: League,
    author: Author,
    bot: str,
    filename: str,
    data: bytes,
    limiter: trio.CapacityLimiter | None = None,
) -> Version:
    """Take `data` (an upload named `filename`) as a new version of `bot` by `author`, queued
    for its check; the same files again are the same version (queued again if rejected). The
    unpacking runs in a thread of `limiter`, if given (the default's otherwise)."""
    off_loop = functools.partial(trio.to_thread.run_sync, limiter=limiter)
    refuse_early(league, author, bot)
    limit = league.settings.upload_mb
    if len(data) > limit * 1024 * 1024:
        raise TooLarge(f"the upload is over the league's {limit} MB limit")
    if not league.registry.allow_upload(author.id, time.time(), league.settings.uploads_per_hour):
        raise RateLimited(
            f"{league.settings.uploads_per_hour} uploads an hour at most: try again later"
        )
    staged = await off_loop(functools.partial(stage, league, filename, data))
    try:
        version = league.registry.add_version(
            author.id, bot, staged.hash, staged.command, staged.build
        )
        home = league.version_dir(version)
        if not home.exists():
            home.parent.mkdir(parents=True, exist_ok=True)
            try:
                staged.folder.rename(home)
            except OSError:
                if not home.exists():  # not a twin upload that came first: a real failure
                    raise
        return version
    finally:
        await off_loop(functools.partial(remove, staged.folder))


def stage(league: League, filename: str, data: bytes) -> Staged:
    """Unpack the upload into a new staging folder and read how it runs (in a worker thread);
    the staging folder is removed when it is refused."""
    folder = league.bots_dir / ".staging" / secrets.token_hex(8)
    folder.mkdir(parents=True)
    try:
        written = unpack(data, filename, folder, league.upload_limits)
        single = not (folder / MANIFEST).exists() and len(written) == 1 and "/" not in written[0]
        if single and not filename.lower().endswith((".zip", ".tar.gz", ".tgz")):
            command, build = single_file_command(folder / written[0]), None
        else:
            found = manifest(folder)
            command, build = found.command, found.build
        confined_command(command)
        return Staged(folder, command, build, upload_hash(folder, league.upload_limits))
    except BaseException:
        remove(folder)
        raise
