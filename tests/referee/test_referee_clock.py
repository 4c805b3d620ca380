"""SeatClock arithmetic: allowance, bank, increment and grace."""

from __future__ import annotations

from protocol.messages import Clock, TimeControl
from referee.clock import SeatClock


def test_without_bank_each_decision_has_the_move_allowance() -> None:
    clock = SeatClock(TimeControl(move_ms=100))
    assert clock.available() == Clock(move_ms=100, bank_ms=0)
    assert clock.charge(99.5)
    assert clock.available() == Clock(move_ms=100, bank_ms=0)
    assert not clock.charge(100.1)
    assert clock.used_ms == 199.6


def test_time_beyond_the_move_comes_from_the_bank_then_the_increment_is_added() -> None:
    clock = SeatClock(TimeControl(move_ms=100, bank_ms=300, increment_ms=50))
    assert clock.limit_ms() == 400
    assert clock.charge(250)  # 150 from the bank, then +50
    assert clock.available() == Clock(move_ms=100, bank_ms=200)
    assert clock.charge(40)  # within the move: the bank only grows
    assert clock.available() == Clock(move_ms=100, bank_ms=250)
    assert clock.charge(350)  # exactly move + bank
    assert clock.available() == Clock(move_ms=100, bank_ms=50)
    assert not clock.charge(151)
    assert clock.available().bank_ms == 0


def test_grace_is_tolerated_but_not_announced_and_empties_the_bank() -> None:
    clock = SeatClock(TimeControl(move_ms=100, bank_ms=20), grace_ms=30)
    assert clock.available() == Clock(move_ms=100, bank_ms=20)
    assert clock.limit_ms() == 150
    assert clock.charge(140)
    assert clock.available().bank_ms == 0
    assert not clock.charge(131)
