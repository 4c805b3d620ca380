"""The greedy Alhambra heuristic beats uniform random play, from what a bot sees."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import pytest
from greedyhelp import play_against_random

from bots.strategies import alhambra as greedy
from referee.games.alhambra import Alhambra
from referee.games.alhambra_messages import (
    AlhambraObservation,
    GiveDirk,
    Place,
    Redesign,
    Reserve,
    Take,
)
from referee.games.alhambra_placement import spots
from referee.games.alhambra_tiles import PRICE, TYPE

GAME = Alhambra()


def checked_choose(
    observation: AlhambraObservation, legal: Sequence[Any], rng: random.Random
) -> int:
    """greedy.choose, asserting the rules it promises on every decision it makes."""
    index = greedy.choose(observation, list(legal), rng)
    action = legal[index]
    if isinstance(action, Reserve | GiveDirk):
        assert not any(isinstance(a, Place) for a in legal), "reserved with a cell free"
    # Never a building out of the Alhambra: no removal, no swap.
    if isinstance(action, Redesign):
        assert action.building in observation.reserves[observation.seat]
    if isinstance(action, Place) and observation.phase == "redesign":
        cells = {(p.x, p.y) for p in observation.alhambras[observation.seat]}
        assert (action.x, action.y) not in cells
    return index


def greedy_rank(players: int, seed: int) -> int:
    """One game with greedy in seat `seed % players` and random elsewhere: greedy's rank."""
    result, me = play_against_random(GAME, checked_choose, players, seed)
    return result.ranks[me]


def test_cheapest_payment_prefers_exact_then_fewest_cards() -> None:
    assert greedy.cheapest_payment([1, 2, 3, 5], 5) == (5,)
    assert greedy.cheapest_payment([2, 4, 9], 5) == (2, 4)  # surplus 1 beats 9's surplus 4
    assert greedy.cheapest_payment([3, 3], 7) is None


def test_remembered_payments_are_the_plans_worked_out_afresh() -> None:
    """`cheapest_payment` is remembered by the sorted values: any order of a hand gets the plan
    worked out afresh (`_cheapest.__wrapped__`), whose total and size no subset beats; a
    payment can be exact exactly when the price's bit of `_sums` is set."""
    rng = random.Random(7)
    for _ in range(400):
        cards = [rng.randint(1, 9) for _ in range(rng.randrange(9))]
        price = rng.randint(1, 16)
        plan = greedy.cheapest_payment(cards, price)
        rng.shuffle(cards)
        assert greedy.cheapest_payment(cards, price) == plan
        assert plan == greedy._cheapest.__wrapped__(tuple(sorted(cards)), price)
        subsets = [
            chosen
            for size in range(len(cards) + 1)
            for chosen in itertools.combinations(sorted(cards), size)
            if sum(chosen) >= price
        ]
        if plan is None:
            assert not subsets
        else:
            assert (sum(plan), len(plan)) == min((sum(c), len(c)) for c in subsets)
        exact = plan is not None and sum(plan) == price
        assert bool(greedy._sums(cards) >> price & 1) == exact


def _take_afresh(view: greedy.View, take: Take) -> float:
    """A take's value as first written: each slot's payments planned before and after it."""
    value = greedy.MONEY * sum(card.value for card in take.cards)
    for slot, building in enumerate(view.market):
        if building is None or not any(card.currency == slot for card in take.cards):
            continue
        before = [card.value for card in view.hand if card.currency == slot]
        after = before + [card.value for card in take.cards if card.currency == slot]
        plans = [greedy.cheapest_payment(values, PRICE[building]) for values in (before, after)]
        exact = [plan is not None and sum(plan) == PRICE[building] for plan in plans]
        if exact[1] and not exact[0]:
            kind = TYPE[building]
            column = tuple(row[kind] for row in view.counts)
            worth = greedy._majority.__wrapped__(kind, column, view.me, view.scorings_left)
            worth += 0.0 if spots(view.grid, building) else greedy.NO_SPOT
            value += greedy.ENABLE * max(0.0, worth + greedy.BASE)
    return value


def test_a_views_remembered_values_are_those_worked_out_afresh() -> None:
    """Over greedy games' action phases, every action's value from one view asked about all of
    them in turn (its remembered worths and subset sums) equals a fresh view's, and a take's
    equals its value worked out with payment plans (`_take_afresh`)."""
    takes = enabling = 0
    for seed in range(2):
        rng = random.Random(seed)
        state = GAME.new(2, seed, GAME.Options())
        while seats := GAME.to_act(state):
            seat = seats[0]
            legal = GAME.legal(state, seat)
            observation = GAME.observe(state, seat)
            if observation.phase == "action":
                shared = greedy.View.of_observation(observation)
                for action in legal:
                    value = shared.value(action)
                    assert value == greedy.View.of_observation(observation).value(action)
                    if isinstance(action, Take):
                        assert value == _take_afresh(shared, action)
                        takes += 1
                        enabling += value > greedy.MONEY * sum(c.value for c in action.cards)
            GAME.apply(state, {seat: legal[greedy.choose(observation, legal, rng)]})
    assert takes > 500 and enabling > 50, (takes, enabling)


def test_greedy_beats_random_in_every_seat() -> None:
    """12 seeded 3-player games, greedy in each seat in turn. Measured on 201 games (67 deals in
    all rotations, docs/games/alhambra.md): greedy won all 201, mean 219 points against 52."""
    ranks = [greedy_rank(3, seed) for seed in range(12)]
    wins = sum(rank == 1 for rank in ranks)
    assert wins >= 10, f"greedy won {wins} of 12 (ranks {ranks})"


@pytest.mark.parametrize("players", [2, 4, 6])
def test_greedy_wins_at_other_player_counts(players: int) -> None:
    """Dirk with 2 players, a crowded market with 6: greedy still wins from every seat tried."""
    assert [greedy_rank(players, seed) for seed in range(3)] == [1, 1, 1]
