"""The work of each page of the league does not grow with its store: the same pages over a
store of `SMALL` games and one of `LARGE` (written by `tournaments.bench.synthetic`) execute
about as many SQLite instructions and read about as many bytes.

What is counted: the SQLite virtual machine's instructions of every connection the league
opens (a progress handler on each, installed by wrapping `sqlite3.connect`), and the bytes the
process reads (`rchar` of /proc/self/io: a `PRAGMA quick_check` is one instruction but reads
the whole file). Each page is asked once before it is measured: what is counted is a request
of a league that has been serving, its stores opened and checked. 20,000 games rather than
100,000: writing them is most of this test's time, and 20 times the games already separates
a page that reads its part of the store from one that reads all of it by a factor of ten.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import trio

from tournaments.bench.synthetic import synthetic_store
from tournaments.league.board import Board, Keeping, Refresh
from tournaments.league.files import League
from tournaments.league.reads import KeptStores, Rechecks
from tournaments.league.service import LeagueService
from tournaments.league.viewers import Page, Shown
from tournaments.server import bots, front
from tournaments.server.app import make_app
from tournaments.server.leaderboard import ROWS
from tournaments.store.sqlitefile import StoreError

LEAGUE = 'game = "azul"\nsandbox = "none"\n[participants]\nhouse = "random"\n[league]\n'
BOTS = ["house", *(f"bot{n}" for n in range(9))]
SMALL, LARGE = 1_000, 20_000
STEP = 100
"""The virtual machine's instructions a count stands for."""
PAGING = ("page_size", "page_count")
PAGES = ["/", "/api/leaderboard", "/bots/house", "/api/bots/house/games?count=50", "/games/{game}"]


