"""The per-game parts of the search, one `SearchProfile` per game in its own module.

A game's profile is `PROFILE` in `bots/search/<name>.py` (`bots.game_parts`), with the reasons
for its settings beside it (their measurements are in docs/strategies.md). What a profile does
not set is searched generically: rollouts uniformly random to the end, leaves valued by
`Game.scores`. A heuristic scores one action of a seat in a state (higher is better); the search
uses it twice, to play its "greedy" rollouts and to order the actions a node widens to first. An
evaluation gives every seat's expected final score from a state, so a rollout cut short still has
a value.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from bots.game_parts import game_module

Heuristic = Callable[[Any, int, Any], float]
"""(state, seat, action) -> how promising the action looks; higher is better."""
Evaluation = Callable[[Any], list[float]]
"""state -> every seat's estimated final score."""
Horizon = Callable[[Any], int]
"""state -> decisions a rollout plays from it before its leaf is evaluated (0: to the end)."""
Model = Callable[[Any, int, list[Any], random.Random], Any]
"""(world, seat, legal, rng) -> the action a modelled seat plays there."""
Prior = Callable[[Any, int, list[Any]], list[float]]
"""(root, seat, legal) -> an estimate of each action's points, on the evaluation's scale."""
Stage = Callable[[Any], int]
"""state -> a count the game advances where its sampled worlds part and its scores settle."""
Opponents = Literal["search", "heuristic"]
"""How the search treats the other seats (`ismcts.Params.opponents`)."""


@dataclass(frozen=True)
class SearchProfile:
    """One game's search settings; each default is what a game without knowledge of its own
    gets."""

    heuristic: Heuristic | None = None
    """Orders a node's actions and plays the greedy rollouts; None: random ones."""
    evaluation: Evaluation | None = None
    """Values a leaf; None: `Game.scores`."""
    horizon: Horizon | None = None
    """Decisions a rollout plays; None: to the end (`ismcts.Params.depth` overrides it)."""
    stage: Stage | None = None
    """Set: in a search shorter than `stage_ms`, the tree grows no deeper, and a rollout plays
    no further, than the point where the stage passes the root's (Azul: the round's end, whose
    wall-tiling settles what the round built and after which the deal is chance); the leaf is
    valued there."""
    stage_ms: float = math.inf
    """Searches of this many milliseconds or more ignore the stage: with many iterations,
    rollouts that run past it can tell more than the evaluation there (Azul)."""
    scale: float = 10.0
    """A score margin of one scale is worth 73% (a logistic curve) at a leaf."""
    own_points: float = 0.0
    """Value a leaf adds per point of the seat's own evaluated score, beside the margin's
    logistic: where the margin is decided and its logistic flat, the search still scores."""
    exploration: float = 0.7
    """The UCB constant (`ismcts.Params.c` overrides it)."""
    opponents: Opponents = "search"
    """How the other seats choose (`ismcts.Params.opponents` overrides it)."""
    model: Model | None = None
    """How a modelled seat chooses; None: the heuristic's best."""
    prior: tuple[Prior, float] | None = None
    """An estimate of the root actions and the iterations' worth of evidence it is given when
    the answer is chosen (`ismcts.Search._blended`)."""
    playout: Model | None = None
    """Set: the game is searched flat with common worlds (`ismcts.Search._flat`) when its other
    seats are modelled, and this is what every seat plays after the root decision, up to the
    horizon."""
    width: int | Callable[[Any], int] = 0
    """The flat search values this many of the best root actions (a number, or a function of
    the root state)."""
    sample: int = 8
    """Legal actions a greedy rollout samples to pick the heuristic's best from
    (`ismcts.Params.sample` overrides it)."""
    iterations: int | None = None
    """Iterations a decision makes at most when the bot sets no number of its own; None: as
    many as the clock allows."""


def profile(game_id: str) -> SearchProfile:
    """The game's search profile: `PROFILE` of its module in `bots.search`."""
    found: SearchProfile = game_module("bots.search", game_id).PROFILE
    return found
