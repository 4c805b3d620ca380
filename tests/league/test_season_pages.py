"""What a season leaves behind, on a league whose ladder does not run (its games written
straight into its stores): its grades kept as it was frozen, each to whom may see it; one
version number wherever a person reads one; the leaderboard ranks bots, their older versions
apart; game addresses and downloads that name their season; readable times; and the published
report titled by its league and season, with links back."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from leaguehelp import finished, front_of, sign_in

from protocol.errors import ArenaError
from tournaments.commands import fetch
from tournaments.errors import UsageError
from tournaments.league.api_answers import GameRow
from tournaments.league.board import Board
from tournaments.league.registry import Registry, Version
from tournaments.league.service import LeagueService
from tournaments.report.page import write_report
from tournaments.store.store import Store, seat_set_key

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"

[participants]
easy = "random"

[league]
benchmarks = ["easy"]

[[league.grades]]
grade = "pass"
beats = { easy = 50 }
"""
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
READABLE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")


def playing(registry: Registry, author: str, bot: str, content: str) -> Version:
    """A version of `bot` by `author`, playing (its check skipped)."""
    found = registry.author(author)
    assert found is not None
    version = registry.add_version(found.id, bot, content, "python3 bot.py", None)
    for status in ("checking", "playing"):
        version = registry.set_status(version.id, status)
    return version


def store_games(
    path: Path, games: list[tuple[list[str], list[int]]], hashes: dict[str, str] | None = None
) -> list[int]:
    """`games` (bots by seat, ranks) written into the store at `path`, each bot under its hash
    in `hashes` (else one of its name's): their ids."""
    ids, hashes = [], hashes or {}
    with Store(path) as store:
        rows = {
            name: store.bot(name, name, hashes.get(name, f"hash-{name}")).id
            for game in games
            for name in game[0]
        }
        for deal, (bots, ranks) in enumerate(games):
            seats = [rows[name] for name in bots]
            game_id = store.add_game(
                seat_set=seat_set_key(seats),
                deal=deal,
                rotation=0,
                seed=deal,
                bots=seats,
                played=msgspec.structs.replace(finished(bots, ranks).played, tiebreak=""),
                decisions=1,
                record=b"{}\n",
            )
            assert game_id is not None
            ids.append(game_id)
    return ids


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


async def ended_season(service: LeagueService) -> dict[str, str]:
    """Season 1 played (mine beats the benchmark 3 games of 4, theirs loses every one), frozen
    and published; season 2 open, with mine's new version playing. The tokens by author."""
    league = service.league
    registry = league.registry
    tokens = {name: registry.new_token(name) for name in ("alice", "bob")}
    tokens["boss"] = registry.new_token("boss", organiser=True)
    playing(registry, "alice", "mine", "a1")
    playing(registry, "bob", "theirs", "b1")
    won, lost = (["mine", "easy"], [1, 2]), (["theirs", "easy"], [2, 1])
    store_games(league.store_path, [won, won, won, (["easy", "mine"], [1, 2]), *[lost] * 4])
    service.operations.freeze(10)
    store_games(league.final_store(1), [(["mine", "theirs"], [1, 2]), (["easy", "mine"], [2, 1])])
    league.season_now(registry.publish(1))
    playing(registry, "alice", "mine", "a2")  # season 2: a new version, no games yet
    return tokens


