"""A bot's stderr: drained all the time, written to a capped log per game, the tail kept.

A bot that is not drained blocks as soon as its stderr pipe fills (64 KiB), which would look like
a timeout; a bot that is drained into memory can take the referee down. So stderr is read
continuously, written to the seat's log file up to a cap, and the excess is counted and dropped.
The first and the last few KiB of each process's stderr are kept in memory for crash reasons:
the last lines hold its final words, the first ones often the cause (Node's `Cannot find
module ...` comes before a long stack).

Writes go straight to an unbuffered file from the trio task: they are bounded by the cap, land in
the page cache, and doing them synchronously avoids racing a thread against the per-game switch
of log files.

A game's log file is created by the first byte the bot writes to stderr in that game: most bots
write nothing, and a tournament of 10,000 games would otherwise leave 20,000 empty files (and
pay an `open` and a `close` per seat and game for them). Its path is known from the game's
start, whether or not the file comes to exist.

What a bot writes between two games (after one game's log is closed, before the next one is
opened: say, its last words on `end`) is held, up to the cap, and goes at the top of the next
game's log after a line saying so; nothing a bot writes is lost unread.
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import BinaryIO

import trio

log = logging.getLogger("referee.stderr")

TAIL_BYTES = 4096
CHUNK_BYTES = 1 << 16


class StderrLog:
    """The stderr capture of one seat: one capped file per game and a short in-memory tail."""

    def __init__(self, cap_bytes: int) -> None:
        self.cap_bytes = cap_bytes
        self.path: str | None = None
        """The current game's log (created on the first byte written), or None between games."""
        self.written = 0
        self.dropped = 0
        self._file: BinaryIO | None = None
        self._held = bytearray()
        """What the bot wrote while no game's log was open, up to the cap (for the next log)."""
        self._held_dropped = 0
        self._unwritable = False
        """The current game's file could not be created (its output is counted and dropped)."""
        self._head = bytearray()
        self._tail = bytearray()
        self._seen = 0

    def open(self, path: str) -> None:
        """Start the log of a new game at `path` (closing the previous one); the file itself is
        created when the bot first writes. A file already there (from an interrupted run that
        played this game) is removed: it would pass for this game's log."""
        self.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        self.path = path
        self.written = 0
        self.dropped = 0
        self._unwritable = False
        if self._held or self._held_dropped:
            held, self._held = bytes(self._held), bytearray()
            total = len(held) + self._held_dropped
            file = self._create()
            if file is not None:  # the referee's note, outside the cap like the one on drops
                file.write(f"[arena: {total} bytes written after the previous game]\n".encode())
            self._to_file(held)
            self.dropped += self._held_dropped
            self._held_dropped = 0

    def write(self, chunk: bytes | bytearray) -> None:
        """Keep what fits under the cap, count the rest; always update the head and tail."""
        if len(self._head) < TAIL_BYTES:
            self._head += chunk[: TAIL_BYTES - len(self._head)]
        self._seen += len(chunk)
        self._tail += chunk[-TAIL_BYTES:]
        del self._tail[:-TAIL_BYTES]
        if self.path is None:  # between games: held for the next game's log
            room = max(0, self.cap_bytes - len(self._held))
            self._held += chunk[:room]
            self._held_dropped += max(0, len(chunk) - room)
            return
        self._to_file(chunk)

    def _to_file(self, chunk: bytes | bytearray) -> None:
        """Write what fits under the cap to the current game's log, count the rest."""
        room = max(0, self.cap_bytes - self.written)
        file = self._file or self._create()
        if file is None:
            self.dropped += len(chunk)
            return
        if room:
            file.write(chunk[:room])
            self.written += min(room, len(chunk))
        self.dropped += max(0, len(chunk) - room)

    def _create(self) -> BinaryIO | None:
        """The current game's file, created now; None when it cannot be created (said once, in
        the referee's log): what is written then is counted and dropped, as the drain must go
        on whatever happens to the log directory."""
        if self.path is None or self._unwritable:
            return None
        try:
            self._file = open(self.path, "wb", buffering=0)  # noqa: SIM115 - owned until close()
        except OSError as exc:
            log.warning("cannot create the stderr log %s: %s", self.path, exc)
            self._unwritable = True
        return self._file

    def close(self) -> None:
        """End the current game's log, noting in it how much was dropped over the cap."""
        self.path = None
        if self._file is None:
            return
        if self.dropped:
            self._file.write(
                f"\n[arena: {self.dropped} more bytes of stderr dropped; "
                f"the log is capped at {self.cap_bytes} bytes]\n".encode()
            )
        self._file.close()
        self._file = None

    def forget_tail(self) -> None:
        """A new process starts: its crash reason should not quote its predecessor."""
        self._head.clear()
        self._tail.clear()
        self._seen = 0

    def tail_lines(self, count: int = 5, width: int = 200) -> list[str]:
        """The last `count` non-empty lines, each cut to `width` characters."""
        return _lines(self._tail, width)[-count:]

    def excerpt(self, count: int = 5, width: int = 200) -> tuple[list[str], list[str]]:
        """(first lines, last lines): up to `count` of each, no line twice. The first are empty
        when the last `count` lines are the whole of stderr."""
        if self._seen <= len(self._head) + len(self._tail):  # all of it is in memory
            rest = self._seen - len(self._head)
            lines = _lines(self._head + self._tail[len(self._tail) - rest :], width)
            if len(lines) <= count:
                return [], lines
            first = lines[: min(count, len(lines) - count)]
            return first, lines[len(first) :][-count:]
        head = _lines(self._head[: self._head.rfind(b"\n") + 1], width)  # whole lines only
        tail = _lines(self._tail[self._tail.find(b"\n") + 1 :], width)
        return head[:count], tail[-count:]


def _lines(data: bytes | bytearray, width: int) -> list[str]:
    """The non-empty lines of `data`, each cut to `width` characters."""
    text = data.decode("utf-8", errors="replace")
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return [line if len(line) <= width else line[:width] + "…" for line in lines]


async def drain(stream: trio.abc.ReceiveStream, log: StderrLog, done: trio.Event) -> None:
    """Read `stream` to its end into `log`; set `done` however it ends."""
    try:
        while chunk := await stream.receive_some(CHUNK_BYTES):
            log.write(chunk)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        done.set()