@pytest.fixture(scope="module")
def leagues(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """A league file over a synthetic store of each size."""
    files = {}
    for games in (SMALL, LARGE):
        folder = tmp_path_factory.mktemp(f"games{games}")
        synthetic_store(folder / "cup.sqlite", BOTS, games)
        files[games] = folder / "cup.toml"
        files[games].write_text(LEAGUE)
    return files


class Counted:
    """The SQLite instructions (in `STEP`s) of the connections opened meanwhile."""

    def __init__(self) -> None:
        self.steps = 0

    def tick(self) -> int:
        self.steps += 1
        return 0  # go on


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counted]:
    counter = Counted()
    connect = sqlite3.connect

    def counting(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection = connect(*args, **kwargs)
        connection.set_progress_handler(counter.tick, STEP)
        return connection

    monkeypatch.setattr(sqlite3, "connect", counting)
    yield counter


def read_bytes() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@asynccontextmanager
async def serving(file: Path) -> AsyncIterator[tuple[LeagueService, httpx.AsyncClient]]:
    with League(file) as league:
        service = LeagueService(league)
        try:
            transport = httpx.ASGITransport(app=make_app(service))
            async with httpx.AsyncClient(transport=transport, base_url="http://league") as client:
                yield service, client
        finally:
            service.close()


async def costs(file: Path, counted: Counted, game: int) -> dict[str, tuple[int, int]]:
    """Each page's (instructions, bytes read) at its second request."""
    found = {}
    async with serving(file) as (_, client):
        for page in PAGES:
            path = page.format(game=game)
            for _ in range(2):
                steps, read = counted.steps, read_bytes()
                answer = await client.get(path)
                assert answer.status_code == 200, (path, answer.text[:300])
            found[page] = (counted.steps - steps, read_bytes() - read)
    return found


def grows(small: int, large: int, slack: int) -> bool:
    """Whether `large` is more than a quarter over `small`, beyond `slack`."""
    return large > small * 1.25 + slack


async def test_no_page_costs_more_on_a_store_of_twenty_times_the_games(
    leagues: dict[int, Path], counted: Counted
) -> None:
    small = await costs(leagues[SMALL], counted, game=SMALL // 2)
    large = await costs(leagues[LARGE], counted, game=LARGE // 2)
    for page in PAGES:
        (small_steps, small_read), (large_steps, large_read) = small[page], large[page]
        assert not grows(small_steps, large_steps, slack=10), (page, small, large)
        assert not grows(small_read, large_read, slack=256 << 10), (page, small, large)


async def test_a_bots_games_are_paged_to_its_oldest(
    leagues: dict[int, Path], counted: Counted
) -> None:
    """A bot's page links to its older games, page after page, and its games' listing hands
    `more` on until the last: every game once, newest first."""
    async with serving(leagues[SMALL]) as (_, client):
        seen: list[int] = []
        before = ""
        while True:
            page = (await client.get(f"/api/bots/house/games?count=100{before}")).json()
            seen += [row["id"] for row in page["games"]]
            if page["more"] is None:
                break
            before = f"&before={page['more']}"
        assert seen == sorted(set(seen), reverse=True) and len(seen) > 100
        html = (await client.get("/bots/house")).text
        older = html.split('id="older"><a href="')[1].split('"')[0]
        assert older == f"/bots/house?before={seen[49]}#recent"
        assert f'href="/seasons/1/games/{seen[50]}"' in (await client.get(older)).text
        assert f'href="/seasons/1/games/{seen[49]}"' not in (await client.get(older)).text


async def test_the_leaderboard_is_paged_in_its_page_and_its_json(
    leagues: dict[int, Path], counted: Counted
) -> None:
    rows = [
        {"bot": f"bot{n}", "elo": 2000 - n, "ci": 10, "games": 9, "wins": 3, "losses": 3}
        | {"draws": 3}
        for n in range(2 * ROWS + 50)
    ]
    async with serving(leagues[SMALL]) as (service, client):
        service.board.board = Board(games=9 * len(rows), standings=rows)
        service.board.generation += 1
        first = (await client.get("/")).text
        assert first.count("<tr><td") == ROWS and 'href="/?page=2" rel="next"' in first
        third = (await client.get("/?page=3")).text
        assert third.count("<tr><td") == 50 and 'href="/?page=2" rel="prev"' in third
        assert f'<td class="num">{2 * ROWS + 1}</td><td><a href="/bots/bot{2 * ROWS}">' in third
        assert (await client.get("/?page=4")).status_code == 404
        assert (await client.get("/?page=0")).status_code == 400
        second = (await client.get("/api/leaderboard?page=2")).json()
        assert second["standings"] == rows[ROWS : 2 * ROWS] and second["pages"] == 3
        assert (await client.get("/api/leaderboard")).json()["standings"] == rows[:ROWS]


def test_a_store_damaged_while_served_is_refused_once_its_recheck_finds_it(
    tmp_path: Path,
) -> None:
    """The pages' reads never check their store; the child's checks in the background do, and
    a store they find damaged is refused from then on, with the way to save what it holds."""
    path = tmp_path / "cup.sqlite"
    synthetic_store(path, BOTS, 300)
    stores = KeptStores(check=False)
    assert stores.get(path) is not None
    with sqlite3.connect(path) as connection:  # a page in the middle of the file overwritten
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size, pages = (connection.execute(f"PRAGMA {name}").fetchone()[0] for name in PAGING)
    with path.open("r+b") as file:
        file.seek(pages // 2 * size)
        file.write(b"\x00\xff" * (size // 2))
    assert stores.get(path) is not None  # no read checks it
    Rechecks(stores).due()
    with pytest.raises(StoreError, match=r"is damaged .*\.recover"):
        stores.get(path)
    stores.close()


async def test_a_bots_head_to_head_is_read_from_the_shelf_a_page_of_opponents_at_a_time(
    leagues: dict[int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server holds no head-to-head rows: the bot page reads a page of them, its opponents
    by their place on the board, from the shelf the board's child writes; the page's number
    is a plain whole number."""
    monkeypatch.setattr(bots, "OPPONENTS_SHOWN", 4)
    store = leagues[SMALL].with_suffix(".sqlite")
    refreshed = Keeping().refresh(Refresh(str(store)))
    assert refreshed.board.pairs == []  # no bot kept: every row is on the shelf
    order = [str(row["bot"]) for row in refreshed.board.standings]
    expected = [bot for bot in order if bot != "house"]
    async with serving(leagues[SMALL]) as (_, client):
        shown: list[str] = []
        path = "/bots/house"
        while True:
            html = (await client.get(path)).text
            table = html.split('id="head-to-head"')[1].split("</table>")[0]
            shown += re.findall(r'<tr><td><a href="/bots/([^"]+)">', table)
            after = re.search(
                r'<a href="(/bots/house\?opponents=\d+)#opponents">Opponents after', html
            )
            if after is None:
                break
            path = after[1]
        assert shown == expected and len(expected) == 9  # 4, 4 and 1
        assert 'href="/bots/house?opponents=4#opponents">Opponents before' in html
        for bad in ("²", "-1", "4x", "9" * 30):
            assert (await client.get(f"/bots/house?opponents={bad}")).status_code == 400, bad


async def test_a_game_page_is_made_once_and_kept_by_what_it_shows(
    leagues: dict[int, Path],
) -> None:
    async with serving(leagues[SMALL]) as (service, client):
        made: list[int] = []
        work = service.views.viewers.child.work
        service.views.viewers.child.work = lambda shown: made.append(1) or work(shown)
        first = await client.get("/games/7")
        assert first.status_code == 200 and (await client.get("/games/7")).text == first.text
        assert len(made) == 1
        other = await client.get("/games/8")
        assert other.text != first.text and len(made) == 2


async def test_browsers_asking_for_one_game_page_at_once_wait_for_the_one_being_made(
    leagues: dict[int, Path],
) -> None:
    async with serving(leagues[SMALL]) as (service, client):
        made: list[int] = []
        work = service.views.viewers.child.work

        def slow(shown: Shown) -> Page:
            made.append(1)
            time.sleep(0.05)  # long enough for every browser to be waiting
            return work(shown)

        service.views.viewers.child.work = slow
        bodies: list[str] = []

        async def browse() -> None:
            bodies.append((await client.get("/games/9")).text)

        async with trio.open_nursery() as nursery:
            for _ in range(10):
                nursery.start_soon(browse)
        assert len(made) == 1 and len(set(bodies)) == 1 and len(bodies) == 10
        assert not service.views.viewers._making  # nothing left behind for a page no one waits on


def test_the_leaderboard_reads_the_registry_again_only_once_it_changed(
    leagues: dict[int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    with League(leagues[SMALL]) as league:
        service = LeagueService(league)
        reads: list[int] = []
        playing = league.registry.playing
        monkeypatch.setattr(league.registry, "playing", lambda: reads.append(1) or playing())
        first = service.views.leaderboard()
        assert service.views.leaderboard() is first and len(reads) == 1
        league.registry.new_token("newcomer")  # a change it does not show
        assert service.views.leaderboard() is first and len(reads) == 2
        author = league.registry.author_for(league.registry.new_token("uploader"))
        assert author is not None
        league.registry.add_version(author.id, "fresh", "c0ffee", "python3 bot.py", None)
        again = service.views.leaderboard()
        assert again.number == first.number + 1 and len(reads) == 3
        assert [v.bot for v in again.waiting] == ["fresh"]
        service.close()


async def test_a_damaged_shelf_leaves_the_bot_page_without_its_head_to_head_until_made_again(
    tmp_path: Path,
) -> None:
    await trio.to_thread.run_sync(synthetic_store, tmp_path / "cup.sqlite", BOTS[:4], 200)
    (tmp_path / "cup.toml").write_text(LEAGUE)
    shelf = tmp_path / "cup.board.sqlite"
    shelf.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)  # not a shelf: damaged
    async with serving(tmp_path / "cup.toml") as (_, client):
        page = await client.get("/bots/house")
        assert page.status_code == 200 and 'id="recent"' in page.text
        assert 'id="head-to-head"' not in page.text
        Keeping().refresh(Refresh(str(tmp_path / "cup.sqlite")))  # the board's child: anew
        await trio.sleep(front.PUBLIC_PAGE_S)  # the signed-out page made again
        assert 'id="head-to-head"' in (await client.get("/bots/house")).text


async def test_a_bots_page_is_made_once_a_second_for_every_signed_out_browser(
    leagues: dict[int, Path],
) -> None:
    """Signed-out browsers asking for a bot's page at once get the one made (its games read
    once); a signed-in author's page is their own; a second later it is made again."""
    async with serving(leagues[SMALL]) as (service, client):
        reads: list[str] = []
        bot_view = service.views.bot_view

        async def counted(bot: str, viewer: Any, **kwargs: Any) -> Any:
            reads.append(bot)
            return await bot_view(bot, viewer, **kwargs)

        service.views.bot_view = counted  # type: ignore[method-assign]
        async with trio.open_nursery() as nursery:
            for _ in range(5):
                nursery.start_soon(client.get, "/bots/house")
        assert reads == ["house"]
        browser = httpx.AsyncClient(transport=client._transport, base_url="http://league")
        async with browser:
            other = await browser.get("/bots/house")  # another browser, its own CSRF cookie
        first = await client.get("/bots/house")
        assert other.text == first.text and reads == ["house"]
        assert 'name="csrf"' not in first.text  # no browser's CSRF value in what all share
        assert (await client.get("/bots/house?opponents=1")).status_code == 200  # another page
        assert len(reads) == 2
        await trio.sleep(front.PUBLIC_PAGE_S)
        await client.get("/bots/house")
        assert len(reads) == 3
        token = service.league.registry.new_token("reader")
        signed = await client.get("/bots/house", headers={"Authorization": f"Bearer {token}"})
        assert signed.status_code == 200 and len(reads) == 4  # not the signed-out page
