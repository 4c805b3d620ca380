"""Games the coordinator plays itself, trusted as its own: a unit that no worker it trusts is
left to play (`ondask`), and the second play of a worker's game that must be confirmed before
it counts (`confirm`). Its bots are the files it identified them by, run as the local
executors run them."""

from __future__ import annotations

import traceback
from collections.abc import Callable

import trio

from tournaments.executors.work import (
    BotMismatch,
    ExecutorError,
    GameVoided,
    Result,
    UnitWork,
    check_bots,
    lacking,
    play_games,
    played_by,
    this_machine,
)

COORDINATOR = this_machine("coordinator")
"""How the games the coordinator played are named in `arena workers`."""


async def play_here(unit: UnitWork, emit: Callable[[Result], None], why: str = "") -> None:
    """Play `unit` in this trio loop, each game emitted as the coordinator's; should the unit
    itself fail (its bots cannot start), its games not played are voided (played again later).

    Its bots' files are hashed first: a bot whose files changed since the run identified it is
    not played, and the run stops (`ExecutorError`, with `why`: what the workers said); so it
    does when this machine lacks what the unit needs (its bots would forfeit for it)."""
    missing = lacking(unit)
    if missing:
        lacks = (
            f"no worker played seat-set {unit.tag}, and the coordinator lacks {', '.join(missing)}"
        )
        raise ExecutorError("; ".join(filter(None, [lacks, why])))
    try:
        await trio.to_thread.run_sync(check_bots, unit)
    except BotMismatch as mismatch:
        raise ExecutorError("; ".join(filter(None, [str(mismatch), why]))) from None
    emitted: set[int] = set()

    def named(result: Result) -> None:
        emitted.add(result.deal)
        emit(played_by(COORDINATOR, result))

    try:
        await play_games(unit, named)
    except Exception as exc:
        error = traceback.format_exception_only(exc)[-1].strip()
        for deal in unit.deals:
            if deal.deal not in emitted:
                why = f"the coordinator could not play it: {error}"
                emit(GameVoided(deal.deal, unit.rotation, why))
