"""The tallies kept in numpy columns (`DealTally`, `PairSums`) against a plain computation
from the games (`deal_totals`, `versus`): the same deals, pairs and rows, batch after batch and
across renames; and their columns' bytes per game stay bounded."""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

import msgspec
import numpy as np
import pytest

from tournaments.rank import ratings, tables
from tournaments.rank.columns import CHUNK, grouped
from tournaments.rank.ratings import (
    DealTally,
    Fitting,
    deal_totals,
    pair_outcomes,
    renamed,
    versus,
)
from tournaments.rank.tables import PairSums, pentanomial
from tournaments.store.results import FinishedGame, Played


def _games(
    names: list[str], seats: int, deals: range, rng: random.Random, spread: int = 1
) -> list[FinishedGame]:
    """Every rotation of each deal of a random seat-set, random ranks (ties too); the even
    deals' values `spread` times further from 10 (negative and beyond 32 bits if large)."""
    games = []
    for deal in (number if number % 2 else spread * (number - 10) + 10 for number in deals):
        chosen = rng.sample(names, seats)
        for rotation in range(seats):
            ranks = [rng.randint(1, seats) for _ in chosen]
            games.append(
                FinishedGame(
                    seat_set=",".join(chosen),
                    deal=deal,
                    rotation=rotation,
                    bots=tuple(chosen[rotation:] + chosen[:rotation]),
                    played=Played(
                        scores=[0] * seats, ranks=ranks, moves=[1] * seats, think_ms=[1.0] * seats
                    ),
                )
            )
    return games


def _plain_deals(games: list[FinishedGame]) -> dict[tuple[str, str, int], tuple[float, int]]:
    """(first bot, second bot, the deal's place in key order) → the first's points, games."""
    totals = deal_totals(games)
    keys = sorted({game.deal_key for game in games})
    place = {key: n for n, key in enumerate(keys)}
    return {
        (a, b, place[key]): sums for (a, b), deals in totals.items() for key, sums in deals.items()
    }


def _kept_deals(tally: DealTally) -> dict[tuple[str, str, int], tuple[float, int]]:
    deals = tally.deals()
    found: dict[tuple[str, str, int], tuple[float, int]] = {}
    one_each = range(len(deals.pair_of))  # each deal's one entry at its place
    for deal, pair, score, count in zip(
        one_each if deals.deal_of is None else deals.deal_of.tolist(),
        deals.pair_of.tolist(),
        deals.scores.tolist(),
        deals.counts.tolist(),
        strict=True,
    ):
        a, b = (deals.bots[end] for end in deals.ends[pair])
        found[a, b, deal] = (score, int(count))
    return found


def _plain_row(games: list[FinishedGame], a: str, b: str) -> list[Any]:
    match = versus(deal_totals(games), a, b)
    wld = [0, 0, 0]
    for game in games:
        for (first, second), score in pair_outcomes(game):
            if {first, second} == {a, b}:
                mine = score if first == a else 1 - score
                wld[0 if mine == 1 else 1 if mine == 0 else 2] += 1
    row = [a, b, match.games, *wld, round(100 * match.score, 1)]
    row += [round(value) for value in (match.elo, match.lo, match.hi)]
    row.append(round(100 * match.los, 1))
    if all(len(game.bots) == 2 for game in games):
        first, second = sorted((a, b))
        deals = list(deal_totals(games)[first, second].values())
        row += pentanomial(deals if a == first else [(n - p, n) for p, n in deals])
    return row


def _renamed_games(games: list[FinishedGame], names: dict[str, str]) -> list[FinishedGame]:
    return [
        msgspec.structs.replace(
            game,
            seat_set=renamed(game.deal_key, names)[0],
            bots=tuple(names.get(bot, bot) for bot in game.bots),
        )
        for game in games
    ]


@pytest.mark.parametrize(
    ("names", "seats", "spread"),
    [
        (["ann", "ann-x", "bob", "cid", "dee"], 2, 1),
        (["ann", "ann+x", "a b", "bob", "cid"], 2, 1),  # labels that order before the comma
        (["ann", "ann-x", "bob", "cid", "dee"], 3, 1),
        (["ann", "ann-x", "bob", "cid", "dee"], 2, 2**40),  # values beyond their own codes
    ],
)
def test_the_columns_equal_the_plain_tallies_batch_after_batch_and_renamed(
    names: list[str], seats: int, spread: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables, "_ROWS_AT_ONCE", 3)  # the changed rows made a few at a time
    rng = random.Random(seats)
    kept = PairSums()
    games: list[FinishedGame] = []
    for batch in range(3):
        if batch == 2:  # ann's older version: every pair with it turns round against ann-x
            renaming = {"ann": "ann@1"}
            kept.rename(renaming)
            games = _renamed_games(games, renaming)
        new = _games(names, seats, range(9 * batch, 9 * batch + 9), rng, spread)
        new += _games(names, seats, range(2), rng, spread)  # deals seen before, elsewhere
        kept.add(new)
        games += new
        assert _kept_deals(kept.tally) == _plain_deals(games)
        order = sorted({bot for game in games for bot in game.bots})
        table = kept.table(order)
        assert table.rows == [_plain_row(games, row[0], row[1]) for row in table.rows]
        assert len(table.rows) == len({pair for game in games for pair, _ in pair_outcomes(game)})
        taken = list(kept.take_touched())
        assert {(row["bot"], row["opponent"]) for row in taken} >= {
            (a, b)
            for game in new
            for (first, second), _ in pair_outcomes(game)
            for a, b in ((first, second), (second, first))
        }
        keys = [key for key, _ in kept.columns()]
        assert taken == [
            dict(zip(keys, _plain_row(games, r["bot"], r["opponent"]), strict=True)) for r in taken
        ]
        assert not list(kept.take_touched())


