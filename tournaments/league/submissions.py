"""An author's upload becoming a queued version: name and rate checked, files unpacked safely
into a folder named by their content hash, the command and the optional build step taken from
the manifest (or the command from the single file's kind). The build runs later, before the
version's check (`checks.check_version`); its output never changes the hash, which is the
uploaded files'. Each refusal says what was wrong in the author's terms."""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import time
from pathlib import Path

from protocol.errors import RequestError
from tournaments.league.league import League, check_bot_name
from tournaments.league.registry import Author, Taken, Version
from tournaments.league.unpack import MANIFEST, manifest, single_file_command, unpack


class TooLarge(RequestError):
    """An upload over the league's size limit (HTTP 413)."""


class RateLimited(RequestError):
    """An author over the league's uploads per hour (HTTP 429)."""


def tree_hash(root: Path) -> str:
    """16 hex digits of SHA-256 over every file's relative path, mode bit x and bytes, in path
    order: the same files give the same version however they were packed."""
    digest = hashlib.sha256()
    files = sorted(path for path in root.rglob("*") if path.is_file())
    for path in files:
        executable = os.access(path, os.X_OK)
        digest.update(f"{path.relative_to(root).as_posix()}\0{int(executable)}\0".encode())
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def submit(league: League, author: Author, bot: str, filename: str, data: bytes) -> Version:
    """Take `data` (an upload named `filename`) as a new version of `bot` by `author`, queued
    for its check; the same files again are the same version."""
    check_bot_name(bot)
    if bot in league.tournament.participants:
        raise RequestError(f"{bot!r} is one of the league's house bots: choose another name")
    limit = league.settings.upload_mb
    if len(data) > limit * 1024 * 1024:
        raise TooLarge(f"the upload is over the league's {limit} MB limit")
    owner = league.registry.owner(bot)
    if owner is not None and owner != author.id:
        raise Taken(f"the bot name {bot!r} belongs to another author: upload yours under another")
    if not league.registry.allow_upload(author.id, time.time(), league.settings.uploads_per_hour):
        raise RateLimited(
            f"{league.settings.uploads_per_hour} uploads an hour at most: try again later"
        )
    staging = league.bots_dir / ".staging" / secrets.token_hex(8)
    staging.mkdir(parents=True)
    try:
        written = unpack(data, filename, staging, league.upload_limits)
        single = not (staging / MANIFEST).exists() and len(written) == 1 and "/" not in written[0]
        if single and not filename.lower().endswith((".zip", ".tar.gz", ".tgz")):
            command, build = single_file_command(staging / written[0]), None
        else:
            found = manifest(staging)
            command, build = found.command, found.build
        content = tree_hash(staging)
        home = league.bots_dir / bot / content
        if not home.exists():
            home.parent.mkdir(parents=True, exist_ok=True)
            staging.rename(home)
        return league.registry.add_version(author.id, bot, content, command, build)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
