"""A final's certificate: Plackett–Luce strengths from finishing orders, place intervals that
hold together at their stated rate, the organiser's claims, first place's fragility, and the
sequential final's simulator."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest
from tourhelp import game

from tournaments.bench.final_sim import Setting, field, play, replicate
from tournaments.rank.certify import LEAST_GAMES, Claim, certify, orders_of, spent
from tournaments.rank.ratings import ELO_PER_NAT
from tournaments.rank.sequential import (
    GROWTH,
    cut,
    first_round,
    games_needed,
    next_round,
    seat_steps,
)


def true_places(strength: np.ndarray) -> dict[str, int]:
    order = np.argsort(-strength, kind="stable")
    return {f"bot{i:03d}": place for place, i in enumerate(order.tolist(), start=1)}


def test_place_intervals_hold_the_true_places_together_at_their_rate() -> None:
    """On fixed round robins (one look): where every bot is as strong as every other, any
    interval narrower than the field is wrong, and at most 5% of the fields have one (at a
    confidence of 50%, far more do: the test can fail); on a spread field every interval
    holds its bot's true place at once in at least 95% of the fields, and many are points."""
    tables = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    wrong = {0.95: 0, 0.5: 0}
    for run in range(150):
        for confidence in wrong:
            rng = np.random.default_rng([9, run])
            orders = play(np.zeros(5), tables, 10, rng)
            certificate = certify(orders, Claim("order"), confidence=confidence, fragility=False)
            wrong[confidence] += any((p.low, p.high) != (1, 5) for p in certificate.places)
    assert wrong[0.95] <= 0.05 * 150 < 0.25 * 150 <= wrong[0.5]
    held, points = 0, 0
    for run in range(100):
        rng = np.random.default_rng([7, run])
        strength = field(6, 150, rng)
        tables = [(i, j) for i in range(6) for j in range(i + 1, 6)]
        orders = play(strength, tables, 30, rng)
        certificate = certify(orders, Claim("order"), fragility=False)
        truth = true_places(strength)
        held += all(p.low <= truth[p.bot] <= p.high for p in certificate.places)
        points += sum(p.low == p.high for p in certificate.places)
    assert held >= 95 and points >= 100


def test_a_clear_order_is_certified_from_4_player_tables() -> None:
    rng = np.random.default_rng(3)
    strength = np.array([3.0, 1.5, 0.0, -1.5, -3.0])
    tables = [(0, 1, 2, 3), (1, 2, 3, 4), (0, 2, 3, 4), (0, 1, 3, 4), (0, 1, 2, 4)]
    certificate = certify(play(strength, tables, 40, rng), Claim("top", top=2))
    assert certificate.certified and certificate.claim == "the top 2 in order"
    assert [p.bot for p in certificate.places] == [f"bot{i:03d}" for i in range(5)]
    assert [(p.low, p.high) for p in certificate.places[:2]] == [(1, 1), (2, 2)]
    assert certificate.separated[:2] == [True, True]
    assert certificate.games == 5 * 40 * 4 and certificate.deals == 5 * 40
    assert certificate.first_fragility is not None and certificate.first_fragility > 1


def test_few_games_certify_nothing_and_first_place_rests_on_a_deal() -> None:
    rng = np.random.default_rng(0)
    strength = np.array([0.2, 0.1, 0.0])
    certificate = certify(play(strength, [(0, 1), (1, 2), (0, 2)], 2, rng), Claim("order"))
    assert not certificate.certified
    assert all((p.low, p.high) == (1, 3) for p in certificate.places)
    assert certificate.first_fragility == 1


def test_grade_sides_against_a_benchmark() -> None:
    """A bot far above the benchmark is above a 50% threshold, one far below is below it, and
    one level with it stays undecided."""
    rng = np.random.default_rng(11)
    strength = np.array([0.0, 2.0, -2.0, 0.0])  # bot000 is the benchmark
    tables = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    claim = Claim("grades", thresholds=[("bot000", 50.0)])
    certificate = certify(play(strength, tables, 60, rng), claim, fragility=False)
    sides = {side.bot: side.above for side in certificate.sides}
    assert sides == {"bot001": True, "bot002": False, "bot003": None}
    assert not certificate.certified


def test_finishing_orders_of_stored_games_count_ties_as_both_orders() -> None:
    games = [game(("a", "b"), [1, 2], deal=0), game(("b", "a"), [1, 1], deal=1, rotation=1)]
    orders = orders_of(games)
    assert orders.bots == ["a", "b"] and orders.games == 2 and orders.deals == 2
    (block,) = orders.blocks
    assert block.order.tolist() == [[0, 1], [1, 0], [0, 1]]
    assert block.weight.tolist() == [1.0, 0.5, 0.5]