async def test_a_seasons_grades_are_kept_when_it_ends_each_to_whom_may_see_it(
    tmp_path: Path,
) -> None:
    async with front_of(tmp_path, LEAGUE) as (service, client):
        tokens = await ended_season(service)
        alice, boss = bearer(tokens["alice"]), bearer(tokens["boss"])

        async def grades(path: str, headers: dict[str, str]) -> dict[str, str]:
            answer = await client.get(path, headers=headers)
            assert answer.status_code == 200, answer.text
            return {row["bot"]: row["grade"] for row in csv_rows(answer.text)}

        for path in ("/seasons/1/benchmarks.csv", "/benchmarks.csv?season=1"):
            assert await grades(path, boss) == {"mine": "pass", "theirs": ""}
            assert await grades(path, alice) == {"mine": "pass"}  # her own bot alone
            assert await grades(path, {}) == {}  # signed out: none
        mine = csv_rows((await client.get("/seasons/1/benchmarks.csv", headers=alice)).text)[0]
        assert (mine["easy %"], mine["easy games"]) == ("75.0", "4")
        assert await grades("/benchmarks.csv", alice) == {"mine": ""}  # season 2: no games yet

        api = (await client.get("/api/seasons/1/benchmarks", headers=boss)).json()
        assert api["season"] == 1 and api["benchmarks"] == ["easy"]
        assert [(row["bot"], row["grade"]) for row in api["grades"]] == [
            ("mine", "pass"),
            ("theirs", None),
        ]
        public = (await client.get("/api/seasons/1/benchmarks")).json()
        assert public["grades"] == [] and public["thresholds"][0]["grade"] == "pass"

        season = (await client.get("/api/seasons/1", headers=boss)).json()
        assert {row["bot"]: row["grade"] for row in season["grades"]} == {
            "mine": "pass",
            "theirs": None,
        }
        assert (await client.get("/api/seasons/1")).json()["grades"] == []
        final_csv = (await client.get("/seasons/1.csv", headers=boss)).text
        assert {row["bot"]: row["grade"] for row in csv_rows(final_csv)} == {
            "mine": "pass",
            "theirs": "",
            "easy": "",
        }
        assert "grade" not in (await client.get("/seasons/1.csv")).text.splitlines()[0]

        assert (await client.get("/benchmarks.csv?season=9")).status_code == 404
        assert "no season 9" in (await client.get("/api/seasons/9/benchmarks")).json()["error"]
        assert (await client.get("/benchmarks?season=two")).status_code == 400
        page = (await client.get("/seasons/1/benchmarks")).text
        assert 'id="ended"' in page and "season 1" in page and "75.0%" not in page
        assert 'id="grades"' in (await client.get("/seasons/1")).text


async def test_the_seasons_pages_show_times_people_read(tmp_path: Path) -> None:
    async with front_of(tmp_path, LEAGUE) as (service, client):
        await ended_season(service)
        for path in ("/seasons", "/seasons/1", "/bots/mine"):
            page = (await client.get(path)).text
            assert READABLE.search(page) and not ISO.search(page), path


async def test_people_read_per_bot_version_numbers_and_programs_read_named_ids(
    tmp_path: Path,
) -> None:
    async with front_of(tmp_path, LEAGUE) as (service, client):
        registry = service.league.registry
        token = registry.new_token("alice")
        playing(registry, "alice", "other", "o1")  # league-wide ids now differ from numbers
        author = registry.versions("other")[0].author
        first = registry.add_version(author, "mine", "m1", "python3 bot.py", None)
        second = playing(registry, "alice", "mine", "m2")
        registry.set_status(first.id, "checking")
        late = registry.set_status(first.id, "playing")  # the newer one plays already
        assert (late.status, late.reason) == ("superseded", "version 2 of mine plays")
        third = playing(registry, "alice", "mine", "m3")
        assert (second.id, third.id, third.number) == (3, 4, 3)
        assert registry.versions("mine")[1].reason == "version 3 plays"
        registry.append_log(second.id, "check", "it passed")

        answer = (await client.get("/api/bots/mine", headers=bearer(token))).json()
        assert [(row["version_id"], row["number"]) for row in answer["versions"]] == [
            (2, 1),
            (3, 2),
            (4, 3),
        ]
        assert all("version" not in row for row in answer["versions"])
        path = service.league.store_path  # a game of version 2, then version 3 in the store
        store_games(path, [(["mine", "other"], [1, 2])], {"mine": second.hash})
        with Store(path) as store:
            store.bot("mine", "mine", third.hash)
        await sign_in(client, token)
        page = (await client.get("/bots/mine")).text
        assert "<h3>Version 2: check</h3>" in page and "Version 3: check" not in page
        assert "<td>mine v2, other</td>" in page and "mine@" not in page


def label(name: str, elo: float, games: int = 8) -> dict[str, Any]:
    return {"bot": name, "elo": elo, "ci": 30, "games": games, "wins": 4, "losses": 4, "draws": 0}


