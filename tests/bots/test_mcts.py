"""The `mcts` bot: it sees only its observation, answers legally in time, and beats random."""

from __future__ import annotations

import gc
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mctshelp import _context, _wire

from bots import builtin_command
from bots.mcts import MctsBot, parse_args, search_seconds
from bots.search.ismcts import ROLLOUT_STEP, Node, Params, Search
from protocol import Clock
from referee.games import Game, find_game, simulate

VARIANTS = [
    ("azul", 2, {}),
    ("azul", 3, {"variant": "grey", "special_factories": True}),
    ("azul", 4, {"special_factories": True}),
    ("5211", 3, {}),
    ("5211", 5, {}),
    ("5211", 2, {"variant": "long"}),
    ("summer-pavilion", 2, {}),
    ("alhambra", 2, {}),
]
"""Every game and variant, with every kind of decision: take, place (grey wall), split (special
factories), a simultaneous play of 2 cards and of 1."""


def _mid_game(game: Game[Any], players: int, seed: int, options: Any, steps: int) -> Any:
    rng = random.Random(seed)
    state = game.new(players, seed, options)
    for _ in range(steps):
        seats = game.to_act(state)
        game.apply(state, {s: rng.choice(game.legal(state, s)) for s in seats})
    return state


def _hidden_parts_differ(game: Game[Any], state: Any, twin: Any) -> bool:
    """Some hidden part differs: the states (others' hands) or their futures (Azul's draws:
    the same random play from both reaches different ends)."""
    if game.render(state) != game.render(twin):
        return True
    ends = []
    for start in (state, twin):
        end = game.clone(start)
        simulate(game, end, random.Random(0))
        ends.append(game.render(end))
    return ends[0] != ends[1]


@pytest.mark.parametrize(("game_id", "players", "steps"), [("azul", 2, 7), ("5211", 3, 2)])
def test_choices_are_identical_when_the_hidden_parts_are_redealt(
    game_id: str, players: int, steps: int
) -> None:
    """Re-deal what the seat cannot see (others' hands, deck, bag order) in the true state: the
    bot, given the same seed, makes the same choice, decision after decision."""
    game = find_game(game_id)
    for seed in range(3):
        state = _mid_game(game, players, seed, game.Options(), steps)
        seat = game.to_act(state)[0]
        twin = game.determinize(state, seat, random.Random(1000 + seed))
        assert _hidden_parts_differ(game, state, twin), "the re-deal changed nothing hidden"
        choices = []
        for true_state in (state, twin):
            bot = MctsBot(Params(), None, iterations=60)
            observation, legal = _wire(game, true_state, seat)
            context = _context(game, seat, players, seed, move_ms=60_000)
            choices.append(legal[bot.choose(observation, legal, context)])
        assert choices[0] == choices[1]


