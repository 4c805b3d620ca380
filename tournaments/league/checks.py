"""A queued version's check: the handshake and one game against random (as `arena add` checks
a bot), then playing — or rejected with the reason in the author's terms."""

from __future__ import annotations

from protocol.errors import ArenaError
from tournaments.admission import Rejected, check_bot
from tournaments.entrants import entrant
from tournaments.league.league import League
from tournaments.league.registry import Version
from tournaments.prepare import Prepared


async def check_version(league: League, prepared: Prepared, version: Version) -> Version:
    """Check `version` with the league's settings and limits (`prepared`: the league's open
    tournament); its new status."""
    league.registry.set_status(version.id, "checking")
    try:
        candidate = entrant(version.bot, league.participant(version), league.file.parent)
        await check_bot(league.tournament, candidate, prepared.limits)
    except (Rejected, ArenaError, OSError) as exc:
        league.registry.append_log(version.id, "check", str(exc))
        return league.registry.set_status(version.id, "rejected", str(exc))
    league.registry.append_log(
        version.id, "check", "passed: the handshake and a game against random"
    )
    return league.registry.set_status(version.id, "playing")
