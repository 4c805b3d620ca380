"""A season's final, its parts alone: when its order is settled, how many deals each round
adds, and that its last units are cut to its budget."""

from __future__ import annotations

from tourhelp_league import finished

from referee import Limits
from tournaments.executors.work import Deal, UnitWork
from tournaments.league.final import _within, next_deals, settled
from tournaments.rank.tables import standings


def test_the_order_is_settled_when_every_two_neighbours_are_told_apart() -> None:
    games = [finished(["a", "b"], [1, 2])] * 12 + [finished(["b", "c"], [1, 2])] * 12
    games += [finished(["a", "c"], [1, 2])] * 12
    rows = standings(games).records()
    assert [row["bot"] for row in rows] == ["a", "b", "c"] and settled(games, rows)
    close = games + [finished(["b", "a"], [1, 2])] * 9  # a and b: 12 to 9
    assert not settled(close, standings(close).records())
    apart = [finished(["a", "b"], [1, 2])] * 12 + [finished(["c", "d"], [1, 2])] * 12
    assert not settled(apart, standings(apart).records())  # neighbours that never met
    assert not settled([], [])


def test_rounds_double_the_deals_played_at_most_by_the_batch() -> None:
    assert [next_deals(played, 1024) for played in (0, 1, 2, 5, 1000)] == [1, 2, 4, 10, 2000]
    assert next_deals(5000, 1024) == 6024


def unit(deals: int) -> UnitWork:
    return UnitWork(
        game="azul",
        options={},
        seat_set=(1, 2),
        seats=[],
        rotation=0,
        deals=[Deal(deal, deal, [0, 0]) for deal in range(deals)],
        limits=Limits(),
        tag="1,2",
    )


def test_the_last_units_are_cut_to_the_budget_left() -> None:
    kept = list(_within(iter([unit(4), unit(4), unit(4)]), 6))
    assert [len(work.deals) for work in kept] == [4, 2]
    assert list(_within(iter([unit(4)]), 0)) == []
