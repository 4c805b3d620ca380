"""The league as its fronts read it: the read models of `views` made from the league's
registry, its board and its stores, as a given viewer may see them (`views.Access`).

`ReadModels` holds what the reads keep between pages — the leaderboard made again only when it
changes, the results and grades of ended seasons, the stores' connections — and the children
that read a bot's games (`reads`) and make the games' pages (`viewers`) out of the server's
process; the running league (`service.LeagueService`) starts those children and hands every
front this one object (`service.views`).

`bot_view` gives everyone a bot's versions with their public reasons, its games and its
rating; its author and the organisers also get its build and check logs and its stderr logs,
which the store records game by game with their seat and label.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import trio

from tournaments.league.board import Board, compute
from tournaments.league.board_keeper import BoardKeeper
from tournaments.league.copies import league_pairs
from tournaments.league.errors import Forbidden, NotFound
from tournaments.league.files import League
from tournaments.league.final import FinalProgress, claim_of, progress
from tournaments.league.game_pages import Viewers
from tournaments.league.grades import Graded, authored, graded, season_grades
from tournaments.league.headline import best_of_each, groups
from tournaments.league.kept import Kept
from tournaments.league.reads import Found, GamesOf, KeptStores, Reads, Recent, Request
from tournaments.league.registry import Author, Season
from tournaments.league.shelf import Opponents
from tournaments.league.viewers import Shown
from tournaments.league.views import (
    LADDER,
    LOG_TAIL_BYTES,
    MAX_GAME_ID,
    SCRIMMAGE_READY,
    SCRIMMAGES,
    Access,
    BotView,
    GameList,
    Leaderboard,
    ListedGame,
    Private,
    Roster,
    ScrimmageChoices,
    ScrimmageView,
    SeasonResult,
    Standing,
    StderrLog,
    StoredGame,
    Where,
    refuse_unless_organiser,
)
from tournaments.report.public import public_record
from tournaments.report.steps import with_observations
from tournaments.store.exclusion import visible
from tournaments.store.store import GameChoice, LogRow, bot_of

if TYPE_CHECKING:
    from tournaments.league.clones import Pair  # scipy's sparse matrices: only when asked


def reader(stores: KeptStores) -> Kept[Request, Found]:
    """The league's reads (`Kept.open` while it runs; outside, in a thread, on `stores`)."""
    return Kept(Reads.__module__, Found, Reads(stores).answer)


class _Names(msgspec.Struct):
    names: list[str]


