"""An uploaded bot's build step (`build` in its `bot.toml`): `sh -c BUILD` in the bot's own
folder, with the bot's resource limits and a wall-clock time limit, its output kept.

A build is started as a bot process is (`referee.process`): from the spawner thread, in a
session and cgroups of its own with the resource limits' pre-exec (`process.limited`: total
memory, processes, file size), and when it exits, runs out of time or is cancelled, its group
and cgroup are killed and waited for (`process.end_group`): nothing it started outlives it.
Its stdin is empty; its stdout and stderr go into one pipe, in the order written, of which the
last `OUTPUT_BYTES` are kept.

In the sandbox (`Limits.sandbox` resolving to bwrap) the build sees what a bot sees
(`sandbox.wrap`): the system read-only, a private `/tmp` of `disk_mb` (its HOME and TMPDIR),
no network (a network namespace of its own: `--unshare-net`), nothing of the league (other
bots' folders are not bound; the `hidden` paths — store, registry — are masked wherever they
would show) — and its own folder bound read-write, the only host path it can write. A root
referee runs it as a fresh unprivileged uid (`spawn.bot_uid`) that owns the folder for the
build only. Unsandboxed (`sandbox = "none"`, for trusted authors) it runs plainly in the
folder, with the same limits and time limit.

Before the build every entry of the folder is made writable by its owner; after it, whatever
the outcome, every entry is the referee's again and read-only for all: files 0o444 (0o555 when
executable), folders 0o555. Links the build made are never followed.

For authors: `build = "g++ -O2 -o bot bot.cpp"` beside `command` in `bot.toml` runs once, as
`sh -c` in the bot's folder, before the version's check. It has no network (bring every
dependency in the upload), can write only its folder and a private `/tmp`, has the league's
resource limits and its `build_s` seconds (300 by default); the folder is read-only afterwards.
Its output (the last 64 KiB) is the version's build log; a failure rejects the version.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import tempfile
import time
from typing import Literal, NoReturn

import msgspec
import trio

from protocol.errors import RequestError
from referee import spawn as spawner
from referee.cgroups import BotCgroup
from referee.faults import describe_exit
from referee.limits import ResourceLimits, limit_hit, memory_total, too_many_processes
from referee.process import (
    WORKDIR_PREFIX,
    Limits,
    bot_environment,
    end_group,
    exit_status,
    limited,
    resolve_sandbox,
)
from referee.sandbox import SANDBOX_HOME, STDIO_FDS, not_own, wrap

OUTPUT_BYTES = 64 * 1024
"""The build's output kept: its last 64 KiB (stdout and stderr together)."""
TAIL_LINES = 20
"""The output's last lines, searched for the signs of a limit (`limits.limit_hit`)."""
EXIT_POLL_S = 0.02
"""How often the build's first process is looked at for its exit (not reaped: see
`process.exit_status`)."""
DRAIN_S = 1.0
"""After the kill, how long the rest of the output may take to arrive (a process that escaped
the kill could hold the pipe open for ever)."""
_CHUNK = 64 * 1024

Outcome = int | Literal["timeout", "limit"]


class BuildResult(msgspec.Struct, frozen=True):
    """How a build ended, and what it wrote."""

    outcome: Outcome
    """The exit code (0: built; -N: killed by signal N), "timeout" (killed at the time limit)
    or "limit" (stopped by a resource limit)."""
    detail: str
    """The outcome in the author's words: "exit code 1", "over the time limit of 300 s"."""
    output: str
    """The last `OUTPUT_BYTES` of its stdout and stderr, as written (invalid UTF-8 replaced)."""
    dropped: int = 0
    """Bytes of output before those kept."""
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.outcome == 0


async def run_build(
    command: str,
    folder: str,
    limits: Limits,
    timeout_s: float,
    hidden: tuple[str, ...] = (),
) -> BuildResult:
    """Run `sh -c command` in `folder` with `limits` (their resources and sandbox; their
    `hidden` paths and `hidden` masked) for `timeout_s` seconds at most; how it ended.

    `folder` is writable during the build only: read-only when this returns or raises.
    `RequestError` if the folder cannot be a sandboxed build's (it holds a hidden path),
    `OSError` if the build cannot start or the folder cannot be set."""
    spawner.become_subreaper()
    folder = os.path.realpath(folder)
    masked = (*limits.hidden, *hidden)
    sandboxed = resolve_sandbox(limits.sandbox).kind == "bwrap"
    argv = ["/bin/sh", "-c", command]
    uid: int | None = None
    if sandboxed:
        refused = not_own((), folder, masked)
        if refused is not None:
            raise RequestError(f"cannot build in {folder}: {refused}")
        uid = spawner.bot_uid()
        argv = wrap(
            argv,
            (),
            masked,
            cwd=folder,
            disk_mb=limits.resources.disk_mb,
            uid=uid,
            writable_cwd=True,
        )
    builder = None if uid is None else (uid, uid)
    referee = None if uid is None else (os.getuid(), os.getgid())
    try:
        await trio.to_thread.run_sync(_settle, folder, builder, True)
        return await _run(argv, folder, limits.resources, sandboxed, timeout_s)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_settle, folder, referee, False)


