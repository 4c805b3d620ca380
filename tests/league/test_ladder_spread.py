"""The ladder spreads its games: every bot plays at once, meets many opponents, no pair soaks
up the games, and the benchmarks get the games a grade needs first. The choice is driven over
simulated results for 200 bots (the referee would take minutes), and a small league plays its
rounds on the in-process executor."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path

import msgspec
import pytest
import trio
from leaguehelp import finished
from test_ladder import Quiet, stored

from tournaments.executors.inprocess import InProcess
from tournaments.executors.work import Delivered, UnitWork
from tournaments.league.files import League
from tournaments.league.ladder import Focus, Rounds
from tournaments.league.pairing import SeatSet, Table
from tournaments.league.season import OpenSeason
from tournaments.plan.schedule import seating
from tournaments.play.runner import LogBudget

Played = Counter[tuple[SeatSet, int, int]]
"""Each game played: (seat-set, deal, rotation) → times."""


class Simulated:
    """A ladder whose games end as the bots' strengths and some luck say, at once."""

    def __init__(self, strengths: Mapping[str, float], focus: Focus, seed: int = 1) -> None:
        self.names = {bot: name for bot, name in enumerate(strengths, start=1)}
        self.ids = {name: bot for bot, name in self.names.items()}
        self.strengths, self.focus = strengths, focus
        self.rng = random.Random(seed)
        self.played: Played = Counter()
        self.order: list[tuple[str, ...]] = []
        """The seats of each game, in the order played."""

    def round(
        self,
        players: int,
        batch: int,
        benchmarks: Mapping[str, Sequence[float]] = {},
        house: Collection[str] = (),
    ) -> list[Table]:
        tables = list(self.focus.choose(self.names, players, batch, benchmarks, house))
        for seat_set, deals in tables:
            for deal, rotation in itertools.product(deals, range(len(seat_set))):
                self.play(seat_set, deal, rotation)
        return tables

    def play(self, seat_set: SeatSet, deal: int, rotation: int) -> None:
        seats = [self.names[bot] for bot in seating(seat_set, rotation)]
        luck = [self.strengths[name] + self.rng.gauss(0, 1) for name in seats]
        ranks = [1 + sum(other > mine for other in luck) for mine in luck]
        game = msgspec.structs.replace(finished(seats, ranks), deal=deal, rotation=rotation)
        self.focus.add(game, self.ids)
        self.played[seat_set, deal, rotation] += 1
        self.order.append(tuple(seats))

    def pairs(self) -> Counter[frozenset[str]]:
        """The games of each pair of bots that met."""
        return Counter(
            frozenset(pair) for seats in self.order for pair in itertools.combinations(seats, 2)
        )


@pytest.mark.parametrize("players", [2, 4])
def test_two_hundred_bots_all_play_at_once_and_meet_many_without_a_pair_soaking_it_up(
    players: int,
) -> None:
    bots = 200
    rng = random.Random(players)
    ladder = Simulated({f"bot{n:03}": rng.gauss(0, 1) for n in range(bots)}, Focus())
    first = ladder.round(players, batch=1024)
    # the first round holds every bot: each plays within its first lap of one-deal units
    assert {bot for seat_set, _ in first for bot in seat_set} == set(ladder.names)
    assert all(len(deals) == 1 for _, deals in first)
    while len(ladder.order) < 10 * bots:
        ladder.round(players, batch=1024)
    pairs = ladder.pairs()
    met = Counter(bot for pair in pairs for bot in pair)
    assert len(met) == bots and min(met.values()) >= 8
    assert max(pairs.values()) <= 0.02 * len(ladder.order)
    # no game twice, and each seat-set's deals from 0 on, every one in every rotation
    assert set(ladder.played.values()) == {1}
    for seat_set, deals in _deals(ladder.played).items():
        assert deals == set(range(len(deals)))
        assert sum(1 for key in ladder.played if key[0] == seat_set) == len(deals) * players


def _deals(played: Played) -> dict[SeatSet, set[int]]:
    found: dict[SeatSet, set[int]] = {}
    for seat_set, deal, _ in played:
        found.setdefault(seat_set, set()).add(deal)
    return found


STUDENTS = {"s1": -0.5, "s2": 0.2, "s3": 1.0, "s4": 1.6, "s5": 0.8}
GRADES = {"easy": [75.0], "hard": [50.0]}
"""The benchmarks' thresholds: a score of 75% against easy, of 50% against hard."""