class ReadModels:
    """What the pages and the API of the league `league` show, as each viewer may see them."""

    def __init__(
        self,
        league: League,
        board: BoardKeeper,
        final: Callable[[], FinalProgress | None],
    ) -> None:
        self.league = league
        self.board = board
        self._final = final
        """Where the final of the frozen season stands now (None: no final is playing)."""
        self.access = Access(league.registry)
        """Who may see what of the league's bots (their logs, seats and grades)."""
        self.stores = KeptStores(check=True)
        """The stores' connections of the game pages, each checked at its first opening."""
        self._read_stores = KeptStores(check=True)
        self._reader = reader(self._read_stores)
        """Reads and decodes a bot's games for its page and its listings, out of this process
        while the league runs."""
        self.viewers = Viewers()
        """Makes the games' pages, out of this process while the league runs."""
        self._leaderboard: Leaderboard | None = None
        self._results: dict[int, SeasonResult] = {}
        self._season_grades: dict[int, list[Graded]] = {}
        """Each ended season's grades, every finalist's (`season_grades`)."""
        self._leaderboard_shows: object = None
        self._leaderboard_token: object = None
        self._roster: Roster | None = None
        """The board's generation and the registry's `changes` when it was last looked at."""

    @asynccontextmanager
    async def children(self) -> AsyncIterator[None]:
        """The children that read the games and make their pages, started now (not at the first
        page) and ended with the block."""
        async with (
            self._reader.open(at_once=True),  # every bot page and game list reads there
            self.viewers.child.open(at_once=True),  # every game page is made there
        ):
            yield

    def close(self) -> None:
        """Close the stores kept open for the pages."""
        self.stores.close()
        self._read_stores.close()

    def opponents(self, bot: str) -> list[str]:
        """Whom `bot` may play a scrimmage against: every other bot playing (house bots
        first)."""
        playing = (v.bot for v in self.league.registry.playing())
        others = dict.fromkeys([*self.league.tournament.participants, *playing])
        return [name for name in others if name != bot]

    def scrimmage_choices(self, view: BotView, viewer: Author | None) -> ScrimmageChoices | None:
        """What `viewer` may ask a scrimmage of the bot of `view` with (None unless it is
        their bot): what `ask_scrimmage` accepts."""
        found = self.league.registry.bot(view.name)
        if viewer is None or found is None or found.author != viewer.id:
            return None
        settings = self.league.settings
        return ScrimmageChoices(
            versions=[v.number for v in view.versions if v.status in SCRIMMAGE_READY],
            opponents=self.opponents(view.name),
            most=settings.scrimmage_games,
            per_hour=settings.scrimmages_per_hour,
        )

    async def scrimmages(
        self, bot: str, viewer: Author | None, only: int | None = None
    ) -> list[ScrimmageView]:
        """The bot's scrimmages (`only`: that one, if it is the bot's) with their games, for
        its author and the organisers (none for anyone else)."""
        if not self.access.may_see_private(viewer, bot):
            return []
        numbers = {v.id: v for v in self.league.registry.versions(bot)}
        views = []
        for scrimmage in reversed(self.league.registry.scrimmages(bot=bot)):
            if only is not None and scrimmage.id != only:
                continue
            version = numbers[scrimmage.version]
            games: list[ListedGame] = []
            if scrimmage.first_deal is not None and scrimmage.deals is not None:
                choice = GameChoice(
                    content_hash=version.identity or version.hash,
                    opponent=scrimmage.opponent,
                    deals=(scrimmage.first_deal, scrimmage.deals),
                    count=500,
                )
                games = (await self.games_of(bot, viewer, choice, where=SCRIMMAGES)).games
            views.append(ScrimmageView(scrimmage, version.number, games))
        return views

    def clones(self, actor: Author | None) -> list[Pair]:
        """The playing bots of different authors compared by their fingerprints
        (`league.copies`): an organiser's alone (`Forbidden` for anyone else, signed out
        included)."""
        if actor is None:
            raise Forbidden("only an organiser may see this: sign in")
        refuse_unless_organiser(actor)
        return league_pairs(self.league)

    def leaderboard(self) -> Leaderboard:
        """The leaderboard now: made again only when the board or the versions playing and
        being checked changed (every open browser polls it)."""
        registry = self.league.registry
        changes = registry.changes()
        token = (self.board.generation, changes)
        if self._leaderboard is not None and token == self._leaderboard_token:
            return self._leaderboard  # nothing it shows can have changed: no read of 1,000 rows
        if self._roster is None or self._roster.changes != changes:
            self._roster = Roster(registry, changes)  # else a new board alone: no registry read
        roster = self._roster
        listed = (*roster.waiting, *roster.playing)
        shows = (self.board.generation, [(v.bot, v.status, v.number) for v in listed])
        if self._leaderboard is None or shows != self._leaderboard_shows:
            made = self._leaderboard.number + 1 if self._leaderboard else 1
            self._leaderboard = self._make_leaderboard(made, roster)
            self._leaderboard_shows = shows
        self._leaderboard_token = token
        return self._leaderboard

    def ladder_board(self) -> tuple[int, Board]:
        """The ladder's board now, every label's row (older versions' too), and its
        generation: a new board, a new generation."""
        return self.board.generation, self.board.board

    def seasons(self) -> list[Season]:
        return self.league.registry.seasons()

    def season(self, number: int) -> Season:
        """Season `number` (`NotFound` if no such season)."""
        season = next((s for s in self.seasons() if s.number == number), None)
        if season is None:
            raise NotFound(f"the league has no season {number}")
        return season

    def season_result(self, number: int) -> SeasonResult:
        """Season `number` and its final as its store holds it (`NotFound` if no such season);
        a published one's result does not change, so it is computed once."""
        kept = self._results.get(number)
        if kept is not None:
            return kept
        season = self.season(number)
        final, playing = None, self._final()
        if season.frozen is not None and season.published is None and playing is not None:
            final = playing  # the final playing now, as of its last deal
        elif season.frozen is not None:
            claim = claim_of(self.league.settings)
            rule = self.league.settings.final
            final = progress(self.league.final_store(number), season, claim, rule=rule)
        report = (self.league.report_dir(number) / "index.html").exists()
        result = SeasonResult(season, final, report)
        if season.published is not None:
            self._results[number] = result
        return result

    def grades(self, viewer: Author | None) -> list[Graded]:
        """Each playing uploaded bot that `viewer` may see the logs of (their own; an
        organiser: every one) against each benchmark, and its grade: the scores give the
        grade, so both are its author's and the organisers' alone."""
        registry, season = self.league.registry, self.league.season
        field = registry.playing() if season.frozen is None else registry.finalists(season.number)
        sees = self.access.sees(viewer)
        bots = [(bot, author) for bot, author in authored(self.league, field) if sees(bot)]
        return graded(self.board.board, self.league.settings, bots)

    async def season_grades(self, number: int, viewer: Author | None) -> list[Graded]:
        """Season `number`'s grades as `viewer` may see them (`grades`; `NotFound` for no such
        season): this season's from its board now; an ended season's as it was frozen, its
        ladder's board read once (in a thread) and kept (`grades.season_grades`)."""
        if self.season(number).published is None:
            return self.grades(viewer)
        rows = self._season_grades.get(number)
        if rows is None:
            store, benchmarks = self.league.season_store(number), self.league.settings.benchmarks
            board = await trio.to_thread.run_sync(compute, store, benchmarks)
            rows = self._season_grades[number] = season_grades(self.league, number, board)
        sees = self.access.sees(viewer)
        return [row for row in rows if sees(row.bot)]

    def _head_to_head(
        self, bot: str, rows: list[dict[str, Any]], viewer: Author | None
    ) -> list[dict[str, Any]]:
        """The bot's head-to-head `rows` as `viewer` may see them: a row between an uploaded
        bot and a benchmark is a score its grade is made of (`grades`), shown to that bot's
        author and the organisers alone."""
        benchmarks = set(self.league.settings.benchmarks)
        registry = self.league.registry
        shown = []
        for row in rows:
            pair = {bot, bot_of(str(row["opponent"]))}
            if pair & benchmarks:
                graded = next((name for name in pair if registry.bot(name) is not None), None)
                if graded is not None and not self.access.may_see_private(viewer, graded):
                    continue
            shown.append(row)
        return shown

    def _one_per_author(self, standings: list[Standing]) -> tuple[list[Standing], list[Standing]]:
        """The standings counted (re-ranked) and those set apart, with the organiser's
        `one_per_author` (`league.headline`); else all counted."""
        if not self.league.settings.one_per_author:
            return standings, []
        group = groups({standing.bot: standing.author for standing in standings}, ())
        counted, apart = best_of_each([standing.bot for standing in standings], group)
        by_bot = {standing.bot: standing for standing in standings}
        ranked = [
            msgspec.structs.replace(by_bot[bot], row={**by_bot[bot].row, "rank": place})
            for place, bot in enumerate(counted, 1)
        ]
        return ranked, [by_bot[bot] for bot in apart]

    def _make_leaderboard(self, made: int, roster: Roster) -> Leaderboard:
        board, previous = self.board.board, self.board.previous
        waiting, playing, authors, uploaded = (
            roster.waiting,
            roster.playing,
            roster.authors,
            roster.uploaded,
        )
        numbers = {v.bot: v.number for v in playing}
        if any("@" in str(row["bot"]) for row in board.standings):  # older versions: one read
            numbers |= roster.numbers_by_label()
        standings: list[Standing] = []
        earlier: list[Standing] = []
        for row in board.standings:
            label = str(row["bot"])
            name = bot_of(label)
            bot = uploaded.get(name)
            before = previous.get(label)
            number = numbers.get(label) if bot else None
            if name == label:  # ranked among the bots: its place counts only them
                row = {**row, "rank": len(standings) + 1}
            (standings if name == label else earlier).append(
                Standing(
                    row=row,
                    bot=name,
                    author=authors.get(bot.author, "") if bot else "",
                    number=number,
                    disabled=bot is not None and bot.disabled,
                    change=None if before is None else float(row["elo"]) - before,
                )
            )
        standings, apart = self._one_per_author(standings)
        ranked = {standing.row["bot"] for standing in (*standings, *apart)}
        house = [name for name in self.league.tournament.participants if name not in ranked]
        unplaced: list[tuple[str, str, int | None]] = [(name, "house", None) for name in house]
        for v in playing:
            if v.bot not in ranked:
                unplaced.append((v.bot, authors.get(v.author, ""), v.number))
        return Leaderboard(
            number=made,
            games=board.games,
            made=board.made,
            standings=standings,
            earlier=earlier,
            unplaced=unplaced,
            waiting=waiting,
            first=not previous,
            apart=apart,
        )

    def store_of(self, where: Where) -> Path:
        """The store of a season's ladder games (`NotFound` for no such season), or of the
        scrimmages."""
        if where.scrimmages:
            return self.league.scrimmage_store
        if where.season is None:
            return self.league.store_path
        if not 1 <= where.season <= self.league.season.number:
            raise NotFound(f"the league has no season {where.season}")
        return self.league.season_store(where.season)

    def game(self, game_id: int, viewer: Author | None, where: Where = LADDER) -> StoredGame:
        """The stored game `game_id` as `viewer` (None: signed out) may see it: `NotFound` if
        none, and for a scrimmage's game unless a bot in it is the viewer's or the viewer is an
        organiser (scrimmages are their authors' alone: others learn nothing, not even that
        the game exists)."""
        record = None
        store = self.stores.get(self.store_of(where))
        if 0 <= game_id <= MAX_GAME_ID and store is not None:
            record = store.game_record(game_id)
        if record is None:
            raise NotFound(f"the league has no game {game_id}")
        names = msgspec.json.decode(record.split(b"\n", 1)[0], type=_Names).names
        if where.scrimmages and not self.access.own_seats(names, viewer):
            raise NotFound(f"the league has no game {game_id}")
        return StoredGame(game_id, names, record)

    async def game_page(
        self, game: StoredGame, viewer: Author | None, title: str, links: list[tuple[str, str]]
    ) -> str:
        """The page of `game` (`game`'s answer) as `viewer` may see it: its viewer of the public
        record, with the fault reasons of the viewer's own seats."""
        own = self.access.own_seats(game.names, viewer)
        shown = Shown(game.record, own, title, links)
        return await self.viewers.page(shown)

    async def games_of(
        self,
        bot: str,
        viewer: Author | None,
        choice: GameChoice,
        version: int | None = None,
        where: Where = LADDER,
    ) -> GameList:
        """The games of `bot` that `choice` keeps (of its version number `version`, if given),
        newest first, with the seats whose downloads `viewer` may have (read by `reads`: a long
        list holds up no page)."""
        if self.league.registry.bot(bot) is None and bot not in self.league.tournament.participants:
            raise NotFound(f"the league has no bot named {bot!r}")
        if version is not None:
            numbered = {v.number: v for v in self.league.registry.versions(bot)}
            if version not in numbered:
                raise NotFound(f"{bot} has no version {version}")
            chosen = numbered[version]
            choice = msgspec.structs.replace(choice, content_hash=chosen.identity or chosen.hash)
        if not where.scrimmages:  # its season's number: its ids start again next season
            where = Where(season=where.season or self.league.season.number)
        asked = GamesOf(str(self.store_of(where)), bot, choice, self.access.sees(viewer))
        listed = await self._reader.ask(asked)
        rows = [msgspec.structs.replace(row, season=where.season) for row in listed.rows]
        return GameList(bot, rows, listed.more)

    def record_for(self, game_id: int, viewer: Author | None, where: Where = LADDER) -> bytes:
        """The game's record as `viewer` may have it: the public record, with the reasons of
        the faults of the viewer's own seats."""
        game = self.game(game_id, viewer, where)
        return public_record(game.record, self.access.own_seats(game.names, viewer))

    async def seat_record(
        self, game_id: int, seat: int, viewer: Author | None, where: Where = LADDER
    ) -> bytes:
        """The game's record with what `seat` was sent before each of its decisions — the
        bundle `arena replay` checks and a bot can be run on again — for that seat's author
        and the organisers (`Forbidden` for anyone else)."""
        game = self.game(game_id, viewer, where)
        if not 0 <= seat < len(game.names):
            raise NotFound(f"game {game_id} has no seat {seat}")
        own = self.access.own_seats(game.names, viewer)
        if seat not in own:
            raise Forbidden(f"seat {seat} of game {game_id} is not your bot's")
        public = public_record(game.record, own)
        return await trio.to_thread.run_sync(with_observations, public, [seat])

    async def bot_view(
        self,
        bot: str,
        viewer: Author | None,
        games: int = 50,
        before: int | None = None,
        opponents: range = range(0),
    ) -> BotView:
        """The bot `bot` as `viewer` (None: signed out) may see it, with its newest `games`
        games (older than the game `before`, if given: the next page) and the head-to-head
        rows of its `opponents` (by their place on the board); `NotFound` if no such. (Its
        games, logs, rows and rating over time are read by `reads`.)"""
        registry = self.league.registry
        house = bot in self.league.tournament.participants
        found = registry.bot(bot)
        if found is None and not house:
            raise NotFound(f"the league has no bot named {bot!r}")
        owner = None if found is None else registry.author_by_id(found.author)
        asked = Recent(
            str(self.league.store_path),
            bot,
            games,
            5,
            before,
            opponents=len(opponents),
            opponents_from=opponents.start,
        )
        read = await self._reader.ask(asked)
        recent = visible(read.games, read.hidden)
        more = read.games[-1][0] if games and len(read.games) == games else None
        logs = [self._log(game, label, row) for game, label, row in read.logs]
        versions = registry.versions(bot)
        private = None
        if self.access.may_see_private(viewer, bot):
            private = Private([(v.id, registry.logs(v.id)) for v in versions], logs)
        return BotView(
            name=bot,
            house=house,
            disabled=found is not None and found.disabled,
            author=None if owner is None else owner.name,
            author_disabled=owner is not None and owner.disabled,
            versions=versions,
            games=recent,
            more=more,
            history=read.history,
            private=private,
            opponents=Opponents(
                self._head_to_head(bot, read.opponents.rows, viewer), read.opponents.more
            ),
        )

    def _log(self, game: int, label: str, row: LogRow) -> StderrLog:
        tail = "" if row.dropped else _tail(self.league.logs_dir / row.file, LOG_TAIL_BYTES)
        return StderrLog(game, row.seat, label, row.bytes, row.dropped, tail)


def _tail(path: Path, size: int) -> str:
    """The last `size` bytes of a log, as text (a bot's bytes: shown escaped by the page);
    empty if the file is gone."""
    try:
        with path.open("rb") as file:
            end = file.seek(0, 2)
            file.seek(max(0, end - size))
            return file.read().decode("utf-8", "replace")
    except OSError:
        return ""