@pytest.mark.parametrize(("game_id", "players", "options"), VARIANTS)
def test_a_legal_action_in_time_at_every_decision(
    game_id: str, players: int, options: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    """A whole game with mcts in every seat on a 40 ms clock: every answer is one of `legal`,
    and none takes more CPU time than the search budget plus a few milliseconds (CPU time: a
    loaded machine's waits would make wall time flaky here; the clock test of docs/strategies.md
    counts timeouts on the wall clock, through the referee)."""
    game = find_game(game_id)
    state = game.new(players, 11, game.Options(**options))
    bots = [MctsBot(Params(), None, None) for _ in range(players)]
    gc.collect()
    gc.disable()  # as in the bot's process (bots.mcts.main): a collection is not the search's
    request.addfinalizer(gc.enable)
    kinds: set[str] = set()
    budget = search_seconds(Clock(move_ms=40, bank_ms=0))
    worst = 0.0
    while game.to_act(state):
        actions = {}
        for seat in game.to_act(state):
            observation, legal = _wire(game, state, seat)
            kinds.add(getattr(getattr(observation, "decision", None), "kind", "play"))
            context = _context(game, seat, players, seat, move_ms=40)
            started = time.process_time()
            index = bots[seat].choose(observation, legal, context)
            worst = max(worst, time.process_time() - started)
            assert 0 <= index < len(legal)
            actions[seat] = legal[index]
        game.apply(state, actions)
    assert game.result(state) is not None
    assert worst < budget + 0.025, f"a decision took {worst * 1000:.1f} ms"
    if options.get("variant") == "grey":
        assert {"take", "place", "split"} <= kinds


def _margin_against_random(seed: int) -> int:
    game = find_game("azul")
    state = game.new(2, seed)
    me = seed % 2
    bot = MctsBot(Params(), None, iterations=40)
    rng = random.Random(seed)
    while game.to_act(state):
        (seat,) = game.to_act(state)
        observation, legal = _wire(game, state, seat)
        if seat == me:
            action = legal[bot.choose(observation, legal, _context(game, me, 2, seed, 60_000))]
        else:
            action = rng.choice(legal)
        game.apply(state, {seat: action})
    scores = game.scores(state)
    return scores[me] - scores[1 - me]


def test_mcts_beats_random_by_a_wide_margin_at_a_tiny_budget() -> None:
    margins = [_margin_against_random(seed) for seed in range(4)]
    # Measured: 4 wins of 4, by 59-93 points each, at 40 iterations a decision.
    assert all(margin > 20 for margin in margins), margins


@pytest.mark.parametrize(("opponents", "searched"), [("search", {0, 1, 2}), ("heuristic", {1})])
def test_other_seats_are_searched_or_modelled(opponents: str, searched: set[int]) -> None:
    """A simultaneous decision of 5211: with "search" every seat's choice has statistics at the
    root (decoupled UCT); with "heuristic" only the searching seat's does, the others play the
    heuristic's best, and the answer is still a legal play."""
    game = find_game("5211")
    state = game.new(3, 4)
    search = Search(game, Params(opponents=opponents))  # type: ignore[arg-type]
    rng = random.Random(4)
    search.run(state, 1, rng, time.perf_counter() + 60, iterations=1)
    tree = Node()
    for _ in range(20):
        search._iterate(tree, game.determinize(state, 1, rng), rng, time.perf_counter() + 60)
    assert set(tree.stats) == searched
    action = search.run(state, 1, rng, time.perf_counter() + 60, iterations=50)
    assert action in game.legal(state, 1)


def test_a_long_rollout_looks_at_the_clock() -> None:
    """A rollout to the end of a game stops soon after the deadline (a few decisions later),
    not at the end: one slow iteration cannot make the answer late."""
    game = find_game("azul")
    search = Search(game, Params(rollout="random", depth=0))
    rng = random.Random(3)
    world = game.new(2, 3)
    assert search._rollout(game.clone(world), rng, deadline=0.0) == ROLLOUT_STEP
    ended = game.clone(world)
    played = search._rollout(ended, rng, deadline=time.perf_counter() + 600)
    assert played > 4 * ROLLOUT_STEP
    assert game.is_over(ended)


@pytest.mark.alone  # wall-clock bounds: run without the other tests' load
def test_a_late_decision_is_kept_back_from_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    """Time a decision spent past its deadline is subtracted from the next ones, and forgotten
    by halves once decisions end in time again."""
    game = find_game("azul")
    state = game.new(2, 5)
    observation, legal = _wire(game, state, 0)
    bot = MctsBot(Params(), None, None)
    context = _context(game, 0, 2, 0, move_ms=100)
    search = Search(game, Params())
    bot.searches["azul"] = search
    real_run = search.run

    def late_run(*args: Any, **options: Any) -> Any:
        """The real search, then 30 ms past its deadline (args: root, seat, rng, deadline)."""
        action = real_run(*args, **options)
        time.sleep(max(0.0, args[3] - time.perf_counter()) + 0.03)
        return action

    monkeypatch.setattr(search, "run", late_run)
    bot.choose(observation, legal, context)
    assert bot.overrun >= 0.025
    kept = bot.overrun
    monkeypatch.setattr(search, "run", real_run)
    started = time.perf_counter()
    bot.choose(observation, legal, context)
    assert time.perf_counter() - started < search_seconds(context.clock) - kept + 0.02
    assert bot.overrun < kept / 2 + 0.005


def test_search_time_leaves_a_margin_under_every_clock() -> None:
    assert search_seconds(Clock(move_ms=100, bank_ms=0)) == pytest.approx(0.045)
    assert search_seconds(Clock(move_ms=100, bank_ms=0), cap_ms=20) == pytest.approx(0.020)
    assert search_seconds(Clock(move_ms=100, bank_ms=2000)) == pytest.approx(0.105)
    assert search_seconds(Clock(move_ms=10, bank_ms=0)) == 0.0
    # charged only its CPU time, it searches more of the decision
    assert search_seconds(Clock(move_ms=100, bank_ms=0), charged="cpu") == pytest.approx(0.075)
    assert search_seconds(Clock(move_ms=1000, bank_ms=0), charged="cpu") == pytest.approx(0.885)
    for move_ms in (1, 30, 100, 1000, 10_000):
        for charged in ("wall", "cpu"):
            clock = Clock(move_ms=move_ms, bank_ms=0)
            assert search_seconds(clock, charged=charged) < 0.9 * move_ms / 1000


def test_parameters_reach_the_bot_through_its_builtin_name() -> None:
    words = ["--ms", "50", "--rollout", "random", "--c", "1.2"]
    command = builtin_command(" ".join(["mcts", *words]))
    assert command is not None
    assert command[1:] == ["-m", "bots.mcts", *words]
    args = parse_args(command[3:])
    assert (args.ms, args.rollout, args.c, args.iterations) == (50, "random", 1.2, None)
    assert builtin_command("mcts") is not None
    assert builtin_command("./mcts --ms 5") is None
    with pytest.raises(SystemExit):
        parse_args(["--rollout", "smart"])
    with pytest.raises(SystemExit):
        parse_args(["--iterations", "0"])
    assert (parse_args([]).clock, parse_args(["--clock", "cpu"]).clock) == (None, "cpu")
    assert (parse_args([]).widen, parse_args(["--widen", "1"]).widen) == (Params().widen, 1.0)
    with pytest.raises(SystemExit):
        parse_args(["--widen", "-1"])
    with pytest.raises(SystemExit):
        parse_args(["--clock", "thread"])


def test_a_real_match_with_parameters_on_the_command_line(tmp_path: Path) -> None:
    """`mcts` with arguments as `arena match` runs it: a subprocess through the SDK, no fault."""
    done = subprocess.run(
        [sys.executable, "-m", "tournaments", "match", "--game", "5211", "mcts --ms 5 --c 1",
         "greedy", "random", "--seed", "3", "--move-ms", "200", "--json"],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["faults"] == []
    assert outcome["bots"][0] == "mcts --ms 5 --c 1"


@pytest.mark.parametrize("game_id", ["alhambra", "5211"])
def test_the_prior_is_reckoned_before_the_search_within_its_deadline(game_id: str) -> None:
    """A game's root prior (Alhambra's takes milliseconds a placement) is computed once, before
    the first iteration, so the search's deadline counts its time; computed after the search,
    it made the answer late (a 500 ms Alhambra decision timed out at 511 ms under load)."""
    game = find_game(game_id)
    state = game.new(3 if game_id == "5211" else 2, 4)
    seat = game.to_act(state)[0]
    search = Search(game, Params())
    assert search.prior is not None
    estimate, weight = search.prior
    events: list[str] = []

    def prior(root: Any, seat: int, legal: list[Any]) -> list[float]:
        events.append("prior")
        return estimate(root, seat, legal)

    search.prior = (prior, weight)
    real_determinize = game.determinize

    def determinize(root: Any, seat: int, rng: random.Random) -> Any:
        events.append("world")
        return real_determinize(root, seat, rng)

    search.game = _Proxy(game, determinize)
    action = search.run(state, seat, random.Random(1), time.perf_counter() + 5, iterations=3)
    assert action in game.legal(state, seat)
    assert events == ["prior", "world", "world", "world"]


class _Proxy:
    """An engine whose `determinize` is replaced (engines may be compiled: not patchable)."""

    def __init__(self, game: Game[Any], determinize: Any) -> None:
        self._game = game
        self.determinize = determinize

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)
