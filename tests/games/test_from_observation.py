"""`Game.from_observation` per game: what each game hides is dealt afresh and consistently with
what is public, and what is public is rebuilt exactly (the conformance suite checks the
observation, the legal actions and soundness for every game; these tests look at the hidden
parts one game at a time)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from referee.games import Game, find_game, simulate
from referee.games.alhambra import SCORING_CARDS
from referee.games.alhambra import State as AlhambraState
from referee.games.g5211 import State as FiveState


def wire(game: Game[Any], state: Any, seat: int) -> Any:
    encoded = msgspec.json.encode(game.observe(state, seat))
    return msgspec.json.decode(encoded, type=game.Observation)


def positions(game: Game[Any], players: int, options: Any, every: int) -> Iterator[Any]:
    """Every `every`-th position of random games of seeds 1, 2, 3 (game over excluded)."""
    for seed in (1, 2, 3):
        rng = random.Random(seed)
        state = game.new(players, seed, options)
        step = 0
        while not game.is_over(state):
            if step % every == 0:
                yield state
            simulate(game, state, rng, limit=1)
            step += 1


def five_hidden(state: FiveState, seat: int) -> list[list[int]]:
    """What a 5211 seat does not see: the others' hands, the pile, the removed cards, the
    hands discarded face down."""
    others = [hand for other, hand in enumerate(state.hands) if other != seat]
    return [*others, state.pile, state.removed, state.hidden_discard]


@pytest.mark.parametrize(("players", "variant"), [(3, "standard"), (5, "standard"), (2, "long")])
def test_5211_deals_the_unseen_cards_afresh_and_never_the_true_ones(
    players: int, variant: str
) -> None:
    """Own hand and everything revealed are the true ones; the unseen cards are the true ones
    as a whole (the same multiset) but dealt differently by two RNGs, and differently from the
    true deal, nearly everywhere (a position with only a card or two unseen may repeat one)."""
    game = find_game("5211")
    points = redealt = true_deal = 0
    for state in positions(game, players, game.Options(variant=variant), every=1):
        seat = points % players
        one, two = (
            game.from_observation(wire(game, state, seat), random.Random(r)) for r in (1, 2)
        )
        for rebuilt in (one, two):
            assert rebuilt.hands[seat] == state.hands[seat]
            assert rebuilt.played == state.played  # in play order; piles and discard: any order
            assert [sorted(pile) for pile in rebuilt.piles] == [sorted(p) for p in state.piles]
            assert sorted(rebuilt.discard) == sorted(state.discard)
            unseen = Counter(card for part in five_hidden(rebuilt, seat) for card in part)
            assert unseen == Counter(card for part in five_hidden(state, seat) for card in part)
        points += 1
        redealt += five_hidden(one, seat) != five_hidden(two, seat)
        true_deal += five_hidden(one, seat) == five_hidden(state, seat)
    assert points >= 20
    assert redealt >= 0.9 * points
    assert true_deal <= 0.1 * points


def test_5211_rebuilds_the_tie_break_after_a_reshuffle() -> None:
    """The tie-break counts the cards scored over the whole game; after a reshuffle of the long
    variant the score piles no longer show them, so the observation carries `scored` (added
    for `from_observation`) and the rebuilt state ranks as the true one would."""
    game = find_game("5211")
    state = game.new(2, 4, game.Options(variant="long"))
    rng = random.Random(4)
    while state.deal == 1:
        simulate(game, state, rng, limit=1)
    simulate(game, state, rng, limit=2)
    observation = wire(game, state, 0)
    assert observation.scored == state.scored
    assert sum(map(len, observation.score_piles)) < sum(observation.scored)
    rebuilt = game.from_observation(observation, random.Random(0))
    assert rebuilt.scored == state.scored
    assert (rebuilt.checking, rebuilt.deal) == (state.checking, state.deal)


def alhambra_hidden(state: AlhambraState) -> tuple[list[int], list[int]]:
    return state.bag, state.deck


@pytest.mark.parametrize("players", [2, 4])
def test_alhambra_deals_the_bag_and_deck_orders_afresh(players: int) -> None:
    """Everything but the orders is public: the rebuilt bag and deck hold exactly the true
    buildings and cards, each undrawn scoring card within its pile (`scoring_piles`, added to
    the observation for `from_observation`), in orders that two RNGs deal differently and that
    are not the true ones."""
    game = find_game("alhambra")
    points = redealt = true_order = 0
    for state in positions(game, players, game.Options(), every=25):
        seat = points % players
        observation = wire(game, state, seat)
        assert observation.scoring_piles == list(state.piles)
        one, two = (game.from_observation(observation, random.Random(r)) for r in (1, 2))
        for rebuilt in (one, two):
            assert sorted(rebuilt.bag) == sorted(state.bag)
            assert sorted(rebuilt.deck) == sorted(state.deck)
            assert (rebuilt.offer, rebuilt.market, rebuilt.hands) == (
                state.offer,
                state.market,
                state.hands,
            )
            for card, (low, high) in zip(SCORING_CARDS, rebuilt.piles, strict=True):
                if card in rebuilt.deck:
                    assert low <= rebuilt.deck.index(card) < high
        points += 1
        if len(state.bag) + len(state.deck) > 2:
            redealt += alhambra_hidden(one) != alhambra_hidden(two)
            true_order += alhambra_hidden(one) == alhambra_hidden(state)
    assert points >= 20
    assert redealt >= 0.9 * points
    assert true_order <= 0.1 * points


@pytest.mark.parametrize(
    ("game_id", "options"),
    [
        ("azul", {"variant": "grey", "special_factories": True}),
        ("summer-pavilion", {"variant": "grey"}),
    ],
)
def test_drafting_games_rebuild_every_public_part_and_draw_their_own_future(
    game_id: str, options: dict[str, Any]
) -> None:
    """In Azul and Summer Pavilion only the order of future draws is hidden (the seed): the
    rebuilt state is the true one in every part the board shows, and its seed is dealt."""
    game = find_game(game_id)
    seeds = set()
    points = 0
    for state in positions(game, 3, game.Options(**options), every=9):
        rebuilt = game.from_observation(wire(game, state, points % 3), random.Random(points))
        assert game.render(rebuilt) == game.render(state)
        assert rebuilt.seed != state.seed
        seeds.add(rebuilt.seed)
        points += 1
    assert points >= 20 and len(seeds) == points
