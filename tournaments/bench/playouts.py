"""Random playouts of one game, for timing an engine against another checkout's as whole
processes: `python tournaments/bench/playouts.py GAME PLAYERS N` plays N games (seeds 0..N-1),
each decision a uniformly random legal action, and prints the decisions played.

Run as a file, it plays with the `referee` found first on `sys.path`, so that
`PYTHONPATH=OTHER_CHECKOUT python tournaments/bench/playouts.py ...` times that checkout's
engines with the same loop (docs/benchmarks.md, "The engines before and after issue 26")."""

from __future__ import annotations

import random
import sys

from referee.games import find_game


def playouts(game_id: str, players: int, count: int) -> int:
    """The decisions of `count` random games of `game_id` with `players` seats."""
    game = find_game(game_id)
    decisions = 0
    for seed in range(count):
        rng = random.Random(seed)
        state = game.new(players, seed, None)
        while to_act := game.to_act(state):
            game.apply(state, {seat: rng.choice(game.legal(state, seat)) for seat in to_act})
            decisions += 1
    return decisions


if __name__ == "__main__":
    print(playouts(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
