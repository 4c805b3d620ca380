"""The ladder that never ends: rounds of games where they tell the most, and the checks of new
versions beside it.

Each round is a gauntlet of one bot — a version not yet placed first, else the bot whose
rating is least certain (openskill's sigma) — against every combination of the others, over
all its seat-sets' deals up to `batch` more than it has played: every deal in every seat
rotation, dealt and stored exactly as a tournament's (the same runner, store and deal seeds),
so no deal is played twice and a new opponent meets every deal the others met.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import msgspec
import trio

from tournaments.executors import Executor
from tournaments.executors.choose import executor_for
from tournaments.league.checks import check_version
from tournaments.league.league import League
from tournaments.prepare import Prepared, opened
from tournaments.ratings import OnlinePlackettLuce
from tournaments.results import FinishedGame
from tournaments.runner import Voided
from tournaments.running import Listener, TournamentRun
from tournaments.store import Store


def open_league(league: League) -> Prepared:
    """The league as an open tournament of its house bots and playing versions (a gauntlet of
    the first of them until `focus` chooses)."""
    versions = league.registry.playing()
    names = [*league.tournament.participants, *(version.bot for version in versions)]
    return opened(league.file, league.tournament_for(versions, names[0] if names else "", 1))


class Focus:
    """What the ladder knows of every label's games — how many, the highest deal, openskill's
    sigma — from the store once, then from each game as it is stored: a round's choice costs
    nothing however many games the league holds. (Sigma is over every game a label played,
    in the order seen: a scheduling hint, not the tables' rating.)"""

    def __init__(self, games: list[FinishedGame]) -> None:
        self.played: Counter[str] = Counter()
        self.top: dict[str, int] = {}
        self.ratings = OnlinePlackettLuce()
        for game in games:
            self.add(game)

    def add(self, game: FinishedGame) -> None:
        for label in set(game.bots):
            self.played[label] += 1
            self.top[label] = max(self.top.get(label, -1), game.deal)
        self.ratings.add(game)

    def choose(self, labels: dict[str, str], batch: int) -> tuple[str, int]:
        """Of the playing bots (their store labels → names), the one the next round is about —
        an unplaced one first, else the least certain — and the deals its seat-sets play up
        to: `batch` more than it has played."""
        label = min(
            labels,
            key=lambda bot: (self.played[bot] > 0, -self.ratings.sigma(bot), bot),
        )
        return labels[label], self.top.get(label, -1) + 1 + batch


class _Noting:
    """The server's listener, with each stored game noted by `focus` first."""

    def __init__(self, listener: Listener, focus: Focus) -> None:
        self.listener, self.focus = listener, focus

    def on_start(self, total: int, stored: int) -> None:
        self.listener.on_start(total, stored)

    def on_game(self, game: FinishedGame) -> None:
        self.focus.add(game)
        self.listener.on_game(game)

    def on_void(self, voided: Voided) -> None:
        self.listener.on_void(voided)

    def on_probation(self, label: str, fault: str) -> None:
        self.listener.on_probation(label, fault)


async def play_round(league: League, listener: Listener, focus: Focus, executor: Executor) -> bool:
    """One round; False when there are fewer bots than a game needs."""
    prepared = open_league(league)
    try:
        if len(prepared.players) < prepared.tournament.players:
            return False
        labels = {player.label: player.entrant.name for player in prepared.players}
        candidate, deals = focus.choose(labels, league.settings.batch)
        prepared.tournament = msgspec.structs.replace(
            prepared.tournament, candidate=candidate, deals=deals
        )
        await TournamentRun(prepared, executor, _Noting(listener, focus)).play()
        return True
    finally:
        prepared.close()


async def check_queued(league: League, on_checked: Callable[[], None]) -> None:
    """Check every queued version, oldest first, calling `on_checked` after each."""
    for version in league.registry.queued():
        prepared = open_league(league)  # the league's limits, sandbox and hidden files
        try:
            await check_version(league, prepared, version)
        finally:
            prepared.close()
        on_checked()


def noted(league: League) -> Focus:
    """A `Focus` of the league's stored games (read once, when the ladder starts)."""
    if not league.store_path.exists():
        return Focus([])
    with Store(league.store_path, readonly=True) as store:
        return Focus(store.games())


async def run_ladder(league: League, listener: Listener, changes: Callable[[], trio.Event]) -> None:
    """Play rounds until cancelled, on one executor kept open from round to round (its referee
    processes are not started again for each); with too few bots, wait for the next change (a
    version uploaded or playing). `changes` gives the event the next change sets, taken before
    the work so that a change during it is not missed."""
    focus = await trio.to_thread.run_sync(noted, league)  # the pages answer meanwhile
    executor = executor_for(league.tournament)
    async with executor.kept():
        while True:
            change = changes()
            if not await play_round(league, listener, focus, executor):
                await change.wait()


async def run_checks(
    league: League, on_checked: Callable[[], None], changes: Callable[[], trio.Event]
) -> None:
    """Check queued versions (those a stopped server left first) until cancelled; between
    uploads, wait for the next change (`changes`, as for `run_ladder`)."""
    while True:
        change = changes()
        await check_queued(league, on_checked)
        await change.wait()
