"""A season's final, its parts alone: when its order is settled, how many deals each round
adds, that its budget cuts whole deals (and it says so), and that its last units are cut to its
budget."""

from __future__ import annotations

import msgspec
from leaguehelp import finished

from referee import Limits
from tournaments.executors.work import Deal, UnitWork
from tournaments.league.final import (
    FinalProgress,
    _within,
    claim_of,
    next_deals,
    settled,
    whole_deals,
)
from tournaments.plan.config import Grade, LeagueSettings
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


def test_the_budget_cuts_whole_deals_of_every_seat_set_and_the_final_says_so() -> None:
    """5 bots, 2 players: 10 seat-sets in 2 rotations, 20 games a deal; 400 games hold 20
    whole deals, so the round after 16 plays 4 more, not the 32 that doubling asks."""
    assert whole_deals(16, 1024, 400, 20) == 20
    assert whole_deals(4, 1024, 400, 20) == 8
    assert whole_deals(0, 1024, 10, 20) == 1  # a budget smaller than a deal: what it holds

    def final(games: int, deals: int, settled: bool = False) -> FinalProgress:
        return FinalProgress(1, games, deals, 400, [], settled, per_deal=20)

    assert final(400, 20).cut and final(400, 20).over
    assert not final(320, 16).over  # 4 whole deals more still fit
    assert final(390, 20).cut  # some of its last games were voided: no whole deal more fits
    assert not final(320, 16, settled=True).cut and final(320, 16, settled=True).over
    assert not FinalProgress(1, 0, 0, 400, [], False).over  # before its first game


def test_the_league_file_says_what_its_finals_certify() -> None:
    settings = LeagueSettings(
        certify="grades", grades=[Grade("A", {"staff": 60.0}), Grade("B", {"staff": 40.0})]
    )
    claim = claim_of(settings)
    assert claim.kind == "grades" and claim.thresholds == [("staff", 60.0), ("staff", 40.0)]
    assert claim_of(LeagueSettings()).describe() == "the top 10 in order"


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


def test_a_budget_smaller_than_one_deal_plays_what_it_holds_of_the_first() -> None:
    waiting = FinalProgress(1, games=0, deals=0, budget=4, standings=[], settled=False, per_deal=56)
    assert not waiting.spent and not waiting.over
    played = msgspec.structs.replace(waiting, games=4, deals=1)
    assert played.spent and played.cut
    whole = FinalProgress(
        1, games=56, deals=1, budget=120, standings=[], settled=False, per_deal=56
    )
    assert not whole.spent and msgspec.structs.replace(whole, games=112, deals=2).spent
