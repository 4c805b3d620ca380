"""What an author keeps private stays private: the published final's report holds what every
other public page holds (a fault's kind and decision, each seat by its name); scrimmage games
are their authors' and the organisers'; a bot's scores against the benchmarks (its grade) are
its author's and the organisers'; the leaderboard's kept page never carries one browser's note
to another."""

from __future__ import annotations

import base64
import os
import re
import sys
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import trio
from leaguehelp import BOT, sign_in
from leaguehelp import LEAGUE as BASE

from tournaments.cli import main
from tournaments.league.board import head_to_head
from tournaments.league.files import League
from tournaments.league.ladder import run_ladder
from tournaments.league.season import OpenSeason
from tournaments.league.service import LeagueService
from tournaments.server.app import make_app
from tournaments.server.testing import in_process, until
from tournaments.store.results import FaultRow
from tournaments.store.store import Store

MARK = os.urandom(6).hex()
STDERR_LINE = f"REPORT-STDERR-{MARK}"

LEAGUE = (
    BASE
    + """benchmarks = ["random"]

[[league.grades]]
grade = "passed"
beats = { random = 0 }
"""
)
"""The helpers' league, with its house bot `random` as a benchmark that every bot passes."""
CRASHER = f"""\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({{"type": "ready", "name": "crasher"}}), flush=True)
    elif message["type"] == "act":
        print("{STDERR_LINE}", file=sys.stderr, flush=True)
        sys.exit(3)
"""
"""A house bot that crashes at its first decision, saying `STDERR_LINE` on its stderr."""


def league_file(tmp_path: Path, house: str = "") -> Path:
    """The league, with the house bots `house` (TOML lines) beside `random`."""
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE.replace('random = "random"\n', f'random = "random"\n{house}\n'))
    return file


def report_texts(folder: Path) -> dict[str, str]:
    """Every file of a written report as text, each block of games unpacked (base64 of zlib:
    what the page reads)."""
    texts = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        for packed in re.findall(r'arenaGames\("[^"]*","([^"]*)"\)', text):
            text += zlib.decompress(base64.b64decode(packed)).decode("utf-8")
        texts[str(path.relative_to(folder))] = text
    return texts


async def test_the_published_report_shows_a_faults_kind_but_no_reason_and_no_command(
    tmp_path: Path,
) -> None:
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    command = f"{sys.executable} {crasher}"
    file = league_file(tmp_path, f'crasher = "{command}"')
    with LeagueService.opened(file) as service:
        service.operations.freeze(2)
    async with in_process(file) as (service, _):
        await until(lambda: service.league.season.number == 2, "the final's publication")
    league = service.league
    with Store(league.final_store(1), readonly=True) as store:
        faults = [fault for game in store.games() for fault in game.played.faults]
    assert faults and all(STDERR_LINE in fault.reason for fault in faults)  # the raw store's
    final, again = str(league.final_store(1)), tmp_path / "again"
    assert main(["report", final, "-o", str(again)]) == 0  # as an earlier arena published it
    assert STDERR_LINE in "".join(report_texts(again).values())
    assert main(["report", final, "-o", str(again), "--public"]) == 0  # written again
    for folder in (league.report_dir(1), again):
        assert_public_report(folder, faults, [str(crasher), sys.executable])


def assert_public_report(folder: Path, faults: list[FaultRow], commands: list[str]) -> None:
    """Every file of the report in `folder` shows each fault's kind, but not its reason nor
    anything of it, and each seat's name, not its command."""
    texts = report_texts(folder)
    assert "index.html" in texts and any(name.startswith("games/") for name in texts)
    for name, text in texts.items():
        assert STDERR_LINE not in text, name
        assert not any(command in text for command in commands), name
        for fault in faults:
            assert fault.reason not in text and fault.reason.split(";")[0] not in text, name
    everything = "".join(texts.values())
    assert '"crash"' in everything  # what happened, for everyone
    assert '"crasher"' in everything and '"random"' in everything  # each seat by its name


