"""SeatClock arithmetic: allowance, bank, increment and grace."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol.messages import Clock, TimeControl
from referee.clock import SeatClock


def test_without_bank_each_decision_has_the_move_allowance() -> None:
    clock = SeatClock(TimeControl(move_ms=100))
    assert clock.available == Clock(move_ms=100, bank_ms=0)
    assert clock.charge(99.5)
    assert clock.available == Clock(move_ms=100, bank_ms=0)
    assert not clock.charge(100.1)
    assert clock.used_ms == 199.6


def test_time_beyond_the_move_comes_from_the_bank_then_the_increment_is_added() -> None:
    clock = SeatClock(TimeControl(move_ms=100, bank_ms=300, increment_ms=50))
    assert clock.limit_ms == 400
    assert clock.charge(250)  # 150 from the bank, then +50
    assert clock.available == Clock(move_ms=100, bank_ms=200)
    assert clock.charge(40)  # within the move: the bank only grows
    assert clock.available == Clock(move_ms=100, bank_ms=250)
    assert clock.charge(350)  # exactly move + bank
    assert clock.available == Clock(move_ms=100, bank_ms=50)
    assert not clock.charge(151)
    assert clock.available.bank_ms == 0


def test_grace_is_tolerated_but_not_announced_and_empties_the_bank() -> None:
    clock = SeatClock(TimeControl(move_ms=100, bank_ms=20), grace_ms=30)
    assert clock.available == Clock(move_ms=100, bank_ms=20)
    assert clock.limit_ms == 150
    assert clock.charge(140)
    assert clock.available.bank_ms == 0
    assert not clock.charge(131)


def _reference(time: TimeControl, grace_ms: int, charges: list[float]) -> list[object]:
    """The clock's rules worked out afresh at every step: what the seat is told, its limit, and
    whether each charge was in time."""
    move_ms, bank_ms = time.move_ms + time.first_move_ms, float(time.bank_ms)
    steps: list[object] = []
    for used_ms in charges:
        limit_ms = move_ms + bank_ms + grace_ms
        steps.append((Clock(move_ms=move_ms, bank_ms=int(bank_ms)), limit_ms))
        if used_ms > limit_ms:
            bank_ms = 0.0
            steps.append(False)
            continue
        bank_ms = max(0.0, bank_ms - max(0.0, used_ms - move_ms)) + time.increment_ms
        move_ms = time.move_ms
        steps.append(True)
    steps.append((Clock(move_ms=move_ms, bank_ms=int(bank_ms)), move_ms + bank_ms + grace_ms))
    return steps


@given(
    st.builds(
        TimeControl,
        move_ms=st.integers(1, 500),
        bank_ms=st.integers(0, 500),
        increment_ms=st.sampled_from([0, 0, 50]),
        first_move_ms=st.sampled_from([0, 0, 300]),
    ),
    st.sampled_from([0, 30]),
    st.lists(st.floats(0, 1500, allow_nan=False), max_size=12),
)
def test_what_the_clock_keeps_between_decisions_is_always_what_its_rules_say(
    time: TimeControl, grace_ms: int, charges: list[float]
) -> None:
    """`available` and `limit_ms` are worked out again only when a charge changed them (not at
    every decision): after any charges they are what the rules give from scratch."""
    clock, steps = SeatClock(time, grace_ms), list[object]()
    for used_ms in charges:
        steps.append((clock.available, clock.limit_ms))
        steps.append(clock.charge(used_ms))
    steps.append((clock.available, clock.limit_ms))
    assert steps == _reference(time, grace_ms, charges)
