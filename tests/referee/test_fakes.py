"""The fakes shipped in `referee.testing` work outside pytest-trio, as its docstring shows."""

from __future__ import annotations

import time

from protocol.messages import TimeControl
from referee import Limits, MatchOutcome
from referee.testing import Hang, fake_bots, misbehaves, plays, run_on_mock_clock


def test_the_docstrings_example_runs_on_the_mock_clock() -> None:
    async def main() -> MatchOutcome:
        bots = [plays(after_ms=250), misbehaves(3, Hang())]
        async with fake_bots(bots, Limits()) as table:
            return await table.play("azul", seed=1, time=TimeControl(move_ms=1000))

    started = time.monotonic()
    outcome = run_on_mock_clock(main)
    assert time.monotonic() - started < 5  # the hang's second and the delays cost no real time
    assert [(fault.seat, fault.kind) for fault in outcome.faults] == [(1, "timeout")]
    assert outcome.moves == [3, 2]  # seat 0 starts (Azul ruling 1); seat 1 hangs at its 3rd
    assert outcome.think_ms[0] == 3 * 250
    assert outcome.think_ms[1] >= 1000  # the hang, charged to its limit
