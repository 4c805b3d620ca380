"""The `bwrap` sandbox: a bot sees the system read-only, its own files, and nothing of ours.

bubblewrap (`apt-get install bubblewrap`) builds a new mount namespace from nothing, so what is
not bound in does not exist for the bot. What is bound:

- read-only: the system (`/usr`, `/bin`, `/lib*`, `/etc`, ...), the Python installation the
  referee runs (built-in bots use it), the framework's packages the built-in bots import, and
  the bot's own: every directory its spec names (`BotSpec.files`, its `cwd`), and for each of
  its files the file's directory — or, where that directory is shared with the organiser (it
  holds a `hidden` path: the tournament file, the store, the logs), the file alone, so that a
  bot beside the tournament file sees neither the reports, exports and tables written there
  nor the other bots' files;
- read-write, in memory only: a `/tmp` tmpfs of `disk_mb` that holds the bot's working
  directory (`SANDBOX_HOME`, also its HOME and TMPDIR), and a small `/dev/shm` tmpfs; `/dev`
  itself is remounted read-only. Nothing a bot writes reaches the host's disk, and all of it
  vanishes with the sandbox. The memory cgroup (`referee.cgroups`) charges these files to the
  bot's memory;
- a fresh `/proc` (own pid namespace: other processes are invisible, and when the sandbox's
  first process dies the kernel kills every process left in it) and a minimal `/dev`.

Not there: the network (a new network namespace has only a loopback interface), the tournament
store, the stderr logs and records, other bots' files, and every other path. `hidden` paths are
masked even inside a bound directory (the store next to a bot's script) — those that exist when
the sandbox is made: a path made later is not masked, so its owner makes it first (the runner's
log directory).

Who the bot is depends on the referee:

- a root referee runs bwrap as root (no user namespace: the mounts are made with root's right
  to read, so an interpreter under `/root` can be bound), and bwrap starts the bot through
  `setpriv`, which drops it to its own unprivileged host uid (`referee.spawn.bot_uid`, one per
  bot process) with no capabilities, no supplementary groups and `no_new_privs` (a setuid
  binary gives nothing back). The bot owns nothing of the host: it cannot read root's files
  (`/etc/shadow`), signal the referee or another bot, or write a cgroup's `cgroup.procs`;
- a non-root referee cannot switch uids: the bot is `nobody` of a new user namespace, which is
  the referee's uid on the host. The user and pid namespaces keep it away from the referee's
  and the other bots' processes (it cannot see them, and has no capability outside its
  namespace), but files of the referee's user that are bound in (read-only) are readable.

An uploaded bot (a league's: `wrap_confined`) is bound differently: nothing but the system's
runtimes (`RUNTIME_DIRS`: not `/opt`, unless the organiser names a runtime there) and its own
folder, at `BOT_FOLDER` rather than at its host path — no Python installation, no framework, no
file its command names (nothing of its command is resolved on the host) — so it cannot reach
the league's files or another author's whatever folder the league lives in, and learns none of
the server's paths: its folder is shown through a mount that names no host path, and bwrap's
command line names none (`referee.veil`), and its PATH holds only its runtimes' folders
(`confined_path`). The league's files under a bound folder are masked. Its build
(`wrap_build`) writes into a tmpfs at that same path, bounded like `/tmp`, and hands back one
file, its folder packed when it ends, through an fd (`OUTPUT_FD`).

`choose` decides whether the sandbox is used: "auto" (the default) uses it wherever it works.

Two bots whose files live in the same directory of their own (one that holds none of the
tournament's files) can read each other's files there: give each bot its own directory. With a
root referee the bot's files (and the interpreter's) must be readable by any user (o+r, and o+x
on directories inside a bound one), since the bot's uid is nobody's.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Sequence
from typing import Literal, NamedTuple

import msgspec

from protocol.errors import RequestError
from referee.spawn import become_subreaper, bot_uid, move_fds

SandboxKind = Literal["none", "bwrap"]
SandboxRequest = Literal["auto", "bwrap", "none"]

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
RUNTIME_DIRS = SYSTEM_DIRS[:-1]
"""What an uploaded bot sees of the system: not `/opt`, where an organiser may keep anything
(another league, say); a runtime installed there is bound by name (`[league] runtimes`)."""
FRAMEWORK_PACKAGES = ("bots", "protocol", "referee")
"""What built-in bots import (the rules engines live in `referee.games`)."""
NOBODY = "65534"
SANDBOX_HOME = "/tmp/bot"
"""The bot's working directory inside the sandbox (in the `/tmp` tmpfs)."""
BOT_FOLDER = "/bot"
"""Where an uploaded bot's own folder is bound, read-only, as its working directory: the same
path at its build and in its games, and no host path in sight."""
BUILD_SOURCE = "/upload"
"""Where a build sees the files uploaded (read-only); it copies them into `BOT_FOLDER`."""
STDIO_FDS = (3, 4)
"""Where bwrap gets the bot's stdin and stdout pipes (its own 0 and 1 are /dev/null): bwrap's
processes close every fd above 2, and a shell moves them to 0 and 1 for the bot alone, so the
referee sees the bot close them."""
OUTPUT_FD = 5
"""Where a build gets the host file it packs its folder into (`referee.build`)."""
SHIM = ["/bin/sh", "-c", 'exec "$@" 0<&3 1>&4 3<&- 4>&-', "sh"]
SHM_MB = 16
"""The size of the sandbox's `/dev/shm` (POSIX semaphores and small shared buffers)."""
MB = 1 << 20

