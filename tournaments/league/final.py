"""A season's final: the frozen field — each bot's version playing when the organiser froze the
season, and the house bots — on fresh deals (a store of its own, with its own secret), rated by
its own games alone, as a sequential final (`rank.sequential`): each round the tables that would
most narrow what the league file asks it to certify (`[league] certify`), each table on deals it
has not played, in every rotation, until its certificate (`rank.certify`) proves the claim or
its budget of games holds no further round (or, when the league file asks, `[league] final =
"doubling"`, as the final before it, `rank.doubling`, which publishes its certificate all the
same). Each round is written down beside the store (`rounds_path`) before it is played: a
stopped server plays the rest of that round — the same deals, none twice — and its looks are
counted right."""

from __future__ import annotations

import functools
import itertools
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import trio

from tournaments.executors.budget import Share
from tournaments.executors.choose import executor_for
from tournaments.league.ladder import LADDER_NICE
from tournaments.league.registry import Season
from tournaments.league.season import OpenSeason
from tournaments.league.side_games import play_side_games
from tournaments.plan.config import FinalRule, LeagueSettings
from tournaments.play.running import GameListener
from tournaments.rank.certificate import Certificate, Claim
from tournaments.rank.tables import standings
from tournaments.store.results import FinishedGame
from tournaments.store.store import Store

if TYPE_CHECKING:
    from tournaments.rank.sequential import Round

PlannedTable = tuple[list[str], int, int]
"""A table of a round as written down: its bots (in no particular order), its first deal and
the deal after its last."""


class FinalProgress(msgspec.Struct, frozen=True):
    """Where a season's final stands: its games, its standings so far, what they prove, and
    whether it is over."""

    season: int
    games: int
    deals: int
    """Deals played (a deal of a table, in every rotation)."""
    budget: int
    standings: list[dict[str, Any]]
    """`arena table`'s standings rows of the final's games, strongest first."""
    settled: bool
    """Its certificate proves what the league file asks."""
    spent: bool = False
    """Its budget holds no further round while the claim is unproven."""
    certificate: Certificate | None = None
    """What its games prove (None before its first game)."""

    @property
    def over(self) -> bool:
        return self.settled or self.spent

    @property
    def cut(self) -> bool:
        """Its budget ended it before its claim was proven."""
        return self.spent and not self.settled


def progress(
    store_path: Path,
    season: Season,
    claim: Claim | None = None,
    players: int | None = None,
    rule: FinalRule = "sequential",
) -> FinalProgress:
    """The final of `season` as its store holds it now and its certificate of `claim` (the
    top 10 when None), at its last look (`looks`); `players`: a table's seats (when None,
    its stored games'); first place's fragility once it is over. `rule`: how it chooses its
    games, which says when it is over (`LeagueSettings.final`)."""
    # scipy is loaded with the first final, not with every server
    from tournaments.rank.certify import certify, orders_of
    from tournaments.rank.doubling import doubling_round, told_apart
    from tournaments.rank.sequential import next_round

    games: list[FinishedGame] = []
    if store_path.exists():
        with Store(store_path, readonly=True) as store:
            games = store.games()
    assert season.budget is not None
    if not games:
        return FinalProgress(season.number, 0, 0, season.budget, [], False)
    claim = claim or Claim()
    orders = orders_of(games)
    look = looks(store_path, orders.deals)
    found = certify(orders, claim, look=look, fragility=False)
    seats = players or len(games[0].bots)
    left = season.budget - len(games)
    if rule == "doubling":
        settled = told_apart(games)
        played = 1 + max(game.deal for game in games)
        spent = not settled and not doubling_round(orders.bots, seats, played, left)
    else:
        settled = found.certified
        spent = not settled and not next_round(found, claim, seats, left, random.Random(0))
    if settled or spent:
        found = certify(orders, claim, look=look)
    rows = standings(games).records()
    return FinalProgress(
        season.number, len(games), orders.deals, season.budget, rows, settled, spent, found
    )


def claim_of(settings: LeagueSettings) -> Claim:
    """What the league file asks its finals to certify."""
    thresholds = [
        (benchmark, least) for grade in settings.grades for benchmark, least in grade.beats.items()
    ]
    return Claim(settings.certify, settings.certify_top, thresholds)


def rounds_path(store_path: Path) -> Path:
    """Where a final's rounds are written down, beside its store."""
    return store_path.with_name(store_path.name + ".rounds.json")


