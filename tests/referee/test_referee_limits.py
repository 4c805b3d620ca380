"""Resource limits, the sandbox and the cpu time mode, on real bot processes (the broken-bot
matrix in tests/tournaments/test_broken_matrix.py covers each limit inside a tournament)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest
from refhelp import BOTS, Bots

from protocol.messages import TimeControl
from referee import BotSpec, Limits, process, run_match
from referee.limits import ResourceLimits, limit_hit
from tournaments.plan.botcommands import parse_bot

SLOW_SLEEPER = TimeControl(move_ms=100, startup_ms=5000)


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
    outcome = await run_match("5211", {}, 3, specs, TimeControl(), limits=limits)
    assert outcome.faults == []


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