INSTALL_HINT = (
    "the bwrap sandbox needs bubblewrap: install it with `apt-get install bubblewrap` (Debian, "
    "Ubuntu), `dnf install bubblewrap` (Fedora) or `apk add bubblewrap` (Alpine)"
)
UNSANDBOXED_WARNING = (
    "warning: bots run unsandboxed ({why}): each can read and write what the referee can "
    "(other bots' files, the store), signal other processes and use the network; install "
    "bubblewrap and enable unprivileged user namespaces to sandbox them, or set "
    'sandbox = "none" (--sandbox none) to run trusted bots without this warning'
)


class SandboxUnavailable(RequestError):
    """`sandbox = "bwrap"` was asked for on a machine where bubblewrap cannot run."""


class SandboxChoice(msgspec.Struct, frozen=True):
    """What a sandbox request resolved to here, and the warning to show the user (if any)."""

    kind: SandboxKind
    warning: str | None = None


def bwrap_path() -> str:
    """The bwrap executable, or `SandboxUnavailable` saying how to install it."""
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(INSTALL_HINT)
    return path


def setpriv_path() -> str:
    """The setpriv executable (util-linux), which a root referee's bots are started through."""
    path = shutil.which("setpriv")
    if path is None:
        raise SandboxUnavailable(
            "a root referee starts sandboxed bots through setpriv: install util-linux"
        )
    return path


def confined_path(runtimes: Sequence[str] = ()) -> str:
    """An uploaded bot's PATH: the folders of ours that its sandbox holds (its runtimes'),
    and no other, so that its environment names none of the server's own folders."""
    bound = _runtimes(runtimes)
    return os.pathsep.join(
        folder
        for folder in os.environ.get("PATH", os.defpath).split(os.pathsep)
        if folder and any(_inside(os.path.realpath(folder), top) for top in bound)
    )


def system_program(name: str, runtimes: Sequence[str] = ()) -> str | None:
    """Where `name` is found on an uploaded bot's PATH (`confined_path`), or None: what its
    command finds there."""
    path = confined_path(runtimes)
    return shutil.which(name, path=path) if path else None


