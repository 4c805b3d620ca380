"""The `bwrap` sandbox: a bot sees the system read-only, its own files, and nothing of ours.

bubblewrap (`apt-get install bubblewrap`) builds a new mount namespace from nothing, so what is
not bound in does not exist for the bot. What is bound:

- read-only: the system (`/usr`, `/bin`, `/lib*`, `/etc`, ...), the Python installation the
  referee runs (built-in bots use it), the framework's packages the built-in bots import, and
  the directory of every file named in the bot's command (its own program and data);
- read-write: the bot's private working directory (also its HOME and TMPDIR), and a private
  empty `/tmp`;
- a fresh `/proc` (own pid namespace: other processes are invisible) and a minimal `/dev`.

Not there: the network (a new network namespace has only a loopback interface), the tournament
store, the stderr logs and records, other bots' working directories (under the real `/tmp`),
and every other path. `hidden` paths are masked even inside a bound directory (the store next to
a bot's script). The bot runs as an unprivileged user (`nobody`) of a new user namespace, so
even a referee running as root gives it no capabilities to undo the mounts.

Two bots whose programs live in the same directory can read each other's files there: give each
bot its own directory.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Sequence
from typing import Literal

SandboxKind = Literal["none", "bwrap"]

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
FRAMEWORK_PACKAGES = ("bots", "protocol", "referee")
"""What built-in bots import (the rules engines live in `referee.games`)."""
NOBODY = "65534"

INSTALL_HINT = (
    "the bwrap sandbox needs bubblewrap: install it with `apt-get install bubblewrap` (Debian, "
    "Ubuntu), `dnf install bubblewrap` (Fedora) or `apk add bubblewrap` (Alpine)"
)


class SandboxUnavailable(RuntimeError):
    """`sandbox = "bwrap"` was asked for on a machine without bubblewrap."""


def bwrap_path() -> str:
    """The bwrap executable, or `SandboxUnavailable` saying how to install it."""
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(INSTALL_HINT)
    return path


def _readable_dirs(command: Sequence[str]) -> list[str]:
    """The Python installation, the framework's packages, and the command's own directories."""
    dirs = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    for package in FRAMEWORK_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin is not None:
            dirs.add(os.path.dirname(os.path.realpath(spec.origin)))
    for arg in command:
        if os.path.isabs(arg) and os.path.exists(arg):
            real = os.path.realpath(arg)
            dirs.add(real if os.path.isdir(real) else os.path.dirname(real))
    return sorted(dirs)


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def wrap(command: Sequence[str], workdir: str, hidden: Sequence[str] = ()) -> list[str]:
    """The argv that runs `command` inside the sandbox, in `workdir`."""
    argv = [
        bwrap_path(),
        "--die-with-parent",
        "--unshare-all",
        "--unshare-user",
        "--uid",
        NOBODY,
        "--gid",
        NOBODY,
        "--cap-drop",
        "ALL",
    ]
    for path in SYSTEM_DIRS:
        argv += ["--ro-bind-try", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    readable = _readable_dirs(command)
    for path in readable:
        argv += ["--ro-bind", path, path]
    for path in hidden:
        real = os.path.realpath(path)
        if not any(_inside(real, top) for top in (*readable, *SYSTEM_DIRS)):
            continue  # not reachable in the sandbox anyway
        if os.path.isdir(real):
            argv += ["--tmpfs", real]
        elif os.path.exists(real):
            argv += ["--ro-bind", "/dev/null", real]
    argv += ["--bind", workdir, workdir, "--chdir", workdir, "--", *command]
    return argv
