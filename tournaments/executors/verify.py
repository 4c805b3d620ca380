"""The coordinator's check of a game a worker sends back, before anything of it is stored.

Every game is a deterministic replay: the coordinator knows the game, options and deal seed it
sent, so it replays the record with its own engine and refuses the game unless the record is of
that deal, every recorded action is legal, and the result, the faults and the number of
decisions are the ones the worker reported. A faulty or tampered worker can then store nothing
wrong: at worst it wastes its own games. (What no replay can check — how long a bot thought, what
it wrote to stderr — is the worker's word, and is shown per worker in `arena workers`.)
"""

from __future__ import annotations

import msgspec

from referee import BadRecord, replay
from referee.games import find_game, parse_options
from tournaments.executors.work import GameDone, UnitWork


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
