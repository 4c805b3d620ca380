"""A cgroup per bot process: the kernel's own caps and counters for everything the bot starts.

Why cgroups: the referee often runs as root (containers, CI), where RLIMIT_NPROC is not enforced
and RLIMIT_AS only bounds one process at a time. A cgroup covers the bot and everything it
forks, including children that already exited:

- pids: `pids.max` caps the processes and threads; beyond it `fork` fails with EAGAIN, and
  `pids.events` counts the refusals (`hits`);
- memory: the bot's total memory — all its processes plus the tmpfs files it wrote (the sandbox's
  `/tmp`) — is capped (v1 `memory.limit_in_bytes` and `memory.memsw.limit_in_bytes`, v2
  `memory.max`); at the cap the kernel reclaims, then OOM-kills inside the cgroup, and the
  kill is counted (v1 `memory.oom_control`, v2 `memory.events`: `oom_kills`);
- CPU accounting: the CPU time of every process that ever ran in it (v1 `cpuacct.usage`, v2
  `cpu.stat`), so a child that burned CPU and exited before the answer is charged (`cpu_s`).

The child joins its cgroups before exec (`enter`), so nothing it starts is ever outside them;
the member list also finds processes that left the bot's process group (setsid) so they can be
killed. A bot running as its own unprivileged uid (sandbox, root referee) cannot move itself
out: other cgroups' `cgroup.procs` belong to root.

Where: cgroup v1 hierarchies (`/sys/fs/cgroup/<controller>/<the referee's cgroup>`) or a v2
cgroup with the controllers delegated to the referee's own cgroup. Each controller is used
where its hierarchy is writable; `BotCgroup.create` returns None when none is, and the referee
falls back to /proc (process counts and CPU sums) and RLIMIT_AS per process.

Referees killed with SIGKILL leave cgroups behind: the first cgroup made by a referee kills the
processes still in those of dead referees, and removes them (`sweep`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time

ROOT = "/sys/fs/cgroup"
MB = 1 << 20
CONTROLLERS = ("pids", "memory", "cpuacct")
"""The v1 hierarchies used (on v2 the same files live in one directory; cpuacct is `cpu`)."""

_counter = itertools.count()
_swept: set[str] = set()


def _kill_members(path: str) -> None:
    """SIGKILL every process in the cgroup at `path` until it is empty (briefly)."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        pids = _read_pids(os.path.join(path, "cgroup.procs"))
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def sweep(base: str) -> None:
    """Kill what is left in the cgroups of referees that died (kill -9), and remove them; once
    per base directory."""
    if base in _swept:
        return
    _swept.add(base)
    with contextlib.suppress(OSError):
        for name in os.listdir(base):
            parts = name.split("-")
            ours = len(parts) == 3 and parts[0] == "arena" and parts[1].isdigit()
            if ours and not os.path.exists(f"/proc/{parts[1]}"):
                path = os.path.join(base, name)
                _kill_members(path)
                with contextlib.suppress(OSError):
                    os.rmdir(path)


def _read_pids(path: str) -> list[int]:
    try:
        with open(path) as file:
            return [int(line) for line in file if line.strip()]
    except OSError:
        return []


