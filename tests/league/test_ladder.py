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
from tournaments.executors.work import GameUnplayed, Result, UnitWork
from tournaments.league.files import League
from tournaments.league.ladder import Focus, Rounds
from tournaments.league.season import OpenSeason
from tournaments.play.runner import LogBudget, Refused, Voided
from tournaments.store.results import FinishedGame
from tournaments.store.store import Store

IDS = {"a": 1, "b": 2, "c": 3}
"""The store ids of the labels of the hand-made games."""


def test_a_bot_without_games_comes_first_and_plays_from_deal_zero() -> None:
    focus = Focus([finished(["a", "b"], [1, 2]) for _ in range(3)], IDS)
    assert focus.choose({1: "a", 2: "b", 4: "new"}, batch=4) == (4, 4)


def test_then_the_least_certain_bot_up_to_batch_deals_beyond_its_last() -> None:
    games = [finished(["a", "b"], [1, 2]), finished(["a", "c"], [1, 2])]
    games += [msgspec.structs.replace(finished(["a", "b"], [2, 1]), deal=k) for k in range(6)]
    focus = Focus(games, IDS)
    # c has played once, a and b often: c's rating is the least certain
    assert focus.choose({1: "a", 2: "b", 3: "c"}, batch=2) == (3, 0 + 1 + 2)
    # a new version of b (a new store id, though it takes over the label "b") is not placed:
    # it comes first, from deal zero
    assert focus.choose({1: "a", 5: "b"}, batch=2) == (5, 2)
    assert focus.choose({1: "a", 2: "b"}, batch=2)[1] == 5 + 1 + 2


def test_a_game_stored_after_a_new_version_took_its_label_counts_for_the_old_one() -> None:
    focus = Focus()
    focus.add(finished(["a", "b"], [1, 2]), IDS)  # b's version 2 plays
    focus.add(finished(["b", "a"], [1, 2]), {"a": 1, "b": 5})  # b's version 5 now
    focus.add(finished(["a", "b"], [2, 1]), IDS)  # a game of version 2's round, stored late
    assert focus.played == {1: 3, 2: 2, 5: 1}
    assert focus.ratings.sigma("5") > focus.ratings.sigma("2")


def test_games_noted_as_they_are_stored_count_as_the_stores_do() -> None:
    games = [msgspec.structs.replace(finished(["a", "b"], [1, 2]), deal=k) for k in range(5)]
    noted = Focus(games[:2], IDS)
    for game in games[2:]:
        noted.add(game, IDS)
    whole = Focus(games, IDS)
    assert noted.played == whole.played and noted.top == whole.top
    assert noted.ratings.sigma("1") == whole.ratings.sigma("1") < Focus().ratings.sigma("1")


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
    with League(file) as league, OpenSeason(league) as season:
        rounds = Rounds(season, Quiet(), Focus(), trio.Event, LogBudget(1 << 20, {}))  # no change

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


def test_a_change_ends_the_round_and_its_units_in_hand(tmp_path: Path) -> None:
    file = tmp_path / "trio.toml"
    file.write_text(MULTI)
    changes = Changes()
    with League(file) as league, OpenSeason(league) as season:
        rounds = Rounds(season, Quiet(), Focus(), changes, LogBudget(1 << 20, {}))
        units = rounds.units()
        first = next(units)
        same = next(units)  # no change: the round goes on (3 seat-sets × 3 rotations of "a")
        assert rounds.runner_of(same) is rounds.runner_of(first)
        assert rounds.ends(same) is rounds.ends(first) and not rounds.ends(first).is_set()
        changes.notify()  # a version uploaded: the units in hand end after their game in play
        assert rounds.ends(first).is_set() and rounds.ends(same).is_set()
        third = next(units)  # and a new round is planned now
    assert rounds.runner_of(third) is not rounds.runner_of(first)
    assert not rounds.ends(third).is_set()
    # the new round (about "a" again: nothing is placed yet) plays its first lap, deal 0 in
    # every rotation of every seat-set, but what was handed out before
    assert [deal.deal for deal in third.deals] == [0]
    assert (third.tag, third.rotation) not in {(u.tag, u.rotation) for u in (first, same)}
    assert len(rounds.claimed) == 3
    # a unit ended before its game comes back unplayed: its game is free for a later round
    rounds.deliver(first, GameUnplayed(0, first.rotation))
    assert len(rounds.claimed) == 2 and (first.tag, 0, first.rotation) not in rounds.claimed


PAIRS = MULTI.replace("players = 3", "players = 2").replace("batch = 1\n", "batch = 64\n")


def test_a_new_bots_round_meets_every_opponent_from_every_seat_before_any_deal_twice(
    tmp_path: Path,
) -> None:
    file = tmp_path / "pairs.toml"
    file.write_text(PAIRS)
    with League(file) as league, OpenSeason(league) as season:
        rounds = Rounds(season, Quiet(), Focus(), Changes(), LogBudget(1 << 20, {}))
        units = rounds.units()
        handed = [next(units) for _ in range(30)]
    assert len({id(rounds.runner_of(work)) for work in handed}) == 1  # all of a's first round
    pairs = {(work.tag, work.rotation) for work in handed}
    assert len(pairs) == 3 * 2  # a against b, c and d, from each seat
    # laps over every seat-set in every rotation: deal 0, deal 1, deals 2-3, deals 4-7, ...
    for lap, deals in enumerate([[0], [1], [2, 3], [4, 5, 6, 7]]):
        laps = handed[6 * lap : 6 * lap + 6]
        assert {(work.tag, work.rotation) for work in laps} == pairs
        assert all([deal.deal for deal in work.deals] == deals for work in laps)
    # ... then each seat-set's other deals up to batch in every rotation, on one set of bots
    rest = handed[24:]
    assert {(work.tag, work.rotation) for work in rest} == pairs
    assert all([deal.deal for deal in work.deals] == list(range(8, 64)) for work in rest)


class Changes:
    """The service's change events: `notify` sets the current one and makes the next."""

    def __init__(self) -> None:
        self.event = trio.Event()

    def __call__(self) -> trio.Event:
        return self.event

    def notify(self) -> None:
        self.event.set()
        self.event = trio.Event()


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

    def on_refused(self, refused: Refused) -> None:
        raise AssertionError(refused)