def read_rounds(store_path: Path) -> list[list[PlannedTable]]:
    """The rounds a final has begun, in order (none when it wrote none down)."""
    path = rounds_path(store_path)
    if not path.exists():
        return []
    return msgspec.json.decode(path.read_bytes(), type=list[list[PlannedTable]])


def write_rounds(store_path: Path, rounds: list[list[PlannedTable]]) -> None:
    """Write the rounds down whole (a new file renamed over the old: a stop leaves one or the
    other)."""
    path = rounds_path(store_path)
    temporary = path.with_name(path.name + ".new")
    temporary.write_bytes(msgspec.json.encode(rounds))
    temporary.replace(path)


def looks(store_path: Path, deals: int) -> int:
    """The looks a final has taken: its rounds; for a final played before rounds were written
    down (each of its rounds added a deal or more), at most its deals."""
    rounds = read_rounds(store_path)
    return len(rounds) if rounds else max(deals, 1)


def begun(store_path: Path) -> dict[tuple[str, ...], int]:
    """Each table's (its bots, sorted) deal after the last it has stored (a final of an older
    arena wrote no rounds down: its deals are not to be dealt again)."""
    after: dict[tuple[str, ...], int] = {}
    if store_path.exists():
        with Store(store_path, readonly=True) as store:
            for game in store.games():
                key = tuple(sorted(game.bots))
                after[key] = max(after.get(key, 0), game.deal + 1)
    return after


def planned(
    chosen: Round,
    rounds: Sequence[list[PlannedTable]],
    stored: Mapping[tuple[str, ...], int] | None = None,
) -> list[PlannedTable]:
    """The round `chosen` as written down: each table on deals it has not had in `rounds` nor
    in the store (`stored`: `begun`'s)."""
    after = dict(stored or {})
    for bots, _, stop in itertools.chain.from_iterable(rounds):
        written = tuple(sorted(bots))
        after[written] = max(after.get(written, 0), stop)
    found = []
    for table, deals in chosen:
        key = tuple(sorted(table))
        first = after.get(key, 0)
        after[key] = first + deals
        found.append((list(key), first, first + deals))
    return found


async def play_final(
    open_season: OpenSeason,
    season: Season,
    listener: GameListener,
    on_progress: Callable[[FinalProgress], None],
    share: Share | None = None,
) -> FinalProgress:
    """Play `season`'s final to its end (it goes on where a stopped server left it: first the
    rest of its last round) on its store, opened once with the season's sandbox
    (`open_season`), telling `on_progress` where it stands after each round; where it ended.
    (`share`: the budget of games at once it shares with the scrimmages.)"""
    from tournaments.rank.doubling import doubling_round  # as `progress`'s imports
    from tournaments.rank.sequential import first_round, next_round

    assert season.budget is not None
    league = open_season.league
    path = league.final_store(season.number)
    entrants = [*league.house(), *map(league.entrant, league.registry.finalists(season.number))]
    final = msgspec.structs.replace(league.tournament, schedule="round-robin", candidate=None)
    executor = executor_for(league.tournament, nice=LADDER_NICE, share=share)
    claim, rule = claim_of(league.settings), league.settings.final
    look = functools.partial(progress, path, season, claim, final.players, rule)
    chooser = random.Random(f"final/{season.number}/{len(read_rounds(path))}")
    with open_season.side(path, final, entrants) as side:
        ids = {player.label: player.id for player in side.players}
        bots = sorted(ids)

        async def play(tables: list[PlannedTable]) -> None:
            chosen = [  # a bot the league no longer has (a house bot taken out): not its table
                (tuple(sorted(ids[bot] for bot in table)), range(first, stop))
                for table, first, stop in tables
                if all(bot in ids for bot in table)
            ]
            deals = max(stop for _, _, stop in tables)
            tournament = msgspec.structs.replace(final, deals=deals)
            await play_side_games(league, side, tournament, executor, listener, tables=chosen)

        async with executor.kept():
            rounds = read_rounds(path)
            if rounds:  # a stopped server's last round: what it left unplayed
                await play(rounds[-1])
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
                left = season.budget - now.games
                if rule == "doubling":
                    played = max((stop for *_, stop in itertools.chain(*rounds)), default=0)
                    chosen = doubling_round(bots, final.players, played, left)
                elif now.certificate is None:
                    chosen = first_round(bots, final.players, left, chooser)
                else:
                    chosen = next_round(now.certificate, claim, final.players, left, chooser)
                if not chosen:
                    return now
                stored = await trio.to_thread.run_sync(begun, path)
                rounds.append(planned(chosen, rounds, stored))
                write_rounds(path, rounds)
                await play(rounds[-1])
