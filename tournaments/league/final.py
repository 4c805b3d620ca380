"""A season's final: the frozen field — each bot's version playing when the organiser froze the
season, and the house bots — on fresh deals (a store of its own, with its own secret), every
seat-set in every rotation, in rounds of twice as many deals as it has played, rated by its own
games alone, until every two neighbours in its standings are told apart (likelihood of
superiority at least `SETTLED_LOS`, checked after each round) or its budget of games is
spent. The budget cuts whole deals: every seat-set plays as many as every other, in every
rotation (only a budget smaller than one deal cuts one unevenly). Its certificate
(`rank.certify`) says what its games prove of what the league file asks (`[league] certify`)."""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import trio

from tournaments.executors.budget import Share
from tournaments.executors.choose import executor_for
from tournaments.executors.work import UnitWork
from tournaments.league.ladder import LADDER_NICE
from tournaments.league.registry import Season
from tournaments.league.season import OpenSeason
from tournaments.league.side_games import play_side_games
from tournaments.plan.config import LeagueSettings
from tournaments.plan.schedule import seat_set_count
from tournaments.play.running import GameListener
from tournaments.rank.certify import Certificate, Claim, certify, orders_of
from tournaments.rank.tables import pairs, standings
from tournaments.store.results import FinishedGame
from tournaments.store.store import Store

SETTLED_LOS = 95.0
"""How sure each step down the final's standings must be, in per cent (head to head)."""


class FinalProgress(msgspec.Struct, frozen=True):
    """Where a season's final stands: its games, its standings so far, and whether it is
    over."""

    season: int
    games: int
    deals: int
    """Deals begun (each is played in every seat-set and rotation)."""
    budget: int
    standings: list[dict[str, Any]]
    """`arena table`'s standings rows of the final's games, strongest first."""
    settled: bool
    """Every two neighbours in the standings told apart."""
    per_deal: int = 0
    """Games a deal holds (every seat-set in every rotation; 0 before the first game)."""
    certificate: Certificate | None = None
    """What its games prove (None before its first game)."""

    @property
    def spent(self) -> bool:
        """Its budget holds no further whole deal (a budget smaller than one deal plays what
        it holds of the first: it is not spent before it begins)."""
        begun = self.games > 0 and self.per_deal > 0
        no_deal_more = begun and self.per_deal * (self.deals + 1) > self.budget
        return self.games >= self.budget or no_deal_more

    @property
    def over(self) -> bool:
        return self.settled or self.spent

    @property
    def cut(self) -> bool:
        """Its budget ended it before its order was settled."""
        return self.spent and not self.settled


def progress(
    store_path: Path, season: Season, claim: Claim | None = None, per_deal: int | None = None
) -> FinalProgress:
    """The final of `season` as its store holds it now, its certificate of `claim` (the top 10
    when None); `per_deal`: its games a deal (when None, from its stored games' seat-sets)."""
    games: list[FinishedGame] = []
    if store_path.exists():
        with Store(store_path, readonly=True) as store:
            games = store.games()
    rows = standings(games).records() if games else []
    assert season.budget is not None
    deals = 1 + max((game.deal for game in games), default=-1)
    if per_deal is None:
        per_deal = len({game.seat_set for game in games}) * len(games[0].bots) if games else 0
    found = certify(orders_of(games), claim or Claim()) if games else None
    return FinalProgress(
        season.number,
        len(games),
        deals,
        season.budget,
        rows,
        settled(games, rows),
        per_deal,
        found,
    )


def claim_of(settings: LeagueSettings) -> Claim:
    """What the league file asks its finals to certify."""
    thresholds = [
        (benchmark, least) for grade in settings.grades for benchmark, least in grade.beats.items()
    ]
    return Claim(settings.certify, settings.certify_top, thresholds)


def settled(games: list[FinishedGame], rows: list[dict[str, Any]]) -> bool:
    """Every two neighbours in the standings `rows` told apart by their head to head."""
    order = [str(row["bot"]) for row in rows]
    if len(order) < 2:
        return False
    met = {(row["bot"], row["opponent"]): row for row in pairs(games, order).records()}
    return all(
        (upper, lower) in met and met[upper, lower]["los_pct"] >= SETTLED_LOS
        for upper, lower in itertools.pairwise(order)
    )


async def play_final(
    open_season: OpenSeason,
    season: Season,
    listener: GameListener,
    on_progress: Callable[[FinalProgress], None],
    share: Share | None = None,
) -> FinalProgress:
    """Play `season`'s final to its end (it goes on where a stopped server left it) on its
    store, opened once with the season's sandbox (`open_season`), telling `on_progress` where it
    stands after each round; where it ended. (`share`: the budget of games at once it shares
    with the scrimmages.)"""
    assert season.budget is not None
    league = open_season.league
    path = league.final_store(season.number)
    entrants = [*league.house(), *map(league.entrant, league.registry.finalists(season.number))]
    final = msgspec.structs.replace(league.tournament, schedule="round-robin", candidate=None)
    executor = executor_for(league.tournament, nice=LADDER_NICE, share=share)
    tables = seat_set_count(len(entrants), final.players, False, final.max_seat_sets)
    per_deal = tables * final.players  # every seat-set in every (cyclic) rotation
    look = functools.partial(progress, path, season, claim_of(league.settings), per_deal)
    with open_season.side(path, final, entrants) as side:
        async with executor.kept():
            before = -1
            while True:
                now = await trio.to_thread.run_sync(look)
                on_progress(now)
                if now.games == before:
                    print(
                        f"arena serve: season {season.number}'s final stored no game in its "
                        "last round (see the voided games above): it ends here",
                        file=sys.stderr,
                        flush=True,
                    )
                if now.over or now.games == before:
                    return now
                before = now.games
                deals = whole_deals(now.deals, league.settings.batch, season.budget, per_deal)
                tournament = msgspec.structs.replace(final, deals=deals)
                within = functools.partial(_within, games=season.budget - now.games)
                await play_side_games(league, side, tournament, executor, listener, within)


def next_deals(played: int, batch: int) -> int:
    """The deals the final has played after its next round: twice as many (a round's units
    then hold several deals, so that bot starts do not rule its time), at most `batch` more,
    and any a stop left unplayed."""
    return max(1, min(2 * played, played + batch))


def whole_deals(played: int, batch: int, budget: int, per_deal: int) -> int:
    """The deals after the next round (`next_deals`), as many as the budget holds whole (at
    least one: a budget smaller than a deal plays what it holds of the first)."""
    return min(next_deals(played, batch), max(1, budget // per_deal))


def _within(units: Iterator[UnitWork], games: int) -> Iterator[UnitWork]:
    """The units while their games stay within `games` (the budget left), the last one cut to
    what is left."""
    for work in units:
        if games <= 0:
            return
        if len(work.deals) > games:
            work = msgspec.structs.replace(work, deals=work.deals[:games])
        games -= len(work.deals)
        yield work