async def wait_for_check(service: LeagueService, bot: str) -> None:
    def checked() -> bool:
        versions = service.league.registry.versions(bot)
        return bool(versions) and versions[-1].status in ("playing", "rejected")

    await until(checked, f"{bot}'s check")
    assert service.league.registry.versions(bot)[-1].status == "playing"


async def test_scrimmage_games_are_their_authors_and_the_organisers_alone(
    tmp_path: Path,
) -> None:
    async with in_process(league_file(tmp_path)) as (service, client):
        registry = service.league.registry
        tokens = {name: registry.new_token(name) for name in ("alice", "bob")}
        tokens["boss"] = registry.new_token("boss", organiser=True)
        bearer = {name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()}
        for name, bot in (("alice", "mine"), ("bob", "theirs")):
            answer = await client.post(
                "/api/versions",
                data={"name": bot},
                files={"file": ("bot.py", BOT.format(pick=0, name=bot).encode())},
                headers=bearer[name],
            )
            assert answer.status_code == 201, answer.text
            await wait_for_check(service, bot)
        asked = await client.post(
            "/api/bots/mine/scrimmages",
            data={"version": "1", "opponent": "random", "games": "1"},
            headers=bearer["alice"],
        )
        assert asked.status_code == 201, asked.text
        await until(lambda: registry.scrimmages()[0].status == "done", "the scrimmage")
        with Store(service.league.scrimmage_store, readonly=True) as store:
            game = min(game_id for game_id, _ in store.games_as_stored())
        pages = [
            f"/scrimmage-games/{game}",
            f"/scrimmage-games/{game}/record.jsonl",
        ]
        seats = [f"/scrimmage-games/{game}/seat{seat}.jsonl" for seat in (0, 1)]

        async def statuses(headers: dict[str, str], paths: list[str] = pages) -> list[int]:
            return [(await client.get(path, headers=headers)).status_code for path in paths]

        nothing = f"/scrimmage-games/{game + 1000}"
        assert (await client.get(nothing)).status_code == 404
        assert await statuses({}) == [404, 404]  # signed out: as if there were no such game
        assert await statuses(bearer["bob"]) == [404, 404]  # another author
        assert await statuses(bearer["bob"], seats) == [404, 404]
        assert await statuses(bearer["alice"]) == [200, 200]  # its author
        assert sorted(await statuses(bearer["alice"], seats)) == [200, 403]  # her seat alone
        assert await statuses(bearer["boss"]) == [200, 200]  # an organiser
        assert await statuses(bearer["boss"], seats) == [200, 200]
        for name, allowed in (("bob", 404), ("alice", 200), ("boss", 200)):
            client.cookies.clear()
            await sign_in(client, tokens[name])  # by cookie, as a browser
            assert await statuses({}) == [allowed, allowed], name
        client.cookies.clear()


async def test_the_kept_leaderboard_shows_each_browser_its_own_signed_out_note(
    tmp_path: Path,
) -> None:
    with League(league_file(tmp_path)) as league:
        service = LeagueService(league)
        app = make_app(service)
        kept = app.state.front
        rendered = kept.rendered
        renders: list[str] = []

        def counted(template: str, *args: Any, **values: Any) -> str:
            renders.append(template)
            return rendered(template, *args, **values)

        kept.rendered = counted
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://league") as stale,
            httpx.AsyncClient(transport=transport, base_url="http://league") as fresh,
        ):
            stale.cookies.set("arena_session", "from-before-a-restart")
            note = 'id="signed-out"'
            assert note in (await stale.get("/")).text
            assert note not in (await fresh.get("/")).text
            assert note in (await stale.get("/")).text
            assert note not in (await fresh.get("/")).text
            before = len(renders)
            for _ in range(3):
                assert note not in (await fresh.get("/")).text
            assert len(renders) == before  # the common case is still the kept page