def test_benchmarks_get_the_games_a_grade_needs_before_other_pairs_are_repeated() -> None:
    strengths = {"house": 0.5, "easy": 0.0, "hard": 1.0, **STUDENTS}
    ladder = Simulated(strengths, Focus(benchmarks=GRADES), seed=2)
    focus, ids = ladder.focus, ladder.ids
    graded = [(ids[bot], ids[mark]) for bot in STUDENTS for mark in GRADES]

    def undecided() -> list[tuple[int, int]]:
        return [pair for pair in graded if not focus.decided(*pair, GRADES[ladder.names[pair[1]]])]

    rounds = 0
    while undecided():
        ladder.round(2, batch=1024, benchmarks=GRADES, house={"house"})
        rounds += 1
        assert rounds < 40
    pairs = ladder.pairs()
    marked = sum(games for pair, games in pairs.items() if _graded(pair))
    others = {pair: games for pair, games in pairs.items() if not _graded(pair)}
    # every pair has met, and yet the grades' pairs hold most of the games: the others were
    # repeated only as the floor of games of every bot asked
    assert len(pairs) == 28
    assert marked >= 2 * sum(others.values())
    assert max(pairs.values()) >= 4 * max(others.values())
    # once every grade is decided, the pairs that met least get the games, the house's
    # too: not the most played pair (a student close to a threshold against a benchmark)
    most, _ = pairs.most_common(1)[0]
    for _ in range(2):
        ladder.round(2, batch=1024, benchmarks=GRADES, house={"house"})
    gained = ladder.pairs() - pairs
    assert most not in gained
    assert sum(games for pair, games in gained.items() if "house" in pair) > 0


def _graded(pair: frozenset[str]) -> bool:
    return bool(pair & set(GRADES)) and bool(pair & set(STUDENTS))


def test_a_game_handed_back_unplayed_is_played_first_by_the_next_round_of_its_bots() -> None:
    ladder = Simulated({name: 0.0 for name in "abcd"}, Focus())
    ladder.round(2, batch=8)  # a-b, c-d, a-c, b-d: deal 0
    ladder.focus.missed((1, 2), 0)  # a-b's deal 0 came back unplayed in one rotation
    without_b = {bot: name for bot, name in ladder.names.items() if bot != 2}
    assert (1, 2) not in {seat_set for seat_set, _ in ladder.focus.choose(without_b, 2, 8)}
    tables = list(ladder.focus.choose(ladder.names, 2, batch=8))
    assert tables[0] == ((1, 2), range(0, 1))
    assert all(deals.start >= 1 for seat_set, deals in tables[1:] if seat_set == (1, 2))


SMALL = """
game = "azul"
players = 2
concurrency = 2
sandbox = "none"

[participants]
{bots}

[league]
batch = 64
"""


async def test_a_league_on_the_in_process_executor_gives_every_bot_a_game_in_its_first_round(
    tmp_path: Path,
) -> None:
    names = [f"r{n}" for n in range(4)]
    file = tmp_path / "small.toml"
    file.write_text(SMALL.format(bots="\n".join(f'{name} = "random"' for name in names)))
    handed: list[tuple[frozenset[str], list[int]]] = []
    delivered: list[tuple[frozenset[str], int, int]] = []
    with League(file) as league, OpenSeason(league) as season:
        rounds = Rounds(season, Quiet(), Focus(), trio.Event, LogBudget(1 << 20, {}))

        def units() -> Iterator[UnitWork]:
            for work in rounds.units():
                handed.append((_bots(work), [deal.deal for deal in work.deals]))
                yield work

        def deliver(work: UnitWork, result: Delivered) -> None:
            delivered.append((_bots(work), result.deal, result.rotation))
            rounds.deliver(work, result)

        with trio.fail_after(120):  # the first round (never cancelled: its bots end cleanly)
            await InProcess(2).run(itertools.islice(units(), 8), deliver)
    assert len(stored(league)) == len(delivered) == len(set(delivered)) == 8
    # the first round, a lap of four one-deal pairs in both rotations: every bot plays, no
    # pair twice
    assert {bot for bots, _ in handed for bot in bots} == set(names)
    assert all(deals == [0] for _, deals in handed)
    assert len({bots for bots, _ in handed}) == 4


def _bots(work: UnitWork) -> frozenset[str]:
    return frozenset(seat.spec.name for seat in work.seats)
