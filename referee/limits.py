"""Resource limits of one bot: what they are, how they are set in the child, how a hit is named.

Four limits, each enforced by the mechanism that works for a referee running as root on Linux:

- `memory_mb`: RLIMIT_AS (address space), set in the child before exec. An allocation beyond it
  fails; the bot then usually dies (Python: `MemoryError`). Enforced for root too.
- `file_mb`: RLIMIT_FSIZE, set before exec. A write beyond it fails with EFBIG (or SIGXFSZ).
- `processes`: RLIMIT_NPROC is *not* enforced for root, so a pids cgroup
  (`referee.cgroups`) caps the bot's process count in the kernel: `fork` fails beyond it. Where
  no writable pids cgroup exists, the count is checked from /proc after each decision instead
  (a fork bomb is then stopped only by that check and the group kill).
- `cpu_s`: CPU seconds per game. RLIMIT_CPU counts a process's whole life, and bot processes
  are reused across games, so the referee reads the CPU time of the bot's processes from
  /proc (`group_cpu_s`) at the start of each game and after each decision.

A hit is reported as a `resource_limit` fault naming the limit. The memory and file-size limits
are detected from how the bot died (`limit_hit`): a kernel refusal leaves no counter to read,
so the exit signal and the last stderr lines are the evidence, and the reason quotes them.
"""

from __future__ import annotations

import os
import resource
import signal
from collections.abc import Callable, Iterable
from typing import Annotated

import msgspec

MB = 1 << 20

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


Amount = Annotated[int, msgspec.Meta(ge=0)]


class ResourceLimits(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Per-bot resource limits; 0 means unlimited. The defaults stop runaways, not real bots."""

    memory_mb: Amount = 4096
    """Address space per process (RLIMIT_AS); runtimes that reserve a lot (JVM) need more."""
    cpu_s: Amount = 600
    """CPU seconds per game, summed over the bot's processes."""
    processes: Amount = 64
    """Processes and threads alive at once (a pids cgroup, else counted from /proc)."""
    file_mb: Amount = 256
    """Largest file the bot may write (RLIMIT_FSIZE)."""


def rlimit_setter(limits: ResourceLimits) -> Callable[[], None]:
    """The part of the child's pre-exec set-up that applies RLIMIT_AS and RLIMIT_FSIZE."""
    settings = [
        (resource.RLIMIT_AS, limits.memory_mb * MB),
        (resource.RLIMIT_FSIZE, limits.file_mb * MB),
    ]

    def apply() -> None:
        for which, value in settings:
            if value:
                resource.setrlimit(which, (value, value))

    return apply


MEMORY_SIGNS = ("MemoryError", "Cannot allocate memory", "bad_alloc", "out of memory")
FILE_SIGNS = ("File too large", "EFBIG")


def limit_hit(returncode: int, stderr_tail: Iterable[str], limits: ResourceLimits) -> str | None:
    """The limit a dead bot ran into, in words, or None when its death looks like its own bug."""
    text = " | ".join(stderr_tail)
    if limits.file_mb and (
        returncode == -signal.SIGXFSZ or any(sign in text for sign in FILE_SIGNS)
    ):
        return f"file size: wrote past the limit of {limits.file_mb} MB"
    if limits.memory_mb and any(sign in text for sign in MEMORY_SIGNS):
        return f"memory: ran out of its {limits.memory_mb} MB address space"
    return None


def process_cpu_s(pid: int) -> float:
    """utime + stime + the reaped children's (cutime + cstime) of `pid`, in seconds; 0 if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return 0.0
    fields = stat[stat.rfind(b")") + 2 :].split()
    # Fields 14-17 of proc(5) are at 11-14 here (the list starts at field 3, the state).
    return sum(int(value) for value in fields[11:15]) / CLOCK_TICKS


def group_cpu_s(pids: Iterable[int]) -> float:
    """The CPU seconds used so far by these processes and their reaped descendants."""
    return sum(process_cpu_s(pid) for pid in pids)
