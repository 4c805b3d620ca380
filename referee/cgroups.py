"""A pids cgroup per bot process: the kernel's own cap on how many processes a bot may have.

Why a cgroup: the referee often runs as root (containers, CI), and RLIMIT_NPROC is not enforced
for root, so it cannot stop a fork bomb. A pids cgroup is (`pids.max`): beyond it `fork` fails
with EAGAIN, and `pids.events` counts the refusals, which is how the referee knows the limit was
hit. The child joins its cgroup before exec, so nothing it starts is ever outside it, and the
cgroup's member list also finds processes that left the bot's process group (setsid) so they can
be killed too.

Where it works: a writable pids hierarchy — cgroup v1 (`/sys/fs/cgroup/pids`) or a v2 cgroup
with the pids controller delegated to the referee's own cgroup. Elsewhere `PidsCgroup.create`
returns None and `referee.process` counts the group's processes from /proc instead.
"""

from __future__ import annotations

import contextlib
import itertools
import os

ROOT = "/sys/fs/cgroup"

_counter = itertools.count()
_swept: set[str] = set()


def _sweep(base: str) -> None:
    """Remove the empty cgroups of referees that died without cleaning up (kill -9), once."""
    if base in _swept:
        return
    _swept.add(base)
    with contextlib.suppress(OSError):
        for name in os.listdir(base):
            parts = name.split("-")
            ours = len(parts) == 3 and parts[0] == "arena" and parts[1].isdigit()
            if ours and not os.path.exists(f"/proc/{parts[1]}"):
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.join(base, name))


def _own_path(controller: str) -> list[str]:
    """Candidate directories of the referee's own cgroup that may hold a pids controller."""
    try:
        with open("/proc/self/cgroup") as file:
            lines = file.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            found.append(os.path.join(ROOT, controller, path.lstrip("/")))
        elif controllers == "":
            found.append(os.path.join(ROOT, path.lstrip("/")))
    return found


class PidsCgroup:
    """One bot process's cgroup; `create`, let the child `enter`, read `hits`, then `remove`."""

    def __init__(self, path: str, limit: int) -> None:
        self.path = path
        self.limit = limit
        self._events = os.open(os.path.join(path, "pids.events"), os.O_RDONLY)
        """Kept open: `hits` runs after every decision, and a pread is a tenth of an open."""

    @classmethod
    def create(cls, limit: int) -> PidsCgroup | None:
        """A fresh cgroup with `pids.max = limit`, or None where no pids hierarchy is writable."""
        name = f"arena-{os.getpid()}-{next(_counter)}"
        for base in _own_path("pids"):
            _sweep(base)
            path = os.path.join(base, name)
            try:
                os.mkdir(path)
            except OSError:
                continue
            try:
                with open(os.path.join(path, "pids.max"), "w") as file:
                    file.write(str(limit))
                return cls(path, limit)
            except OSError:
                os.rmdir(path)
        return None

    def enter(self) -> None:
        """Move the calling process into the cgroup (called in the child, before exec)."""
        with open(os.path.join(self.path, "cgroup.procs"), "w") as file:
            file.write("0")

    def hits(self) -> int:
        """How many forks the limit has refused so far."""
        for line in os.pread(self._events, 256, 0).splitlines():
            key, _, value = line.partition(b" ")
            if key == b"max":
                return int(value)
        return 0

    def members(self) -> list[int]:
        """Pids in the cgroup (zombies included until they are reaped)."""
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as file:
                return [int(line) for line in file if line.strip()]
        except OSError:
            return []

    def remove(self) -> None:
        """Delete the (empty) cgroup; a leftover one only costs a directory entry."""
        os.close(self._events)
        with contextlib.suppress(OSError):
            os.rmdir(self.path)
