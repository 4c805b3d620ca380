"""An uploaded bot's build step (`build` in its `bot.toml`): `sh -c BUILD` in a copy of the
uploaded files, with the bot's resource limits and a wall-clock time limit, its output kept, and
the built folder packed into one file that the league unpacks (with its upload rules) as the
version's folder.

A build is started as a bot process is (`referee.process`): from the spawner thread, in a
session and cgroups of its own with the resource limits' pre-exec (`process.limited`: total
memory, processes, file size), and when it exits, runs out of time or is cancelled, its group
and cgroup are killed and waited for (`process.end_group`): nothing it started outlives it.
Its stdin is empty; its stdout and stderr go into one pipe, in the order written, of which the
last `OUTPUT_BYTES` are kept.

In the sandbox (`Limits.sandbox` resolving to bwrap: `sandbox.wrap_build`) the build sees the
system read-only, the upload read-only, no network and nothing of the league or of the host's
paths; it builds in a tmpfs at `sandbox.BOT_FOLDER` (the path its bot runs at later) of
`disk_mb`, beside a private `/tmp` of `disk_mb`, both charged to its memory: whatever it
writes stays in memory within those bounds, never on the host's disk, and the one file it hands
back (the packed folder, into a memfd the referee copies to the host when the build succeeds) is
bounded by `file_mb`. It is veiled as a bot is (`referee.veil`). A root referee runs it as a fresh
unprivileged uid (`spawn.bot_uid`). Unsandboxed (`sandbox = "none"`, trusted authors only) it
runs in a temporary copy on the host, with the same limits and time limit.

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
import subprocess
import tempfile
import time
from typing import Literal

import msgspec
import trio

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
    resolve_sandbox,
    start_limited,
)
from referee.sandbox import (
    BOT_FOLDER,
    BUILD_SOURCE,
    OUTPUT_FD,
    SANDBOX_HOME,
    STDIO_FDS,
    confined_path,
    wrap_build,
)

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


BUILD_SCRIPT = """\
cp -R "$1/." "$2/" || { echo "arena: cannot copy the upload" >&2; exit 125; }
find "$2" -mindepth 1 ! -type l -exec chmod u+w {} +
cd "$2" && sh -c "$4" </dev/null 5>&-
code=$?
[ "$code" = 0 ] || exit "$code"
tar -C "$2" -cf "$3" . || { echo "arena: could not pack the built folder" >&2; exit 125; }
"""
"""Run as `sh -c BUILD_SCRIPT build SOURCE FOLDER OUTPUT COMMAND`: copy the upload into the
build's folder, build there, and pack the folder into OUTPUT only if the build succeeded. In
the sandbox OUTPUT is `/proc/self/fd/5` (`sandbox.OUTPUT_FD`): a memfd, copied into the host
file when the build succeeds (an fd on the host file would name its path: a process's fds'
links are readable by its fellows), which the build's command does not get."""


async def run_build(
    command: str,
    source: str,
    output: str,
    limits: Limits,
    timeout_s: float,
    hidden: tuple[str, ...] = (),
) -> BuildResult:
    """Build the bot uploaded as the folder `source`: `sh -c command` in a copy of it, with
    `limits` (their resources and sandbox; their `hidden` paths and `hidden` masked) for
    `timeout_s` seconds at most; when it succeeds the built folder is packed, as a tar, into
    the host file `output` (which must exist). `source` is never written.

    `OSError` if the build cannot start."""
    spawner.become_subreaper()
    if resolve_sandbox(limits.sandbox).kind != "bwrap":
        folder = tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-build-")
        argv = ["/bin/sh", "-c", BUILD_SCRIPT, "build", source, folder, output, command]
        try:
            return await _run(argv, None, limits, timeout_s)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    inside = (BUILD_SOURCE, BOT_FOLDER, f"/proc/self/fd/{OUTPUT_FD}", command)
    confined = wrap_build(
        ["/bin/sh", "-c", BUILD_SCRIPT, "build", *inside],
        source,
        (*limits.hidden, *hidden),
        disk_mb=limits.resources.disk_mb,
        uid=spawner.bot_uid(),
        runtimes=limits.runtimes,
    )
    packed = os.memfd_create("arena-build", os.MFD_CLOEXEC)
    try:
        result = await _run(confined.argv, confined.folders, limits, timeout_s, packed)
        if result.ok:
            await trio.to_thread.run_sync(_copy, packed, output)
        return result
    finally:
        os.close(packed)


def _copy(fd: int, path: str) -> None:
    """The whole of the file `fd` into the file at `path`."""
    os.lseek(fd, 0, os.SEEK_SET)
    with open(path, "wb") as target, os.fdopen(os.dup(fd), "rb") as source:
        shutil.copyfileobj(source, target)


async def _run(
    argv: list[str],
    folders: tuple[str, ...] | None,
    limits: Limits,
    timeout_s: float,
    packed: int | None = None,
) -> BuildResult:
    """Start the build (in the sandbox when `folders`, which it binds, are given; `packed`:
    the fd it packs its folder into, given at `OUTPUT_FD`) and see it to its end (its host
    HOME removed, when it had one)."""
    sandboxed, resources = folders is not None, limits.resources
    workdir = None if sandboxed else tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-")
    if workdir is None:
        env = bot_environment(SANDBOX_HOME, confined_path(limits.runtimes))
    else:
        env = bot_environment(workdir)
    started = time.monotonic()
    try:
        try:
            cgroup, child = await start_limited(
                argv,
                folders,
                resources,
                "/",
                env,
                stdio_at=STDIO_FDS if sandboxed else None,
                merge_stderr=True,
                given=() if packed is None else ((packed, OUTPUT_FD),),
            )
        except (OSError, subprocess.SubprocessError) as exc:
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
