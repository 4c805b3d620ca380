"""The ladder's choice of the next round: an unplaced version first, else the bot whose rating
is least certain, from what it noted of every stored game (not a pass over the store)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from tourhelp_league import finished

from tournaments.executors.choose import executor_for
from tournaments.league.ladder import Focus, play_round
from tournaments.league.league import League
from tournaments.results import FinishedGame
from tournaments.runner import Voided
from tournaments.store import Store


def test_a_bot_without_games_comes_first_and_plays_from_deal_zero() -> None:
    focus = Focus([finished(["a", "b"], [1, 2]) for _ in range(3)])
    assert focus.choose({"a": "a", "b": "b", "new": "new"}, batch=4) == ("new", 4)


def test_then_the_least_certain_bot_up_to_batch_deals_beyond_its_last() -> None:
    games = [finished(["a", "b"], [1, 2]), finished(["a", "c"], [1, 2])]
    games += [msgspec.structs.replace(finished(["a", "b"], [2, 1]), deal=k) for k in range(6)]
    focus = Focus(games)
    # c has played once, a and b often: c's rating is the least certain
    assert focus.choose({"a": "a", "b": "b", "c": "c"}, batch=2) == ("c", 0 + 1 + 2)
    # a version not yet placed (no games under its label) comes first, by its bot's name
    assert focus.choose({"a": "a", "b@1234567": "b"}, batch=2) == ("b", 2)
    assert focus.choose({"a": "a", "b": "b"}, batch=2)[1] == 5 + 1 + 2


def test_games_noted_as_they_are_stored_count_as_the_stores_do() -> None:
    games = [msgspec.structs.replace(finished(["a", "b"], [1, 2]), deal=k) for k in range(5)]
    noted = Focus(games[:2])
    for game in games[2:]:
        noted.add(game)
    whole = Focus(games)
    assert noted.played == whole.played and noted.top == whole.top
    assert noted.ratings.sigma("a") == whole.ratings.sigma("a") < Focus([]).ratings.sigma("a")


MULTI = """
game = "azul"
players = 3
concurrency = 2
executor = "inprocess"
sandbox = "none"

[participants]
a = "random"
b = "random"
c = "random"
d = "random"

[league]
batch = 1
"""


@pytest.mark.slow
async def test_rounds_of_a_three_player_league_play_every_rotation_of_each_new_deal(
    tmp_path: Path,
) -> None:
    file = tmp_path / "trio.toml"
    file.write_text(MULTI)
    with League(file) as league:
        focus = Focus([])
        executor = executor_for(league.tournament)
        async with executor.kept():
            assert await play_round(league, Quiet(), focus, executor)
            first = stored(league)
            # about "a" (none placed yet: the first by name): its 3 seat-sets, deal 0, every
            # rotation of each
            assert all("a" in bots and len(bots) == 3 for bots, _, _ in first)
            assert sorted(deal for _, deal, _ in first) == [0] * 9
            assert len(set(first)) == 9
            assert await play_round(league, Quiet(), focus, executor)
            new = set(stored(league)) - set(first)
        (about,) = set.intersection(*(set(bots) for bots, _, _ in new))
        assert about != "a"  # a is the most certain now: it played 9 games, the others 6
        # every seat-set holding it has every deal up to batch beyond its own, in every
        # rotation: deal 0 of the seat-set without "a" is new to it too
        theirs = [game for game in stored(league) if about in game[0]]
        seat_sets = {frozenset(bots) for bots, _, _ in theirs}
        assert len(seat_sets) == 3
        for seat_set in seat_sets:
            games = [(deal, rotation) for bots, deal, rotation in theirs if set(bots) == seat_set]
            assert sorted(games) == [(d, r) for d in (0, 1) for r in range(3)]
        assert focus.played[about] == 18 and focus.top[about] == 1


def stored(league: League) -> list[tuple[tuple[str, ...], int, int]]:
    if not league.store_path.exists():
        return []
    with Store(league.store_path, readonly=True) as store:
        return [(game.bots, game.deal, game.rotation) for game in store.games()]


class Quiet:
    def on_start(self, total: int, stored: int) -> None: ...

    def on_game(self, game: FinishedGame) -> None: ...

    def on_void(self, voided: Voided) -> None:
        raise AssertionError(voided)

    def on_probation(self, label: str, fault: str) -> None: ...
