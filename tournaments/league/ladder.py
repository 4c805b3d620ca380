"""The ladder that never ends: rounds of games where they tell the most, and the checks of new
versions beside it.

Each round is a gauntlet of one bot — a version not yet placed first, else the bot whose
rating is least certain (openskill's sigma) — against every combination of the others, over
all its seat-sets' deals up to `batch` more than it has played: every deal in every seat
rotation, dealt and stored exactly as a tournament's (the same runner, store and deal seeds),
so no deal is played twice and a new opponent meets every deal the others met.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import msgspec
import trio

from tournaments.executors.choose import executor_for
from tournaments.league.checks import check_version
from tournaments.league.league import League
from tournaments.prepare import Prepared, opened
from tournaments.ratings import plackett_luce
from tournaments.running import Listener, TournamentRun


def open_league(league: League) -> Prepared:
    """The league as an open tournament of its house bots and playing versions (a gauntlet of
    the first of them until `focus` chooses)."""
    versions = league.registry.playing()
    names = [*league.tournament.participants, *(version.bot for version in versions)]
    return opened(league.file, league.tournament_for(versions, names[0] if names else "", 1))


def focus(prepared: Prepared, batch: int) -> tuple[str, int]:
    """The bot the next round is about, and the deals its seat-sets play up to: `batch` more
    than it has played."""
    games = prepared.store.games()
    labels = {player.label: player.entrant.name for player in prepared.players}
    played = Counter(bot for game in games for bot in set(game.bots) if bot in labels)
    current = [game for game in games if labels.keys() >= set(game.bots)]
    sigma = {bot: rating[1] for bot, rating in plackett_luce(current).items()}
    label = min(labels, key=lambda bot: (played[bot] > 0, -sigma.get(bot, math.inf), bot))
    top = max((game.deal for game in games if label in game.bots), default=-1)
    return labels[label], top + 1 + batch


async def play_round(league: League, listener: Listener) -> bool:
    """One round; False when there are fewer bots than a game needs."""
    prepared = open_league(league)
    try:
        if len(prepared.players) < prepared.tournament.players:
            return False
        candidate, deals = focus(prepared, league.settings.batch)
        prepared.tournament = msgspec.structs.replace(
            prepared.tournament, candidate=candidate, deals=deals
        )
        await TournamentRun(prepared, executor_for(prepared.tournament), listener).play()
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


async def run_ladder(league: League, listener: Listener, changes: Callable[[], trio.Event]) -> None:
    """Play rounds until cancelled; with too few bots, wait for the next change (a version
    uploaded or playing). `changes` gives the event the next change sets, taken before the
    work so that a change during it is not missed."""
    while True:
        change = changes()
        if not await play_round(league, listener):
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
