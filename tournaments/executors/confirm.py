"""Which games from other machines count only once the coordinator has played them too.

A replay (`verify`) proves that a record is consistent, not that the named bots chose its
moves: a worker that runs a stand-in for a bot (its command swapped) sends records that
replay, in which that bot forfeits. So a game a remote worker reports a fault in is not stored
on the worker's word: the coordinator plays the same deal itself — the same seed, seats and
bots' seeds, with its own copies of the bots (`here`) — and the two must agree: the same seats
faulted, each with the same kind. When they do, the worker's game counts; when they do not, it
is refused, its worker is sent no more units, and the coordinator's own game counts.
"""

from __future__ import annotations

import msgspec

from tournaments.executors.here import COORDINATOR
from tournaments.executors.work import GameDone, UnitWork


def to_confirm(game: GameDone) -> bool:
    """Whether `game` (it replays) waits for the coordinator's play of its deal: a bot faulted
    in it, and a worker other than the coordinator played it."""
    return bool(game.played.faults) and game.worker != COORDINATOR


def deal_of(unit: UnitWork, game: GameDone) -> UnitWork:
    """`unit` reduced to `game`'s deal: what the coordinator plays to confirm it."""
    deals = [deal for deal in unit.deals if deal.deal == game.deal]
    return msgspec.structs.replace(unit, deals=deals)


def disagreement(game: GameDone, mine: GameDone) -> str | None:
    """How the faults of the worker's `game` differ from those of the coordinator's play of
    the same deal (`mine`); None when the same seats faulted with the same kinds."""
    said = sorted((fault.seat, fault.kind) for fault in game.played.faults)
    found = sorted((fault.seat, fault.kind) for fault in mine.played.faults)
    if said == found:
        return None
    return (
        f"the worker reports the faults (seat, kind) {said}; the coordinator's play of the "
        f"same deal has {found}"
    )