def _own_bases() -> dict[str, str]:
    """Where the referee's own cgroup is, per v1 controller, and under "v2" for the unified one."""
    try:
        with open("/proc/self/cgroup") as file:
            lines = file.read().splitlines()
    except OSError:
        return {}
    bases = {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            if controller in CONTROLLERS:
                bases[controller] = os.path.join(ROOT, controller, path.lstrip("/"))
        if controllers == "":
            unified = os.path.join(ROOT, path.lstrip("/"))
            if os.path.exists(os.path.join(unified, "cgroup.controllers")):
                bases["v2"] = unified
    return bases


def _write(path: str, value: str) -> None:
    with open(path, "w") as file:
        file.write(value)


def _value(data: bytes, key: bytes) -> int:
    """The number after `key` in a "key value" per line file (0 if absent)."""
    for line in data.splitlines():
        name, _, value = line.partition(b" ")
        if name == key:
            return int(value)
    return 0


def ours() -> list[str]:
    """The cgroups this referee made that still exist (none once every bot is killed)."""
    prefix = f"arena-{os.getpid()}-"
    return [
        os.path.join(base, name)
        for base in _own_bases().values()
        if os.path.isdir(base)
        for name in os.listdir(base)
        if name.startswith(prefix)
    ]


class BotCgroup:
    """One bot process's cgroups; `create`, let the child `enter`, read, then `remove`."""

    def __init__(self, dirs: list[str], processes: int, memory_mb: int) -> None:
        self.dirs = dirs
        """One directory per v1 hierarchy, or the single v2 one."""
        self.limit = processes
        self.memory_mb = memory_mb
        """The memory cap in force (0: no memory controller, or unlimited)."""
        self._fds: dict[str, int] = {}
        """Kept open: read during every game, and a pread is a tenth of an open."""
        for directory in dirs:
            for name in (
                "pids.events",
                "memory.oom_control",
                "memory.events",
                "cpuacct.usage",
                "cpu.stat",
            ):
                path = os.path.join(directory, name)
                if name not in self._fds and os.path.exists(path):
                    self._fds[name] = os.open(path, os.O_RDONLY)

    @classmethod
    def create(cls, processes: int, memory_mb: int) -> BotCgroup | None:
        """Fresh cgroups with these caps (0: none), or None where no hierarchy is writable."""
        name = f"arena-{os.getpid()}-{next(_counter)}"
        bases = _own_bases()
        if "v2" in bases and not any(c in bases for c in CONTROLLERS):
            bases = {"v2": bases["v2"]}
        else:
            bases.pop("v2", None)
        dirs: list[str] = []
        memory = 0
        for base in bases.values():
            sweep(base)
            path = os.path.join(base, name)
            try:
                os.mkdir(path)
            except OSError:
                continue
            dirs.append(path)
            try:
                memory = max(memory, cls._configure(path, processes, memory_mb))
            except OSError:  # a controller we cannot configure: do without it
                with contextlib.suppress(OSError):
                    os.rmdir(path)
                dirs.pop()
        return cls(dirs, processes, memory) if dirs else None

    @staticmethod
    def _configure(path: str, processes: int, memory_mb: int) -> int:
        """Write the caps the directory's controller takes; the memory cap set (MB) or 0."""

        def here(name: str) -> str:
            return os.path.join(path, name)

        if processes and os.path.exists(here("pids.max")):
            _write(here("pids.max"), str(processes))
        if not memory_mb:
            return 0
        if os.path.exists(here("memory.limit_in_bytes")):
            _write(here("memory.limit_in_bytes"), str(memory_mb * MB))
            if os.path.exists(here("memory.memsw.limit_in_bytes")):
                _write(here("memory.memsw.limit_in_bytes"), str(memory_mb * MB))
            return memory_mb
        if os.path.exists(here("memory.max")):
            _write(here("memory.max"), str(memory_mb * MB))
            if os.path.exists(here("memory.swap.max")):
                _write(here("memory.swap.max"), "0")
            return memory_mb
        return 0

    @property
    def counts_processes(self) -> bool:
        return "pids.events" in self._fds

    @property
    def counts_cpu(self) -> bool:
        return "cpuacct.usage" in self._fds or "cpu.stat" in self._fds

    def enter(self) -> None:
        """Move the calling process into the cgroups (called in the child, before exec)."""
        for directory in self.dirs:
            _write(os.path.join(directory, "cgroup.procs"), "0")

    def _read(self, name: str) -> bytes:
        return os.pread(self._fds[name], 512, 0)

    def hits(self) -> int:
        """How many forks the process limit has refused so far."""
        if "pids.events" not in self._fds:
            return 0
        return _value(self._read("pids.events"), b"max")

    def oom_kills(self) -> int:
        """How many processes the kernel killed for the memory cap."""
        for name in ("memory.oom_control", "memory.events"):
            if name in self._fds:
                return _value(self._read(name), b"oom_kill")
        return 0

    def cpu_s(self) -> float:
        """CPU seconds used by every process that ran in the cgroup (exited ones included)."""
        if "cpuacct.usage" in self._fds:
            return int(self._read("cpuacct.usage")) / 1e9
        return _value(self._read("cpu.stat"), b"usage_usec") / 1e6

    def members(self) -> list[int]:
        """Pids in the cgroup (zombies included until they are reaped)."""
        return _read_pids(os.path.join(self.dirs[0], "cgroup.procs"))

    def remove(self) -> None:
        """Delete the (empty) cgroups; a leftover one only costs a directory entry."""
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        for directory in self.dirs:
            with contextlib.suppress(OSError):
                os.rmdir(directory)
