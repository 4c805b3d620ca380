"""Search speed: iterations per second of the `mcts` bot's search, per registered game.

Each measurement is what the bot does for one decision, repeated over positions of real games
(random play from the start for a random number of decisions): rebuild a state from the seat's
observation (`Game.from_observation`), then run a search of a fixed number of iterations from
it. Time is CPU time of this process, like the engine section's.
"""

from __future__ import annotations

import random
import time

from bots.search.ismcts import Params, Search
from referee.games import GAME_IDS, find_game, simulate


def _cases() -> tuple[tuple[str, int], ...]:
    """Every registered game, with its fewest and its most players."""
    cases: list[tuple[str, int]] = []
    for game_id in GAME_IDS:
        game = find_game(game_id)
        for players in dict.fromkeys((game.min_players, game.max_players)):
            cases.append((game_id, players))
    return tuple(cases)


CASES: tuple[tuple[str, int], ...] = _cases()
"""(game, players) measured: a game registered later is measured with no change here."""


def iterations_per_second(game_id: str, players: int, positions: int, iterations: int) -> float:
    """Search iterations per CPU second over `positions` positions (default parameters:
    greedy rollouts, the bot's defaults)."""
    game = find_game(game_id)
    search = Search(game, Params())
    rng = random.Random(0)
    done = 0
    spent = 0.0
    seed = 0
    while positions:
        seed += 1
        state = game.new(players, seed)
        simulate(game, state, rng, limit=rng.randrange(40))
        if game.is_over(state):
            continue
        seat = game.to_act(state)[0]
        began = time.process_time()
        root = game.from_observation(game.observe(state, seat), rng)
        search.run(root, seat, rng, time.perf_counter() + 600, iterations)
        spent += time.process_time() - began
        done += search.iterations
        positions -= 1
    return done / max(spent, 1e-9)
