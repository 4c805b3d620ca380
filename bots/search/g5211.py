"""5211 knowledge for the search: a cheap heuristic and evaluation, and greedy's own closed-form
estimate, as the model of the other seats, as the playout policy and as a prior (`PROFILE`).

Greedy computes the expected points of every play of the round from what its seat sees; the
search samples worlds and plays them out, so:

- `model`: in a sampled world, another seat plays what greedy would play from that seat's
  view there (its hand as dealt in that world). Against greedy opponents this is exact, and
  the search becomes a best response to them. In the flat search with common worlds
  (`ismcts.Search._flat`, `SearchProfile.playout`) every seat, the bot's own included, plays it
  for the rest of the round after the decision.
- `prior`: greedy's estimate of each of the searching seat's plays, which the search counts as
  `PRIOR_VISITS` worlds' worth of evidence (see `ismcts.Search._blended`): it departs from
  greedy's favourite only when the samples say so.

Both compute greedy's arithmetic (`bots.strategies.g5211`) in the same order on the engine's
card kinds instead of an `Observation` built card by card, with each binomial computed once per
call: bit-identical values (and the same choice, ties broken by the same `rng.choice`) at a
fraction of the cost, which is what bounds the worlds a decision can sample (greedy is
called for every seat at every turn of every playout). tests/bots/test_mcts_5211.py checks the
identity.
"""

from __future__ import annotations

import math
import random
from typing import Any

from bots.search.policies import SearchProfile
from bots.strategies.g5211 import KEEP, SOFTMAX
from bots.strategies.g5211 import _binomial_cdf as _cdf
from bots.strategies.g5211 import _binomial_pmf as _pmf
from referee.games.g5211 import COLOURS, DECK, TURN_CARDS, VALUES_PER_COLOUR, Play, State

PRIOR_VISITS = 8.0
"""Worlds' worth of evidence the prior is given at the root."""
WIDTH = 5
"""The flat search values greedy's 5 best plays only (of up to 10 on a round's first turn)."""
_COLOURS = len(COLOURS)
_PER_COLOUR = len(VALUES_PER_COLOUR)
_ROOSTERS = _COLOURS * VALUES_PER_COLOUR.count(1)


def heuristic(state: State, seat: int, action: Any) -> float:
    """The points the play adds if the round's cards so far (its own included) decided the
    majority, less `KEEP` of the value of each card that does not score: high cards follow the
    leading colour, and low cards are dumped when nothing leads."""
    counts = [0] * 5
    for cards in state.played:
        for kind in cards:
            counts[kind >> 3] += 1
    for card in action.cards:
        counts[card.colour] += 1
    limit = state.players + 3
    top, leader = 0, -1
    for colour, count in enumerate(counts):
        if count >= limit:
            continue
        if count > top:
            top, leader = count, colour
        elif count == top:
            leader = -1
    value = 0.0
    for card in action.cards:
        value += card.value if card.colour == leader else -KEEP * card.value
    return value


def evaluation(state: State) -> list[float]:
    """Running totals, plus `KEEP` of the value of the cards in hand (they may score in a later
    round, unless this is the last one): what the greedy heuristic also counts a card as."""
    if state.over or state.last_round:
        return [float(total) for total in state.totals]
    return [
        total + KEEP * sum(kind & 7 for kind in hand)
        for total, hand in zip(state.totals, state.hands, strict=True)
    ]


def horizon(state: State) -> int:
    """To the end of the round, when its cards have scored; the leaves of later rounds are
    mostly the noise of unseen draws."""
    return len(TURN_CARDS) - state.turn


