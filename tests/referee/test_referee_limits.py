"""Resource limits, the sandbox and the cpu time mode, on real bot processes (the broken-bot
matrix in tests/tournaments/test_broken_matrix.py covers each limit inside a tournament)."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trio
from refhelp import BOTS, UNHURRIED, Bots

from protocol.messages import TimeControl
from referee import BotSpec, Limits, process, run_match
from referee.limits import ResourceLimits, limit_hit
from tournaments.plan.botcommands import parse_bot

SLOW_SLEEPER = [TimeControl(move_ms=100, startup_ms=UNHURRIED.startup_ms), UNHURRIED]
"""The sleeper's move clock is the test; its start and the healthy seat are not."""


async def test_cpu_time_mode_charges_cpu_not_waiting(bots: Bots, tmp_path: Path) -> None:
    """A bot that sleeps 250 ms per decision uses almost no CPU: fine in cpu mode, a timeout
    by the wall clock."""
    specs = [bots.healthy("sleep_ms=250", "slow_decisions=3"), bots.healthy()]
    cpu = Limits(sandbox="none", log_dir=str(tmp_path), time_mode="cpu")
    outcome = await run_match("azul", {}, 1, specs, SLOW_SLEEPER, limits=cpu)
    assert outcome.faults == []
    assert outcome.think_ms[0] < 3 * 100
    wall = Limits(sandbox="none", log_dir=str(tmp_path))
    outcome = await run_match("azul", {}, 1, specs, SLOW_SLEEPER, limits=wall)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (0, "timeout")
    bots.assert_none_left()


async def test_built_in_bots_play_in_the_sandbox(tmp_path: Path) -> None:
    limits = Limits(log_dir=str(tmp_path), sandbox="bwrap")
    specs = [parse_bot("greedy"), parse_bot("random")]
    outcome = await run_match("5211", {}, 3, specs, UNHURRIED, limits=limits)
    assert outcome.faults == []


def pinned(spec: BotSpec, cpu: int) -> BotSpec:
    """`spec`'s bot on CPU `cpu` alone (its command starts with the interpreter)."""
    wrapper = (
        f"import os, sys\nos.sched_setaffinity(0, {{{cpu}}})\n"
        "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
    )
    return BotSpec(spec.name, [sys.executable, "-c", wrapper, *spec.command[1:]], files=spec.files)


@contextlib.contextmanager
def busy(cpu: int, loops: int) -> Iterator[Callable[[], None]]:
    """`loops` busy loops pinned to CPU `cpu` while the block runs, or until it calls what it
    is given; each in a session of its own, as a bot is (where the kernel schedules sessions
    as groups, each loop then takes as large a share as the bot)."""
    loop = f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True:\n    pass"
    spinners = [
        subprocess.Popen([sys.executable, "-c", loop], start_new_session=True) for _ in range(loops)
    ]

    def stop() -> None:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()

    try:
        yield stop
    finally:
        stop()


async def stop_once_written(path: Path, text: str, stop: Callable[[], None]) -> None:
    """Call `stop` once the file at `path` holds `text`."""
    while not path.exists() or text not in path.read_text():
        await trio.sleep(0.05)
    stop()


async def test_cpu_time_mode_waits_for_a_bot_that_the_load_keeps_from_running(
    bots: Bots, tmp_path: Path
) -> None:
    """A bot that spins 100 ms of CPU time of its 200 ms, on a CPU it shares with nine busy
    loops (a tenth of it at most), takes far longer than three times its limit by the wall
    clock (the backstop's first look): it is not faulted, since it kept running. A bot that
    sleeps under the same load still is, at a look. (The loops stop once the first bot's slow
    decision is over: the rest of its game is not the test's.)"""
    cpu = min(os.sched_getaffinity(0))
    time = TimeControl(move_ms=200, startup_ms=10_000)
    limits = Limits(sandbox="none", log_dir=str(tmp_path), time_mode="cpu")
    spinner = pinned(bots.healthy("spin_ms=100", "slow_decisions=1", name="spinner"), cpu)
    sleeper = pinned(bots.broken("hang"), cpu)
    spun = tmp_path / "spun-seat0-spinner.log"
    with busy(cpu, 9) as stop:
        slept = await run_match("azul", {}, 1, [sleeper, bots.healthy()], time, limits=limits)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stop_once_written, spun, "spun for", stop)
            specs = [spinner, bots.healthy()]
            outcome = await run_match("azul", {}, 1, specs, time, limits=limits, match_id="spun")
    assert outcome.faults == []
    assert outcome.logs[0] == str(spun)
    spun_ms = int(spun.read_text().split("spun for ")[1].split(" ms")[0])
    assert spun_ms > 3 * time.move_ms, "the load did not keep the bot from running"
    assert outcome.think_ms[0] >= 100
    [fault] = slept.faults
    assert (fault.seat, fault.kind, fault.decision) == (0, "timeout", 1)
    assert "it used no CPU time in 600 ms of wall-clock time and was not running" in fault.reason
    bots.assert_none_left()


