"""The schedule: fair seats, every deal in every rotation, balanced samples, lazy generation."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from tournaments.plan.schedule import (
    bot_seeds,
    deal_seed,
    full_count,
    owner_secret,
    pieces_per_seat_set,
    seat_set_count,
    seat_sets,
    seating,
    units,
)

BOTS = ["a", "b", "c", "d", "e"]


Game = tuple[tuple[str, ...], int, int, tuple[str, ...]]


def games(bots: list[str], players: int, deals: int, candidate: str | None = None) -> list[Game]:
    """(seat-set, deal, rotation, seating) of every game, as the runner plays them."""
    sets = seat_sets(bots, players, candidate=candidate, limit=10**6, seed=1)
    return [
        (unit.seat_set, deal, unit.rotation, seating(unit.seat_set, unit.rotation))
        for unit in units(sets, deals, pieces=2)
        for deal in unit.deals
    ]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_round_robin_every_bot_in_every_seat_equally(players: int) -> None:
    played = games(BOTS, players, deals=3)
    assert len({s for s, *_ in played}) == math.comb(len(BOTS), players)
    seats = Counter((bot, seat) for *_, seated in played for seat, bot in enumerate(seated))
    expected = 3 * math.comb(len(BOTS) - 1, players - 1)
    assert seats == {(bot, seat): expected for bot in BOTS for seat in range(players)}


def test_every_deal_in_every_rotation_once() -> None:
    played = games(BOTS, 3, deals=4)
    by_deal = Counter((seat_set, deal) for seat_set, deal, _, _ in played)
    assert set(by_deal.values()) == {3}
    for seat_set, deal in by_deal:
        seatings = [s for ss, d, _, s in played if (ss, d) == (seat_set, deal)]
        # Each rotation puts a different bot in seat 0, and each is a rotation of the set.
        assert sorted(s[0] for s in seatings) == sorted(seat_set)
        assert all(sorted(s) == sorted(seat_set) for s in seatings)
    keys = [(s, d, r) for s, d, r, _ in played]
    assert len(keys) == len(set(keys))


def test_a_unit_holds_one_rotation_so_its_processes_never_meet_a_deal_twice() -> None:
    split = list(units(iter([("a", "b", "c")]), 6, 2))
    assert [(list(u.deals), u.rotation) for u in split] == [
        ([0, 1, 2], 0),
        ([0, 1, 2], 1),
        ([0, 1, 2], 2),
        ([3, 4, 5], 0),
        ([3, 4, 5], 1),
        ([3, 4, 5], 2),
    ]


def test_deal_seeds_are_reproducible_and_no_two_tables_share_one() -> None:
    secret = bytes(range(32))
    seeds = [deal_seed(secret, 7, "1,2", deal) for deal in range(1000)]
    assert len(set(seeds)) == 1000
    assert all(0 <= seed < 2**63 for seed in seeds)
    assert max(seeds) >= 2**40  # 63-bit: no longer searchable by trying every seed
    assert seeds == [deal_seed(secret, 7, "1,2", deal) for deal in range(1000)]
    assert seeds != [deal_seed(secret, 8, "1,2", deal) for deal in range(1000)]
    assert seeds != [deal_seed(bytes(32), 7, "1,2", deal) for deal in range(1000)]
    # Another table (a bot added later is in none of the earlier ones) deals afresh.
    others = {deal_seed(secret, 7, table, deal) for table in ("1,3", "2,3") for deal in range(1000)}
    assert len(others) == 2000 and not others & set(seeds)


def test_bot_seeds_differ_per_game_and_seat_and_are_not_the_deal_seed() -> None:
    secret = bytes(range(32))
    seeds = [s for deal in range(50) for r in range(3) for s in bot_seeds(secret, 7, deal, r, 3)]
    assert len(set(seeds)) == len(seeds) == 450
    assert not {deal_seed(secret, 7, "1,2", deal) for deal in range(50)} & set(seeds)


def test_owner_secret_is_random_unless_a_seed_is_given() -> None:
    assert owner_secret(None) != owner_secret(None)
    assert owner_secret(5) == owner_secret(5) != owner_secret(6)


def test_gauntlet() -> None:
    played = games(BOTS, 3, deals=2, candidate="c")
    sets = {s for s, *_ in played}
    assert sets == {tuple(sorted(("c", *others))) for others in itertools.combinations("abde", 2)}
    assert full_count(5, 3, candidate=True) == 6
    # The candidate sits in every seat equally often.
    seats = Counter(seated.index("c") for *_, seated in played)
    assert set(seats.values()) == {len(played) // 3}


@pytest.mark.parametrize("players", [2, 4])
def test_balanced_sample_when_too_many(players: int) -> None:
    bots = [f"bot{i:02}" for i in range(20)]
    limit = 40
    assert full_count(20, players, candidate=False) > limit
    assert seat_set_count(20, players, False, limit) == limit
    sample = list(seat_sets(bots, players, limit=limit, seed=3))
    assert len(sample) == len(set(sample)) == limit
    assert all(len(set(s)) == players for s in sample)
    # Schedule order within a seat-set, so rotation 0 is well defined.
    assert all(list(s) == sorted(s) for s in sample)
    appearances = Counter(bot for s in sample for bot in s)
    assert set(appearances) == set(bots)
    assert max(appearances.values()) - min(appearances.values()) <= 1
    # Reproducible from the seed.
    assert sample == list(seat_sets(bots, players, limit=limit, seed=3))
    assert sample != list(seat_sets(bots, players, limit=limit, seed=4))


def test_sample_close_to_the_full_count_still_finishes() -> None:
    sample = list(seat_sets(BOTS, 2, limit=9, seed=0))
    assert len(set(sample)) == 9


def test_generation_is_lazy() -> None:
    huge = seat_sets([f"b{i}" for i in range(2000)], 2, limit=10**9, seed=0)
    first = list(itertools.islice(huge, 5))
    assert first[0] == ("b0", "b1")
    assert len(first) == 5


def test_units_split_deals_for_idle_workers() -> None:
    # Three pairings, four workers: each pairing's 20 deals in 2 pieces (a piece has at least
    # 8 deals, or starting its bot processes would cost more than the split gains).
    assert pieces_per_seat_set(deals=20, seat_sets=3, workers=4) == 2
    assert pieces_per_seat_set(deals=100, seat_sets=3, workers=4) == 3
    split = list(units(iter([("a", "b")]), 10, 3))
    assert [list(u.deals) for u in split if u.rotation == 0] == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]
    # Each block is a unit per rotation, so the rotations count when splitting for workers.
    assert pieces_per_seat_set(deals=40, seat_sets=1, workers=4, rotations=2) == 4
    # Many pairings, or few deals: one unit per pairing, its processes reused for all.
    assert pieces_per_seat_set(deals=10, seat_sets=100, workers=8) == 1
    assert pieces_per_seat_set(deals=3, seat_sets=1, workers=8) == 1
