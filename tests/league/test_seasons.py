"""Seasons: the organiser freezes the league; its final plays the frozen field alone on fresh
deals until its order is settled or its budget spent; its standings are published (a page, JSON,
CSV and the report of its games) and equal `arena table` on its store; the next season starts
over while the old one stays browsable; an upload during the final waits for the next season."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import httpx2 as httpx
import pytest
from leaguehelp import stored_games

from tournaments.cli import main
from tournaments.league.final import read_rounds
from tournaments.league.service import LeagueService
from tournaments.server.testing import in_process, until

pytestmark = pytest.mark.slow  # a ladder, a final and the next season's first games

LEAGUE = """
game = "azul"
players = 2
concurrency = 2
sandbox = "none"

[participants]
greedy = "greedy"
random = "random"

[league]
batch = 2
"""
BOT = b"from bots.sdk import run\nrun(lambda observation, legal, context: 0, name='late')\n"


def stored(path: Path) -> list[tuple[str, ...]]:
    return [game.bots for game in stored_games(path)]


async def test_a_season_freezes_plays_its_final_publishes_and_starts_over(
    running: tuple[LeagueService, httpx.AsyncClient], tmp_path: Path
) -> None:
    service, client = running
    league = service.league
    boss = {"Authorization": f"Bearer {league.registry.new_token('boss', organiser=True)}"}
    alice = league.registry.new_token("alice")
    first = league.store_path
    await until(lambda: len(stored(first)) >= 2, "the ladder's first games")

    author = {"Authorization": f"Bearer {alice}"}
    refused = await client.post("/api/league/freeze", data={"budget": "40"}, headers=author)
    assert refused.status_code == 403
    frozen = await client.post("/api/league/freeze", data={"budget": "40"}, headers=boss)
    assert frozen.status_code == 200 and frozen.json()["number"] == 1
    assert (
        await client.post("/api/league/freeze", data={"budget": "9"}, headers=boss)
    ).status_code == 400
    ladder_games = len(stored(first))

    answer = await client.post(
        "/api/versions", data={"name": "late"}, files={"file": ("late.py", BOT)}, headers=author
    )
    assert answer.status_code == 201
    await until(lambda: league.registry.versions("late")[-1].status == "playing", "its check")

    await until(lambda: league.registry.season().number == 2, "the final and its publication")
    final_games = stored(league.final_store(1))
    assert 0 < len(final_games) <= 40
    assert {bot for game in final_games for bot in game} == {"greedy", "random"}  # not "late"
    assert len(stored(first)) <= ladder_games + 2  # the ladder stopped (games in flight aside)

    result = (await client.get("/api/seasons/1")).json()
    assert result["season"]["published"] and result["report"]
    final = result["final"]
    assert final["games"] == len(final_games) and (final["settled"] or final["games"] == 40)
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdout", out)
        assert main(["table", str(league.final_store(1)), "-t", "standings", "--csv"]) == 0
    table = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(row["bot"], int(row["elo"])) for row in table] == [
        (row["bot"], row["elo"]) for row in final["standings"]
    ]
    page = (await client.get("/seasons/1")).text
    assert "Final standings" in page and 'id="report"' in page
    report = await client.get("/seasons/1/report/")
    assert report.status_code == 200 and "ARENA_DATA" in report.text
    found = re.search(r"const ARENA_DATA = (.*?);\n", report.text)
    assert found is not None
    data = json.loads(found[1])  # titled by the league and its season, and linked back to them
    assert data["title"] == "cup: season 1's final" and ["the league", "/"] in data["links"]
    assert (await client.get("/seasons/1/report/../../cup.toml")).status_code == 404
    assert (await client.get("/seasons/1.csv")).text.startswith("rank,bot,elo")
    certificate = final["certificate"]  # what the final's games prove, published with it
    assert (
        certificate["games"] == len(final_games) and certificate["claim"] == "the top 10 in order"
    )
    assert {place["bot"] for place in certificate["places"]} == {"greedy", "random"}
    assert all(1 <= p["low"] <= p["place"] <= p["high"] <= 2 for p in certificate["places"])
    rounds = read_rounds(league.final_store(1))  # written down, each deal in every rotation
    assert rounds and final["games"] == sum(2 * (stop - at) for r in rounds for _, at, stop in r)
    assert 'id="certificate-places"' in page
    rows = list(csv.DictReader(io.StringIO((await client.get("/seasons/1/certificate.csv")).text)))
    assert [row["bot"] for row in rows] == [p["bot"] for p in certificate["places"]]
    assert (await client.get("/seasons/7")).status_code == 404

    second = league.store_path
    assert second != first and second == league.season_store(2)
    await until(lambda: any("late" in game for game in stored(second)), "season 2's ladder")
    assert not any("late" in game for game in stored(first))
    board = (await client.get("/api/leaderboard")).json()
    assert board["games"] <= len(stored(second))  # the new season's board: its games alone
    old = await client.get("/api/bots/greedy/games?season=1&count=500")
    rows = old.json()["games"]
    assert len(rows) == len(stored(first)) and rows[0]["record"].startswith("/seasons/1/games/")
    record = await client.get(rows[0]["record"])
    assert record.status_code == 200 and b'"greedy"' in record.content
    assert (await client.get(f"/seasons/1/games/{rows[0]['id']}")).status_code == 200
    assert (await client.get("/api/bots/greedy/games?season=9")).status_code == 404
    seasons = (await client.get("/seasons")).text
    assert 'href="/seasons/1"' in seasons and 'href="/seasons/2"' in seasons


async def test_a_final_whose_report_cannot_be_written_is_published_without_it(
    tmp_path: Path,
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with LeagueService.opened(file) as service:
        service.operations.freeze(4)
        service.league.report_dir(1).write_text("in the way")  # a file where its folder goes
    async with in_process(file) as (service, client):
        await until(lambda: service.league.season.number == 2, "the final's publication")
        result = (await client.get("/api/seasons/1")).json()
        assert result["season"]["published"] and result["final"]["games"] == 4
        assert not result["report"]


async def test_a_final_that_cannot_play_leaves_the_pages_up_and_goes_on_when_mended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with LeagueService.opened(file) as service:
        service.operations.freeze(4)
        final = service.league.final_store(1)
    final.write_bytes(b"not a store at all")
    async with in_process(file) as (service, client):
        await until(lambda: "final stopped" in capsys.readouterr().err, "the final's refusal")
        assert (await client.get("/")).status_code == 200
        assert service.league.season.number == 1
        final.unlink()
        service.notify()  # an organiser's change: the final is tried again
        await until(lambda: service.league.season.number == 2, "the mended final")
