"""Every kind of broken bot against a healthy one, in real Azul games.

Each case checks the fault's kind and reason, that the referee finished the game with the
healthy seat ranked first and the record replaying identically, and that no process is left.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from refhelp import UNHURRIED, Bots

from protocol.messages import TimeControl
from referee import Limits, replay, run_match

TIME = TimeControl(move_ms=300, startup_ms=1000)


def times(mode: str, broken_seat: int) -> list[TimeControl]:
    """The seats' time controls: `TIME`'s limits only where the case is about them (a slow
    start, a hang) and only for the broken seat."""
    broken = TimeControl(
        move_ms=TIME.move_ms if mode == "hang" else UNHURRIED.move_ms,
        startup_ms=TIME.startup_ms if mode == "slow_start" else UNHURRIED.startup_ms,
    )
    return [broken if seat == broken_seat else UNHURRIED for seat in range(2)]


CASES = [
    # mode, options, kind, phrases of the reason, decision (None: the bot's first decision)
    # Dead before `start` is written, or after: both are the bot's crash at its start.
    (
        "crash_start",
        (),
        "crash",
        ["exited (exit code 3)", ("being sent `start`", "`ready`"), "boom: crash at start"],
        -1,
    ),
    (
        "crash_mid",
        ("after=2",),
        "crash",
        ["exited (exit code 7)", "its answer to decision", "fatal: the bot broke at decision"],
        "third",
    ),
    (
        "crash_mid",
        ("after=1", "how=signal"),
        "crash",
        ["exited (killed by signal SIGKILL)", "last stderr lines: fatal: the bot broke"],
        "second",
    ),
    (
        "hang",
        (),
        "timeout",
        ["no answer to decision", "within 300 ms (move 300 ms + bank 0 ms)"],
        "first",
    ),
    ("slow_start", (), "startup_timeout", ["no `ready` within 1000 ms of its start"], -1),
    ("garbage", (), "malformed", ["sent 'this is not json', which is not a JSON message"], "first"),
    (
        "wrong_shape",
        (),
        "schema",
        ["does not fit the game's actions", "unknown field `foo` - at `$.action`"],
        "first",
    ),
    ("extra_field", (), "schema", ["not a valid `action` message", "unknown field `foo`"], "first"),
    ("wrong_id", (), "wrong_id", ["answered decision", "was asked"], "first"),
    ("bad_index", (), "bad_index", ["index 9999 is out of range"], "first"),
    (
        "illegal",
        (),
        "illegal",
        ["sent the action", "breaks the rule 'take a colour the source holds'"],
        "second",
    ),
    (
        "long_line",
        (),
        "line_too_long",
        ["sent a line longer than 1048576 bytes (the referee's maximum line length)"],
        "first",
    ),
    ("close_stdout", (), "closed", ["closed its stdout but is still running"], "first"),
]


def nth_decision(which: str | int, seat: int) -> int:
    """Decision numbers of a seat's first turns in a 2-player Azul game (seats alternate)."""
    if isinstance(which, int):
        return which
    turn = ["first", "second", "third"].index(which)
    return 1 + seat + 2 * turn


@pytest.mark.parametrize("broken_seat", [0, 1])
@pytest.mark.parametrize(
    ("mode", "options", "kind", "phrases", "when"),
    CASES,
    ids=[f"{case[0]}{'-' + '-'.join(case[1]) if case[1] else ''}" for case in CASES],
)
async def test_broken_bot(
    bots: Bots,
    tmp_path: Path,
    broken_seat: int,
    mode: str,
    options: tuple[str, ...],
    kind: str,
    phrases: list[str],
    when: str | int,
) -> None:
    specs = [bots.healthy(), bots.healthy()]
    specs[broken_seat] = bots.broken(mode, *options)
    limits = Limits(log_dir=str(tmp_path), exit_wait_ms=200)
    outcome = await run_match("azul", {}, 5, specs, times(mode, broken_seat), limits=limits)

    [fault] = outcome.faults
    assert fault.seat == broken_seat
    assert fault.kind == kind
    for phrase in phrases:  # a tuple: one of these
        assert any(one in fault.reason for one in ([phrase] if isinstance(phrase, str) else phrase))
    assert fault.decision == nth_decision(when, broken_seat)
    healthy = 1 - broken_seat
    assert outcome.result.ranks[healthy] == 1
    assert outcome.result.ranks[broken_seat] == 2
    assert outcome.result.tiebreak == "forfeit"
    assert outcome.decisions == max(0, fault.decision - 1)
    report = replay(outcome.record)
    assert report.identical, report.divergence
    assert report.faults == [fault]
    bots.assert_none_left()


async def test_both_seats_faulty_share_the_last_rank(bots: Bots, tmp_path: Path) -> None:
    specs = [bots.broken("crash_start"), bots.broken("slow_start")]
    time = TimeControl(move_ms=300, startup_ms=500)
    outcome = await run_match("azul", {}, 5, specs, time, limits=Limits(log_dir=str(tmp_path)))
    assert sorted(fault.kind for fault in outcome.faults) == ["crash", "startup_timeout"]
    assert outcome.result.ranks == [1, 1]
    assert outcome.decisions == 0
    bots.assert_none_left()
