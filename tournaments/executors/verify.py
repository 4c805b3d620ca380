"""The coordinator's check of a game a worker sends back, before anything of it is stored.

Every game is a deterministic replay: the coordinator knows the game, options and deal seed it
sent, so it replays the record with its own engine and refuses the game unless the record is of
that deal and of its seats as sent (each seat's name and command, in the order the store seats
them: the pages read whose seat is whose from the record), every recorded action is legal, and
the result, the faults and the number of decisions are the ones the worker reported. A faulty
or tampered worker then stores no record that is not of the game sent. What a replay cannot
prove — that the named bots chose the moves (a worker may run a stand-in for one) — is
confirmed by the coordinator's own play for the games a bot faulted in (`confirm`); how long a
bot thought and what it wrote to stderr are the worker's word, shown per worker in `arena
workers`.
"""

from __future__ import annotations

import msgspec

from referee import BadRecord, replay
from referee.games import find_game, parse_options
from tournaments.executors.work import GameDone, UnitWork
from tournaments.plan.schedule import seating


class _Commands(msgspec.Struct):
    """The seats' commands of a record's header (which `replay` has read whole)."""

    commands: list[list[str]]


def refusal(work: UnitWork, game: GameDone) -> str | None:
    """Why `game` cannot be a game of `work` as the worker says it is; None when it is."""
    sent = next((deal for deal in work.deals if deal.deal == game.deal), None)
    if sent is None or game.rotation != work.rotation:
        return f"deal {game.deal} rotation {game.rotation} was not sent in this unit"
    if game.seed != sent.seed:
        return f"seed {game.seed} is not the seed {sent.seed} sent for deal {game.deal}"
    try:
        report = replay(game.record)
    except BadRecord as exc:
        return f"its record is unreadable: {exc}"
    options = msgspec.to_builtins(parse_options(find_game(work.game), work.options))
    if (report.game, report.seed, report.options) != (work.game, sent.seed, options):
        return "its record is of another game, deal or options than the one sent"
    if len(report.names) != len(work.seats):
        return f"its record has {len(report.names)} seats, not {len(work.seats)}"
    seated = seating(work.seats, game.rotation)
    named = [seat.spec.name if seat.spec.name_given else name
             for seat, name in zip(seated, report.names, strict=True)]  # fmt: skip
    if report.names != named:
        return f"its record names the seats {report.names}, not {named} as they were sent"
    header = msgspec.json.decode(game.record.partition(b"\n")[0], type=_Commands)
    if header.commands != [list(seat.spec.command) for seat in seated]:
        return "its record's seat commands are not those of the seats as they were sent"
    if not report.identical:
        return f"its record does not replay: {report.divergence}"
    played = game.played
    assert report.replayed is not None  # identical
    said = (played.scores, played.ranks, played.tiebreak)
    replayed = (list(report.replayed.scores), list(report.replayed.ranks), report.replayed.tiebreak)
    if said != replayed:
        return f"it reports {said}, its record replays to {replayed}"
    faults = sorted((fault.seat, fault.kind, fault.decision) for fault in played.faults)
    recorded = sorted((fault.seat, fault.kind, fault.decision) for fault in report.faults)
    if faults != recorded:
        return f"it reports the faults {faults}, its record holds {recorded}"
    if game.decisions != report.decisions:
        return f"it reports {game.decisions} decisions, its record holds {report.decisions}"
    return None