def prior(state: State, seat: int, legal: list[Play]) -> list[float]:
    """Greedy's value of each play in `legal` for `seat`: expected points this round less the
    keep cost (`bots.strategies.g5211.choose`), computed from the state's card kinds."""
    hand = state.hands[seat]
    colour_count = [_PER_COLOUR] * _COLOURS
    rooster_count = _ROOSTERS
    seen = 0
    for group in (hand, state.discard, *state.played, *state.piles):
        seen += len(group)
        for kind in group:
            colour_count[kind >> 3] -= 1
            rooster_count -= kind & 7 == 1
    unseen_total = max(1, len(DECK) - seen)
    colour_share = [count / unseen_total for count in colour_count]
    rooster_share = rooster_count / unseen_total
    turns_left = sum(TURN_CARDS[state.turn :])
    others = sum(
        min(turns_left, len(other)) for index, other in enumerate(state.hands) if index != seat
    )

    counts = [0] * _COLOURS
    roosters = 0
    for cards in state.played:
        for kind in cards:
            counts[kind >> 3] += 1
            roosters += kind & 7 == 1
    mine = [0] * _COLOURS
    my_roosters = 0
    for kind in state.played[seat]:
        mine[kind >> 3] += kind & 7
        my_roosters += kind & 7 == 1
    # The hand's values by colour, best first; what greedy counts its later turns as adding.
    in_hand: list[list[int]] = [[] for _ in range(_COLOURS)]
    for kind in reversed(hand):
        in_hand[kind >> 3].append(kind & 7)
    hand_roosters = sum(1 for kind in hand if kind & 7 == 1)

    limit = state.players + 3
    weight_cache: dict[tuple[int, int], float] = {}

    def weight(colour: int, count: int) -> float:
        """Greedy's softmax weight of `colour` being the majority at `count` cards so far."""
        value = weight_cache.get((colour, count))
        if value is None:
            share = colour_share[colour]
            safe = _cdf(others, share, limit - 1 - count)
            value = weight_cache[(colour, count)] = safe * math.exp(
                SOFTMAX * (count + others * share)
            )
        return value

    # Every play of a decision has as many cards, so my later turns are as many for each; the
    # colours a play does not touch keep these weights and terms.
    size = len(legal[0].cards) if legal else 0
    my_later = min(turns_left - size, len(hand) - size)
    base_weights = [weight(colour, counts[colour]) for colour in range(_COLOURS)]
    base_terms = [
        mine[colour] + 0.5 * sum(in_hand[colour][:my_later]) for colour in range(_COLOURS)
    ]
    rooster_cache: dict[tuple[int, int], float] = {}
    keep = 0.0 if state.last_round else KEEP
    results = []
    for play in legal:
        played_roosters = 0
        spent = 0
        touched: dict[int, tuple[int, int, list[int]]] = {}
        for card in play.cards:
            colour, value = card.colour, card.value
            played_roosters += value == 1
            spent += value
            extra, gained, rest = touched.get(colour, (0, 0, in_hand[colour]))
            rest = rest.copy()
            rest.remove(value)
            touched[colour] = (extra + 1, gained + value, rest)
        later_roosters = min(my_later, hand_roosters - played_roosters)
        need = state.players + 2 - roosters - played_roosters
        key = (need, later_roosters)
        p_roosters = rooster_cache.get(key)
        if p_roosters is None:
            p_roosters = rooster_cache[key] = max(
                _pmf(others, rooster_share, need - k) for k in range(later_roosters + 1)
            )
        weights = base_weights.copy()
        terms = base_terms.copy()
        for colour, (extra, gained, rest) in touched.items():
            weights[colour] = weight(colour, counts[colour] + extra)
            terms[colour] = mine[colour] + gained + 0.5 * sum(rest[:my_later])
        total = sum(weights) or 1.0
        colour_points = 0.0
        for colour in range(_COLOURS):
            colour_points += weights[colour] / total * terms[colour]
        expected = p_roosters * (my_roosters + played_roosters) + (1 - p_roosters) * colour_points
        results.append(expected - keep * spent)
    return results


def model(state: State, seat: int, legal: list[Play], rng: random.Random) -> Play:
    """Another seat's play in a sampled world: greedy's, from what that seat sees there (its
    best value by `prior`; ties broken by `rng.choice`, as greedy breaks them)."""
    best: list[int] = []
    best_value = -math.inf
    for index, value in enumerate(prior(state, seat, legal)):
        if value > best_value + 1e-9:
            best, best_value = [index], value
        elif value > best_value - 1e-9:
            best.append(index)
    return legal[rng.choice(best)]


PROFILE = SearchProfile(
    heuristic=heuristic,
    evaluation=evaluation,
    horizon=horizon,
    scale=20.0,
    opponents="heuristic",
    model=model,
    prior=(prior, PRIOR_VISITS),
    playout=model,
    width=WIDTH,
)
"""Scale 20: a few points still matter when one seat leads by many. The other seats are modelled
by greedy (a best response to greedy scores more against it than searching them; see `ismcts`),
and searched flat with common worlds, greedy for every seat after the root decision."""