async def test_the_leaderboard_ranks_bots_and_lists_their_older_versions_apart(
    tmp_path: Path,
) -> None:
    async with front_of(tmp_path, LEAGUE) as (service, client):
        registry = service.league.registry
        registry.new_token("alice")
        old = playing(registry, "alice", "mine", "0123456789abcdef")
        playing(registry, "alice", "mine", "fedcba9876543210")
        rows = [label("easy", 1600), label(f"mine@{old.hash[:7]}", 1550), label("mine", 1400)]
        service.board.board = Board(games=12, standings=rows)
        service.board.generation += 1

        page = (await client.get("/")).text
        board = page.split('id="leaderboard"')[1].split("</table>")[0]
        assert board.count("<tr><td") == 2 and "@" not in board  # two bots ranked, no hash
        assert '<td class="num">2</td><td><a href="/bots/mine">mine</a>' in board
        earlier = page.split('id="earlier"')[1].split("</table>")[0]
        assert '<a href="/bots/mine">mine</a></td><td class="num">1</td>' in earlier
        assert "Rank 2 of 2 on the leaderboard" in (await client.get("/bots/mine")).text


async def test_game_addresses_and_downloads_name_their_season(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with front_of(tmp_path, LEAGUE) as (service, client):
        await ended_season(service)
        store_games(service.league.store_path, [(["mine", "easy"], [1, 2])])
        rows = (await client.get("/api/bots/mine/games")).json()["games"]
        assert [(row["season"], row["record"]) for row in rows] == [
            (2, f"/seasons/2/games/{rows[0]['id']}/record.jsonl")
        ]
        old = (await client.get("/api/bots/mine/games?season=1&count=1")).json()["games"][0]
        assert old["season"] == 1 and old["record"].startswith("/seasons/1/games/")
        assert f'href="/seasons/2/games/{rows[0]["id"]}"' in (await client.get("/bots/mine")).text

    sent: dict[str, bytes] = {}
    monkeypatch.setattr(fetch, "send", lambda base, method, path, *a, **k: (200, sent[path]))

    def game(season: int, body: bytes) -> GameRow:
        record = f"/seasons/{season}/games/33/record.jsonl"
        sent[record] = body
        return GameRow(33, ["mine", "easy"], [1, 0], [1, 2], "win", [], record, {}, season)

    out = tmp_path / "out"
    fetch.download("http://league", None, [game(1, b"first")], out)
    fetch.download("http://league", None, [game(2, b"second")], out)  # game 33 again: no clash
    assert sorted(path.name for path in out.iterdir()) == [
        "season-1-game-33.jsonl",
        "season-2-game-33.jsonl",
    ]
    with pytest.raises(UsageError, match=r"exist already.*--force"):
        fetch.download("http://league", None, [game(1, b"again")], out)
    assert (out / "season-1-game-33.jsonl").read_bytes() == b"first"  # nothing written
    fetch.download("http://league", None, [game(1, b"again")], out, force=True)
    assert (out / "season-1-game-33.jsonl").read_bytes() == b"again"
    elsewhere = GameRow(34, ["mine", "easy"], [1, 0], [1, 2], "win", [], "http://x/34", {}, 1)
    with pytest.raises(ArenaError, match="not one of its games"):
        fetch.download("http://league", None, [elsewhere], out)


def test_a_published_report_is_titled_by_its_league_and_season_and_links_back(
    tmp_path: Path,
) -> None:
    store = tmp_path / "cup.season-1-final.sqlite"
    store_games(store, [(["mine", "easy"], [1, 2])])
    links = [("the league", "/"), ("season 1", "/seasons/1")]
    index = write_report(
        store, tmp_path / "report", workers=1, title="cup: season 1's final", links=links
    )
    found = re.search(r"const ARENA_DATA = (.*?);\n", index.read_text())
    assert found is not None
    data = json.loads(found[1])
    assert data["title"] == "cup: season 1's final" and data["links"] == [list(x) for x in links]
    assert "sqlite" not in data["title"]
