"""The ladder's choice of the next round: an unplaced version first, else the bot whose rating
is least certain, from what it noted of every stored game (not a pass over the store)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
import trio
from tourhelp_league import finished

from tournaments.executors.local import Local
from tournaments.executors.work import Result, UnitWork
from tournaments.league.ladder import Focus, Rounds
from tournaments.league.league import League
from tournaments.results import FinishedGame
from tournaments.runner import LogBudget, Voided
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
async def test_rounds_of_a_three_player_league_play_every_rotation_of_each_new_deal_once(
    tmp_path: Path,
) -> None:
    file = tmp_path / "trio.toml"
    file.write_text(MULTI)
    handed: list[tuple[str | None, frozenset[str], int, int]] = []  # round's bot, game
    delivered: list[tuple[frozenset[str], int, int]] = []
    with League(file) as league:
        rounds = Rounds(league, Quiet(), Focus([]), trio.Event, LogBudget(1 << 20, {}))  # no change

        def units() -> Iterator[UnitWork]:
            for work in rounds.units():
                bots = frozenset(seat.spec.name for seat in work.seats)
                candidate = rounds.runner_of(work).tournament.candidate
                handed.extend((candidate, bots, deal.deal, work.rotation) for deal in work.deals)
                yield work

        def deliver(work: UnitWork, result: Result) -> None:
            bots = frozenset(seat.spec.name for seat in work.seats)
            delivered.append((bots, result.deal, result.rotation))
            rounds.deliver(work, result)

        executor = Local(2)  # two units at once, cancelled as the server's ladder is
        async with trio.open_nursery() as nursery:
            nursery.start_soon(executor.run, units(), deliver)
            with trio.fail_after(120):
                while len(delivered) < 40:
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
        rounds.close()
    assert len(delivered) >= 40
    # rounds overlap (the next is planned while the last units of one play), and yet no game
    # is played twice, and every game played is stored
    assert len(set(delivered)) == len(delivered)
    assert len(stored(league)) == len(delivered)
    assert len(rounds.claimed) <= 2 * 3  # what the two units in hand when cancelled held
    # the first round is about "a" (none placed yet: the first by name): its 3 seat-sets,
    # deal 0, every rotation of each
    first = [game for game in handed if game[0] == "a"][:9]
    assert handed[:9] == first
    assert sorted((deal, rotation) for _, _, deal, rotation in first) == sorted(
        (0, r) for r in range(3) for _ in range(3)
    )
    assert len({bots for _, bots, _, _ in first}) == 3 and all("a" in b for _, b, _, _ in first)
    # the next is about another bot ("a" is the most certain now: 9 games against 6), and
    # hands out every deal of its seat-sets up to batch beyond its own, in every rotation,
    # but those handed out before
    about = handed[9][0]
    assert about not in ("a", None)
    second = [game[1:] for game in handed[9:] if game[0] == about][:12]
    seat_sets = {bots for bots, _, _ in second}
    assert len(seat_sets) == 3 and all(about in bots for bots in seat_sets)
    before = {game[1:] for game in first}
    for bots in seat_sets:
        wanted = {(bots, d, r) for d in (0, 1) for r in range(3)} - before
        assert {game for game in second if game[0] == bots} == wanted


def test_a_change_ends_the_round_at_its_next_unit(tmp_path: Path) -> None:
    file = tmp_path / "trio.toml"
    file.write_text(MULTI)
    change = trio.Event()
    with League(file) as league:
        rounds = Rounds(league, Quiet(), Focus([]), lambda: change, LogBudget(1 << 20, {}))
        units = rounds.units()
        first = next(units)
        same = next(units)  # no change: the round goes on (3 seat-sets × 3 rotations of "a")
        assert rounds.runner_of(same) is rounds.runner_of(first)
        change.set()  # a version uploaded: a new round, planned now
        third = next(units)
        rounds.close()
    assert rounds.runner_of(third) is not rounds.runner_of(first)
    assert [deal.deal for deal in first.deals] == [0] and [d.deal for d in third.deals] == [1]
    # only what was handed out is claimed: the first round's other units are left to later ones
    assert len(rounds.claimed) == 3


def stored(league: League) -> list[tuple[tuple[str, ...], int, int]]:
    if not league.store_path.exists():
        return []
    with Store(league.store_path, readonly=True) as store:
        return [(game.bots, game.deal, game.rotation) for game in store.games()]


class Quiet:
    def on_game(self, game: FinishedGame) -> None: ...

    def on_void(self, voided: Voided) -> None:
        raise AssertionError(voided)

    def on_probation(self, label: str, fault: str) -> None: ...