def test_the_columns_and_the_fit_hold_a_bounded_number_of_bytes_a_game() -> None:
    """Five thousand games among a hundred bots, each game its own deal (the worst case: a
    league's ladder): the columns hold at most 72 bytes a game, growth room included (a dict
    entry with its tuple key alone costs more); the fit's deals are made with at most 100
    bytes a game at their peak, and a bootstrap resample drawn from them with at most 80
    more (numpy's allocations, as tracemalloc sees them)."""
    rng = random.Random(1)
    names = [f"bot{n}" for n in range(100)]
    kept = PairSums()
    for batch in range(5):
        kept.add(
            [
                FinishedGame(
                    seat_set=",".join(pair),
                    deal=1000 * batch + n,
                    rotation=0,
                    bots=tuple(pair),
                    played=Played(scores=[1, 0], ranks=[1, 2], moves=[1, 1], think_ms=[1, 1]),
                )
                for n, pair in enumerate(rng.sample(names, 2) for _ in range(1000))
            ]
        )
    assert kept.tally.pairs() > 2000
    assert kept.nbytes() / 5000 <= 72
    Fitting(kept.tally.deals()).draw()  # numpy's first-call caches out of the way
    tracemalloc.start()
    try:
        deals = kept.tally.deals()
        held, peak = tracemalloc.get_traced_memory()
        assert peak / 5000 <= 100
        tracemalloc.reset_peak()
        Fitting(deals).draw()
        assert (tracemalloc.get_traced_memory()[1] - held) / 5000 <= 80
    finally:
        tracemalloc.stop()


def test_grouped_is_a_stable_argsort_over_several_chunks() -> None:
    """Rows grouped by key across chunks (keys repeated within and across them, some keys
    never used) are in row order within each group, as a stable argsort puts them."""
    keys = np.random.default_rng(2).integers(0, 5000, size=2 * CHUNK + 123).astype(np.int32)
    order, starts = grouped(keys, 5003)
    assert order.tolist() == np.argsort(keys, kind="stable").tolist()
    counts = np.bincount(keys, minlength=5003)
    assert starts.tolist() == [0, *np.cumsum(counts)[:-1].tolist()]


def test_the_fit_is_the_same_to_the_bit_whatever_its_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fit of more bots than a dense step takes, with its bootstrap, gives the same numbers
    to the last bit when its columns are taken a few hundred rows at a time: its chunked sums
    add in the order a whole column's do."""
    rng = random.Random(3)
    tally = DealTally()
    tally.add(_games([f"bot{n:03d}" for n in range(90)], 2, range(1500), rng))

    def fitted() -> ratings.EloFit:
        fitting = Fitting(tally.deals(), bootstrap=3)
        while fitting.left:
            fitting.draw()
        return fitting.fitted()

    whole = fitted()
    monkeypatch.setattr(ratings, "CHUNK", 257)
    assert fitted() == whole


@pytest.mark.parametrize("games", [ratings.HALF_EXACT, ratings.HALF_EXACT + 1])
def test_a_deals_points_and_games_are_exact_in_the_narrowest_float(games: int) -> None:
    """Up to `HALF_EXACT` games a deal its entries are half precision, beyond single: a deal
    of one more game keeps its odd half point and its count exactly."""
    tally = DealTally()
    draw = Played(scores=[1, 1], ranks=[1, 1], moves=[1, 1], think_ms=[1, 1])
    win = msgspec.structs.replace(draw, ranks=[1, 2])
    tally.add(
        [
            FinishedGame(
                seat_set="a,b",
                deal=7,
                rotation=0,
                bots=("a", "b"),
                played=win if n % 2 else draw,
            )
            for n in range(games)
        ]
    )
    deals = tally.deals()
    assert deals.deal_of is None and deals.pair_of.tolist() == [0]
    assert deals.counts.dtype == (np.float16 if games <= ratings.HALF_EXACT else np.float32)
    assert deals.scores.tolist() == [games // 2 + (games - games // 2) / 2]
    assert deals.counts.tolist() == [games]
