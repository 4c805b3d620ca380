"""A queued version's check: its build step first if it has one (`referee.run_build`: in the
sandbox, in memory, with the league's limits), then its identity (the hash of its folder as it
will run, made once), then the handshake and one game against random (as `arena add` checks a
bot), then its fingerprint if the league asks for them (`league.copies`; never shown to its
author), then playing — or rejected, its files removed and its log kept. The check game runs
its bots as the ladder does: with the league's limits, at the ladder's priority
(`LADDER_NICE`), so that a bot that keeps to its time in its check keeps to it in the ladder's
games.

What is public and what is private: a version's status and `reason` are on its public page,
so the reason says only what kind of failure it was and where (the build's exit, the fault and
its decision); the build's output, the check game's stderr and the fault's own words (which can
quote the bot, and paths) go to the version's logs, which only its author and the organisers
see.
"""

from __future__ import annotations

import logging
import os
import secrets
import tempfile
import time
from pathlib import Path

import msgspec
import trio

from protocol.errors import ArenaError, RequestError
from referee import BuildResult, Limits, run_build
from tournaments.league.copies import fingerprint_version
from tournaments.league.files import League
from tournaments.league.folders import identity, remove
from tournaments.league.ladder import LADDER_NICE
from tournaments.league.registry import Version
from tournaments.league.unpack import Refused, unpack_built
from tournaments.play.admission import Rejected, check_bot

_log = logging.getLogger(__name__)

CHECK_LOG_BYTES = 16 * 1024
"""The check game's stderr kept in the check log: its last 16 KiB."""


async def check_version(league: League, limits: Limits, version: Version) -> Version:
    """Build `version` if it has a build step, then check it, with the league's settings and
    `limits` (the league's referee limits: `League.limits`); its new status."""
    folder = league.version_dir(version)
    if not folder.is_dir():
        return await reject(league, version, "its files are gone: upload them again")
    if version.build is not None:
        failed = await build_version(league, limits, version, version.build)
        if failed is not None:
            return failed
    league.registry.set_status(version.id, "checking")
    try:
        made = await trio.to_thread.run_sync(
            identity, version.command, folder, league.upload_limits
        )
    except (RequestError, OSError) as exc:
        league.registry.append_log(version.id, "check", f"{exc}\n")
        return await reject(league, version, "its folder could not be read (see its check log)")
    version = league.registry.set_identity(version.id, made)
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="arena-check-") as logs:
        # at the ladder's priority: a bot that keeps its time in its check keeps it in games
        checked = msgspec.structs.replace(
            limits, log_dir=logs, hidden=(*limits.hidden, logs), nice=LADDER_NICE
        )
        try:
            await check_bot(league.tournament, league.entrant(version), checked)
        except Rejected as rejected:
            # Its stderr follows line by line: the message does not quote it on one line.
            league.registry.append_log(version.id, "check", f"{rejected.without_stderr}\n")
            league.registry.append_log(version.id, "check", _stderr(rejected.outcome.logs[0]))
            return await reject(league, version, rejected.summary)
        except (ArenaError, OSError) as exc:
            league.registry.append_log(version.id, "check", f"the check could not run: {exc}\n")
            return await reject(league, version, "the check could not run (see its check log)")
        took = time.monotonic() - began
        if league.settings.fingerprints:  # as its check game: its logs go with the folder
            try:
                await fingerprint_version(league, checked, version)
            except (ArenaError, OSError):  # the organisers' tool: never the version's failure
                _log.exception("fingerprinting version %d failed", version.id)
    league.registry.append_log(
        version.id, "check", f"passed in {took:.2f} s: the handshake and a game against random\n"
    )
    return league.registry.set_status(version.id, "playing")


async def reject(league: League, version: Version, reason: str) -> Version:
    """Reject `version` with the public `reason`; its files are removed (its logs stay)."""
    await trio.to_thread.run_sync(remove, league.version_dir(version))
    return league.registry.set_status(version.id, "rejected", reason)


async def build_version(
    league: League, limits: Limits, version: Version, build: str
) -> Version | None:
    """Run the version's build step `build` on a copy of its upload (in the sandbox, in
    memory, with the league's limits and `build_s`), its output kept as the version's build
    log, and the built folder, unpacked by the upload rules, put in place of the upload. None
    when it built; else the version, rejected with the reason."""
    league.registry.set_status(version.id, "building")
    folder = league.version_dir(version)
    staging = league.staging_dir
    staging.mkdir(parents=True, exist_ok=True)
    packed = staging / f"{secrets.token_hex(8)}.tar"
    built = staging / secrets.token_hex(8)
    try:
        os.close(os.open(packed, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        try:
            result = await run_build(
                build, str(folder), str(packed), limits, league.settings.build_s, league.hidden
            )
        except (ArenaError, OSError) as exc:
            league.registry.append_log(version.id, "build", f"$ {build}\n{exc}\n")
            return await reject(league, version, "the build could not run (see its build log)")
        league.registry.append_log(version.id, "build", build_log(build, result))
        if not result.ok:
            return await reject(league, version, f"the build failed: {result.detail}")
        built.mkdir()
        try:
            await trio.to_thread.run_sync(unpack_built, packed, built, league.upload_limits)
        except Refused as refused:
            league.registry.append_log(version.id, "build", f"the built folder: {refused}\n")
            return await reject(league, version, "the built folder broke the upload rules")
        await trio.to_thread.run_sync(_replace, folder, built)
        return None
    finally:
        await trio.to_thread.run_sync(_discard, packed, built)


def build_log(build: str, result: BuildResult) -> str:
    """The build log: the command, its output, and how it ended."""
    dropped = f"[… {result.dropped} earlier bytes of output dropped]\n" if result.dropped else ""
    output = result.output
    if output and not output.endswith("\n"):
        output += "\n"
    return f"$ {build}\n{dropped}{output}[build: {result.detail} after {result.elapsed_s:.1f} s]\n"


def _stderr(path: str) -> str:
    """The check game's stderr of the version (the last `CHECK_LOG_BYTES`), for its log."""
    try:
        with open(path, "rb") as file:
            size = file.seek(0, os.SEEK_END)
            file.seek(max(0, size - CHECK_LOG_BYTES))
            text = file.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""
    return f"--- its stderr in the check game (the last {CHECK_LOG_BYTES // 1024} KiB) ---\n{text}"


def _replace(folder: Path, built: Path) -> None:
    """Put the built folder where the upload was (the upload removed)."""
    old = built.with_name(built.name + ".old")
    folder.rename(old)
    built.rename(folder)
    remove(old)


def _discard(*paths: Path) -> None:
    for path in paths:
        if path.is_dir():
            remove(path)
        else:
            path.unlink(missing_ok=True)
