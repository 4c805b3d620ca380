"""Engine speed: uniformly random playouts, the primitives search bots live on, a Python bot's
start-up, and the `azul-game-engine` peer under a harness that plays its complete games.

Every playout decision asks the engine for the full legal list and applies a uniform choice
from it, so the figure covers legal-move generation, validation and the rules, exactly as a bot
or the referee uses them. Time is CPU time of this process (one core), which the other load of
a noisy machine disturbs far less than wall time; the start-up figure is wall time (it is a
latency, and includes the operating system starting a process).
"""

from __future__ import annotations

import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import Struct

from protocol.messages import PROTOCOL_VERSION, Start, TimeControl
from referee.games import find_game, simulate


def build(game_id: str = "azul") -> str:
    """Which build of a game's engine runs: "mypyc" (compiled, see setup.py) or "pure Python"
    (per game, since pyproject.toml may list only some engines for mypyc)."""
    module = sys.modules[type(find_game(game_id)).__module__]
    return "pure Python" if str(module.__file__).endswith(".py") else "mypyc"


def player_counts(game_id: str) -> tuple[int, ...]:
    """The measured player counts, 2 and 4, that the game is for."""
    game = find_game(game_id)
    return tuple(n for n in (2, 4) if game.min_players <= n <= game.max_players)


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
    options = game.Options()

    def play(players: int, seed: int, rng: random.Random) -> int:
        state = game.new(players, seed, options)
        decisions = simulate(game, state, rng)
        assert game.result(state) is not None
        return decisions

    return play


def affordable_games(
    playout: Callable[[int, int, random.Random], int], players: int, games: int, budget_ms: float
) -> int:
    """`games`, or fewer (at least 2) when one playout, timed once here, takes more than
    `budget_ms`: a slow game (Alhambra's playouts take ~50 ms) keeps the section short, and its
    figure stays a median over the same number of repetitions."""
    began = time.process_time()
    playout(players, 0, random.Random(0))
    elapsed_ms = (time.process_time() - began) * 1000
    return max(2, min(games, int(games * budget_ms / max(elapsed_ms, 1e-6))))


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


class Comparison(Struct, frozen=True):
    """Two playouts timed in alternation: medians of games/s and of the per-pair ratio."""

    ours: float
    theirs: float
    ratio: float


def interleaved(
    ours: Callable[[int, int, random.Random], int],
    theirs: Callable[[int, int, random.Random], int],
    players: int,
    games: int,
    repeats: int,
) -> Comparison:
    """Time `games` playouts of each, alternately, `repeats` times: a change in the machine's
    load between two sections of a run then cannot pass for a difference in speed."""
    pairs = [
        (
            measure(ours, players, games, 1).games_per_s,
            measure(theirs, players, games, 1).games_per_s,
        )
        for _ in range(repeats)
    ]
    return Comparison(
        ours=statistics.median(a for a, _ in pairs),
        theirs=statistics.median(b for _, b in pairs),
        ratio=statistics.median(a / b for a, b in pairs),
    )


# ---- primitives: what a search bot calls millions of times ------------------------------------


class Primitives(Struct, frozen=True):
    """Per call, in µs (medians over repetitions), on one mid-game state."""

    clone_us: float
    clone_apply_us: float
    clone_apply_game_us: float
    """clone + apply averaged over every state of a whole game (round ends included)."""
    legal_us: float
    rollout_us: float
    """A clone played out to the end with uniformly random choices."""


MIDGAME = 15
"""Decisions played from the start to reach the measured state: in Azul 2p (seed 7), round 2
with 13 of its 20 tiles left, so applying a take neither ends the round nor deals a new one."""


