"""Bot processes: started in a sandbox, talked to by lines, always killed with all they started.

Every bot runs as a subprocess in its own session and process group and its own cgroups (so that
it and everything it forks can be killed at once), in a private working directory that is also
its HOME — in the sandbox, a directory of its in-memory `/tmp`; without it, a host directory
named after the referee's pid, so that one left by a referee killed with SIGKILL is recognised
and removed by the next referee — with a scrubbed environment:

- PATH (the referee's; an uploaded bot's keeps only the folders its sandbox holds), HOME and
  TMPDIR (the private directory), LANG and LC_* (the referee's);
- nothing else: no credentials, no PYTHONPATH (built-in bots run with the referee's interpreter,
  where the framework is installed).

Because the working directory is private, the paths in a bot's command are absolute, and the
bot's own files are listed in `BotSpec.files` (which the sandbox lets it read): what a user
writes is turned into a `BotSpec` by `tournaments.plan.botcommands`, which also resolves the
built-in bots' names (the referee never imports `bots`).

When a process is done with — a fault, the end of `open_bots`, an exception, a cancellation —
its whole group gets SIGKILL and the referee waits for it, shielded from cancellation. On Linux
the referee also makes itself a child subreaper, so the grandchildren a bot left behind are
re-parented to the referee when the bot dies and are reaped here: no zombie, no orphan. Where
a pids cgroup is available (`referee.cgroups`) a bot that leaves its process group with setsid is
still found and killed through its cgroup; elsewhere it escapes the group kill.

Nothing of a bot outlives its referee either: each bot process gets SIGKILL when the referee
dies (PR_SET_PDEATHSIG, from a spawner thread that lives as long as the referee:
`referee.spawn`); in the sandbox its pid namespace takes every process of the bot with it, and
its files were only ever in memory; without the sandbox, what the bot forked survives a
SIGKILLed referee until the next referee starts and kills what is left in dead referees'
cgroups.

Resource limits (`referee.limits`, `referee.cgroups`) are set in the child before exec; the
sandbox (`referee.sandbox`, on by default where it works: `Limits.sandbox = "auto"`) runs the
command inside bubblewrap, as its own unprivileged uid when the referee is root.

A bot process outlives a game (it is reused for the next one), and its end is always our
explicit, shielded `kill` of the whole group, never a bare wait on the leader.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Protocol

import msgspec
import trio

from protocol.messages import DEFAULT_MAX_LINE_BYTES, Quit, TimeMode, encode_line
from referee import spawn as spawner
from referee.cgroups import BotCgroup
from referee.faults import BotFault, describe_exit, stderr_quote
from referee.limits import (
    ResourceLimits,
    disk_full,
    group_cpu_s,
    limit_hit,
    memory_total,
    rlimit_setter,
    too_many_processes,
)
from referee.lines import LineReader, LineTooLong
from referee.sandbox import (
    SANDBOX_HOME,
    STDIO_FDS,
    SandboxChoice,
    SandboxRequest,
    choose,
    confined_path,
    not_own,
    system_program,
    unreadable,
    wrap,
    wrap_confined,
)
from referee.stderr import StderrLog, drain
from referee.veil import veiled

log = logging.getLogger("referee.process")

RESOURCE_CHECK_S = 0.1
"""How often (at most) the match loop has a bot's counters compared with its limits during a
game, on the run's clock (they are also compared at the end of every game, and at a death)."""

DISK_SLACK_BYTES = 64 << 10
"""A sandbox `/tmp` with less free space than this is full (a write of that size fails)."""

SIGNAL_MAX = 64
"""Signal numbers go up to SIGRTMAX (64 on Linux)."""

REAP_TIMEOUT_S = 2.0
"""How long to wait for a killed group's members to disappear before giving up (they cannot
survive SIGKILL; only a process stuck in the kernel takes this long)."""


class Cancellable(Protocol):
    """What a wait for a bot is cut short through when the bot dies: a `trio.CancelScope`, or
    the match loop's guard of sequential turns, which also notes that it happened."""

    def cancel(self) -> None: ...


