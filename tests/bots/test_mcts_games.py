"""`mcts` on Summer Pavilion and Alhambra: a legal answer in time at every kind of decision, and
far stronger than random play at a tiny budget."""

from __future__ import annotations

import gc
import importlib
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from greedyhelp import play_against_random
from mctshelp import _context, _wire

from bots.mcts import MctsBot, search_seconds
from bots.search.ismcts import Params, Search
from bots.search.policies import profile
from protocol import Clock
from referee.games import Game, find_game
from referee.games.summer_pavilion_messages import Pass

Kind = Callable[["Game[Any]", Any, int], str]
"""(game, state, seat) -> the kind of decision the seat faces."""


def _summer_pavilion_kind(game: Game[Any], state: Any, seat: int) -> str:
    """The decision's kind, with "pass" for a phase-2 decision where only passes are legal."""
    kind: str = game.observe(state, seat).decision.kind
    if kind == "place" and all(isinstance(a, Pass) for a in game.legal(state, seat)):
        return "pass"
    return kind


def _alhambra_kind(game: Game[Any], state: Any, seat: int) -> str:
    phase: str = game.observe(state, seat).phase
    return phase


CASES: list[tuple[str, int, dict[str, Any], Kind, set[str]]] = [
    ("summer-pavilion", 2, {}, _summer_pavilion_kind, {"take", "place", "pass", "pay", "bonus"}),
    (
        "summer-pavilion",
        3,
        {"variant": "grey"},
        _summer_pavilion_kind,
        {"take", "place", "pass", "pay", "bonus"},
    ),
    ("alhambra", 2, {}, _alhambra_kind, {"action", "pay", "redesign", "place", "final"}),
    ("alhambra", 3, {}, _alhambra_kind, {"action", "pay", "redesign", "place", "final"}),
]
"""Game, players, options, how to tell the kinds apart, and the kinds that must be met (the
2-player Alhambra has Dirk, and its placements offer giving him the building)."""


def _states_by_kind(
    game: Game[Any], players: int, options: Any, kind_of: Kind, wanted: set[str]
) -> dict[str, list[tuple[Any, int]]]:
    """Up to two (state, seat) of each wanted kind, from games of mostly greedy play (random
    play rarely completes a Summer Pavilion feature) until every kind was met."""
    strategy = importlib.import_module(f"bots.strategies.{game.id.replace('-', '_')}")
    found: dict[str, list[tuple[Any, int]]] = {}
    for seed in range(30):
        rng = random.Random(seed)
        state = game.new(players, seed, options)
        while seats := game.to_act(state):
            seat = seats[0]
            kind = kind_of(game, state, seat)
            if kind in wanted and len(found.setdefault(kind, [])) < 2:
                found[kind].append((game.clone(state), seat))
            legal = game.legal(state, seat)
            if rng.random() < 0.8:
                action = legal[strategy.choose(game.observe(state, seat), legal, rng)]
            else:
                action = rng.choice(legal)
            game.apply(state, {seat: action})
        if set(found) == wanted and all(len(states) == 2 for states in found.values()):
            break
    return found


@pytest.mark.parametrize(("game_id", "players", "options", "kind_of", "wanted"), CASES)
def test_a_legal_action_in_time_at_every_kind_of_decision(
    game_id: str,
    players: int,
    options: dict[str, Any],
    kind_of: Kind,
    wanted: set[str],
    request: pytest.FixtureRequest,
) -> None:
    """Every kind of decision, as the bot receives it on a 100 ms clock: the answer is one of
    `legal`, and it takes no more CPU time than the search budget plus a margin (the search
    stops between iterations, and a long game's iteration is a few milliseconds)."""
    game = find_game(game_id)
    found = _states_by_kind(game, players, game.Options(**options), kind_of, wanted)
    assert set(found) == wanted
    bot = MctsBot(Params(), None, None)
    gc.collect()
    gc.disable()  # as in the bot's process (bots.mcts.main)
    request.addfinalizer(gc.enable)
    budget = search_seconds(Clock(move_ms=100, bank_ms=0))
    for kind, states in found.items():
        for state, seat in states:
            observation, legal = _wire(game, state, seat)
            context = _context(game, seat, players, seat, move_ms=100)
            started = time.process_time()
            index = bot.choose(observation, legal, context)
            spent = time.process_time() - started
            assert 0 <= index < len(legal), kind
            assert spent < budget + 0.04, f"{kind}: {spent * 1000:.1f} ms"


def _mcts_choose(
    game_id: str, iterations: int
) -> Callable[[Any, Sequence[Any], random.Random], int]:
    bot = MctsBot(Params(), None, iterations)
    game = find_game(game_id)

    def choose(observation: Any, legal: Sequence[Any], rng: random.Random) -> int:
        seat = observation.seat
        players = len(observation.players) if game_id == "summer-pavilion" else observation.players
        context = _context(game, seat, players, rng.randrange(1 << 30), move_ms=60_000)
        return bot.choose(observation, list(legal), context)

    return choose


@pytest.mark.parametrize(
    ("game_id", "iterations", "margin"), [("summer-pavilion", 10, 50), ("alhambra", 2, 50)]
)
def test_mcts_beats_random_by_a_wide_margin_at_a_tiny_budget(
    game_id: str, iterations: int, margin: int
) -> None:
    """Two 2-player games, one in each seat, at a handful of iterations a decision (measured:
    4 wins of 4 in each game, by 90 points or more)."""
    game = find_game(game_id)
    choose = _mcts_choose(game_id, iterations)
    for seed in range(2):
        result, me = play_against_random(game, choose, 2, seed)
        assert result.scores[me] - result.scores[1 - me] > margin, result.scores


def test_summer_pavilion_rollouts_choose_among_every_legal_action() -> None:
    """`SearchProfile.sample`: a phase-2 list is mostly passes, so Summer Pavilion's greedy rollouts
    value every legal action and always play the heuristic's best; an explicit
    `Params.sample` still wins (one sampled action is often not the best)."""
    game = find_game("summer-pavilion")
    wanted = {"place"}
    found = _states_by_kind(game, 2, game.Options(), _summer_pavilion_kind, wanted)
    heuristic = profile(game.id).heuristic
    assert heuristic is not None
    for state, seat in found["place"]:
        legal = game.legal(state, seat)
        values = [heuristic(state, seat, action) for action in legal]
        best = legal[values.index(max(values))]
        assert len(legal) > 24 and values.count(max(values)) == 1  # 8 samples often miss it
        rng = random.Random(0)
        policy = Search(game, Params())._policy(rng)
        assert policy is not None
        assert all(policy(state, seat, legal) == best for _ in range(20))
        one = Search(game, Params(sample=1))._policy(rng)
        assert one is not None
        assert any(one(state, seat, legal) != best for _ in range(20))