@functools.cache
def _probe() -> str | None:
    """None if bwrap runs here with the real flags (as a bot's uid); else why not. Cached."""
    try:
        argv = wrap(["/bin/true"], uid=bot_uid())
    except SandboxUnavailable as exc:
        return str(exc)
    become_subreaper()  # what bwrap leaves orphaned comes to us, and `_reap_group` reaps it
    null = os.open(os.devnull, os.O_RDWR)
    try:
        probe = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd="/",
            start_new_session=True,
            pass_fds=STDIO_FDS,
            preexec_fn=move_fds([(null, fd) for fd in STDIO_FDS]),
        )
    except OSError as exc:
        return f"bubblewrap does not run here: {exc}"
    finally:
        os.close(null)
    try:
        _, stderr = probe.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(probe.pid, signal.SIGKILL)
        probe.wait()
        return "bubblewrap does not run here: no exit within 10 s"
    finally:
        _reap_group(probe.pid)
    if probe.returncode != 0:
        error = stderr.decode(errors="replace").strip().splitlines()
        return (
            f"bubblewrap does not work here ({error[-1] if error else probe.returncode}); "
            "unprivileged user namespaces may be disabled (sysctl "
            "kernel.unprivileged_userns_clone=1 or user.max_user_namespaces > 0)"
        )
    return None


def _reap_group(pgid: int) -> None:
    """Reap the probe's sandbox processes that were re-parented to us (the referee is a child
    subreaper): the kernel kills them when bwrap exits, and they are in the probe's group."""
    with contextlib.suppress(ChildProcessError):
        while True:
            os.waitpid(-pgid, 0)


def choose(requested: SandboxRequest) -> SandboxChoice:
    """Resolve a request: "auto" is bwrap where it works, else none with a warning; "bwrap"
    is `SandboxUnavailable` where it does not work; "none" is an explicit, silent choice."""
    if requested == "none":
        return SandboxChoice("none")
    why = _probe()
    if why is None:
        return SandboxChoice("bwrap")
    if requested == "bwrap":
        raise SandboxUnavailable(why)
    return SandboxChoice("none", UNSANDBOXED_WARNING.format(why=why.split(":")[0]))


def shared(directory: str, hidden: Sequence[str]) -> bool:
    """Whether `directory` holds any of `hidden` (the tournament's file, store, logs): then it
    is the organiser's, not a bot's own, and what else lies there (reports, exports, tables,
    other bots) is none of the bot's business."""
    top = os.path.realpath(directory)
    return any(_inside(os.path.realpath(path), top) for path in hidden)


def not_own(files: Sequence[str], cwd: str | None, hidden: Sequence[str]) -> str | None:
    """Why a directory the bot names (its `cwd`, a directory among its files) cannot be bound
    for it — it holds the tournament's own files, and with them whatever the tools write there
    later (reports, exports) — in words with the fix; None when every one is the bot's own.
    Masking cannot stand in: it knows only the paths that exist when the sandbox is made."""
    named = [path for path in files if os.path.isdir(path)] + ([] if cwd is None else [cwd])
    for directory in named:
        if shared(directory, hidden):
            return (
                f"{directory} holds the tournament's own files (its file, store or logs), so "
                "it cannot be the bot's: give the bot a directory of its own and name that one"
            )
    return None


def _readable(files: Sequence[str], cwd: str | None, hidden: Sequence[str]) -> list[str]:
    """What is bound read-only: the Python installation, the framework's packages, and the
    bot's own — each directory it names (a `files` entry, its `cwd`), and for each of its files
    the file's directory when that is the bot's own, else the file alone (see `shared`)."""
    bound = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    for package in FRAMEWORK_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin is not None:
            bound.add(os.path.dirname(os.path.realpath(spec.origin)))
    for path in files:
        real = os.path.realpath(path)
        if os.path.isdir(real):
            bound.add(real)
        elif os.path.exists(real):
            directory = os.path.dirname(real)
            bound.add(real if shared(directory, hidden) else directory)
    if cwd is not None:
        bound.add(os.path.realpath(cwd))
    return sorted(bound)


