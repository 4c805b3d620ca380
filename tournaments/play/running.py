"""A tournament run as the CLI drives it: the tournament opened with its overrides, whether it
can be played, its newcomers checked, the warnings a run deserves, and the games played with
progress reported to a listener as values (`GameListener`, which the league's runners report
to as well). Nothing here prints.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from typing import Protocol

from protocol.errors import RequestError
from tournaments.executors import Executor
from tournaments.output import plural
from tournaments.plan.entrants import Entrant
from tournaments.plan.prepare import Prepared
from tournaments.play.admission import check_all
from tournaments.play.runner import Refused, Runner, RunReport, Voided
from tournaments.store.results import FinishedGame


class GameListener(Protocol):
    """What hears of each game as it ends (a league's ladder has no start: it never ends)."""

    def on_game(self, game: FinishedGame) -> None: ...

    def on_void(self, voided: Voided) -> None: ...

    def on_probation(self, label: str, fault: str) -> None: ...

    def on_refused(self, refused: Refused) -> None: ...


class Listener(GameListener, Protocol):
    """What a front end hears of a run while it plays (a live view, progress lines)."""

    def on_start(self, total: int, stored: int) -> None: ...


def check_playable(prepared: Prepared) -> None:
    """The participants left after removals can still make up the games; RequestError if not."""
    t = prepared.tournament
    labels = [player.label for player in prepared.players]
    if len(labels) < t.players:
        raise RequestError(
            f"{t.players} players per game, but only {len(labels)} participants are left "
            f"after removing {', '.join(prepared.removed)}"
        )
    names = {player.entrant.name for player in prepared.players}
    if t.candidate is not None and t.candidate not in names:
        raise RequestError(f"the gauntlet's candidate {t.candidate!r} was removed")


def newcomers(prepared: Prepared, checked: Collection[str] = ()) -> list[Entrant]:
    """The participants with no games in the store, but those in `checked` (by name)."""
    played = {bot for game in prepared.store.games() for bot in game.bots}
    return [
        player.entrant
        for player in prepared.players
        if player.label not in played and player.entrant.name not in checked
    ]


async def check_newcomers(prepared: Prepared, entrants: list[Entrant]) -> list[str]:
    """Each entrant's check game (handshake and one game against random); the rejections, one
    reason each in the bot author's terms. Nothing is stored: a run plays only if none failed."""
    return await check_all(prepared.tournament, entrants, prepared.limits)


def warnings(prepared: Prepared, games: list[FinishedGame]) -> list[str]:
    """What a run of `prepared` should warn of before it plays (`games`: the store's)."""
    found = []
    cores = os.cpu_count() or 1
    t = prepared.tournament
    if t.workers > cores and (t.executor != "dask" or t.scheduler is None):
        found.append(
            f"{t.workers} matches at once on {cores} cores; bots will be charged for waiting for "
            f"a core (false timeouts). Use --concurrency {cores} or less."
        )
    beyond = beyond_schedule(prepared, games)
    if beyond is not None:
        found.append(beyond)
    return found


def beyond_schedule(prepared: Prepared, games: list[FinishedGame]) -> str | None:
    """A warning when the store holds games of these participants at deals this run's schedule
    does not reach (a larger run, stopped or not, that this one neither finishes nor plays)."""
    deals = prepared.tournament.deals
    labels = {player.label for player in prepared.players}
    top = max((game.deal for game in games if labels.issuperset(game.bots)), default=-1)
    if top < deals:
        return None
    return (
        f"the store holds games of deals up to {top}; this run's schedule has "
        f"{plural(deals, 'deal')} per seat-set; run with --deals {top + 1} or more (the --deals "
        "of the run that played them) to finish that schedule"
    )


class TournamentRun:
    """The games of `prepared` its store lacks, played on `executor`, each reported to the
    listener as it is stored. Stopped from outside (cancelled), the games finished before are
    stored and `played` counts them; the next run plays the rest."""

    def __init__(self, prepared: Prepared, executor: Executor, listener: Listener) -> None:
        self.listener = listener
        self.faulty = 0
        """Games of this run in which a bot faulted."""
        self.runner = Runner(
            prepared.tournament,
            prepared.store,
            prepared.players,
            limits=prepared.limits,
            executor=executor,
            on_start=listener.on_start,
            on_game=self._on_game,
            on_void=listener.on_void,
            on_probation=listener.on_probation,
            on_refused=listener.on_refused,
        )

    @property
    def played(self) -> int:
        return self.runner.played

    def _on_game(self, game: FinishedGame) -> None:
        self.faulty += bool(game.played.faults)
        self.listener.on_game(game)

    async def play(self) -> RunReport:
        return await self.runner.run()