async def _run(
    argv: list[str], folder: str, resources: ResourceLimits, sandboxed: bool, timeout_s: float
) -> BuildResult:
    """Start the build and see it to its end (its host HOME removed, when it had one)."""
    workdir = None if sandboxed else tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-")
    cgroup, setup = limited(resources)
    started = time.monotonic()
    try:
        try:
            child = await spawner.start(
                argv,
                "/" if sandboxed else folder,
                bot_environment(workdir or SANDBOX_HOME),
                setup,
                stdio_at=STDIO_FDS if sandboxed else None,
                merge_stderr=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            if cgroup is not None:
                cgroup.remove()
            why = getattr(exc, "strerror", None) or exc
            raise OSError(f"the build could not start: {why}") from None
        return await _supervise(child, cgroup, resources, sandboxed, timeout_s, started)
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)


async def _supervise(
    child: spawner.Child,
    cgroup: BotCgroup | None,
    resources: ResourceLimits,
    sandboxed: bool,
    timeout_s: float,
    started: float,
) -> BuildResult:
    """Read the output until the build's first process exits or the time is up, then kill
    everything of it; the result."""
    output = _Output()
    code: int | None = None
    counted: str | None = None
    ended = False
    try:
        await child.stdin.aclose()  # the build reads an empty stdin
        async with trio.open_nursery() as nursery:
            nursery.start_soon(output.drain, child.stdout)
            with trio.move_on_after(timeout_s):
                # bwrap and sh report a child killed by signal N as 128 + N: wrapped
                while (code := exit_status(child, wrapped=True)) is None:
                    await trio.sleep(EXIT_POLL_S)
            if code:
                counted = _counted(cgroup, resources)  # before the kill removes the cgroup
            ended = True
            with trio.CancelScope(shield=True):
                await end_group(child, cgroup)
            with trio.move_on_after(DRAIN_S):
                await output.done.wait()
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            if not ended:
                await end_group(child, cgroup)
            for stream in (child.stdout, child.stderr):
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await stream.aclose()
    elapsed_s = time.monotonic() - started
    text, dropped = output.text()
    outcome: Outcome
    if code is None:
        outcome, detail = "timeout", f"over the time limit of {timeout_s:g} s"
    elif code == 0:
        outcome, detail = 0, describe_exit(0)
    else:
        tail = text.splitlines()[-TAIL_LINES:]
        hit = counted or limit_hit(code, tail, resources, sandboxed=sandboxed)
        if hit is None:
            outcome, detail = code, describe_exit(code)
        else:
            outcome, detail = "limit", f"stopped by a resource limit ({hit})"
    return BuildResult(outcome, detail, text, dropped, elapsed_s)


def _counted(cgroup: BotCgroup | None, resources: ResourceLimits) -> str | None:
    """A limit the build's cgroup counted: a process killed at the memory cap, forks refused."""
    if cgroup is None:
        return None
    if cgroup.memory_mb and cgroup.oom_kills():
        return memory_total(resources)
    if resources.processes and cgroup.counts_processes and (refused := cgroup.hits()):
        return too_many_processes(resources, refused, "forks refused")
    return None


class _Output:
    """The last `OUTPUT_BYTES` of a pipe, and how many bytes came before them."""

    def __init__(self) -> None:
        self._data = bytearray()
        self._dropped = 0
        self.done = trio.Event()
        """Set at the end of the pipe (every writer gone) or when the reading stops."""

    async def drain(self, stream: trio.lowlevel.FdStream) -> None:
        try:
            while chunk := await stream.receive_some(_CHUNK):
                self._data += chunk
                excess = len(self._data) - OUTPUT_BYTES
                if excess > 0:
                    del self._data[:excess]
                    self._dropped += excess
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self.done.set()

    def text(self) -> tuple[str, int]:
        """The kept output, starting at a character, and the bytes dropped before it."""
        data, dropped = bytes(self._data), self._dropped
        if dropped:
            start = 0
            while start < len(data) and data[start] & 0xC0 == 0x80:  # inside a character
                start += 1
            data, dropped = data[start:], dropped + start
        return data.decode("utf-8", "replace"), dropped


def _settle(folder: str, owner: tuple[int, int] | None, writable: bool) -> None:
    """Give every entry of `folder`, itself included, to `owner` (uid, gid; None: leave them)
    and make it writable by its owner for a build — folders 0o755, files 0o644 (0o755 when any
    x bit is set) — or read-only for all after it: 0o555, 0o444 (0o555). Links are never
    followed: a link the build made to a host path changes nothing there. A folder is set
    before it is listed, so that a subfolder the build locked (chmod 000) is entered."""

    def one(path: str) -> None:
        mode = os.lstat(path).st_mode
        if owner is not None:
            os.chown(path, *owner, follow_symlinks=False)
        if stat.S_ISLNK(mode):
            return
        executable = stat.S_ISDIR(mode) or mode & 0o111
        os.chmod(path, (0o555 if executable else 0o444) | (0o200 if writable else 0))

    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        raise NotADirectoryError(f"{folder} is not a folder")
    one(folder)
    for top, folders, files in os.walk(folder, onerror=_raise):
        for name in (*folders, *files):
            one(os.path.join(top, name))


def _raise(error: OSError) -> NoReturn:
    raise error
