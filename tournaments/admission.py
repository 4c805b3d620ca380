"""Checking a bot before it joins a tournament: the handshake and one game against `random`.

A broken bot added to a running tournament would forfeit every one of its games and pollute
the ladder; one game is enough to catch a wrong command, a protocol mistake or a crash, and the
rejection says which message was wrong and how, so the author can fix it.
"""

from __future__ import annotations

from referee import FAULT_KINDS, Fault, Limits, bot_spec, run_match
from tournaments.config import Tournament
from tournaments.entrants import Entrant
from tournaments.schedule import deal_seed

CHECK_DEAL = -1
"""The check game's deal number: outside the schedule's deals (0, 1, ...)."""


class Rejected(Exception):
    """The bot failed its check; the message is the reason, in the bot author's terms."""


def explain(fault: Fault) -> str:
    when = "during the handshake" if fault.decision < 0 else f"at decision {fault.decision}"
    meaning = FAULT_KINDS.get(fault.kind, "")
    return f"{fault.kind} {when} ({meaning}): {fault.reason}"


async def check_bot(tournament: Tournament, candidate: Entrant, limits: Limits) -> None:
    """Play one game, the candidate in seat 0 and `random` in the others; raise Rejected."""
    others = [bot_spec("random", f"random{seat}") for seat in range(1, tournament.players)]
    outcome = await run_match(
        tournament.game,
        tournament.options,
        deal_seed(tournament.seed, CHECK_DEAL),
        [candidate.spec, *others],
        tournament.time,
        limits=limits,
        match_id=f"check-{candidate.name}",
    )
    faults = [fault for fault in outcome.faults if fault.seat == 0]
    if faults:
        raise Rejected(f"{candidate.name} rejected: {explain(faults[0])}")