def test_the_sequential_final_seats_open_steps_and_cuts_its_last_round_evenly() -> None:
    """Pairs seat each open step; 4-player tables seat runs of open steps as consecutive
    neighbours overlapping by one, a lone step padded around it; the first round gives every
    finalist the games a statement needs; the last round is cut evenly."""
    ranked = ["a", "b", "c", "d", "e", "f", "g"]
    assert seat_steps(ranked, [0, 3], 2) == [(("a", "b"), [0]), (("d", "e"), [3])]
    assert seat_steps(ranked, [0, 1, 2, 3, 4], 4) == [
        (("a", "b", "c", "d"), [0, 1, 2]),
        (("d", "e", "f", "g"), [3, 4]),
    ]
    assert seat_steps(ranked, [3], 4) == [(("c", "d", "e", "f"), [3])]
    assert seat_steps(ranked, [5], 4) == [(("d", "e", "f", "g"), [5])]
    for players in (2, 4):
        tables = first_round(ranked, players, 10_000, random.Random(1))
        seats = Counter(bot for table, deals in tables for bot in table for _ in range(deals))
        assert all(seats[bot] * players >= LEAST_GAMES for bot in ranked)
        assert all(list(table) == sorted(table) for table, _ in tables)
    chosen = [(("a", "b"), 8), (("b", "c"), 8), (("d", "e"), 1)]
    assert cut(chosen, 2, 1_000) == chosen
    assert cut(chosen, 2, 20) == [(("a", "b"), 4), (("b", "c"), 4), (("d", "e"), 1)]
    # the budget spent, not halved: no tail of ever smaller rounds
    assert cut(chosen, 2, 30) == [(("a", "b"), 7), (("b", "c"), 7), (("d", "e"), 1)]
    assert cut([(("a", "b"), 8), (("c", "d"), 1), (("e", "f"), 1), (("g", "h"), 1)], 2, 6) == [
        (("a", "b"), 1),
        (("c", "d"), 1),
        (("e", "f"), 1),
    ]
    assert cut(chosen, 2, 5) == [(("a", "b"), 1), (("b", "c"), 1)]  # whole deals, in order
    assert cut(chosen, 2, 1) == []


def test_the_next_rounds_deals_are_forecast_from_each_steps_need() -> None:
    """A step's games are what its estimated gap lacks to pass the next look's bar: none for
    a wide gap already proven, some for a gap of 80 Elo, and for a gap of 14 Elo (too small
    to trust) `GROWTH` times the information it has; the next round plays those, a proven
    step nothing."""
    rng = np.random.default_rng(5)
    strength = np.array([2.0, 0.0, -0.5, -0.52])
    tables = [(0, 1), (1, 2), (2, 3), (0, 2), (1, 3), (0, 3)]
    certificate = certify(play(strength, tables, 30, rng), Claim("order"), look=1)
    ranked = [p.bot for p in certificate.places]
    assert ranked == ["bot000", "bot001", "bot003", "bot002"]
    assert certificate.separated == [True, False, False]

    def cap(step: int) -> float:
        gap = (certificate.places[step].elo - certificate.places[step + 1].elo) / ELO_PER_NAT
        chance = 1 / (1 + math.exp(-gap))
        return GROWTH / certificate.step_errors[step] ** 2 / (chance * (1 - chance))

    first, second, third = (games_needed(certificate, step) for step in range(3))
    assert first == 0 < second < cap(1) / 2 and third == pytest.approx(cap(2))
    chosen = next_round(certificate, Claim("order"), 2, 1_000_000, random.Random(0))
    assert chosen == [
        (("bot001", "bot003"), math.ceil(second / 2)),
        (("bot002", "bot003"), math.ceil(third / 2)),
    ]


def test_looks_spend_the_error_rate_so_that_any_number_of_them_keeps_it() -> None:
    """Look t spends α·6/(π²t²): a thousand looks together spend under α; a final of fixed
    games (look 0) spends it all at once; a bot with a handful of games is placed nowhere."""
    assert spent(0.95, 0) == pytest.approx(0.05)
    assert sum(spent(0.95, look) for look in range(1, 1_000)) < 0.05
    assert spent(0.95, 1) > spent(0.95, 2) > spent(0.95, 16)
    rng = np.random.default_rng(5)
    strength = np.array([4.0, 0.0, -4.0])
    few = certify(play(strength, [(0, 1), (1, 2), (0, 2)], 5, rng), Claim("order"))
    assert all((p.low, p.high) == (1, 3) for p in few.places)  # 20 games a bot: too few
    many = certify(play(strength, [(0, 1), (1, 2), (0, 2)], 40, rng), Claim("order"), look=3)
    assert many.certified and many.looks == 3


def test_the_simulated_sequential_final_is_wrong_rarely_and_beats_todays_on_games() -> None:
    """Seeded: 6 finalists 300 Elo apart, 2-player tables, the whole order claimed; both
    rules on the same 10 fields: the sequential final is never wrong, its intervals hold the
    true places in every field, and it plays fewer games than today's."""
    setting = Setting(6, 300, 2, Claim("order"), 10_000)
    sequential, today = replicate(setting, 10, seed=2, todays=True)
    assert (sequential.rule, today.rule) == ("sequential", "today")
    assert sequential.runs == today.runs == 10
    assert sequential.wrong_pct == 0 and sequential.covered_pct == 100
    assert sequential.claimed_pct >= 50 and today.claimed_pct >= 30
    assert sequential.games < today.games


def test_the_sequential_finals_intervals_hold_the_true_places_at_their_rate() -> None:
    """Seeded: 40 fields of 8 close finalists (100 Elo), pairs, the top 3 claimed, 3,000
    games: the adaptive choice of games and the looks leave every finalist's interval holding
    its true place, all at once, in at least 95% of the fields."""
    (row,) = replicate(Setting(8, 100, 2, Claim("top", top=3), 3_000), 40, seed=5, todays=False)
    assert row.runs == 40 and row.covered_pct >= 95 and row.wrong_pct <= 5
