"""A bot that searches with OpenSpiel's MCTS: `python mcts_bot.py [SIMULATIONS] [rollout|returns]`.

At each decision it builds an OpenSpiel state from what its seat sees (the hidden parts dealt at
random: `ArenaGame.state_from_observation`), so it never searches the true future draws, and
runs MCTS from it. Leaf values: one random rollout to the end (`rollout`, OpenSpiel's usual
choice), or the engine's returns of the current scores (`returns`: no rollout, for the long
games, Alhambra above all). For the sequential games (Azul, Summer Pavilion, Alhambra):
OpenSpiel's MCTS does not search simultaneous moves (5211).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from open_spiel.python.algorithms import mcts

from bots.research import openspiel_game
from bots.sdk import Context, run

SIMULATIONS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
LEAF = sys.argv[2] if len(sys.argv) > 2 else "rollout"


def choose(observation: Any, legal: list[Any], context: Context) -> Any:
    game = openspiel_game.load(context.game, context.players, context.options)
    state = game.state_from_observation(observation, context.rng)
    rng = np.random.RandomState(context.rng.getrandbits(32))
    evaluator = (
        mcts.RandomRolloutEvaluator(1, rng)
        if LEAF == "rollout"
        else openspiel_game.ReturnsEvaluator()
    )
    search = mcts.MCTSBot(game, 2.0, SIMULATIONS, evaluator, random_state=rng)
    return game.setup.actions.by_index(legal)[search.step(state)]


if __name__ == "__main__":
    run(choose, name="openspiel-mcts")