def primitives(game_id: str, players: int, calls: int, repeats: int) -> Primitives:
    """clone, clone + apply of one legal action per acting seat, legal, and a rollout, on the
    state MIDGAME decisions into a seeded random game; and clone + apply over all its states."""
    game = find_game(game_id)
    clone, apply, legal = game.clone, game.apply, game.legal
    whole = []
    state = game.new(players, 7, game.Options())
    rng = random.Random(7)
    while seats := game.to_act(state):
        whole.append((clone(state), {seat: legal(state, seat)[0] for seat in seats}))
        simulate(game, state, rng, limit=1)
    state, actions = whole[min(MIDGAME, len(whole) - 1)]
    seat = next(iter(actions))

    def per_call(body: Callable[[], object], n: int) -> float:
        times = []
        for _ in range(repeats):
            began = time.process_time()
            for _ in range(n):
                body()
            times.append((time.process_time() - began) / n * 1e6)
        return statistics.median(times)

    return Primitives(
        clone_us=per_call(lambda: clone(state), calls),
        clone_apply_us=per_call(lambda: apply(clone(state), actions), calls),
        clone_apply_game_us=per_call(
            lambda: [apply(clone(s), a) for s, a in whole],
            max(1, calls // len(whole)),
        )
        / len(whole),
        legal_us=per_call(lambda: legal(state, seat), calls),
        rollout_us=per_call(lambda: simulate(game, clone(state), rng), max(1, calls // 200)),
    )


# ---- start-up: a Python bot from spawn to `ready` ---------------------------------------------


class Startup(Struct, frozen=True):
    """Medians over repeated starts of a bot, in ms."""

    wall_ms: float
    """From starting the process to reading its `ready` line (after writing `start`)."""
    cpu_ms: float
    """The process's own CPU time (user + system) over its whole life: what the start costs
    on an idle machine, where waiting for a core adds nothing."""


def startup(command: list[str], repeats: int) -> Startup:
    """Start `command` `repeats` times, write `start`, read `ready`, then close its input."""
    start = Start(
        protocol=PROTOCOL_VERSION, game="azul", options={}, seat=0, players=2, time=TimeControl()
    )
    line = msgspec.json.encode(start) + b"\n"
    walls, cpus = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        child = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(line)
        child.stdin.flush()
        reply = child.stdout.readline()
        walls.append((time.perf_counter() - began) * 1000)
        child.stdin.close()
        child.wait()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
        if b'"ready"' not in reply:
            raise RuntimeError(f"{command} answered {reply!r} instead of ready")
    return Startup(statistics.median(walls), statistics.median(cpus))


SDK_RANDOM_BOT = [sys.executable, "-m", "bots.random"]
BARE_INTERPRETER = [sys.executable, "-c", "import sys; sys.stdin.readline(); print('\"ready\"')"]


# ---- the peer: the `azul-game-engine` package --------------------------------------------------


def peer_available() -> bool:
    """Whether the optional `azul_game_engine` package is importable (never a dependency)."""
    try:
        import azul_game_engine.game  # noqa: F401
    except ImportError:
        return False
    return True


def peer_new(players: int, seed: int) -> Any:
    """A game of `azul_game_engine` as its rules mean it: ONE lid shared by the game and every
    floor. (`Board()` would give each floor a private lid, so floor tiles never went back to
    the bag and most games stopped early with an empty bag.) The package draws from the global
    `random` module, seeded here."""
    from azul_game_engine.board import Board
    from azul_game_engine.floor import Floor
    from azul_game_engine.game import Game
    from azul_game_engine.lid import Lid
    from azul_game_engine.player import Player

    random.seed(seed)
    lid = Lid()
    seats = [Player(Board(floor=Floor(lid)), name=str(p)) for p in range(players)]
    return Game(seats, starting_player=0, lid=lid)


def peer_actions(game: Any, colour_index: dict[Any, int]) -> list[tuple[int, Any, int, int]]:
    """The legal takes of the seat to act, which the package cannot list: every source
    (factories, then the centre) × colour it holds × pattern line that may take the colour
    (not full, empty or of that colour, colour not yet in that wall row), plus all to the floor.
    Each is (source, tile, tiles to the floor, line); the last source is the centre.

    The wall is read directly (the package's `already_has` rebuilds the colour list per call,
    a cost of the harness, not of the peer's rules)."""
    board = game.players[game.current_player].board
    lines = board.pattern_lines
    wall = board.wall.tiles
    sources = [display.tiles for display in game.factory_displays]
    sources.append(game.center.tiles)
    actions: list[tuple[int, Any, int, int]] = []
    for index, tiles in enumerate(sources):
        if not tiles:
            continue
        for tile in dict.fromkeys(tiles):  # distinct colours, in a stable order
            colour = colour_index[tile]
            for row, line in enumerate(lines):
                if (
                    line.tile_count < line.size
                    and (line.tile_count == 0 or line.tile == tile)
                    and not wall[row][(colour + row) % 5].is_placed
                ):
                    actions.append((index, tile, 0, row))
            actions.append((index, tile, tiles.count(tile), 0))
    return actions


def peer_step(game: Any, action: tuple[int, Any, int, int]) -> None:
    index, tile, to_floor, row = action
    if index == len(game.factory_displays):
        game.execute_factory_offer_phase_with_center(tile, to_floor, row)
    else:
        game.execute_factory_offer_phase_with_factory(index, tile, to_floor, row)


def _colour_index() -> dict[Any, int]:
    from azul_game_engine.tile import Tile

    return {tile: index for index, tile in enumerate(Tile)}


def peer_playout(players: int, seed: int, rng: random.Random) -> int:
    """One random game of `azul_game_engine`, over the legal list of `peer_actions`."""
    colours = _colour_index()
    game = peer_new(players, seed)
    decisions = 0
    while game.is_running:
        actions = peer_actions(game, colours)
        if not actions:  # bag and lid empty: the peer cannot go on (see `peer_check`)
            break
        peer_step(game, actions[int(rng.random() * len(actions))])
        decisions += 1
    return decisions


class PeerCheck(Struct, frozen=True):
    """What the harness check found over `games` random peer games."""

    games: int
    ended: int
    """Games the peer ended itself (a complete wall row), not stuck without a legal move."""
    conserved: bool
    """100 tiles, 20 per colour, after every decision of every game."""
    decisions_per_game: float


def peer_tiles(game: Any, colours: dict[Any, int]) -> list[int]:
    """Tiles per colour over every place of the peer's game."""
    counts = [0] * 5
    groups = [game.bag.tiles, game.lid.tiles, game.center.tiles]
    groups += [display.tiles for display in game.factory_displays]
    for player in game.players:
        board = player.board
        groups.append(board.floor.tiles)
        for line in board.pattern_lines:
            if line.tile_count:
                counts[colours[line.tile]] += line.tile_count
        for row in board.wall.tiles:
            for cell in row:
                counts[colours[cell.tile]] += cell.is_placed
    for group in groups:
        for tile in group:
            counts[colours[tile]] += 1
    return counts


def peer_check(players: int, games: int) -> PeerCheck:
    """Play `games` random peer games as `peer_playout` does, checking tile conservation after
    every decision and counting games that end by the peer's own rule (how the harness was
    checked; outside the timed runs)."""
    colours = _colour_index()
    rng = random.Random(0)
    ended = decisions = 0
    conserved = True
    for seed in range(games):
        game = peer_new(players, seed)
        while game.is_running:
            actions = peer_actions(game, colours)
            if not actions:
                break
            peer_step(game, actions[int(rng.random() * len(actions))])
            decisions += 1
            conserved = conserved and peer_tiles(game, colours) == [20] * 5
        ended += not game.is_running
    return PeerCheck(games, ended, conserved, decisions / games)
