"""Engine speed: uniformly random playouts, the workload of a search bot's simulations.

Every decision asks the engine for the full legal list and applies a uniform choice from it,
so the figure covers legal-move generation, validation and the rules, exactly as a bot or the
referee uses them. Time is CPU time of this process (one core), which the other load of a noisy
machine disturbs far less than wall time.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from msgspec import Struct

from referee.games import find_game


class Playouts(Struct, frozen=True):
    """Medians over repetitions of one kind of playout."""

    games_per_s: float
    decisions_per_s: float
    decisions_per_game: float


def playout(game_id: str) -> Callable[[int, int, random.Random], int]:
    """A random playout of one of our engines: (players, seed, rng) -> decisions taken.

    Every seat asked at a decision (several at once in a simultaneous game) picks uniformly
    from its own full legal list; the actions are applied together.
    """
    game = find_game(game_id)
    new, to_act, legal, apply, result = game.new, game.to_act, game.legal, game.apply, game.result
    options = game.Options()

    def play(players: int, seed: int, rng: random.Random) -> int:
        state = new(players, seed, options)
        decisions = 0
        while seats := to_act(state):
            choices = {}
            for seat in seats:
                actions = legal(state, seat)
                choices[seat] = actions[int(rng.random() * len(actions))]
            apply(state, choices)
            decisions += 1
        assert result(state) is not None
        return decisions

    return play


def measure(
    playout: Callable[[int, int, random.Random], int], players: int, games: int, repeats: int
) -> Playouts:
    """Median games/s and decisions/s over `repeats` runs of `games` playouts each."""
    rates: list[tuple[float, float]] = []
    decisions_total = 0
    for repeat in range(repeats):
        rng = random.Random(repeat)
        began = time.process_time()
        decisions = sum(playout(players, repeat * games + n, rng) for n in range(games))
        elapsed = max(time.process_time() - began, 1e-9)
        rates.append((games / elapsed, decisions / elapsed))
        decisions_total += decisions
    return Playouts(
        games_per_s=statistics.median(rate for rate, _ in rates),
        decisions_per_s=statistics.median(rate for _, rate in rates),
        decisions_per_game=decisions_total / (games * repeats),
    )


# ---- the peer: the `azul-game-engine` package --------------------------------------------------


def peer_available() -> bool:
    """Whether the optional `azul_game_engine` package is importable (never a dependency)."""
    try:
        import azul_game_engine.game  # noqa: F401
    except ImportError:
        return False
    return True


def peer_playout(players: int, seed: int, rng: random.Random) -> int:
    """One random game of `azul_game_engine`, over the legal list we enumerate from its state.

    The package has no legal-move generator, so the enumeration below is part of its time:
    every source (factories, then the centre) × every colour it holds × every pattern line that
    may take the colour (not full, empty or of that colour, colour not yet in the wall row),
    plus all to the floor. It draws from the global `random` module, seeded here per game. A
    game with no legal move left (its floors leak tiles, so the bag can run dry) ends there.
    """
    from azul_game_engine.board import Board
    from azul_game_engine.game import Game
    from azul_game_engine.player import Player

    random.seed(seed)
    game: Any = Game([Player(Board(), name=str(p)) for p in range(players)], starting_player=0)
    decisions = 0
    while game.is_running:
        board = game.players[game.current_player].board
        lines = board.pattern_lines
        wall_has = board.wall.already_has
        actions: list[tuple[int, Any, int, int]] = []
        sources = [display.tiles for display in game.factory_displays]
        sources.append(game.center.tiles)
        centre = len(sources) - 1
        for index, tiles in enumerate(sources):
            for tile in dict.fromkeys(tiles):  # distinct colours, in a stable order
                count = tiles.count(tile)
                for row, line in enumerate(lines):
                    if (
                        line.tile_count < line.size
                        and (line.tile_count == 0 or line.tile == tile)
                        and not wall_has(tile, row)
                    ):
                        actions.append((index, tile, 0, row))
                actions.append((index, tile, count, 0))
        if not actions:
            break
        index, tile, to_floor, row = actions[int(rng.random() * len(actions))]
        if index == centre:
            game.execute_factory_offer_phase_with_center(tile, to_floor, row)
        else:
            game.execute_factory_offer_phase_with_factory(index, tile, to_floor, row)
        decisions += 1
    return decisions