def unreadable(files: Sequence[str], cwd: str | None, hidden: Sequence[str] = ()) -> str | None:
    """Why a root referee's sandboxed bot (another uid, nobody's) could not read its own files
    or working directory, in words with the fix; None when it can. Checked before the start, so
    that the bot's failure is a clear `spawn` fault rather than a crash quoting EACCES."""
    wanted = [(path, stat.S_IROTH) for path in files]
    wanted += [] if cwd is None else [(cwd, stat.S_IROTH | stat.S_IXOTH)]
    for path, bits in wanted:
        try:
            mode = os.stat(path).st_mode
            # A file bound with its directory needs the bot let into that directory; a file
            # bound alone, or a directory, does not (the sandbox makes the directories above
            # what it binds open to all).
            directory = os.path.dirname(os.path.realpath(path))
            with_directory = not stat.S_ISDIR(mode) and not shared(directory, hidden)
            enter = not with_directory or os.stat(directory).st_mode & stat.S_IXOTH
        except OSError:
            continue  # missing files are the bot's own business (it reports them)
        if stat.S_ISDIR(mode):
            bits |= stat.S_IXOTH
        if mode & bits != bits or not enter:
            return (
                f"{path} is not readable by the sandboxed bot, which runs as its own "
                "unprivileged user: make it readable by others (chmod o+r, and o+x on its "
                'directory), or run trusted bots unsandboxed (sandbox = "none")'
            )
    return None


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _identity(uid: int | None) -> list[str]:
    """Who the bot is: a user namespace's `nobody` (non-root referee), or, for a root referee,
    `uid` through setpriv, keeping only the capabilities setpriv needs for the switch."""
    if uid is None:
        return ["--unshare-all", "--unshare-user", "--uid", NOBODY, "--gid", NOBODY,
                "--cap-drop", "ALL"]  # fmt: skip
    namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    keep = ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    return [*namespaces, "--unshare-cgroup-try", "--cap-drop", "ALL", *keep]


def _drop_to(uid: int | None) -> list[str]:
    if uid is None:
        return []
    return [setpriv_path(), f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]  # fmt: skip


def _parents(paths: Sequence[str]) -> list[str]:
    """The directories above `paths` that bwrap would create (root only, mode 0700): made
    0755 first, so that a bot with its own uid can reach what is bound below them."""
    parents = set()
    for path in paths:
        parent = os.path.dirname(path)
        while parent != "/" and not any(_inside(parent, top) for top in SYSTEM_DIRS):
            parents.add(parent)
            parent = os.path.dirname(parent)
    return sorted(parents - set(paths))


