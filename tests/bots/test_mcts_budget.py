"""The `mcts` bot's budgets: CPU time under the referee's cpu time mode, on the clock `--clock`
names, and a number of iterations whose answers do not depend on the machine's load."""

from __future__ import annotations

import contextlib
import functools
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mctshelp import _context, _wire

from bots.mcts import CAP_SHARE, MctsBot
from bots.search.budget import CLOCKS
from bots.search.ismcts import Params
from protocol import Clock, TimeControl
from protocol.messages import CPU_MODE_WALL_CAP
from referee import BotSpec, Limits, parse_record, positions, run_match
from referee.games import find_game
from referee.spawn import keep_priority

TIME = TimeControl(move_ms=50, startup_ms=10_000)
"""The loaded match's clock: 30 ms of search a decision by the bot's share in cpu time mode."""
ITERATIONS = 10
"""A few milliseconds of search: far within the clock's share, even on a machine that gives the
bot almost none of its time (the wall-clock stop, `CAP_SHARE`)."""


@contextlib.contextmanager
def loaded() -> Iterator[None]:
    """A busy loop for each CPU this process may use, while the block runs, each in a session
    of its own at the bots' priority (the referee starts them so: `keep_priority`): the bots get
    a share of the machine only."""
    loop = [sys.executable, "-c", "while True:\n    pass"]
    spinners = [
        subprocess.Popen(loop, start_new_session=True, preexec_fn=keep_priority)
        for _ in os.sched_getaffinity(0)
    ]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def _mcts(*words: str) -> BotSpec:
    return BotSpec("mcts", [sys.executable, "-m", "bots.mcts", *words])


@pytest.mark.alone  # it loads every core: the other tests' clocks must not pay for it
async def test_a_loaded_machine_neither_times_out_a_cpu_search_nor_changes_its_iterations(
    tmp_path: Path,
) -> None:
    """Under `time_mode = "cpu"`, with a busy loop on every CPU, the bot at its default budget
    never goes over its limit, and the bot at `--iterations` plays, move for move, what it
    plays on a quiet machine under another clock (replayed here, in this process)."""
    limits = Limits(sandbox="none", log_dir=str(tmp_path), time_mode="cpu")
    specs = [_mcts(), _mcts("--iterations", str(ITERATIONS))]
    with loaded():
        outcome = await run_match("azul", {}, 4, specs, TIME, limits=limits, bot_seeds=[1, 2])
    assert outcome.faults == []
    parsed = parse_record(outcome.record)
    assert max(line.ms[0] for line in parsed.decisions if 0 in line.ms) < TIME.move_ms

    game = find_game("azul")
    bot = MctsBot(Params(), None, iterations=ITERATIONS)
    context = _context(game, 1, 2, parsed.header.starts[1].seed, move_ms=TIME.move_ms)
    context.clock = Clock(move_ms=5_000, bank_ms=0)  # another clock, on the wall
    decoder = msgspec.json.Decoder(game.Action)
    replayed = 0
    for position in positions(parsed):
        if position.line is None or 1 not in position.line.actions:
            continue
        observation, legal = _wire(game, position.state, 1)
        played = decoder.decode(position.line.actions[1])
        assert legal[bot.choose(observation, legal, context)] == played
        replayed += 1
    assert replayed > 10


def _choices(clock: Clock) -> tuple[list[Any], Any]:
    """Three decisions of `mcts --iterations 30` on Azul (its search's shape, the round's end
    or not, is decided by the time it is given) under `clock`, and its random state after."""
    game = find_game("azul")
    bot = MctsBot(Params(), None, iterations=30)
    context = _context(game, 0, 2, 7, move_ms=300)
    context.time = TimeControl(move_ms=300, bank_ms=10_000)
    context.clock = clock
    state = game.new(2, 11)
    rng = random.Random(11)
    answers = []
    for _ in range(3):
        observation, legal = _wire(game, state, 0)
        answers.append(legal[bot.choose(observation, legal, context)])
        game.apply(state, {0: answers[-1]})
        game.apply(state, {1: rng.choice(game.legal(state, 1))})
    return answers, context.rng.getstate()


def test_iterations_answer_the_same_whatever_is_left_of_the_bank() -> None:
    """A bank drawn down (by a loaded machine's slow answers) leaves a decision under
    `STAGE_MS` of search time where a full one gives it more: with `--iterations` the search is
    shaped by the time control, so the answers and the random numbers drawn are the same."""
    full = _choices(Clock(move_ms=300, bank_ms=10_000))
    spent = _choices(Clock(move_ms=300, bank_ms=0))
    assert full == spent


class Clocks:
    """Both clocks of `bots.search.budget.CLOCKS`, set by hand."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = {"wall": 0.0, "cpu": 0.0}
        for kind in self.now:
            monkeypatch.setitem(CLOCKS, kind, functools.partial(self.now.__getitem__, kind))

    def advance(self, wall: float, cpu: float = 0.0) -> None:
        self.now["wall"] += wall
        self.now["cpu"] += cpu


def test_a_cpu_budget_is_spent_on_cpu_time_with_the_wall_clock_as_a_safety_stop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--clock cpu --ms 40` under a wall-clock referee: waiting spends none of the budget,
    computing does, and the referee's clock's share (45 ms of wall-clock time at 100 ms a
    decision) stops the search in any case."""
    clocks = Clocks(monkeypatch)
    bot = MctsBot(Params(), 40, None, clock="cpu")
    timer, deadline = bot.deadline(Clock(move_ms=1_000, bank_ms=0), "wall")
    clocks.advance(wall=0.5, cpu=0.039)
    assert timer() < deadline
    clocks.advance(wall=0.0, cpu=0.002)
    assert timer() >= deadline
    timer, deadline = bot.deadline(Clock(move_ms=100, bank_ms=0), "wall")
    clocks.advance(wall=0.044)
    assert timer() < deadline
    clocks.advance(wall=0.002)
    assert timer() >= deadline


def test_a_cpu_search_stops_by_the_wall_clock_within_the_referees_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under a cpu referee the default budget is CPU time (39 ms at 60 ms a decision), which
    waiting does not spend; a bot that gets almost no CPU still stops searching at `CAP_SHARE`
    of the referee's wall-clock cap (600 ms of the cap's 1,800)."""
    clocks = Clocks(monkeypatch)
    timer, deadline = MctsBot(Params(), None, None).deadline(Clock(move_ms=60, bank_ms=0), "cpu")
    assert CAP_SHARE * CPU_MODE_WALL_CAP * 60 == 600
    clocks.advance(wall=0.3, cpu=0.038)
    assert timer() < deadline
    clocks.advance(wall=0.0, cpu=0.002)
    assert timer() >= deadline
    timer, deadline = MctsBot(Params(), None, None).deadline(Clock(move_ms=60, bank_ms=0), "cpu")
    clocks.advance(wall=0.599, cpu=0.001)
    assert timer() < deadline
    clocks.advance(wall=0.002)
    assert timer() >= deadline
