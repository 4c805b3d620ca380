"""The checks of new versions: several at once up to the league's concurrency, the authors
taking turns (a version uploaded behind another author's long queue is checked among the
first), one check's failure leaving the others going; and the season's tournament prepared
once, never again by a ladder round."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from leaguehelp import BOT
from leaguehelp import LEAGUE as BASE
from test_ladder import Changes, Quiet

from referee import Limits
from tournaments.executors.budget import Budget
from tournaments.league import season as season_module
from tournaments.league.check_queue import COULD_NOT_CHECK, CheckQueue
from tournaments.league.checks import check_version
from tournaments.league.files import League
from tournaments.league.ladder import Focus, Rounds
from tournaments.league.registry import Author, Version
from tournaments.league.season import OpenSeason
from tournaments.league.submissions import submit
from tournaments.play.runner import LogBudget
from tournaments.store.store import Store

LEAGUE = BASE.replace("concurrency = 1", "concurrency = 2").replace(
    'random = "random"\n', 'random = "random"\ngreedy = "greedy"\n'
)
SLEEP_S = 2.0
SLOW = f"import time\ntime.sleep({SLEEP_S})\n" + BOT
"""A bot that takes `SLEEP_S` to start (its check's handshake waits for it)."""

Check = Callable[[League, Limits, Version], Awaitable[Version]]


@pytest.fixture
def league(tmp_path: Path) -> Iterator[League]:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with League(file) as league:
        yield league


def author(league: League, name: str) -> Author:
    found = league.registry.author(name)
    if found is not None:
        return found
    made = league.registry.author_for(league.registry.new_token(name))
    assert made is not None
    return made


async def checked(league: League, season: OpenSeason) -> None:
    """Run the league's check queue until no version waits for its check."""
    changes = Changes()
    queue = CheckQueue(league, lambda: season.limits, Budget(2).share(first=True), changes.notify)
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(queue.run, changes)
            while league.registry.waiting():
                await trio.sleep(0.02)
            nursery.cancel_scope.cancel()


def queued(league: League, name: str, bot: str, count: int) -> list[Version]:
    """`count` versions of `bot` by `name` queued (files of their own never made: the check is
    the test's)."""
    who = author(league, name)
    return [
        league.registry.add_version(who.id, bot, f"{bot}-{n}", "python3 bot.py", None)
        for n in range(count)
    ]


async def test_two_slow_starting_bots_are_checked_at_once(
    league: League, monkeypatch: pytest.MonkeyPatch
) -> None:
    spans: dict[str, tuple[float, float]] = {}

    async def timed(league: League, limits: Limits, version: Version) -> Version:
        began = trio.current_time()
        try:
            return await check_version(league, limits, version)
        finally:
            spans[version.bot] = (began, trio.current_time())

    monkeypatch.setattr("tournaments.league.check_queue.check_version", timed)
    for name, bot in (("alice", "sleepy"), ("bob", "drowsy")):
        code = SLOW.format(pick=0, name=bot).encode()
        await submit(league, author(league, name), bot, "bot.py", code)
    with OpenSeason(league) as season:
        began = trio.current_time()
        await checked(league, season)
        took = trio.current_time() - began
    assert {v.bot: v.status for v in league.registry.versions()} == {
        "sleepy": "playing",
        "drowsy": "playing",
    }
    (a_start, a_end), (b_start, b_end) = spans.values()
    assert max(a_start, b_start) < min(a_end, b_end)  # the two checks overlapped
    assert min(a_end - a_start, b_end - b_start) >= SLEEP_S
    assert took < 0.75 * ((a_end - a_start) + (b_end - b_start))  # one at a time: their sum


def recording(order: list[str], failing: str = "") -> Check:
    """A check that notes which version it checks and rejects it (or raises, for `failing`)."""

    async def check(league: League, limits: Limits, version: Version) -> Version:
        order.append(f"{version.bot}-{version.number}")
        await trio.sleep(0.05)
        if version.bot == failing:
            raise RuntimeError("the league's own bug")
        return league.registry.set_status(version.id, "rejected", "checked by the test")

    return check


async def test_an_authors_one_version_is_checked_among_the_first_behind_anothers_ten(
    league: League, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    monkeypatch.setattr("tournaments.league.check_queue.check_version", recording(order))
    many = queued(league, "alice", "many", 10)
    (late,) = queued(league, "bob", "late", 1)
    # the first two checks at once: alice's oldest, and bob's (not alice's next nine)
    queue = CheckQueue(league, lambda: Limits(), Budget(2).share(first=True), lambda: None)
    assert queue.next() == [many[0], late]
    with OpenSeason(league) as season:
        await checked(league, season)
    assert sorted(order) == sorted([*(f"many-{n}" for n in range(1, 11)), "late-1"])
    assert "late-1" in order[: league.tournament.workers + 1]


def test_a_version_uploaded_behind_a_class_of_first_uploads_is_checked_among_the_first(
    league: League,
) -> None:
    students = [queued(league, f"student{n}", f"bot{n}", 1)[0] for n in range(20)]
    (late,) = queued(league, "late", "late", 1)
    queue = CheckQueue(league, lambda: Limits(), Budget(2).share(first=True), lambda: None)
    assert queue.next() == [students[0], late]  # the oldest, then the newest
    # (those two being checked) the next two, from both ends again
    assert queue.next() == [students[1], students[-1]]


async def test_a_check_that_raises_rejects_its_version_and_the_others_go_on(
    league: League, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    order: list[str] = []
    check = recording(order, failing="broken")
    monkeypatch.setattr("tournaments.league.check_queue.check_version", check)
    (broken,) = queued(league, "alice", "broken", 1)
    queued(league, "bob", "fine", 3)
    with OpenSeason(league) as season:
        await checked(league, season)
    assert len(order) == 4
    failed = league.registry.version(broken.id)
    assert failed is not None and (failed.status, failed.reason) == ("rejected", COULD_NOT_CHECK)
    assert [v.reason for v in league.registry.versions("fine")] == ["checked by the test"] * 3
    assert "the league's own bug" in capsys.readouterr().err  # the organiser's log says why


def counted(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[tuple[Any, ...]]:
    """The arguments of every call of `owner.name` from now on (it still does its work)."""
    calls: list[tuple[Any, ...]] = []
    real = getattr(owner, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append((*args, *kwargs.values()))
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_ladder_rounds_play_on_the_season_prepared_once(
    league: League, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = counted(monkeypatch, season_module, "opened")
    bound = counted(monkeypatch, Store, "bind")
    registered = counted(monkeypatch, Store, "bot")
    (version,) = queued(league, "alice", "fresh", 1)
    changes = Changes()
    with OpenSeason(league) as season:
        rounds = Rounds(season, Quiet(), Focus(), changes, LogBudget(1 << 20, {}))
        units = rounds.units()
        runners = {id(rounds.runner_of(next(units)))}
        for round_ in range(4):
            if round_ == 2:  # a version checked: the next round registers it, once
                league.registry.set_identity(version.id, "fresh-identity")
                league.registry.set_status(version.id, "checking")
                league.registry.set_status(version.id, "playing")
            changes.notify()  # the round in hand ends: the next is planned
            work = next(units)
            runners.add(id(rounds.runner_of(work)))
        players = rounds.runner_of(work).players.values()
    assert len(runners) == 5  # five rounds planned...
    assert len(opened) == 1 and len(bound) == 1  # ...on one preparation of the season
    assert sorted(call[1] for call in registered) == ["fresh", "greedy", "random"]  # once each
    assert {player.entrant.name for player in players} == {"random", "greedy", "fresh"}
