"""The ladder's rounds: what `Focus` notes of every stored game (not a pass over the store),
and the rounds' units as the executor plays them (the spread of the choice over many bots is
in test_ladder_spread.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import msgspec
import numpy as np
import pytest
import trio
from leaguehelp import finished

from tournaments.bench.synthetic import synthetic_store
from tournaments.executors.local import Local
from tournaments.executors.work import GameUnplayed, Result, UnitWork
from tournaments.league import ladder, pairing
from tournaments.league.files import League
from tournaments.league.ladder import Focus, Rounds
from tournaments.league.pairing import UNIT_S, Pick, SeatSet
from tournaments.league.season import OpenSeason
from tournaments.play.runner import LogBudget, Refused, Voided
from tournaments.store.results import FinishedGame
from tournaments.store.store import Store

IDS = {"a": 1, "b": 2, "c": 3}
"""The store ids of the labels of the hand-made games."""


def test_a_bot_without_games_comes_first_and_plays_from_deal_zero() -> None:
    focus = Focus([finished(["a", "b"], [1, 2]) for _ in range(3)], IDS)
    (seat_set, deals), *_ = focus.choose({1: "a", 2: "b", 4: "new"}, players=2, batch=4)
    assert 4 in seat_set and deals == range(1)


def test_a_seat_sets_next_block_is_as_many_deals_again_up_to_batch() -> None:
    games = [msgspec.structs.replace(finished(["a", "b"], [2, 1]), deal=k) for k in range(6)]
    focus = Focus(games, IDS)
    rows = focus.seat_sets
    assert rows.table(rows.next) == {(1, 2): 6} and focus.games == {1: 12, 2: 12}
    assert (
        rows.table(rows.low) == {}
    )  # one rotation of each deal stored: the others are still to play
    # a round of two bots is two picks of their one pair: the first plays the missing
    # rotations and `batch` more deals, the second `batch` more
    round = list(focus.choose({1: "a", 2: "b"}, players=2, batch=4))
    assert round == [((1, 2), range(0, 10)), ((1, 2), range(10, 14))]
    # with a larger batch, as many deals again as are planned
    assert next(focus.choose({1: "a", 2: "b"}, players=2, batch=64)) == ((1, 2), range(14, 28))
    # a new version of b (a new store id, though it takes over the label "b") is not placed:
    # it comes first, from deal zero
    assert next(focus.choose({1: "a", 5: "b"}, players=2, batch=64)) == ((1, 5), range(1))


def test_a_unit_plays_at_most_what_its_games_take_in_unit_s() -> None:
    slow = msgspec.structs.replace(finished(["a", "b"], [2, 1]).played, wall_ms=4000.0)
    games = [
        msgspec.structs.replace(finished(["a", "b"], [2, 1]), deal=k, rotation=r, played=slow)
        for k in range(64)
        for r in range(2)
    ]
    focus = Focus(games, IDS)
    assert focus.block((1, 2), batch=1024) == range(64, 64 + int(UNIT_S / 4))
    # a seat-set with no game stored yet is timed by all the games
    row = focus.seat_sets.row((1, 3))
    focus.seat_sets.next[row] = 64
    assert focus.block((1, 3), batch=2) == range(64, 66)
    assert len(focus.block((1, 3), batch=1024)) == int(UNIT_S / 4)


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
    assert noted.played == whole.played and kept(noted, "next") == kept(whole, "next")
    assert noted.games == whole.games and kept(noted, "low") == kept(whole, "low")
    assert noted.ratings.sigma("1") == whole.ratings.sigma("1") < Focus().ratings.sigma("1")


def kept(focus: Focus, column: str) -> dict[SeatSet, object]:
    """`focus`'s `column` of its seat-sets, by seat-set."""
    return focus.seat_sets.table(getattr(focus.seat_sets, column))


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
    handed: list[tuple[int, frozenset[str], int, int]] = []  # the round (its runner), game
    delivered: list[tuple[frozenset[str], int, int]] = []
    with League(file) as league, OpenSeason(league) as season:
        rounds = Rounds(season, Quiet(), Focus(), trio.Event, LogBudget(1 << 20, {}))  # no change

        def units() -> Iterator[UnitWork]:
            for work in rounds.units():
                bots = frozenset(seat.spec.name for seat in work.seats)
                runner = id(rounds.runner_of(work))
                handed.extend((runner, bots, deal.deal, work.rotation) for deal in work.deals)
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
    # the first round places a, then d (which had no game yet), then goes on over the pairs
    # never met: every seat-set of the four bots, deal 0, in every rotation
    first = handed[:12]
    assert {game[0] for game in first} == {handed[0][0]}
    assert {bots for _, bots, _, _ in first} == {frozenset("abcd") - {bot} for bot in "abcd"}
    assert sorted(game[2:] for game in first) == sorted((0, r) for r in range(3) for _ in "abcd")
    # the next rounds play each seat-set's next deals in laps, every rotation of each deal
    for bots in {bots for _, bots, _, _ in handed}:
        games = [(deal, rotation) for _, seat_set, deal, rotation in handed if seat_set == bots]
        deals = {deal for deal, _ in games}
        assert deals == set(range(max(deals) + 1))
        complete = [deal for deal in deals if {r for d, r in games if d == deal} == {0, 1, 2}]
        assert len(complete) >= len(deals) - 2  # the last blocks may be in hand when cancelled


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
        then = [next(units) for _ in range(3)]
    assert rounds.runner_of(third) is not rounds.runner_of(first)
    assert not rounds.ends(third).is_set()
    # the new round places first the bot with no game yet (d: the ended round planned no other
    # seat-set), deal 0 in every rotation; then plays what the ended one did not hand out: deal
    # 0 of the first seat-set, in the rotation not in hand
    placing, again = [third, *then[:2]], then[2]
    assert all("d" in {seat.spec.name for seat in work.seats} for work in placing)
    assert sorted(work.rotation for work in placing) == [0, 1, 2]
    assert [deal.deal for deal in again.deals] == [0] and again.tag == first.tag == same.tag
    assert again.rotation not in (first.rotation, same.rotation)
    assert len(rounds.claimed) == 6

    # a unit ended before its game comes back unplayed: its game is free for a later round
    rounds.deliver(first, GameUnplayed(0, first.rotation))
    assert len(rounds.claimed) == 5 and (first.tag, 0, first.rotation) not in rounds.claimed