def _system(uid: int | None, disk_mb: int, system: Sequence[str] = SYSTEM_DIRS) -> list[str]:
    """The start of every sandbox's argv: who the bot is, the `system` folders read-only, a
    fresh `/proc` and `/dev`, and the `/tmp` tmpfs of `disk_mb` holding `SANDBOX_HOME`."""
    argv = [bwrap_path(), "--die-with-parent", *_identity(uid)]
    for path in system:
        argv += ["--ro-bind-try", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--perms", "01777", "--size", str(SHM_MB * MB), "--tmpfs", "/dev/shm"]
    argv += ["--remount-ro", "/dev", "--perms", "01777"]
    if disk_mb:
        argv += ["--size", str(disk_mb * MB)]
    argv += ["--tmpfs", "/tmp", "--perms", "0777", "--dir", SANDBOX_HOME]
    return argv


def _masks(hidden: Sequence[str], bound: Sequence[str]) -> list[str]:
    """Mask each `hidden` path that lies under one of `bound` (and the system folders): an
    empty read-only tmpfs over a folder, `/dev/null` over a file."""
    argv: list[str] = []
    for path in hidden:
        real = os.path.realpath(path)
        if not any(_inside(real, top) for top in (*bound, *SYSTEM_DIRS)):
            continue  # not reachable in the sandbox anyway
        if os.path.isdir(real):
            argv += ["--tmpfs", real, "--remount-ro", real]
        elif os.path.exists(real):
            argv += ["--ro-bind", "/dev/null", real]
    return argv


def wrap(
    command: Sequence[str],
    files: Sequence[str] = (),
    hidden: Sequence[str] = (),
    *,
    cwd: str | None = None,
    disk_mb: int = 0,
    uid: int | None = None,
) -> list[str]:
    """The argv that runs an organiser's bot `command` inside the sandbox, in `cwd` (default
    `SANDBOX_HOME`), its `files` and `cwd` bound read-only at their own paths.

    `disk_mb` bounds the `/tmp` tmpfs (0: the kernel's default, half the RAM); `uid` (a root
    referee's only) is the host uid the bot runs as."""
    argv = _system(uid, disk_mb)
    readable = _readable(files, cwd, hidden)
    for path in _parents(readable):
        argv += ["--perms", "0755", "--dir", path]
    for path in readable:
        argv += ["--ro-bind", path, path]
    argv += _masks(hidden, readable)
    argv += ["--chdir", cwd or SANDBOX_HOME, "--", *SHIM, *_drop_to(uid), *command]
    return argv


def _runtimes(runtimes: Sequence[str]) -> tuple[str, ...]:
    """The system folders an uploaded bot sees: `RUNTIME_DIRS` and the organiser's `runtimes`
    (a runtime under `/opt`, say)."""
    return (*RUNTIME_DIRS, *(os.path.realpath(path) for path in runtimes))


class Confined(NamedTuple):
    """The argv of an uploaded bot's sandbox, and the host folders it binds, which are to be
    shown to it without their paths (`referee.veil`)."""

    argv: list[str]
    folders: tuple[str, ...]


def wrap_confined(
    command: Sequence[str],
    folder: str,
    hidden: Sequence[str] = (),
    *,
    disk_mb: int = 0,
    uid: int | None = None,
    runtimes: Sequence[str] = (),
) -> Confined:
    """The argv that runs an uploaded bot's `command` as written, in its `folder` bound
    read-only at `BOT_FOLDER`: the only path of the host it sees beyond the system's runtimes
    (`RUNTIME_DIRS`, `runtimes`; the `hidden` paths, the league's files, masked there),
    whatever folder the league lives in."""
    system = _runtimes(runtimes)
    real = os.path.realpath(folder)
    argv = _system(uid, disk_mb, system)
    argv += _masks(hidden, system)
    argv += ["--ro-bind", real, BOT_FOLDER]
    argv += ["--chdir", BOT_FOLDER, "--", *SHIM, *_drop_to(uid), *command]
    return Confined(argv, (real,))


def wrap_build(
    command: Sequence[str],
    source: str,
    hidden: Sequence[str] = (),
    *,
    disk_mb: int = 0,
    uid: int | None = None,
    runtimes: Sequence[str] = (),
) -> Confined:
    """The argv of an uploaded bot's build (`referee.build`): the upload's files (`source`)
    read-only at `BUILD_SOURCE`, and a tmpfs of `disk_mb` at `BOT_FOLDER` for the build to
    write its bot in (what it writes stays in memory and within the size); the system as for
    an uploaded bot, the `hidden` paths masked, and no other host path. (The one file it
    writes, its folder packed, it is given as an fd, `OUTPUT_FD`: a bound file would name its
    path.)"""
    system = _runtimes(runtimes)
    real = os.path.realpath(source)
    argv = _system(uid, disk_mb, system)
    argv += _masks(hidden, system)
    argv += ["--ro-bind", real, BUILD_SOURCE]
    if disk_mb:
        argv += ["--size", str(disk_mb * MB)]
    argv += ["--perms", "0777", "--tmpfs", BOT_FOLDER]
    argv += ["--chdir", BOT_FOLDER, "--", *SHIM, *_drop_to(uid), *command]
    return Confined(argv, (real,))
