"""Resource limits of one bot: what they are, how they are set in the child, how a hit is named.

Five limits, each enforced by the mechanism that works for a referee running as root on Linux:

- `memory_mb`: the bot's *total* memory — all its processes and the files it keeps in the
  sandbox's tmpfs — where a memory cgroup is available (`referee.cgroups`): the kernel
  OOM-kills inside the bot's cgroup at the cap, and counts it. Elsewhere, RLIMIT_AS per process
  (set in the child before exec): an allocation beyond it fails (Python: `MemoryError`), but a
  bot with many processes gets that much per process. The fault's reason says which applied.
- `file_mb`: RLIMIT_FSIZE, set before exec. A write beyond it fails with EFBIG (or SIGXFSZ).
- `disk_mb`: the size of the sandbox's writable `/tmp` tmpfs (which holds the bot's working
  directory). A write beyond it fails with ENOSPC. Without the sandbox the bot writes to the
  host's disk and only `file_mb` applies.
- `processes`: RLIMIT_NPROC is *not* enforced for root, so a pids cgroup caps the bot's
  process count in the kernel: `fork` fails beyond it. Where no writable pids cgroup exists,
  the count is checked from /proc instead (a fork bomb is then stopped only by that check and
  the group kill).
- `cpu_s`: CPU seconds per game. RLIMIT_CPU counts a process's whole life, and bot processes
  are reused across games, so the referee reads the bot's CPU time at the start of each game,
  then during it and at its end: from its cgroup's accounting (every process that ever ran in
  it, exited children included), else summed from /proc (`group_cpu_s`, which misses the CPU of
  exited children whose parent did not wait for them).

A hit is reported as a `resource_limit` fault naming the limit. Memory (per process), file
size and disk are detected from how the bot died (`limit_hit`): a kernel refusal leaves no
counter to read, so the exit signal and the last stderr lines are the evidence, and the reason
quotes them; the cgroup's counters are read for processes and total memory. The counters are
read after a decision at most every `referee.process.RESOURCE_CHECK_S`, and at the end of every
game (`BotProcess.resource_fault`).
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
    """Total memory of the bot (memory cgroup), else address space per process (RLIMIT_AS)."""
    cpu_s: Amount = 600
    """CPU seconds per game, summed over the bot's processes."""
    processes: Amount = 64
    """Processes and threads alive at once (a pids cgroup, else counted from /proc)."""
    file_mb: Amount = 256
    """Largest file the bot may write (RLIMIT_FSIZE)."""
    disk_mb: Amount = 512
    """Size of the sandbox's writable tmpfs (`/tmp`, the working directory); not without it."""


def rlimit_setter(limits: ResourceLimits, *, address_space: bool) -> Callable[[], None]:
    """The part of the child's pre-exec set-up that applies RLIMIT_FSIZE, and RLIMIT_AS when
    `address_space` (no memory cgroup holds the bot's total)."""
    settings = [(resource.RLIMIT_FSIZE, limits.file_mb * MB)]
    if address_space:
        settings.append((resource.RLIMIT_AS, limits.memory_mb * MB))

    def apply() -> None:
        for which, value in settings:
            if value:
                resource.setrlimit(which, (value, value))

    return apply


MEMORY_SIGNS = ("MemoryError", "Cannot allocate memory", "bad_alloc", "out of memory")
FILE_SIGNS = ("File too large", "EFBIG")
DISK_SIGNS = ("No space left on device", "ENOSPC")


def disk_full(limits: ResourceLimits) -> str:
    return (
        f"disk: filled its {limits.disk_mb} MB of writable space (the sandbox's /tmp, or a "
        "build's folder)"
    )


def memory_total(limits: ResourceLimits) -> str:
    return (
        f"memory: used its {limits.memory_mb} MB total (all its processes and files), "
        "and the kernel killed a process of it"
    )


def too_many_processes(limits: ResourceLimits, refused: int, how: str) -> str:
    """`refused`: the forks the pids cgroup refused (`how` says so), or the processes counted."""
    return f"processes: exceeded the limit of {limits.processes} ({refused} {how})"


def limit_hit(
    returncode: int, stderr_tail: Iterable[str], limits: ResourceLimits, *, sandboxed: bool
) -> str | None:
    """The limit a dead bot ran into, in words, or None when its death looks like its own bug.

    Only evidence that needs no counter: the memory cap of a cgroup is read from the cgroup."""
    text = " | ".join(stderr_tail)
    if limits.file_mb and (
        returncode == -signal.SIGXFSZ or any(sign in text for sign in FILE_SIGNS)
    ):
        return f"file size: wrote past the limit of {limits.file_mb} MB"
    if sandboxed and limits.disk_mb and any(sign in text for sign in DISK_SIGNS):
        return disk_full(limits)
    if limits.memory_mb and any(sign in text for sign in MEMORY_SIGNS):
        return f"memory: ran out of its {limits.memory_mb} MB address space (per process)"
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
