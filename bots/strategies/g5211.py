"""Greedy 5211 heuristic: the play with the best expected points for this round, minus a keep cost.

Uses the observation only (no memory, no simulation), so it is fast and stateless:

1. The unseen cards are the deck minus my hand, this round's revealed cards, every score pile
   and the discard pile. `O`, the number of cards the other seats will still play this round
   (this turn included, since their choices are hidden), is drawn from them: each is a rooster
   with the unseen rooster share and of colour c with that colour's unseen share.
2. For each legal play, the round's outcome is estimated from the revealed cards plus the play:
   - P(roosters) = P(exactly N+2 roosters), from a binomial over the `O` unknown cards, letting
     me add any number of my remaining roosters in my later turns;
   - for each colour, P(it stays under the N+3 limit) from a binomial, times a softmax over the
     expected final counts (the biggest safe colour is the likely majority).
   The value is P(roosters) × my roosters this round + (1 − P(roosters)) × Σ P(colour) × (my
   points in that colour this round + half of what my hand can still add to it in later turns).
3. A card played is gone: each card costs `KEEP` × its value, except in the last round of a
   pile, where unplayed cards are discarded anyway. So high cards go where they are likely to
   score, and when nothing is promising the cheapest cards (roosters, 2s) are dumped.
Ties are broken with the bot's RNG.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.games.g5211 import Card, G5211Observation

COLOURS = 5
VALUES_PER_COLOUR = (1,) * 5 + (2,) * 6 + (3,) * 5 + (4,) * 2 + (5, 6)
TURN_CARDS = (2, 1, 1)
KEEP = 0.35
"""Fraction of a card's value that keeping it for a later round is worth."""
SOFTMAX = 1.5
"""How sharply the largest expected colour count is taken to be the majority."""


def choose(observation: G5211Observation, legal: list[Any], rng: random.Random) -> int:
    """Index into `legal` of the play with the best heuristic value (see the module docstring)."""
    round_ = Round(observation)
    keep = 0.0 if observation.last_round else KEEP
    best: list[int] = []
    best_value = -math.inf
    for index, action in enumerate(legal):
        value = round_.expected_points(action.cards) - keep * sum(c.value for c in action.cards)
        if value > best_value + 1e-9:
            best, best_value = [index], value
        elif value > best_value - 1e-9:
            best.append(index)
    return rng.choice(best)


class Round:
    """What the observation says about the round in progress (step 1 of the docstring)."""

    def __init__(self, obs: G5211Observation) -> None:
        self.obs = obs
        unseen = [[VALUES_PER_COLOUR.count(v) for v in range(7)] for _ in range(COLOURS)]
        seen: list[Card] = [*obs.hand, *obs.discard]
        for cards in (*obs.played, *obs.score_piles):
            seen.extend(cards)
        for card in seen:
            unseen[card.colour][card.value] -= 1
        unseen_total = max(1, sum(map(sum, unseen)))
        self.colour_share = [sum(row) / unseen_total for row in unseen]
        self.rooster_share = sum(row[1] for row in unseen) / unseen_total
        self.turns_left = sum(TURN_CARDS[obs.turn - 1 :])
        # Cards the other seats will still play this round, this turn's hidden ones included.
        self.others = sum(
            min(self.turns_left, size)
            for seat, size in enumerate(obs.hand_sizes)
            if seat != obs.seat
        )

    def expected_points(self, play: tuple[Card, ...]) -> float:
        """My expected points this round if I make `play` now (step 2 of the docstring)."""
        obs = self.obs
        counts = [0] * COLOURS
        roosters = 0
        for cards in (*obs.played, play):
            for card in cards:
                counts[card.colour] += 1
                roosters += card.value == 1
        mine = [0] * COLOURS
        my_roosters = 0
        for card in (*obs.played[obs.seat], *play):
            mine[card.colour] += card.value
            my_roosters += card.value == 1
        rest = list(obs.hand)
        for card in play:
            rest.remove(card)
        my_later = min(self.turns_left - len(play), len(rest))
        later_roosters = min(my_later, sum(card.value == 1 for card in rest))

        others = self.others
        need = obs.players + 2 - roosters
        p_roosters = max(
            _binomial_pmf(others, self.rooster_share, need - k) for k in range(later_roosters + 1)
        )
        limit = obs.players + 3
        weights = []
        for colour, share in enumerate(self.colour_share):
            safe = _binomial_cdf(others, share, limit - 1 - counts[colour])
            weights.append(safe * math.exp(SOFTMAX * (counts[colour] + others * share)))
        total = sum(weights) or 1.0
        colour_points = 0.0
        for colour in range(COLOURS):
            later = sorted((c.value for c in rest if c.colour == colour), reverse=True)[:my_later]
            colour_points += weights[colour] / total * (mine[colour] + 0.5 * sum(later))
        return p_roosters * my_roosters + (1 - p_roosters) * colour_points


def _binomial_pmf(trials: int, p: float, k: int) -> float:
    if not 0 <= k <= trials:
        return 0.0
    return math.comb(trials, k) * p**k * (1 - p) ** (trials - k)


def _binomial_cdf(trials: int, p: float, k: int) -> float:
    """P(at most k successes)."""
    return sum(_binomial_pmf(trials, p, i) for i in range(min(k, trials) + 1))
