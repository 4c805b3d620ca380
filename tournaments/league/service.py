"""The running league as a library object: what any front end (the web pages, the API, a
headless script) asks of a league, and the tasks that keep it going.

`LeagueService` holds the league (its settings, registry and store), the change events the
ladder and the checks wait on, and the board; it is the one door of every front: its
operations raise the `ArenaError` family (the league's kinds are in `errors`) and notify the
ladder themselves, and what the fronts show is read through its `views` (`readmodels`, which
decides who sees what once, by `views.Access`). `run()` starts the board, the checks and the
ladder in one nursery; `arena serve` runs it beside the web server (docs/architecture.md says
which thread and process runs what).
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import trio

from protocol.errors import ArenaError, RequestError
from tournaments.executors import Executor
from tournaments.executors.budget import Budget
from tournaments.executors.choose import executor_for
from tournaments.league.board_keeper import BoardKeeper
from tournaments.league.check_queue import CheckQueue
from tournaments.league.errors import Forbidden, NotFound
from tournaments.league.files import League, ServeLock
from tournaments.league.final import FinalProgress, play_final
from tournaments.league.ladder import LADDER_NICE, run_ladder
from tournaments.league.operations import Operations, make_store
from tournaments.league.readmodels import ReadModels
from tournaments.league.registry import Author, Scrimmage, Season, Version
from tournaments.league.runtimes import Runtime, runtimes
from tournaments.league.scrimmages import play_scrimmage
from tournaments.league.season import OpenSeason
from tournaments.league.sessions import Sessions
from tournaments.league.submissions import stager, submit
from tournaments.league.turns import Turns
from tournaments.league.views import SCRIMMAGE_READY, ScrimmageView, refuse_unless_organiser
from tournaments.play.runner import Refused, Voided
from tournaments.report.page import write_report
from tournaments.store.results import FinishedGame
from tournaments.store.sqlitefile import StoreError


class _Quiet:
    """A scrimmage's listener: its games rate nothing (the board is not told of them)."""

    def __init__(self, service: LeagueService) -> None:
        self.on_void = service.on_void
        self.on_probation = service.on_probation
        self.on_refused = service.on_refused

    def on_game(self, game: FinishedGame) -> None:
        """Nothing to tell: a scrimmage's games are listed from its store."""


ReportLinks = Callable[[int], list[tuple[str, str]]]
"""A published season's report's links (text, address), by the season's number."""


def no_links(season: int) -> list[tuple[str, str]]:
    """A league with no pages publishes its reports with no links."""
    return []


