"""A queued version's check: its build step first if it has one (in its folder, sandboxed and
limited as the league's bots are: `referee.run_build`), then the handshake and one game against
random (as `arena add` checks a bot), then playing — or rejected with the reason in the
author's terms."""

from __future__ import annotations

import time

from protocol.errors import ArenaError
from referee import BuildResult, run_build
from tournaments.admission import Rejected, check_bot
from tournaments.entrants import entrant
from tournaments.league.league import League
from tournaments.league.registry import Version
from tournaments.prepare import Prepared


async def check_version(league: League, prepared: Prepared, version: Version) -> Version:
    """Build `version` if it has a build step, then check it, with the league's settings and
    limits (`prepared`: the league's open tournament); its new status."""
    if version.build is not None:
        failed = await build_version(league, prepared, version, version.build)
        if failed is not None:
            return failed
    league.registry.set_status(version.id, "checking")
    began = time.monotonic()
    try:
        candidate = entrant(version.bot, league.participant(version), league.file.parent)
        await check_bot(league.tournament, candidate, prepared.limits)
    except (Rejected, ArenaError, OSError) as exc:
        league.registry.append_log(version.id, "check", str(exc))
        return league.registry.set_status(version.id, "rejected", str(exc))
    took = time.monotonic() - began
    league.registry.append_log(
        version.id, "check", f"passed in {took:.2f} s: the handshake and a game against random"
    )
    return league.registry.set_status(version.id, "playing")


async def build_version(
    league: League, prepared: Prepared, version: Version, build: str
) -> Version | None:
    """Run the version's build step `build` in its folder — the league's sandbox and resource
    limits, `build_s` seconds at most; the league's file, store and registry masked, other bots'
    folders never bound — its output kept as the version's build log. None when it built; else
    the version, rejected with the reason (or disabled meanwhile: then it is not built)."""
    building = league.registry.set_status(version.id, "building")
    if building.status != "building":
        return building
    registry = league.registry.path
    hidden = tuple(str(registry.with_name(registry.name + end)) for end in ("", "-wal", "-shm"))
    folder = str(league.version_dir(version))
    try:
        result = await run_build(build, folder, prepared.limits, league.settings.build_s, hidden)
    except (ArenaError, OSError) as exc:
        league.registry.append_log(version.id, "build", f"$ {build}\n{exc}\n")
        return league.registry.set_status(
            version.id, "rejected", f"the build could not run: {exc}; see the build log"
        )
    league.registry.append_log(version.id, "build", build_log(build, result))
    if result.ok:
        return None
    return league.registry.set_status(
        version.id, "rejected", f"the build failed: {result.detail}; see the build log"
    )


def build_log(build: str, result: BuildResult) -> str:
    """The build log: the command, its output, and how it ended."""
    dropped = f"[… {result.dropped} earlier bytes of output dropped]\n" if result.dropped else ""
    output = result.output
    if output and not output.endswith("\n"):
        output += "\n"
    return f"$ {build}\n{dropped}{output}[build: {result.detail} after {result.elapsed_s:.1f} s]\n"
