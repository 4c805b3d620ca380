"""Scrimmages: an author's unranked games of one of their versions against a chosen playing bot,
played apart from the ladder in a store of their own (`League.scrimmage_store`), which no
rating reads. A scrimmage of N games plays whole deals, each in every seat rotation, on deals
its pairing has not played before; in games of more than two players the other seats are the
built-in random bot."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

import msgspec

from protocol.errors import RequestError
from tournaments.executors import Executor
from tournaments.executors.work import UnitWork
from tournaments.league.errors import NotFound
from tournaments.league.files import League
from tournaments.league.registry import Scrimmage
from tournaments.league.season import OpenSeason
from tournaments.league.side_games import play_side_games
from tournaments.plan.entrants import Entrant
from tournaments.plan.prepare import resolve
from tournaments.play.running import GameListener

FILLER = "random"
"""The built-in bot in the other seats of a game of more than two players."""


def scrimmage_entrants(league: League, scrimmage: Scrimmage) -> list[Entrant]:
    """The version, its opponent as it plays now, and fillers (`NotFound` when the opponent
    plays no more; `RequestError` when the organisers disabled the bot or its author since
    the scrimmage was asked for)."""
    version = league.registry.version(scrimmage.version)
    assert version is not None
    bot, author = league.registry.bot(version.bot), league.registry.author_by_id(scrimmage.author)
    if (bot is not None and bot.disabled) or (author is not None and author.disabled):
        raise RequestError(f"{version.bot} is disabled by the organisers: no scrimmages")
    house = {entrant.name: entrant for entrant in league.house()}
    if scrimmage.opponent in house:
        opponent = house[scrimmage.opponent]
    else:
        playing = {v.bot: v for v in league.registry.playing()}
        if scrimmage.opponent not in playing:
            raise NotFound(f"{scrimmage.opponent} plays no more")
        opponent = league.entrant(playing[scrimmage.opponent])
    fillers = [
        resolve(f"{FILLER}-{seat}", FILLER, None) for seat in range(2, league.tournament.players)
    ]
    return [league.entrant(version), opponent, *fillers]


def deals_for(league: League, scrimmage: Scrimmage) -> tuple[int, int]:
    """(first deal, deals) the scrimmage plays: beyond every deal an earlier scrimmage of the
    same version and opponent played (a scrimmage that stopped keeps its own)."""
    if scrimmage.first_deal is not None and scrimmage.deals is not None:
        return scrimmage.first_deal, scrimmage.deals
    earlier = [
        s.first_deal + s.deals
        for s in league.registry.scrimmages()
        if (s.version, s.opponent) == (scrimmage.version, scrimmage.opponent)
        and s.first_deal is not None
        and s.deals is not None
        and s.id != scrimmage.id
    ]
    return max(earlier, default=0), math.ceil(scrimmage.games / league.tournament.players)


async def play_scrimmage(
    open_season: OpenSeason,
    scrimmage: Scrimmage,
    executor: Executor,
    listener: GameListener,
) -> None:
    """Play the scrimmage's deals (those not stored yet) on `executor`, on the scrimmages'
    store with the season's sandbox (`open_season`)."""
    league = open_season.league
    entrants = scrimmage_entrants(league, scrimmage)
    first, count = deals_for(league, scrimmage)
    league.registry.set_scrimmage(scrimmage.id, "playing", deals=(first, count))
    tournament = msgspec.structs.replace(
        league.tournament, schedule="gauntlet", candidate=entrants[0].name, deals=first + count
    )
    units = functools.partial(_from, first=first)
    with open_season.side(league.scrimmage_store, tournament, entrants) as side:
        await play_side_games(league, side, tournament, executor, listener, units)


def _from(units: Iterator[UnitWork], first: int) -> Iterator[UnitWork]:
    """The units' deals from `first` on (those before are other scrimmages')."""
    for work in units:
        deals = [deal for deal in work.deals if deal.deal >= first]
        if deals:
            yield msgspec.structs.replace(work, deals=deals)
