"""`arena rerun`: a bot run again on its seat record reproduces the game — its fault at the
same decision, or every answer — and another bot is shown where it first answers otherwise."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import httpx2 as httpx
import pytest
import trio

from protocol.messages import TimeControl
from referee import Limits, run_match
from tournaments.cli import main
from tournaments.league.files import League
from tournaments.league.ladder import run_ladder
from tournaments.league.season import OpenSeason
from tournaments.league.service import LeagueService
from tournaments.plan.botcommands import parse_bot
from tournaments.report.public import public_record
from tournaments.report.steps import with_observations
from tournaments.server.app import make_app
from tournaments.store.store import Store

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"

[participants]
house = "random"

[league]
benchmarks = ["house"]
"""

CRASH = b"""import sys
from bots.sdk import run
decisions = 0
def act(observation, legal, context):
    global decisions
    decisions += 1
    if decisions == 3:
        sys.stderr.write("broke on my third decision\\n")
        sys.exit(3)
    return len(legal) - 1
run(act, name="mine")
"""
"""Answers its last legal action twice, then crashes on its third decision."""


async def fetched_seat_record(tmp_path: Path) -> tuple[bytes, bytes, int]:
    """alice's crashing bot plays one ladder game of an in-process league (its check skipped:
    it would be rejected); its seat record as `arena fetch --faulted --out` downloads it with
    her token, the game's public record, and the fault's decision."""
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with League(file) as league:
        service = LeagueService(league)
        alice = league.registry.new_token("alice")
        transport = httpx.ASGITransport(app=make_app(service))
        async with httpx.AsyncClient(transport=transport, base_url="http://league") as client:
            headers = {"Authorization": f"Bearer {alice}"}
            answer = await client.post(
                "/api/versions",
                data={"name": "mine"},
                files={"file": ("bot.py", CRASH)},
                headers=headers,
            )
            assert answer.status_code == 201, answer.text
            for status in ("checking", "playing"):
                league.registry.set_status(answer.json()["version_id"], status)
            with trio.fail_after(300), OpenSeason(league) as season:  # a hung ladder
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(run_ladder, season, service, service.changes)
                    while not league.store_path.exists() or not stored(league.store_path):
                        await trio.sleep(0.05)
                    nursery.cancel_scope.cancel()
            games = await client.get("/api/bots/mine/games?faulted=true", headers=headers)
            row = games.json()["games"][0]
            [(seat, address)] = row["observations"].items()
            [fault] = [f for f in row["faults"] if f["seat"] == int(seat)]
            seat_record = await client.get(address, headers=headers)
            public = await client.get(row["record"])
            return seat_record.content, public.content, fault["decision"]


def stored(path: Path) -> bool:
    with Store(path, readonly=True) as store:
        return bool(store.games_as_stored())


def test_a_fetched_seat_record_reproduces_the_fault_it_was_fetched_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seat_record, public, decision = trio.run(fetched_seat_record, tmp_path)
    lines = [json.loads(line) for line in seat_record.splitlines()]
    header = lines[0]
    [start] = header["starts"]  # its own `start` (its seed), and no other seat's
    seat = start["seat"]
    assert header["names"][seat] == "mine" and start["type"] == "start"
    assert json.loads(public.splitlines()[0])["starts"] == []  # no seed for anyone else
    [fault] = [line for line in lines if line["type"] == "fault"]
    assert fault["decision"] == decision == 1 + seat + 2 * 2  # its third decision
    assert fault["legal"] and fault["observation"]["seat"] == seat  # the request it crashed on

    path = tmp_path / "game-seat.jsonl"
    path.write_bytes(seat_record)
    bot = tmp_path / "bot.py"
    bot.write_bytes(CRASH)
    run = functools.partial(rerun, capsys, path)
    code, out, _ = run(f"{sys.executable} {bot}", "--sandbox", "none")
    assert code == 3
    assert f"reproduced: after the same 2 answers, it faulted at decision {decision}" in out
    assert "broke on my third decision" in out  # its stderr, in the crash's reason
    healthy = tmp_path / "healthy.py"
    healthy.write_bytes(CRASH.replace(b"decisions == 3", b"decisions == 0"))
    code, out, _ = run(f"{sys.executable} {healthy}", "--sandbox", "none")
    assert code == 1
    assert f"DIVERGES at decision {decision}, after the same 2 of 2 recorded answers" in out
    assert "did not fault where the recorded bot did (crash" in out


def rerun(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """`arena rerun ARGS` in this process (a process of its own costs seconds of imports)."""
    code = main(["rerun", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_seeded_bot_reproduces_every_answer_and_another_bot_diverges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The built-in random bot draws from its `start`'s seed: it answers as recorded only if
    the seat record gives it back."""
    specs = [parse_bot("random"), parse_bot("greedy")]
    limits = Limits(sandbox="none", log_dir=str(tmp_path))
    time = TimeControl(move_ms=60_000, startup_ms=60_000)  # no verdict of a loaded machine

    async def play() -> bytes:
        outcome = await run_match("azul", {}, 8, specs, time, limits=limits, bot_seeds=[5, 6])
        return outcome.record

    record = trio.run(play)
    path = tmp_path / "seat0.jsonl"
    path.write_bytes(with_observations(public_record(record, [0]), [0]))
    answers = sum(1 for line in record.splitlines() if b'"actions":{"0"' in line)
    code, out, _ = rerun(capsys, path, "random", "--sandbox", "none")
    assert (code, out.strip()) == (
        0,
        f"seat 0: the same {answers} answers as the recorded bot, and no fault",
    )
    code, out, _ = rerun(capsys, path, "greedy", "--sandbox", "none", "--json")
    report = json.loads(out)
    assert (code, report["verdict"], report["seat"]) == (1, "diverges", 0)
    assert report["decision"] in range(1, 2 * answers, 2) and report["answered"] < answers
    assert f"answered decision {report['decision']} with" in report["divergence"]

    header, rest = path.read_bytes().split(b"\n", 1)
    reseeded = json.loads(header)
    reseeded["starts"][0]["seed"] += 1
    other = tmp_path / "reseeded.jsonl"
    other.write_bytes(json.dumps(reseeded).encode() + b"\n" + rest)
    code, out, _ = rerun(capsys, other, "random", "--sandbox", "none")
    assert code == 1 and "seat 0: DIVERGES at decision" in out
    public = tmp_path / "public.jsonl"
    public.write_bytes(public_record(record))
    code, _, err = rerun(capsys, public, "random", "--sandbox", "none")
    assert code == 1 and "holds no seat's `start`" in err
