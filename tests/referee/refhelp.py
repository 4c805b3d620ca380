"""Test bots as subprocesses, and process-table checks (imported by the referee's tests).

Every bot started by a test carries a unique `--marker=...` argument (its children too), so a
test can check in /proc that nothing of it is left once the referee is done.
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

from protocol.messages import TimeControl
from referee import BotSpec

BOTS = Path(__file__).resolve().parent.parent / "bots"
UNHURRIED = TimeControl(move_ms=60_000, startup_ms=60_000)
"""A seat's time where the test is not about it: its limits are for a hung bot, not for a
loaded machine (where a healthy bot may take seconds to start or to be scheduled)."""


class Bots:
    """Makes BotSpecs for the test bots, all tagged with one marker."""

    def __init__(self) -> None:
        self.marker = f"--marker=arena-test-{uuid.uuid4().hex}"

    def healthy(self, *options: str, name: str = "healthy") -> BotSpec:
        command = [sys.executable, str(BOTS / "healthy.py"), *options, self.marker]
        return BotSpec(name, command, files=(str(BOTS / "healthy.py"),))

    def broken(self, mode: str, *options: str) -> BotSpec:
        command = [sys.executable, str(BOTS / "broken.py"), mode, *options, self.marker]
        return BotSpec(mode, command, files=(str(BOTS / "broken.py"),))

    def processes(self) -> list[int]:
        """Pids of live processes whose command line carries this marker."""
        found = []
        needle = self.marker.encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    if needle in file.read():
                        found.append(int(entry))
            except OSError:
                continue
        return found

    def assert_none_left(self) -> None:
        """No process of these bots runs, and the referee has no unreaped child."""
        assert self.processes() == []
        assert our_zombies() == []


def our_zombies() -> list[int]:
    me = os.getpid()
    zombies = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        state, ppid = stat[stat.rfind(b")") + 2 :].split()[:2]
        if state == b"Z" and int(ppid) == me:
            zombies.append(int(entry))
    return zombies


def gone(pid: int) -> bool:
    """Not even a zombie any more."""
    return not os.path.exists(f"/proc/{pid}")
