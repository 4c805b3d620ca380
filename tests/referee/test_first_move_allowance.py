"""A first-move allowance (`first_move_ms`): a game's first decision may take that much longer,
for a JVM's class loading or a JIT's warm-up, which at short clocks timed out Java bots on
decision 1. Later decisions have the plain allowance, and stores made before the key existed
bind the same. The timing is played by fake bots on trio's virtual clock (`referee.testing`); `arena
match` is checked to pass the allowance on to the bots."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from trio.testing import MockClock

from protocol import TimeControl
from referee import Fault, Limits, SeatClock
from referee.testing import fake_bots, plays
from tournaments.cli import main
from tournaments.plan.config import decode, fixed_settings

HEALTHY = Path(__file__).resolve().parents[1] / "bots" / "healthy.py"


def test_the_first_decision_gets_the_allowance_and_announces_it() -> None:
    clock = SeatClock(TimeControl(move_ms=100, first_move_ms=900, bank_ms=50))
    assert clock.available.move_ms == 1000 and clock.limit_ms == 1050
    assert clock.charge(700)  # within the first decision's 1000 ms
    assert clock.available.move_ms == 100 and clock.limit_ms == 150
    assert not clock.charge(700)


async def slow_bot(tmp_path: Path, slow: int, first_ms: int) -> tuple[list[Fault], list[int]]:
    """Azul with a bot (seat 0) that takes 400 ms for its first `slow` decisions, at 100 ms a
    decision and `first_ms` more for the first: its faults, and the ids of the acts it got."""
    time = TimeControl(move_ms=100, first_move_ms=first_ms)
    async with fake_bots(
        [plays(after_ms=400, slow=slow), plays()], Limits(log_dir=str(tmp_path))
    ) as table:
        outcome = await table.play("azul", 3, time)
    return outcome.faults, [act["id"] for act in table.bots[0].received_of("act")]


async def test_a_slow_first_decision_is_in_time_with_the_allowance_only(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    faults, _ = await slow_bot(tmp_path, slow=1, first_ms=2000)
    assert faults == []
    [fault], _ = await slow_bot(tmp_path, slow=1, first_ms=0)
    assert (fault.kind, fault.decision) == ("timeout", 1)
    [fault], acts = await slow_bot(tmp_path, slow=2, first_ms=2000)  # the second has 100 ms again
    assert (fault.kind, fault.decision) == ("timeout", acts[1])


def test_arena_match_gives_the_allowance(tmp_path: Path) -> None:
    """`arena match --first-move-ms` reaches the bots: the first `act` announces the allowance,
    the others the plain move time (the clocks are long: the bot's speed does not matter)."""
    acts = tmp_path / "acts"
    bot = f"{sys.executable} {HEALTHY} act_file={acts}"
    argv = ["match", "--game", "azul", bot, "random", "--seed", "3", "--move-ms", "5000"]
    argv += ["--first-move-ms", "900", "--record", str(tmp_path / "game.jsonl")]
    argv += ["-q", "--sandbox", "none"]  # the bot writes into tmp_path
    main(argv)
    moves = [json.loads(line)["clock"]["move_ms"] for line in acts.read_text().splitlines()]
    assert moves[0] == 5900 and set(moves[1:]) == {5000}, moves


def test_a_store_bound_before_the_key_existed_binds_the_same() -> None:
    plain = decode('game = "azul"\n[participants]\na = "random"\nb = "greedy"\n')
    assert "first_move_ms" not in fixed_settings(plain)["time"]
    allowed = decode(
        'game = "azul"\n[time]\nfirst_move_ms = 500\n[participants]\na = "random"\nb = "greedy"\n'
    )
    assert fixed_settings(allowed)["time"]["first_move_ms"] == 500
