"""Forking bot processes so that none outlives the referee: one long-lived spawner thread.

Linux's PR_SET_PDEATHSIG ("kill me when my parent dies", also what bubblewrap's
`--die-with-parent` uses) fires when the *thread* that forked the child exits, not the process.
`trio.lowlevel.open_process` forks from trio's worker threads, which exit after 10 s idle: a
sandboxed bot was SIGKILLed ten seconds after its start. So every bot is forked here, from one
dedicated thread that lives as long as the referee, and the process object (`Child`) is built
from a plain `Popen` with trio streams on its pipes and a pidfd for its exit.

In the child, between fork and exec (`child_setup`): join the bot's cgroups, set the rlimits,
then ask for SIGKILL when the referee dies and check that the referee did not die before the
request was in place. (A sandboxed bot's switch to its own uid happens later, inside the
sandbox: `referee.sandbox`.)
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import itertools
import os
import signal
import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import trio

_subreaper = False


def become_subreaper() -> None:
    """Ask Linux to re-parent orphaned descendants to this process, so that they can be reaped
    here rather than left to whoever is above (once; a no-op where it is not supported)."""
    global _subreaper
    if _subreaper or not os.path.isdir("/proc"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_child_subreaper = 36
        _subreaper = libc.prctl(pr_set_child_subreaper, 1, 0, 0, 0) == 0


def is_subreaper() -> bool:
    return _subreaper


_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-spawner")
"""Its one thread never idles out (unlike trio's workers), so PDEATHSIG means the referee."""

PR_SET_PDEATHSIG = 1

POLL_MAX_S = 0.05
"""Where there is no pidfd, the longest pause between two looks for a bot's exit."""

UID_BASE = 1_500_000_000
"""Bot uids start here: far above any uid a system hands out, below 2**31."""
_uids = itertools.count()

_libc: ctypes.CDLL | None = None
with contextlib.suppress(OSError):
    _libc = ctypes.CDLL(None, use_errno=True)


def bot_uid() -> int | None:
    """A fresh unprivileged host uid (also the gid) for one bot process; None unless root.

    The referee's pid is mixed in so that two referees on one machine rarely hand out the same
    uid (which would let their bots signal each other)."""
    if os.geteuid() != 0:
        return None
    return UID_BASE + (os.getpid() % 65536) * 8192 + next(_uids) % 8192


def child_setup(steps: Sequence[Callable[[], None]]) -> Callable[[], None]:
    """The pre-exec function: `steps` (cgroups, rlimits), then PDEATHSIG."""
    referee = os.getpid()

    def setup() -> None:
        for step in steps:
            step()
        if _libc is not None:
            _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != referee:  # the referee died before the request was in place
            os._exit(1)

    return setup


class Child:
    """A started bot process: its pid, trio streams on its pipes, and its exit status."""

    def __init__(self, popen: subprocess.Popen[bytes], stdin: int, stdout: int, stderr: int):
        self._popen = popen
        self.pid = popen.pid
        self.stdin = trio.lowlevel.FdStream(stdin)
        self.stdout = trio.lowlevel.FdStream(stdout)
        self.stderr = trio.lowlevel.FdStream(stderr)

    @property
    def returncode(self) -> int | None:
        """The exit status once reaped (Popen's convention: -N for signal N)."""
        return self._popen.returncode

    def poll(self) -> int | None:
        """Reap the process if it has exited; its return code or None."""
        return self._popen.poll()

    async def wait(self) -> int:
        """Wait for the exit (a pidfd: no polling, no thread), reap, and return the code.

        Where the kernel gives no pidfd (Linux before 5.3, a seccomp filter, valgrind), the
        exit is polled instead: a referee that cannot wait for a bot could not kill it."""
        if self._popen.returncode is not None:
            return self._popen.returncode
        try:
            pidfd = os.pidfd_open(self.pid)
        except ProcessLookupError:  # already reaped elsewhere
            return self._popen.wait()
        except OSError:  # ENOSYS, EPERM: no pidfd here
            return await self._poll_exit()
        try:
            await trio.lowlevel.wait_readable(pidfd)
        finally:
            os.close(pidfd)
        return self._popen.wait()

    async def _poll_exit(self) -> int:
        """Reap the process once it has exited, looking every 1 ms at first, then up to 50 ms."""
        delay_s = 0.001
        while (code := self._popen.poll()) is None:
            await trio.sleep(delay_s)
            delay_s = min(2 * delay_s, POLL_MAX_S)
        return code


def move_fds(moves: Sequence[tuple[int, int]]) -> Callable[[], None]:
    """A pre-exec step that puts each (fd, target) fd at the number `target` (which must be
    kept open: `pass_fds`), whatever numbers the fds had."""

    def move() -> None:
        high = {target: fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd, target in moves}
        for target, fd in high.items():
            os.dup2(fd, target)
            os.close(fd)

    return move


def keep_priority() -> None:
    """Give the session this process just started the niceness the process runs at. A new
    session is a new autogroup where the kernel groups tasks by session, and an autogroup is
    scheduled as a whole at nice 0, whatever its processes' own niceness: without this, a bot
    (each starts a session) would compete at full weight with its lowered referee — a league's
    ladder runs below its web pages — and with the pages themselves."""
    nice = os.nice(0)
    if nice > 0:
        with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as autogroup:
            autogroup.write(str(nice))


def lowered(nice: int) -> Callable[[], None]:
    """A pre-exec step: lower the child's priority by `nice`, its session's too
    (`keep_priority`, which ran before at the priority it had)."""

    def lower() -> None:
        os.nice(nice)
        keep_priority()

    return lower


def _start(
    argv: Sequence[str],
    cwd: str,
    env: dict[str, str],
    setup: Callable[[], None],
    stdio_at: tuple[int, int] | None,
    merge_stderr: bool,
    given: tuple[tuple[int, int], ...],
) -> Child:
    """Runs on the spawner thread: pipes, fork, exec; the parent's ends of the pipes."""
    pipes = [os.pipe() for _ in range(3)]  # close-on-exec; Popen dup2s the child's ends
    (in_r, in_w), (out_r, out_w), (err_r, err_w) = pipes
    stdin: int = in_r
    stdout: int = out_w
    placed = list(given)
    if stdio_at is not None:  # /dev/null on 0 and 1, the pipes at `stdio_at` (see `start`)
        stdin, stdout = subprocess.DEVNULL, subprocess.DEVNULL
        placed += [(in_r, stdio_at[0]), (out_w, stdio_at[1])]
    keep = tuple(target for _, target in placed)
    moves = move_fds(placed)

    def prepare() -> None:
        keep_priority()
        moves()
        setup()

    try:
        popen = subprocess.Popen(
            list(argv),
            stdin=stdin,
            stdout=stdout,
            stderr=out_w if merge_stderr else err_w,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=prepare,
            pass_fds=keep,
        )
    except BaseException:
        for fd in (in_r, in_w, out_r, out_w, err_r, err_w):
            os.close(fd)
        raise
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    return Child(popen, in_w, out_r, err_r)


async def start(
    argv: Sequence[str],
    cwd: str,
    env: dict[str, str],
    setup: Callable[[], None],
    *,
    stdio_at: tuple[int, int] | None = None,
    merge_stderr: bool = False,
    given: tuple[tuple[int, int], ...] = (),
) -> Child:
    """Start `argv` from the spawner thread (OSError or SubprocessError if it cannot start).

    `stdio_at`: give the child its stdin and stdout pipes at these fd numbers, and /dev/null
    on 0 and 1 (the sandbox moves them back for the bot: bwrap's own processes keep their 0
    and 1 open, which would hide the bot closing its pipes from the referee).

    `merge_stderr`: the child's stderr goes into its stdout pipe (a build's log, in the order
    written); `Child.stderr` then only reads the end of a pipe nobody writes.

    `given`: (an fd of ours, its number in the child) for each other fd the child inherits
    (ours are kept open until it has started).

    Not cancellable while the fork is under way: a process started after the caller gave up
    would be nobody's to kill."""
    future = _SPAWNER.submit(_start, argv, cwd, env, setup, stdio_at, merge_stderr, given)
    return await trio.to_thread.run_sync(future.result)