@pytest.fixture
async def played(tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, str]]]:
    """A league whose ladder has played alice's `mine` and bob's `theirs` against the benchmark
    `random` (their checks skipped) and made its board: an HTTP client on its front, and the
    tokens of alice, bob and the organiser `boss`."""
    with League(league_file(tmp_path)) as league:
        service = LeagueService(league)
        registry = league.registry
        tokens = {"boss": registry.new_token("boss", organiser=True)}
        for name, bot in (("alice", "mine"), ("bob", "theirs")):
            tokens[name] = registry.new_token(name)
            author = registry.author_for(tokens[name])
            assert author is not None
            data = BOT.format(pick=0, name=bot).encode()
            version = await service.upload(author, bot, "bot.py", data)
            for status in ("checking", "playing"):
                registry.set_status(version.id, status)

        def met() -> bool:
            board = service.board.board
            return all(
                any(row["opponent"] == "random" for row in head_to_head(board, bot))
                for bot in ("mine", "theirs")
            )

        with trio.fail_after(60), OpenSeason(league) as season:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_ladder, season, service, service.changes)
                while not met():
                    await trio.sleep(0.1)
                    await service.board.refresh()
                nursery.cancel_scope.cancel()
        transport = httpx.ASGITransport(app=make_app(service))
        async with httpx.AsyncClient(transport=transport, base_url="http://league") as client:
            yield client, tokens


SCORE = re.compile(r"\d+(\.\d+)?%")
"""A score against a benchmark as the benchmarks page shows it ("57.1%")."""


async def test_scores_against_the_benchmarks_are_each_bots_author_and_the_organisers(
    played: tuple[httpx.AsyncClient, dict[str, str]],
) -> None:
    client, tokens = played

    def bearer(name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {tokens[name]}"}

    async def csv_bots(headers: dict[str, str]) -> list[str]:
        answer = await client.get("/benchmarks.csv", headers=headers)
        assert answer.status_code == 200
        header, *rows = answer.text.splitlines()
        assert header.startswith("bot,author,random %")
        return [row.split(",")[0] for row in rows]

    async def page_bots() -> tuple[list[str], str]:
        page = (await client.get("/benchmarks")).text
        return re.findall(r'<tr><td><a href="/bots/([^"]+)">', page), page

    async def head_to_head_of(bot: str) -> str:
        page = (await client.get(f"/bots/{bot}")).text
        return (
            page.split('id="head-to-head"')[1].split("</table>")[0]
            if "head-to-head" in page
            else ""
        )

    assert await csv_bots({}) == []  # signed out: no bot's scores
    shown, page = await page_bots()
    assert shown == [] and not SCORE.search(page.split("</ul>")[-1])
    assert "random" in page and "0% or more against random" in page  # the benchmarks are public
    for bot in ("mine", "theirs"):
        assert "/bots/random" not in await head_to_head_of(bot)
    assert "/bots/mine" not in await head_to_head_of("random")

    assert await csv_bots(bearer("alice")) == ["mine"]  # her own row alone
    alice = (await client.get("/benchmarks.csv", headers=bearer("alice"))).text
    assert alice.splitlines()[1].endswith(",passed")
    assert await csv_bots(bearer("bob")) == ["theirs"]
    assert sorted(await csv_bots(bearer("boss"))) == ["mine", "theirs"]  # every row

    await sign_in(client, tokens["alice"])
    shown, page = await page_bots()
    assert shown == ["mine"] and '<td class="grade">passed</td>' in page
    assert "/bots/random" in await head_to_head_of("mine")  # her bot against the benchmark
    assert "/bots/random" not in await head_to_head_of("theirs")
    house = await head_to_head_of("random")
    assert "/bots/mine" in house and "/bots/theirs" not in house
    client.cookies.clear()
    await sign_in(client, tokens["boss"])
    assert sorted((await page_bots())[0]) == ["mine", "theirs"]
    assert "/bots/random" in await head_to_head_of("theirs")