class LeagueService:
    """The league of `league` running: its operations and its tasks (`run`)."""

    @classmethod
    @contextmanager
    def opened(
        cls, file: Path, busy: str | None = None, report_links: ReportLinks = no_links
    ) -> Iterator[LeagueService]:
        """The league of `file`, held by this process alone (`ServeLock`; `busy`: why it is
        refused while another holds it) until the block ends."""
        with League(file) as league, ServeLock(league, busy):
            service = cls(league, report_links)
            try:
                yield service
            finally:
                service.close()

    def __init__(self, league: League, report_links: ReportLinks = no_links) -> None:
        self.league = league
        self.report_links = report_links
        """The links a published season's report carries (the front's addresses)."""
        self.board = BoardKeeper(league.store_path, keep=league.settings.benchmarks)
        self.final: FinalProgress | None = None
        """Where the final of the frozen season stands (None: no final is playing)."""
        self.views = ReadModels(league, self.board, lambda: self.final)
        """What the fronts show, as each viewer may see it."""
        stores = [league.store_path, league.scrimmage_store]
        if league.season.frozen is not None:
            stores.append(league.final_store(league.season.number))
        for store in stores:
            make_store(store)
            try:
                self.views.stores.get(store)  # checked now, before the pages: never at a read
            except StoreError as exc:  # the pages go on; each one that reads it says so
                print(f"arena serve: {exc}", file=sys.stderr, flush=True)
        self.operations = Operations(league)
        """The organisers' changes, which `arena league` makes on the files too."""
        self.sessions = Sessions(league.registry)
        """The browser sessions of the league's authors (the web front's sign-ins)."""
        self._change = trio.Event()
        self._runtimes: list[Runtime] | None = None
        self._frozen = trio.Event()
        """Set when the organiser freezes the season: its ladder stops."""
        self._scrimmage_asked = trio.Event()
        self.games = Budget(league.tournament.workers)
        """The games at once on this machine (`concurrency`), shared by the ladder (or the
        final), the checks and the scrimmages; a check or a scrimmage waiting for one ends the
        ladder's units in hand."""
        self._open_season: OpenSeason | None = None
        """The season's tournament, open while the league runs (`run`)."""
        self.games.on_wanted = self.notify
        self._staging = stager()
        """Unpacks and hashes the uploads, one at a time, out of this process while the league
        runs."""

    def close(self) -> None:
        """Close the stores kept open for the pages."""
        self.views.close()

    async def runtimes(self) -> list[Runtime]:
        """The runtimes uploads can use here, found once (in a thread: it runs each)."""
        if self._runtimes is None:
            found = await trio.to_thread.run_sync(runtimes, self.league.settings.runtimes)
            self._runtimes = found
        return self._runtimes

    # ---- changes and the ladder's listener ----------------------------------------------

    def changes(self) -> trio.Event:
        """The event the next change (an upload, a checked version, an organiser's action)
        sets."""
        return self._change

    def notify(self) -> None:
        self._change.set()
        self._change = trio.Event()

    def on_game(self, game: FinishedGame) -> None:
        if self.league.season.frozen is None:  # else a final's game: the ladder's board stays
            self.board.on_game()

    def on_void(self, voided: Voided) -> None:
        """A referee error (not a bot's): the organiser's log says how to play it again; the
        next round plays the game again (it was not stored)."""
        print(
            f"arena serve: a game was voided by an error of the referee ({voided.error}); "
            f"to reproduce it: {voided.command}",
            file=sys.stderr,
            flush=True,
        )

    def on_probation(self, label: str, fault: str) -> None:
        """A bot faulting game after game plays on; its page shows its faults."""

    def on_refused(self, refused: Refused) -> None:
        """A worker's game that did not replay or was not confirmed, or a unit it failed: the
        organiser's log names the worker (blocked: it gets no more units); the game is played
        again elsewhere."""
        then = "it gets no more games" if refused.blocked else "played again elsewhere"
        print(
            f"arena serve: a game from {refused.worker} was refused: {refused.reason}; "
            f"{then} (arena workers)",
            file=sys.stderr,
            flush=True,
        )

    @property
    def open_season(self) -> OpenSeason:
        """The season's tournament, prepared once when the league starts running (`run`) and
        again when a season opens; what its checks, ladder, final and scrimmages play on."""
        if self._open_season is None:
            raise RuntimeError("the league's season is open only while the league runs")
        return self._open_season

    async def run(self) -> None:
        """The board, the checks of new versions and the seasons (a ladder until frozen, then
        the final, then the next season), until cancelled."""
        self._open_season = OpenSeason(self.league)
        checks = CheckQueue(
            self.league,
            lambda: self.open_season.limits,
            self.games.share(first=True),
            self.notify,
        )
        try:
            async with (
                self.views.children(),  # every bot page, game list and game page is made there
                self._staging.open(),
                trio.open_nursery() as nursery,
            ):
                nursery.start_soon(self.board.run)
                nursery.start_soon(checks.run, self.changes)
                nursery.start_soon(self._seasons)
                nursery.start_soon(self._scrimmages)
        finally:
            self.open_season.close()
            self._open_season = None

    async def _seasons(self) -> None:
        while True:
            season = self.league.season
            if season.frozen is None:
                async with trio.open_nursery() as nursery:
                    ladder = self.games.share(first=False)
                    nursery.start_soon(run_ladder, self.open_season, self, self.changes, ladder)
                    await self._frozen.wait()
                    nursery.cancel_scope.cancel()
            else:
                change = self.changes()
                try:
                    share = self.games.share(first=False)
                    await play_final(self.open_season, season, self, self._on_final, share)
                except (ArenaError, OSError) as exc:  # the pages go on; the organiser mends it
                    print(
                        f"arena serve: season {season.number}'s final stopped: {exc}; it goes "
                        "on at the next change or restart",
                        file=sys.stderr,
                        flush=True,
                    )
                    await change.wait()
                    continue
                await self._publish(season)

    async def _scrimmages(self) -> None:
        """Play the queued scrimmages one after another, the authors taking turns (`Turns`),
        on an executor of their own that shares the ladder's budget of games at once (and goes
        first); between requests, wait for the next."""
        share = self.games.share(first=True)
        executor = executor_for(self.league.tournament, nice=LADDER_NICE, share=share)
        turns: Turns[Scrimmage] = Turns()
        async with executor.kept():
            while True:
                asked = self._scrimmage_asked
                while (
                    scrimmage := turns.next(self.league.registry.scrimmages("queued"))
                ) is not None:
                    await self._scrimmage(scrimmage, executor)
                await asked.wait()

    async def _scrimmage(self, scrimmage: Scrimmage, executor: Executor) -> None:
        registry = self.league.registry
        try:
            await play_scrimmage(self.open_season, scrimmage, executor, _Quiet(self))
        except (ArenaError, OSError) as exc:
            reason = str(exc)
            if not isinstance(exc, ArenaError) or exc.http_status >= 500:  # names its files
                print(f"arena serve: scrimmage {scrimmage.id}: {exc}", file=sys.stderr, flush=True)
                reason = "the league could not play it: its organiser's log says why"
            registry.set_scrimmage(scrimmage.id, "failed", reason)
        else:
            registry.set_scrimmage(scrimmage.id, "done")

    def _on_final(self, progress: FinalProgress) -> None:
        self.final = progress

    async def _publish(self, season: Season) -> None:
        """The final's standings published with its report, and the next season opened: its
        ladder starts over on a store of its own."""
        store, out = self.league.final_store(season.number), self.league.report_dir(season.number)
        if store.exists():
            try:
                title = f"{self.league.file.stem}: season {season.number}'s final"
                links = self.report_links(season.number)
                await trio.to_thread.run_sync(
                    functools.partial(
                        write_report, store, out, workers=1, public=True, title=title, links=links
                    )
                )
            except (ArenaError, OSError) as exc:  # the standings are published without it
                print(
                    f"arena serve: season {season.number}'s report could not be written: {exc}",
                    file=sys.stderr,
                    flush=True,
                )
        next_store = self.league.season_store(season.number + 1)
        await trio.to_thread.run_sync(make_store, next_store)
        self.league.season_now(self.league.registry.publish(season.number))
        ended, self._open_season = self.open_season, OpenSeason(self.league)
        ended.close()
        self.final = None
        self.board.start_over(self.league.store_path)
        self.notify()

    # ---- operations ----------------------------------------------------------------------

    def author_of_token(self, token: str) -> Author | None:
        """The author `token` is the token of, unless disabled (or none)."""
        return self.league.registry.author_for(token)

    async def upload(
        self, author: Author, bot: str, filename: str, data: bytes | BinaryIO
    ) -> Version:
        """A new version of `bot` from `author`'s upload (its bytes, or a file of them): the
        version uploaded (the same files again: that same version), queued for its check."""
        version = await submit(self.league, author, bot, filename, data, self._staging)
        self.notify()
        return version

    def ask_scrimmage(
        self, author: Author, bot: str, number: int, opponent: str, games: int
    ) -> ScrimmageView:
        """`games` unranked games of version `number` of `author`'s bot `bot` against the
        playing bot `opponent`, queued (rate-limited per author); none while the organisers
        have the bot or its author disabled."""
        registry, settings = self.league.registry, self.league.settings
        if registry.owner(bot) != author.id:
            raise Forbidden(f"{bot!r} is not your bot")
        if author.disabled:
            raise Forbidden("you are disabled by the organisers: no scrimmages until re-enabled")
        found = registry.bot(bot)
        if found is not None and found.disabled:
            raise Forbidden(
                f"{bot!r} is disabled by the organisers: it plays no scrimmages until they "
                "enable it again"
            )
        version = next((v for v in registry.versions(bot) if v.number == number), None)
        if version is None or version.status not in SCRIMMAGE_READY:
            raise NotFound(f"{bot} has no version {number} that passed its check")
        if opponent not in self.views.opponents(bot):
            raise NotFound(f"{opponent!r} is not another bot playing in this league")
        if not 1 <= games <= settings.scrimmage_games:
            raise RequestError(f"games: from 1 to {settings.scrimmage_games}, not {games}")
        per_hour = settings.scrimmages_per_hour
        asked = registry.add_scrimmage(
            author.id, version.id, opponent, games, time.time(), per_hour
        )
        self._scrimmage_asked.set()
        self._scrimmage_asked = trio.Event()
        return ScrimmageView(asked, version.number, [])

    def freeze(self, actor: Author, budget: int) -> Season:
        """An organiser freezes the season for its final of at most `budget` games
        (`Operations.freeze`; `Forbidden` for anyone else): its ladder stops."""
        refuse_unless_organiser(actor)
        order = [str(row["bot"]) for row in self.board.board.standings]
        season = self.operations.freeze(budget, order)
        self._frozen.set()
        self._frozen = trio.Event()
        self.notify()
        return season

    def set_bot_disabled(self, actor: Author, bot: str, disabled: bool) -> None:
        """An organiser disables or enables an uploaded bot (`Forbidden` for anyone else)."""
        refuse_unless_organiser(actor)
        self.operations.set_bot_disabled(bot, disabled)
        self.notify()

    def set_author_disabled(self, actor: Author, name: str, disabled: bool) -> Author:
        """An organiser disables or enables an author (`Forbidden` for anyone else)."""
        refuse_unless_organiser(actor)
        return self.operations.set_author_disabled(name, disabled, actor)


async def run_headless(file: Path) -> None:
    """The league of `file` with no pages: its checks, ladder and board until cancelled."""
    with LeagueService.opened(file) as service:
        await service.run()
