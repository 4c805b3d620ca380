"""Checking a bot before it plays in a tournament: the handshake and one game against `random`.

A broken bot — a mistyped path, a protocol mistake, a crash — would forfeit every one of its
games and pollute the ladder and its opponents' statistics; one game is enough to catch it, and
the rejection says which message was wrong and how, so the author can fix it. `arena add` checks
the bot it adds; `arena run` checks every participant that has no games in the store yet (one
with games has played already; checking it again on every resume would cost a game per bot).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import trio

from protocol.errors import ArenaError
from referee import Fault, Limits, MatchOutcome, run_match, without_stderr
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.config import Tournament
from tournaments.plan.entrants import Entrant


class Rejected(ArenaError):
    """The bot failed its check; the message is the reason, in the bot author's terms (with
    the fault's reason, which may quote the bot's own output)."""

    def __init__(self, name: str, fault: Fault, outcome: MatchOutcome, seed: int) -> None:
        self.name, self.fault, self.outcome, self.seed = name, fault, outcome, seed
        super().__init__(self.described(fault.reason))

    def described(self, reason: str) -> str:
        """The fault's short kind and where, then its own reason (never the kind's
        documentation, which says what such reasons hold, not what happened)."""
        return (
            f"{self.name} rejected: {self.fault.kind} {when(self.fault)}: {reason} "
            f"(check game against random, seed {self.seed})"
        )

    @property
    def without_stderr(self) -> str:
        """The message without the stderr lines its reason quotes: for beside the whole stderr."""
        return self.described(without_stderr(self.fault.reason))

    @property
    def summary(self) -> str:
        """What failed and where, without the bot's words: for everyone to read."""
        return f"{self.fault.kind} {when(self.fault)} in its check game against random"


def when(fault: Fault) -> str:
    return "during the handshake" if fault.decision < 0 else f"at decision {fault.decision}"


async def check_bot(tournament: Tournament, candidate: Entrant, limits: Limits) -> MatchOutcome:
    """Play one game, the candidate in seat 0 and `random` in the others; its outcome, or
    Rejected.

    The deal is random (not one of the tournament's, whose seeds are secret); a rejection names
    its seed so that `arena match --seed` can play it again.
    """
    others = [parse_bot("random", f"random{seat}") for seat in range(1, tournament.players)]
    seed = random.SystemRandom().randrange(2**31)
    outcome = await run_match(
        tournament.game,
        tournament.options,
        seed,
        [candidate.spec, *others],
        tournament.time_for(candidate.name),
        limits=limits,
    )
    faults = [fault for fault in outcome.faults if fault.seat == 0]
    if faults:
        raise Rejected(candidate.name, faults[0], outcome, seed)
    return outcome


async def check_all(
    tournament: Tournament, candidates: Sequence[Entrant], limits: Limits
) -> list[str]:
    """Check the candidates concurrently (`tournament.workers` at once); the rejections."""
    rejections: list[str] = []
    limiter = trio.CapacityLimiter(tournament.workers)

    async def check(candidate: Entrant) -> None:
        async with limiter:
            try:
                await check_bot(tournament, candidate, limits)
            except Rejected as exc:
                rejections.append(str(exc))

    async with trio.open_nursery() as nursery:
        for candidate in candidates:
            nursery.start_soon(check, candidate)
    return sorted(rejections)