PAIRS = MULTI.replace("players = 3", "players = 2").replace("batch = 1\n", "batch = 64\n")


def test_a_new_bots_round_meets_every_opponent_from_every_seat_before_any_deal_twice(
    tmp_path: Path,
) -> None:
    file = tmp_path / "pairs.toml"
    file.write_text(PAIRS)
    with League(file) as league, OpenSeason(league) as season:
        rounds = Rounds(season, Quiet(), Focus(), Changes(), LogBudget(1 << 20, {}))
        units = rounds.units()
        handed = [next(units) for _ in range(48)]
    # the first round: each bot meets two others, deal 0, from each seat
    assert [len(work.deals) for work in handed[:8]] == [1] * 8
    # every bot meets every opponent from every seat before any deal is repeated
    seen: dict[str, set[tuple[str, int]]] = {}
    for work in handed:
        deal = work.deals[0].deal
        for seat in work.seats:
            if deal > 0:
                assert len(seen[seat.spec.name]) == 3 * 2
            else:
                seen.setdefault(seat.spec.name, set()).add((work.tag, work.rotation))
    # each pair's deals in laps, in both rotations: deal 0, deal 1, deals 2-3, 4-7, 8-15, ...
    for tag in {work.tag for work in handed}:
        blocks = [[deal.deal for deal in work.deals] for work in handed if work.tag == tag]
        laps = [[0], [1], [2, 3], [4, 5, 6, 7], list(range(8, 16)), list(range(16, 32))]
        assert blocks == [lap for lap in laps for _ in range(2)][: len(blocks)]
        assert len(blocks) >= 8


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


def test_the_ladder_notes_its_store_a_slice_at_a_time_as_focus_notes_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the ladder notes of the store when it starts equals a `Focus` of every game at
    once, and the server's other tasks run between its slices (it holds the thread a slice
    at a time)."""
    monkeypatch.setattr(ladder, "NOTED_SLICE", 64)
    synthetic_store(tmp_path / "cup.sqlite", ["house", "a", "b", "c"], 500)
    file = tmp_path / "cup.toml"
    file.write_text('game = "azul"\nsandbox = "none"\n[participants]\nhouse = "random"\n[league]\n')
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await trio.sleep(0)

    async def note(league: League) -> Focus:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(tick)
            focus, _ = await ladder.noted(league)
            nursery.cancel_scope.cancel()
        return focus

    with League(file) as league:
        focus = trio.run(note, league)
    with Store(tmp_path / "cup.sqlite", readonly=True) as store:
        ids = {label: bot for bot, label in store.labels().items()}
        whole = Focus([game for _, game in store.games_as_stored()], ids)
    assert ticks >= 500 // 64
    for each in ("played", "games", "holes", "scores", "wall_ms", "timed"):
        assert getattr(focus, each) == getattr(whole, each), each
    for column in ("next", "low", "wall_ms", "timed"):
        assert kept(focus, column) == kept(whole, column), column
    assert kept(focus, "next") and all(
        focus.ratings.sigma(str(b)) == whole.ratings.sigma(str(b)) for b in ids.values()
    )


def test_focus_keeps_a_seat_set_in_a_bounded_number_of_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its columns take a few bytes a seat-set; a round's pairs are counted over them a chunk
    at a time (five chunks here)."""
    monkeypatch.setattr(pairing, "CHUNK", 1000)
    focus = Focus()
    rows = focus.seat_sets
    pairs = list(itertools.combinations(range(1, 91), 2))  # 4005 seat-sets
    met = np.zeros((90, 90))
    for n, (first, second) in enumerate(pairs):
        row = rows.row((first, second))  # first: it may grow the columns
        rows.next[row] = met[first - 1, second - 1] = n % 7 + 1
    row = rows.row((1, 99))
    rows.next[row] = 5  # not playing: not counted
    assert rows.size == len(pairs) + 1 and [rows.find(pair) for pair in pairs] == list(range(4005))
    assert rows.find((2, 99)) == -1
    # columns of a few bytes a row, room to grow included: not a dict entry and tuple a row
    assert rows.nbytes() / rows.size <= 56
    pick = Pick(focus, {bot: f"bot{bot:02}" for bot in range(1, 91)}, {}, ())
    assert (pick.met == met + met.T).all()
