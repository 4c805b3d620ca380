"""5211 knowledge for the search beyond the cheap heuristic in `policies`: the greedy strategy's
own closed-form estimate, as the model of the other seats and as a prior at the root.

Greedy computes the expected points of every play of the round from what its seat sees; the
search's rollouts only estimate them by sampling, a few dozen samples a decision at 100 ms, with
a round's points spread over several points. So:

- `model`: in a sampled world, another seat plays what greedy would play from that seat's
  observation there (its hand as dealt in that world). Against greedy opponents this is exact,
  and the search becomes a best response to them.
- `prior`: greedy's estimate of each of the searching seat's plays, which the search counts as
  `PRIOR_VISITS` iterations' worth of evidence at the root (see `ismcts.Search._best`): it
  departs from greedy's favourite only when the samples say so.
"""

from __future__ import annotations

import random

from bots.strategies.g5211 import KEEP, Round, choose
from referee.games.g5211 import FiveTwoOneOne, Play, State

GAME = FiveTwoOneOne()
PRIOR_VISITS = 8.0
"""Iterations' worth of evidence the prior is given at the root."""


def model(state: State, seat: int, legal: list[Play], rng: random.Random) -> Play:
    """Another seat's play in a sampled world: greedy's, from that seat's observation."""
    return legal[choose(GAME.observe(state, seat), legal, rng)]


def prior(state: State, seat: int, legal: list[Play]) -> list[float]:
    """Greedy's value (expected points this round, less the keep cost) of each play in `legal`."""
    observation = GAME.observe(state, seat)
    round_ = Round(observation)
    keep = 0.0 if observation.last_round else KEEP
    return [
        round_.expected_points(play.cards) - keep * sum(card.value for card in play.cards)
        for play in legal
    ]