async def test_a_process_that_left_the_group_is_killed_through_the_cgroup(
    bots: Bots, tmp_path: Path
) -> None:
    """setsid takes a process out of the bot's process group, not out of its pids cgroup."""
    escape = (
        "import subprocess, sys\n"
        "sleeper = [sys.executable, '-c', 'import time; time.sleep(1000)', sys.argv[1]]\n"
        "subprocess.Popen(['setsid', *sleeper])\n"
        f"sys.path.insert(0, {str(BOTS)!r})\n"
        "import botlib\n"
        "botlib.play(botlib.index, [])\n"
    )
    spec = BotSpec("escaper", [sys.executable, "-c", escape, bots.marker])
    outcome = await run_match(
        "azul",
        {},
        1,
        [spec, bots.healthy()],
        TimeControl(),
        limits=Limits(sandbox="none", log_dir=str(tmp_path)),
    )
    assert outcome.faults == []
    bots.assert_none_left()


def test_a_death_is_blamed_on_a_limit_only_with_evidence() -> None:
    limits = ResourceLimits(memory_mb=100, file_mb=1, disk_mb=64)
    hit = functools.partial(limit_hit, limits=limits, sandboxed=True)
    assert hit(1, ["MemoryError"]) == "memory: ran out of its 100 MB address space (per process)"
    assert hit(1, ["OSError: [Errno 27] File too large"]) is not None
    assert hit(-9, ["Traceback", "ValueError: mine"]) is None
    assert limit_hit(1, ["MemoryError"], ResourceLimits(memory_mb=0), sandboxed=True) is None
    full = "OSError: [Errno 28] No space left on device"
    assert (hit(1, [full]) or "").startswith("disk: filled its 64 MB")
    assert limit_hit(1, [full], limits, sandboxed=False) is None, "the host's disk, not ours"


async def test_resources_are_looked_at_on_a_timer_and_at_every_game_end(
    bots: Bots, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a bot's counters after every decision cost more than the rest of a fast
    decision, so they are read at most every `RESOURCE_CHECK_S` — and at the end of every game,
    so that an excess is still the faulty bot's forfeit in the game where it happened. With a
    timer that never fires during the game, the fork bomb is caught by that last look alone."""
    monkeypatch.setattr(process, "RESOURCE_CHECK_S", 3600.0)
    looks: list[int] = []
    process_hit = process.BotProcess._process_hit

    def counted(self: process.BotProcess) -> str | None:
        looks.append(self.pid)
        return process_hit(self)

    monkeypatch.setattr(process.BotProcess, "_process_hit", counted)
    limits = Limits(sandbox="none", log_dir=str(tmp_path), resources=ResourceLimits(processes=16))
    specs = [bots.healthy(), bots.broken("fork_bomb", "max=40")]
    outcome = await run_match("azul", {}, 1, specs, TimeControl(), limits=limits)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "resource_limit"), fault.reason
    assert fault.reason.startswith("processes: exceeded the limit of 16"), fault.reason
    assert fault.reason.endswith("while playing this game (seen at its end)")
    assert fault.decision == outcome.decisions > 20
    assert outcome.result.ranks == [1, 2]
    assert len(looks) == 2, "one look per bot, at the end"
    bots.assert_none_left()