class BotSpec(msgspec.Struct, frozen=True):
    """A participant: a display name, the argv that runs it, and its own resource limits."""

    name: str
    command: list[str]
    resources: ResourceLimits | None = None
    """Overrides the match's `Limits.resources` for this bot (None: use those)."""
    files: tuple[str, ...] = ()
    """The bot's own files (or directories): the sandbox lets it read their directories."""
    cwd: str | None = None
    """Run the bot in this directory (read-only in the sandbox) instead of its private one,
    which stays its HOME and TMPDIR."""
    name_given: bool = True
    """False when `name` was only derived from the command: the name the bot gives itself in
    `ready` is then shown instead."""
    folder: str | None = None
    """An uploaded bot's own folder: it runs there, its command as written (nothing of it is
    resolved on the host), and in the sandbox sees nothing of the host but that folder (at
    `sandbox.BOT_FOLDER`) and the system (`sandbox.wrap_confined`). `files` and `cwd` are
    then unused."""


def _doing(doing: str, decision: int | None) -> str:
    """What the referee was doing, for a fault's reason: formatted only when a fault happens,
    not at every decision."""
    return doing if decision is None else f"{doing} {decision}"


class Limits(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The referee's settings of a match that are not the time control (which bots are told)."""

    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    """The longest line a bot may send; longer is a `line_too_long` fault."""
    stderr_cap_bytes: int = 1 << 20
    """Per seat per game: stderr beyond this is counted and dropped."""
    log_dir: str | None = None
    """Where the per-seat stderr logs go; a fresh temporary directory (kept) if None."""
    grace_ms: int = 0
    """Extra time the referee tolerates beyond a bot's announced clock (never told to bots)."""
    exit_wait_ms: int = 500
    """After a bot's stdout closes, how long to wait for its exit status (`crash` vs `closed`)."""
    quit_ms: int = 500
    """After `quit`, how long bots get to exit by themselves before their group is killed."""
    resources: ResourceLimits = ResourceLimits()
    """Memory, CPU per game, processes, file size (per bot; a `BotSpec` may override them)."""
    sandbox: SandboxRequest = "auto"
    """"bwrap": run bots in a bubblewrap sandbox (`referee.sandbox`); "none": plain processes;
    "auto": the sandbox wherever it works here, else plain processes with a logged warning."""
    hidden: tuple[str, ...] = ()
    """Paths a sandboxed bot must not see even inside a directory it may read (the store)."""
    time_mode: TimeMode = "wall"
    """"wall": charge the time from `act` to the answer; "cpu": the bot's CPU time in it."""
    runtimes: tuple[str, ...] = ()
    """Folders an uploaded bot's sandbox binds beside the system's (`sandbox.RUNTIME_DIRS`):
    a runtime installed under `/opt`, say."""
    nice: int = 0
    """How much lower than the referee's priority its bots run (their session's autogroup
    too: `spawn.keep_priority`): a league checks a version at its ladder's priority, whose
    referee processes run lowered themselves."""


def bot_environment(workdir: str, path: str | None = None) -> dict[str, str]:
    """The whole environment a bot gets (see the module docstring for why so little); `path`
    is its PATH (default: ours)."""
    env = {"PATH": os.environ.get("PATH", os.defpath) if path is None else path}
    env |= {"HOME": workdir, "TMPDIR": workdir}
    for key, value in os.environ.items():
        if key == "LANG" or key.startswith("LC_"):
            env[key] = value
    return env


# ---- process groups -------------------------------------------------------------------------

_STAT = re.compile(rb"\) (\S) (\d+) (\d+) ")


def _group_members(pgid: int) -> list[tuple[int, int, str]]:
    """(pid, parent pid, state) of every process in group `pgid`, from /proc (Linux)."""
    members = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for entry in names:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        match = _STAT.search(stat, stat.rfind(b")"))
        if match and int(match[3]) == pgid:
            members.append((int(entry), int(match[2]), match[1].decode()))
    return members


def _runnable(pid: int) -> bool:
    """Whether a thread of process `pid` is running or waiting for a CPU (False once gone)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        if stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] == b"R":
            return True
    return False


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


async def _reap_group(pgid: int) -> None:
    """Wait until no process of group `pgid` is left, reaping those re-parented to us."""
    me = os.getpid()
    deadline = trio.current_time() + REAP_TIMEOUT_S
    while True:
        waiting = False
        for pid, ppid, state in _group_members(pgid):
            if state == "Z" and ppid == me:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
                waiting = True
            elif state != "Z" or (ppid != 1 and spawner.is_subreaper()):
                waiting = True  # still dying, or a zombie about to be re-parented to us
        if not waiting:
            return
        if trio.current_time() > deadline:
            log.warning("process group %d still has members after SIGKILL", pgid)
            return
        _kill_group(pgid)
        await trio.sleep(0.005)


# ---- one process ----------------------------------------------------------------------------


class BotProcess:
    """One running bot process: line I/O on its pipes, its exit status, and its killing."""

    def __init__(
        self,
        spec: BotSpec,
        process: spawner.Child,
        workdir: str | None,
        limits: Limits,
        stderr_log: StderrLog,
        cgroup: BotCgroup | None,
        sandboxed: bool,
    ) -> None:
        self.spec = spec
        self.pid = process.pid
        self.workdir = workdir
        """The host working directory (removed at the end), or None: the sandbox's is in memory."""
        self.sandboxed = sandboxed
        self.resources = spec.resources or limits.resources
        self._cgroup = cgroup
        self._game_cpu_s = 0.0
        self._process = process
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._stderr = process.stderr
        self._reader = LineReader(process.stdout, limits.max_line_bytes)
        self._exit_wait_s = limits.exit_wait_ms / 1000
        self._log = stderr_log
        self._stderr_done = trio.Event()
        self._drain_scope = trio.CancelScope()
        self._watch_scope = trio.CancelScope()
        self._waiting: Cancellable | None = None
        self._debug = False
        """Whether lines are logged (looked up once a game, not at every line)."""
        self.exited = False
        """Set the moment the bot's own process exits (its children may live on)."""
        self._killed = False
        self._tmp_fd: int | None = None
        """On the sandbox's `/tmp` (its free space is the disk check); closed at the kill, as it
        keeps that tmpfs alive."""
        self._tmp_pending = sandboxed and self.resources.disk_mb > 0

    def members(self) -> list[int]:
        """The bot's live processes: its cgroup's, else its process group's (from /proc)."""
        if self._cgroup is not None:
            return self._cgroup.members()
        return [pid for pid, _, state in _group_members(self.pid) if state != "Z"]

    def cpu_s(self) -> float:
        """CPU seconds used by the bot so far: its cgroup's accounting (every process that ran
        in it), else the /proc sums of its live processes and their reaped children."""
        if self._cgroup is not None and self._cgroup.counts_cpu:
            return self._cgroup.cpu_s()
        return group_cpu_s(self.members())

    def runnable(self) -> bool:
        """Whether a thread of one of the bot's processes is running or waiting for a CPU
        (state R in /proc)."""
        return any(_runnable(pid) for pid in self.members())

    def start_game(self) -> None:
        """Start counting this game's CPU time (the process may have played games before), and
        see whether this game's lines are to be logged."""
        self._game_cpu_s = self.cpu_s()
        self._debug = log.isEnabledFor(logging.DEBUG)

    def resource_fault(self, doing: str, decision: int | None = None) -> BotFault | None:
        """A `resource_limit` fault if the bot exceeded a limit the kernel does not report by
        killing it: its process count (forks refused), its disk, its CPU per game, its memory
        (a child OOM-killed).

        The match loop looks after a decision at most every `RESOURCE_CHECK_S` (reading the
        counters cost more than the rest of a fast decision). A later look still blames the
        right bot and game: the counters are this bot's and cumulative (a refused fork or an
        OOM kill stays counted, CPU time only grows), and the match loop looks at the end of
        every game too. What is not cumulative — a full disk, the process count from /proc
        where no pids cgroup counts refusals — is seen if it lasts until a look, as it was when
        the look came after each decision (a decision may last seconds); the kernel holds the
        disk and memory caps meanwhile. `doing` (followed by `decision` when given) is only
        formatted into a fault's reason.
        """
        if self._tmp_pending:
            self._open_tmp()
        hit = self._process_hit() or self._disk_hit() or self._memory_hit() or self._cpu_hit()
        if hit is None:
            return None
        return BotFault("resource_limit", f"{hit} while {_doing(doing, decision)}")

    def _process_hit(self) -> str | None:
        limit = self.resources.processes
        if not limit:
            return None
        if self._cgroup is not None and self._cgroup.counts_processes:
            refused, how = self._cgroup.hits(), "forks refused"
        else:
            refused, how = len(self.members()), "processes"
            refused = refused if refused > limit else 0
        if refused:
            return too_many_processes(self.resources, refused, how)
        return None

    def _memory_hit(self) -> str | None:
        if self._cgroup is not None and self._cgroup.memory_mb and self._cgroup.oom_kills():
            return memory_total(self.resources)
        return None

    def _cpu_hit(self) -> str | None:
        limit = self.resources.cpu_s
        if not limit:
            return None
        used = self.cpu_s() - self._game_cpu_s
        if used > limit:
            return f"cpu: used {used:.1f} s of CPU in this game, over the limit of {limit} s"
        return None

    def _disk_hit(self) -> str | None:
        """The sandbox's `/tmp` is full."""
        if self._tmp_fd is None:
            return None
        try:
            stat = os.fstatvfs(self._tmp_fd)
        except OSError:
            return None
        if stat.f_bavail * stat.f_frsize < DISK_SLACK_BYTES:
            return disk_full(self.resources)
        return None

    def _open_tmp(self) -> None:
        """Keep an fd on the sandbox's `/tmp` (seen through the sandbox's first process, a
        child of bwrap) for `_disk_hit`, once that process is there (it is by `ready`)."""
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children") as file:
                inner = file.read().split()
            if not inner:
                return  # bwrap is still setting up: try again at the next check
            self._tmp_pending = False
            self._tmp_fd = os.open(f"/proc/{inner[0]}/root/tmp", os.O_PATH)
        except OSError:
            self._tmp_pending = False

    async def _watch_exit(self) -> None:
        """Mark the exit of the bot's process the moment it happens (a pidfd, no reaping, so
        the process group id stays reserved until the group is killed)."""
        with self._watch_scope:
            try:
                pidfd = os.pidfd_open(self.pid)
            except (AttributeError, OSError):  # no pidfd here: deadlines still catch a death
                return
            try:
                await trio.lowlevel.wait_readable(pidfd)
            finally:
                os.close(pidfd)
            self.exited = True
            if self._waiting is not None:
                self._waiting.cancel()

    async def _drain_stderr(self) -> None:
        with self._drain_scope:
            await drain(self._stderr, self._log, self._stderr_done)

    def exit_status(self) -> int | None:
        """The return code if the process has exited (`exit_status`), without reaping it."""
        return exit_status(self._process, self.sandboxed)

    async def wait_exit(self, timeout_s: float) -> int | None:
        """The return code once the process has exited, or None after `timeout_s`."""
        with trio.move_on_after(timeout_s):
            while (code := self.exit_status()) is None:
                await trio.sleep(0.005)
            return code
        return None

    async def ask(
        self,
        line: bytes,
        scope: Cancellable,
        *,
        sending: str,
        waiting: str,
        decision: int | None = None,
    ) -> tuple[bytes, BotFault | None]:
        """Send a request and read the line that answers it: the line, or the fault (with b"")
        if the bot is gone, stopped reading, sent a line too long or closed its stdout.
        `sending` and `waiting` (followed by `decision` when given) are only formatted into a
        fault's reason.

        `scope` (the wait's) is cancelled as soon as the bot's process exits, or at once if it
        has: a child that inherited its stdout would otherwise keep the wait going until the
        deadline. One call per request, the whole of a decision's exchange with the bot.
        """
        self._waiting = scope
        try:
            if self.exited:
                scope.cancel()
            rest = self.offer(line)
            if rest:
                await self.send(rest, doing=sending, decision=decision)
            elif rest is None:
                raise await self._gone(_doing(sending, decision), "closed its stdin")
            try:
                answer = await self._reader.read_answer()
            except LineTooLong as exc:
                raise BotFault(
                    "line_too_long",
                    f"sent a line longer than {exc.limit} bytes (the referee's maximum line "
                    f"length) while {_doing(waiting, decision)}",
                ) from None
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                answer = None
            if answer is None:
                raise await self._gone(_doing(waiting, decision), "closed its stdout")
            if self._debug:
                log.debug("%s[%d] >> %s", self.spec.name, self.pid, answer[:300])
            return answer, None
        except BotFault as fault:
            return b"", fault
        finally:
            self._waiting = None

    async def send(self, line: bytes, *, doing: str, decision: int | None = None) -> None:
        """Write one line; a `BotFault` if the bot is gone or stopped reading its stdin.
        `doing`, followed by `decision` when given, is only formatted into a fault's reason."""
        rest = self.offer(line)
        try:
            if rest:
                await self._stdin.send_all(rest)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            rest = None
        if rest is None:
            raise await self._gone(_doing(doing, decision), "closed its stdin")

    def offer(self, line: bytes) -> bytes | None:
        """Write what the pipe takes without waiting (all of a line, normally): the part of
        `line` still to send with `send` (empty when all of it went), or None when the bot no
        longer reads its stdin.

        `FdStream.send_all` would first pass through the scheduler; a request is always
        followed by reading the answer, whose wait is the scheduling point.
        """
        if self._debug:
            log.debug("%s[%d] << %s", self.spec.name, self.pid, line[:300].rstrip())
        stdin = self._stdin
        if not isinstance(stdin, trio.lowlevel.FdStream):  # not a pipe: no fast path
            return line
        try:
            sent = os.write(stdin.fileno(), line)
        except BlockingIOError:
            return line
        except OSError:  # EPIPE, or EBADF once closed
            return None
        return line[sent:] if sent < len(line) else b""

    async def _gone(self, doing: str, what: str) -> BotFault:
        """The fault for a pipe that closed: a crash if the process exited, else `closed`.

        Shielded (and bounded by `exit_wait_ms` twice) so that a decision's deadline falling
        meanwhile cannot turn a crash into a timeout.
        """
        with trio.CancelScope(shield=True):
            code = await self.wait_exit(self._exit_wait_s)
            tail = "" if code is None else await self.stderr_tail()
        if code is None:
            return BotFault("closed", f"{what} but is still running (pid {self.pid}) while {doing}")
        return self.death_fault(code, f"exited ({describe_exit(code)}) while {doing}{tail}")

    def death_fault(self, code: int, reason: str) -> BotFault:
        """`crash`, or `resource_limit` when the death shows a limit was hit (named first)."""
        hit = self._memory_hit() or limit_hit(
            code, self._log.tail_lines(), self.resources, sandboxed=self.sandboxed
        )
        if hit is not None:
            return BotFault("resource_limit", f"{hit}; {reason}")
        return self.resource_fault(reason) or BotFault("crash", reason)

    async def stderr_tail(self) -> str:
        """'; [first stderr lines: ... …] last stderr lines: ...' once stderr has been read to
        its end (briefly waited for)."""
        with trio.move_on_after(self._exit_wait_s):
            await self._stderr_done.wait()
        return stderr_quote(*self._log.excerpt())

    async def kill(self) -> None:
        """SIGKILL the whole group, wait for all of it, release pipes and the working directory.

        Shielded: runs to completion even when the caller is being cancelled, because a process
        left behind is worse than a late cancellation.
        """
        if self._killed:
            return
        self._killed = True
        with trio.CancelScope(shield=True):
            await end_group(self._process, self._cgroup)
            with trio.move_on_after(1.0):
                await self._stderr_done.wait()
            self._drain_scope.cancel()
            if self._tmp_fd is not None:
                os.close(self._tmp_fd)
                self._tmp_fd = None
            self._watch_scope.cancel()
            for stream in (self._stdin, self._stdout, self._stderr):
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await stream.aclose()
            if self.workdir is not None:
                await trio.to_thread.run_sync(shutil.rmtree, self.workdir, True)
        log.debug("%s[%d] killed (%s)", self.spec.name, self.pid, self._process.returncode)

    async def quit(self, timeout_s: float) -> None:
        """Say `quit`, give the bot `timeout_s` to exit by itself, then kill its group anyway."""
        with trio.move_on_after(timeout_s):
            with contextlib.suppress(BotFault):
                await self.send(encode_line(Quit()), doing="quitting")
            await self.wait_exit(timeout_s)
        await self.kill()


def exit_status(process: spawner.Child, wrapped: bool) -> int | None:
    """The return code if `process` has exited, without reaping it (so its process group id
    cannot be reused before the group is killed).

    `wrapped`: the process is bwrap (in the sandbox) or a shell, which exit with 128 + N when
    what they run was killed by signal N: that is reported as the signal (-N), as for a
    process run directly."""
    code = _own_exit_status(process)
    if wrapped and code is not None and 128 < code <= 128 + SIGNAL_MAX:
        return 128 - code
    return code


def _own_exit_status(process: spawner.Child) -> int | None:
    if process.returncode is not None:
        return process.returncode
    if not hasattr(os, "waitid"):  # not on every Unix: fall back to reaping
        return process.poll()
    try:
        status = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return process.poll()
    if status is None or status.si_pid == 0:
        return None
    if status.si_code == os.CLD_EXITED:
        return status.si_status
    return -status.si_status


async def end_group(process: spawner.Child, cgroup: BotCgroup | None) -> None:
    """SIGKILL the process group of `process` (started in a session of its own), reap it and
    wait until nothing of its group is left, then kill what is left in its cgroup (processes
    that left the group) and remove the cgroup. Once per process, shielded by the caller."""
    _kill_group(process.pid)
    await process.wait()
    await _reap_group(process.pid)
    if cgroup is not None:
        await _empty_cgroup(cgroup)


def limited(
    resources: ResourceLimits, *then: Callable[[], None]
) -> tuple[BotCgroup | None, Callable[[], None]]:
    """A new cgroup capping `resources` (None where no hierarchy is writable), and the child's
    pre-exec function (`spawner.child_setup`) that joins it, sets the rlimits, then runs the
    steps `then`. Remove the cgroup if the process does not start; else `end_group` does."""
    cgroup = BotCgroup.create(resources.processes, resources.memory_mb)
    steps = [] if cgroup is None else [cgroup.enter]
    steps.append(rlimit_setter(resources, address_space=cgroup is None or not cgroup.memory_mb))
    return cgroup, spawner.child_setup([*steps, *then])


async def start_limited(
    argv: Sequence[str],
    folders: tuple[str, ...] | None,
    resources: ResourceLimits,
    cwd: str,
    env: dict[str, str],
    *,
    stdio_at: tuple[int, int] | None,
    merge_stderr: bool = False,
    given: tuple[tuple[int, int], ...] = (),
    nice: int = 0,
) -> tuple[BotCgroup | None, spawner.Child]:
    """Start `argv` (`spawner.start`) in a new cgroup of `resources` (`limited`), veiled over
    `folders` when they are given (`veil.veiled`: an uploaded bot's sandbox), `nice` below our
    priority; the cgroup and the child. If it cannot start, the cgroup is removed and the
    error raised."""
    cgroup: BotCgroup | None = None
    try:
        with veiled(argv, folders) as veil:
            lower = (spawner.lowered(nice),) if nice else ()
            cgroup, setup = limited(resources, veil.step, *lower)
            child = await spawner.start(
                veil.argv,
                cwd,
                env,
                setup,
                stdio_at=stdio_at,
                merge_stderr=merge_stderr,
                given=(*veil.given, *given),
            )
    except (OSError, subprocess.SubprocessError):
        if cgroup is not None:
            cgroup.remove()
        raise
    return cgroup, child


async def _empty_cgroup(cgroup: BotCgroup) -> None:
    """Kill what is left in the cgroup (processes that left the group with setsid), reap those
    re-parented to us, and remove it."""
    deadline = trio.current_time() + REAP_TIMEOUT_S
    killed: set[int] = set()
    while trio.current_time() < deadline:
        members = cgroup.members()
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed.update(members)
        for pid in list(killed):  # a dead process leaves the cgroup but stays a zombie
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    killed.discard(pid)
            except ChildProcessError:  # not ours to reap (its own parent will)
                killed.discard(pid)
        if not members and not killed:
            break
        await trio.sleep(0.005)
    cgroup.remove()


@functools.cache
def resolve_sandbox(requested: SandboxRequest) -> SandboxChoice:
    """`sandbox.choose`, once per request and process; an "auto" that finds no working
    sandbox logs its warning (once)."""
    choice = choose(requested)
    if choice.warning is not None:
        log.warning("%s", choice.warning)
    return choice


WORKDIR_PREFIX = "arena-bot-"


_workdirs_swept = False


def _sweep_workdirs() -> None:
    """Remove the host working directories of referees that died without cleaning up (once per
    referee: what a live referee leaves is its own to remove)."""
    global _workdirs_swept
    _workdirs_swept = True
    top = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for name in os.listdir(top):
            pid = name[len(WORKDIR_PREFIX) :].split("-")[0]
            dead = pid.isdigit() and not os.path.exists(f"/proc/{pid}")
            if name.startswith(WORKDIR_PREFIX) and dead:
                shutil.rmtree(os.path.join(top, name), ignore_errors=True)


def _program_found(spec: BotSpec, runtimes: Sequence[str]) -> bool:
    """Whether a sandboxed bot's program is there to start: an uploaded bot's path in its
    folder, or its name on the system's part of PATH (what its sandbox holds); else as the
    host finds it."""
    program = spec.command[0]
    if spec.folder is None:
        return shutil.which(program) is not None
    if "/" not in program:
        return system_program(program, runtimes) is not None
    return os.path.isfile(os.path.join(spec.folder, program))


def _refused_folders(spec: BotSpec, hidden: Sequence[str]) -> str | None:
    """Why the sandbox cannot give the bot its files (they hold the tournament's own, or a
    root referee's bot could not read them), else None."""
    root = os.geteuid() == 0
    if spec.folder is not None:
        return unreadable((), spec.folder) if root else None
    return not_own(spec.files, spec.cwd, hidden) or (
        unreadable(spec.files, spec.cwd, hidden) if root else None
    )


async def spawn(
    spec: BotSpec, limits: Limits, stderr_log: StderrLog, nursery: trio.Nursery
) -> BotProcess:
    """Start one bot process; its stderr drainer runs in `nursery`. `BotFault` if it cannot."""
    sandboxed = resolve_sandbox(limits.sandbox).kind == "bwrap"
    if sandboxed and not _program_found(spec, limits.runtimes):  # bwrap would start, then fail
        raise BotFault(
            "spawn", f"could not start `{shlex.join(spec.command)}`: No such file or directory"
        )
    if sandboxed:
        refused = _refused_folders(spec, limits.hidden)
        if refused is not None:
            raise BotFault("spawn", f"could not start `{shlex.join(spec.command)}`: {refused}")
    resources = spec.resources or limits.resources
    workdir: str | None = None
    if not _workdirs_swept:
        await trio.to_thread.run_sync(_sweep_workdirs)
    env, folders = None, None
    if sandboxed:
        uid = spawner.bot_uid()
        if spec.folder is not None:
            command, folders = wrap_confined(
                spec.command,
                spec.folder,
                limits.hidden,
                disk_mb=resources.disk_mb,
                uid=uid,
                runtimes=limits.runtimes,
            )
            env = bot_environment(SANDBOX_HOME, confined_path(limits.runtimes))
        else:
            command = wrap(
                spec.command,
                spec.files,
                limits.hidden,
                cwd=spec.cwd,
                disk_mb=resources.disk_mb,
                uid=uid,
            )
        home, cwd = SANDBOX_HOME, "/"
    else:
        workdir = tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-")
        command, home, cwd = spec.command, workdir, spec.folder or spec.cwd or workdir
    try:
        cgroup, process = await start_limited(
            command,
            folders,
            resources,
            cwd,
            env or bot_environment(home),
            stdio_at=STDIO_FDS if sandboxed else None,
            nice=limits.nice,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        why = getattr(exc, "strerror", None) or exc
        raise BotFault("spawn", f"could not start `{shlex.join(spec.command)}`: {why}") from None
    stderr_log.forget_tail()
    bot = BotProcess(spec, process, workdir, limits, stderr_log, cgroup, sandboxed)
    nursery.start_soon(bot._drain_stderr)
    nursery.start_soon(bot._watch_exit)
    log.debug("%s[%d] started: %s", spec.name, bot.pid, shlex.join(spec.command))
    return bot


# ---- handles: a seat's process across the games of a pairing ---------------------------------


class _LogDir:
    """The log directory of an `open_bots` block: made when the first game needs it, so a
    block that plays nothing leaves no empty temporary directory behind."""

    def __init__(self, configured: str | None) -> None:
        self._configured = configured
        self._path: str | None = None

    def path(self) -> str:
        if self._path is None:
            if self._configured is None:
                self._path = tempfile.mkdtemp(prefix="arena-logs-")
            else:
                os.makedirs(self._configured, exist_ok=True)
                self._path = self._configured
        return self._path


class BotHandle:
    """A participant's process across several games: started lazily, restarted when dead.

    One handle plays one seat of one match at a time; the stderr log switches file per game.
    """

    def __init__(
        self, spec: BotSpec, limits: Limits, nursery: trio.Nursery, log_dir: _LogDir
    ) -> None:
        self.spec = spec
        self.limits = limits
        self._log_dir = log_dir
        self.stderr = StderrLog(limits.stderr_cap_bytes)
        self.starts = 0
        """How many processes this handle has started (restarts show as more than one)."""
        self.busy = False
        self._nursery = nursery
        self._process: BotProcess | None = None

    @property
    def log_dir(self) -> str:
        """Where this handle's stderr logs go (created on first use)."""
        return self._log_dir.path()

    @property
    def process(self) -> BotProcess | None:
        return self._process

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    async def ensure_started(self) -> tuple[BotProcess, bool]:
        """The live process (restarting a dead one), and whether it was started just now."""
        if self._process is not None and self._process.exit_status() is not None:
            await self.kill()
        if self._process is not None:
            return self._process, False
        self._process = await spawn(self.spec, self.limits, self.stderr, self._nursery)
        self.starts += 1
        return self._process, True

    async def kill(self) -> None:
        """Kill the current process (if any); the next game starts a new one."""
        process, self._process = self._process, None
        if process is not None:
            await process.kill()

    async def quit(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            await process.quit(self.limits.quit_ms / 1000)


@asynccontextmanager
async def open_bots(
    specs: Sequence[BotSpec], limits: Limits | None = None
) -> AsyncIterator[list[BotHandle]]:
    """Handles for `specs`, whose processes are reused across the games played inside.

    On a normal exit every bot is told `quit` and given `limits.quit_ms` to exit; on an
    exception or cancellation they are killed at once. Either way every process group is killed
    and waited for before this returns.
    """
    limits = limits or Limits()
    spawner.become_subreaper()
    log_dir = _LogDir(limits.log_dir)
    error: BaseException | None = None
    async with trio.open_nursery() as nursery:
        handles = [BotHandle(spec, limits, nursery, log_dir) for spec in specs]
        try:
            yield handles
        except BaseException as exc:
            # Kept and re-raised outside the nursery, so callers see their own exception and
            # not an ExceptionGroup around it (the stderr drainers are the nursery's only tasks).
            error = exc
            await _for_all(handles, BotHandle.kill)
        else:
            await _for_all(handles, BotHandle.quit)
        finally:
            for handle in handles:
                handle.stderr.close()
    if error is not None:
        raise error


async def _for_all(
    handles: Sequence[BotHandle], action: Callable[[BotHandle], Awaitable[None]]
) -> None:
    """Run `action(handle)` for every handle concurrently, shielded from cancellation."""
    with trio.CancelScope(shield=True):
        async with trio.open_nursery() as nursery:
            for handle in handles:
                nursery.start_soon(action, handle)
