"""The size of decisions: the largest legal list and the decisions per game over random games.

`python -m tournaments.bench.legal GAME PLAYERS GAMES [KEY=VALUE ...]` plays GAMES uniformly
random games (seeds 0, 1, ...) with the given options and prints both figures (the games'
docs quote them).
"""

from __future__ import annotations

import random
import sys
from typing import Any

from referee.games import find_game, parse_options, simulate


def decision_sizes(game_id: str, players: int, games: int, options: dict[str, Any]) -> str:
    game = find_game(game_id)
    parsed = parse_options(game, options)
    largest = decisions = 0
    for seed in range(games):
        rng = random.Random(seed)

        def uniform(state: Any, seat: int, legal: list[Any], rng: random.Random = rng) -> Any:
            nonlocal largest
            largest = max(largest, len(legal))
            return rng.choice(legal)

        decisions += simulate(game, game.new(players, seed, parsed), rng, uniform)
    return (
        f"{game_id} {players}p {options or '(default options)'}: largest legal list {largest}, "
        f"{decisions / games:.0f} decisions per game over {games} random games"
    )


if __name__ == "__main__":
    game_id, players, games, *pairs = sys.argv[1:]
    options = dict(pair.split("=", 1) for pair in pairs)
    print(decision_sizes(game_id, int(players), int(games), options))
