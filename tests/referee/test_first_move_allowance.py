"""A first-move allowance (`first_move_ms`): a game's first decision may take that much longer,
for a JVM's class loading or a JIT's warm-up, which at short clocks timed out Java bots on
decision 1. Later decisions have the plain allowance, and stores made before the key existed
bind the same."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from protocol import TimeControl
from referee import SeatClock
from tournaments.cli import main
from tournaments.config import decode, fixed_settings

HEALTHY = Path(__file__).resolve().parents[1] / "bots" / "healthy.py"


def test_the_first_decision_gets_the_allowance_and_announces_it() -> None:
    clock = SeatClock(TimeControl(move_ms=100, first_move_ms=900, bank_ms=50))
    assert clock.available().move_ms == 1000 and clock.limit_ms() == 1050
    assert clock.charge(700)  # within the first decision's 1000 ms
    assert clock.available().move_ms == 100 and clock.limit_ms() == 150
    assert not clock.charge(700)


def slow_bot_faults(capsys: pytest.CaptureFixture[str], slow: int, first_ms: int) -> list[dict]:
    """Azul with a bot (seat 0) that takes 400 ms for its first `slow` decisions, at 100 ms a
    decision and `first_ms` more for the first: its faults."""
    bot = f"{sys.executable} {HEALTHY} sleep_ms=400 slow_decisions={slow}"
    argv = ["match", "--game", "azul", bot, "random", "--seed", "3", "--move-ms", "100"]
    argv += ["--first-move-ms", str(first_ms), "--json", "-q", "--sandbox", "none"]
    capsys.readouterr()
    main(argv)
    faults: list[dict] = json.loads(capsys.readouterr().out)["faults"]
    return faults


@pytest.mark.slow
def test_a_slow_first_decision_is_in_time_with_the_allowance_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert slow_bot_faults(capsys, slow=1, first_ms=2000) == []
    [fault] = slow_bot_faults(capsys, slow=1, first_ms=0)
    assert (fault["kind"], fault["decision"]) == ("timeout", 1)
    [fault] = slow_bot_faults(capsys, slow=2, first_ms=2000)  # the second has 100 ms again
    assert fault["kind"] == "timeout" and fault["decision"] > 1


def test_a_store_bound_before_the_key_existed_binds_the_same() -> None:
    plain = decode('game = "azul"\n[participants]\na = "random"\nb = "greedy"\n')
    assert "first_move_ms" not in fixed_settings(plain)["time"]
    allowed = decode(
        'game = "azul"\n[time]\nfirst_move_ms = 500\n[participants]\na = "random"\nb = "greedy"\n'
    )
    assert fixed_settings(allowed)["time"]["first_move_ms"] == 500
