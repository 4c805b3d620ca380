"""What keeps the host's paths out of an uploaded bot's sight, though its folder is bound in.

A bind mount names its source: `/proc/self/mountinfo` (and every process's, `/proc/1/...`,
`/proc/thread-self/...`) shows, as the mount's root, the source's path inside its file system
— `/srv/cup.bots/alicebot/3f2a…` for a bot's folder, a Dask worker's cache folder — and the
sandbox's first process is bwrap itself, whose command line (`/proc/1/cmdline`, readable by
the bot) holds every path bwrap was given. So for a sandbox that must learn no host path
(`sandbox.wrap_confined`, `sandbox.wrap_build`), `veiled` changes how bwrap is started, not
what the bot sees:

- bwrap runs in a mount namespace of its own (a user namespace's too, where the referee is not
  root: the mounts need it), made by the child between fork and exec and private (nothing
  mounted there reaches the host's mount table), in which each of the
  folders bound for the bot is covered by a read-only overlay mount of itself, its lower layers
  named `/proc/self/fd/N` (the overlay's options show the words they were given, and a mount's
  root is its own file system's `/`): bwrap binds that overlay, whose mountinfo line names
  nothing of the host. No file is copied: the overlay reads through to the folder. The overlay
  needs a second, empty, lower layer: an empty tmpfs, mounted over the folder first;
- bwrap reads its arguments from a memfd (`--args FD`, which it closes), so that its command
  line is `bwrap --args FD -- COMMAND`: the bot's own command, no host path.

The cost is a few system calls in the child per start (no process, no copy). An overlay in a
user namespace needs Linux 5.11 or later: where the mounts fail, the child says so on its
stderr (the bot's, which names no path) and exits with `FAILED`.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REC, MS_PRIVATE = 0x4000, 0x40000
ARGS_FD = 6
"""Where bwrap gets its arguments' memfd: clear of 0-2, of the bot's stdin and stdout pipes
(`sandbox.STDIO_FDS`) and of a build's output (`sandbox.OUTPUT_FD`)."""
FAILED = 125
"""The child's exit status when the veil cannot be made (it never starts bwrap then)."""

_libc: ctypes.CDLL | None = None
with contextlib.suppress(OSError):
    _libc = ctypes.CDLL(None, use_errno=True)


class Veiled(NamedTuple):
    """How to start a veiled sandbox: `argv` to exec, the fds it is `given` (its arguments'
    memfd: `spawn.start`'s), and the pre-exec `step` that makes its mount namespace."""

    argv: list[str]
    given: tuple[tuple[int, int], ...]
    step: Callable[[], None]


@contextlib.contextmanager
def veiled(argv: Sequence[str], folders: Sequence[str] | None) -> Iterator[Veiled]:
    """Start the bwrap `argv` (`bwrap OPTIONS -- COMMAND`) with `folders` (real paths, each
    bound by OPTIONS) behind overlays and OPTIONS out of sight; the memfd is closed when the
    block ends (once the child is started). `folders` None: `argv` as it is, unveiled."""
    if folders is None:
        yield Veiled(list(argv), (), _unveiled)
        return
    cut = list(argv).index("--")
    options = b"".join(word.encode() + b"\0" for word in argv[1:cut])
    fd = os.memfd_create("bwrap-args", os.MFD_CLOEXEC)
    try:
        os.write(fd, options)
        os.lseek(fd, 0, os.SEEK_SET)
        shown = [argv[0], "--args", str(ARGS_FD), *argv[cut:]]
        cover = _covering(tuple(folders), os.geteuid(), os.getegid())
        yield Veiled(shown, ((fd, ARGS_FD),), cover)
    finally:
        os.close(fd)


def _unveiled() -> None:
    """No pre-exec step: the sandbox (if any) is not veiled."""


def _covering(folders: tuple[str, ...], uid: int, gid: int) -> Callable[[], None]:
    """The pre-exec step: a private mount namespace (in a user namespace of ours unless root)
    where each of `folders` is covered by an overlay of itself."""

    def cover() -> None:
        try:
            if uid != 0:
                _call("unshare", CLONE_NEWUSER | CLONE_NEWNS)
                _write("/proc/self/setgroups", "deny")
                _write("/proc/self/uid_map", f"0 {uid} 1")
                _write("/proc/self/gid_map", f"0 {gid} 1")
            else:
                _call("unshare", CLONE_NEWNS)
            _call("mount", None, b"/", None, MS_REC | MS_PRIVATE, None)
            for folder in folders:
                _overlay(folder.encode())
        except OSError as exc:
            why = os.strerror(exc.errno or 0)
            os.write(2, f"arena: the sandbox could not be made ({why}).\n".encode())
            os.write(2, b"arena: a server not run as root needs Linux 5.11 or later.\n")
            os._exit(FAILED)

    return cover


def _overlay(folder: bytes) -> None:
    """Cover `folder` with a read-only overlay of itself over an empty tmpfs."""
    real = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        flags = MS_NOSUID | MS_NODEV
        _call("mount", b"arena", folder, b"tmpfs", flags | MS_NOEXEC, b"size=4k,mode=0755")
        empty = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            layers = f"ro,lowerdir=/proc/self/fd/{real}:/proc/self/fd/{empty}".encode()
            _call("mount", b"arena", folder, b"overlay", flags | MS_RDONLY, layers)
        finally:
            os.close(empty)
    finally:
        os.close(real)


def _call(name: str, *args: object) -> None:
    if _libc is None:
        raise OSError(0, "no C library")
    if getattr(_libc, name)(*args) != 0:
        raise OSError(ctypes.get_errno(), name)


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
