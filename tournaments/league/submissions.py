"""An author's upload becoming a queued version: name and rate checked, files unpacked safely
into a folder named by their content hash, the command and the optional build step taken from
the manifest (or the command from the single file's kind). The build runs later, before the
version's check (`checks.check_version`). Each refusal says what was wrong in the author's terms.

The unpacking and hashing run in the running league's child, one upload at a time, below the
server's priority (`staging`): an upload of the largest size the league allows, or the most
hostile, never holds up the pages. The registry is written only once the files are in hand, and
the files are moved into place only once the registry has the version: a refused upload leaves
nothing behind.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import BinaryIO

import trio

from tournaments.league.errors import RateLimited, TooLarge
from tournaments.league.files import League
from tournaments.league.folders import remove
from tournaments.league.kept import Kept
from tournaments.league.registry import Author, Version
from tournaments.league.staging import Staged, Upload, staged


def stager() -> Kept[Upload, Staged]:
    """The league's staging (`Kept.open` while it runs; outside, in a thread)."""
    return Kept(staged.__module__, Staged, staged)


def refuse_early(league: League, author: Author, bot: str) -> None:
    """What can be refused before the upload's bytes are read: the name (its characters, a
    house bot's, another author's or one like it)."""
    league.check_bot_name(bot)
    league.registry.refuse_taken(bot, author.id)


async def submit(
    league: League,
    author: Author,
    bot: str,
    filename: str,
    data: bytes | BinaryIO,
    staging: Kept[Upload, Staged] | None = None,
) -> Version:
    """Take `data` (an upload named `filename`: its bytes, or a file of them) as a new version
    of `bot` by `author`, queued for its check; the same files again are the same version
    (queued again if rejected). The upload is unpacked by `staging` (the running league's
    child), else in a thread."""
    staging = staging or stager()
    refuse_early(league, author, bot)
    limit = league.settings.upload_mb
    if _size(data) > limit * 1024 * 1024:
        raise TooLarge(f"the upload is over the league's {limit} MB limit")
    if not league.registry.allow_upload(author.id, time.time(), league.settings.uploads_per_hour):
        raise RateLimited(
            f"{league.settings.uploads_per_hour} uploads an hour at most: try again later"
        )
    root = league.staging_dir
    saved = root / f"{secrets.token_hex(8)}.upload"
    try:
        await trio.to_thread.run_sync(_save, data, saved)
        upload = Upload(str(root), filename, str(saved), league.upload_limits)
        staged = await staging.ask(upload)
    finally:
        await trio.to_thread.run_sync(functools.partial(saved.unlink, missing_ok=True))
    try:
        version = league.registry.add_version(
            author.id, bot, staged.hash, staged.command, staged.build
        )
        home = league.version_dir(version)
        if not home.exists():
            home.parent.mkdir(parents=True, exist_ok=True)
            try:
                Path(staged.folder).rename(home)
            except OSError:
                if not home.exists():  # not a twin upload that came first: a real failure
                    raise
        return version
    finally:
        await trio.to_thread.run_sync(remove, Path(staged.folder))


def _size(data: bytes | BinaryIO) -> int:
    if isinstance(data, bytes):
        return len(data)
    size = data.seek(0, os.SEEK_END)
    data.seek(0)
    return size


def _save(data: bytes | BinaryIO, path: Path) -> None:
    """Write the upload to `path`, private to the server (in a thread: megabytes to copy)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
        if isinstance(data, bytes):
            out.write(data)
        else:
            shutil.copyfileobj(data, out)
