"""A bot's games read from a store for its page and its listings — in a child process of the
running league (`python -m tournaments.league.reads`), below the server's priority.

Why a child: reading and decoding hundreds of games is tens of milliseconds of Python. In the
server's trio thread it holds every page; in a thread it holds the GIL, and on a busy machine
the thread that holds it is preempted while the pages wait for it. A child has an interpreter
of its own and yields the cores to the server. It is kept while the league runs (`open`,
which `LeagueService.run` holds), reading one request at a time in length-prefixed msgpack
frames, and ends when its stdin does (the server stopped, even by `kill -9`). Outside `open`
(a front without the league's tasks, in tests) the same reads run in a thread.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import trio

from protocol.errors import ArenaError
from tournaments.executors.frames import HEADER, FrameReader
from tournaments.store.exclusion import hidden
from tournaments.store.results import FinishedGame
from tournaments.store.store import GameChoice, LogRow, Store

READS_NICE = 5
"""How far below the server's priority the child reads: the pages come first."""
QUIT_S = 5.0


class GamesOf(msgspec.Struct, frozen=True, tag=True):
    """The games of `bot` in the store that `choice` keeps (`Store.games_of`)."""

    store: str
    bot: str
    choice: GameChoice


class Recent(msgspec.Struct, frozen=True, tag=True):
    """The newest `count` games any version of `bot` sat in, and its `logs` newest stderr
    logs (`Store.recent_games`, `Store.logs_of`)."""

    store: str
    bot: str
    count: int
    logs: int


Request = GamesOf | Recent


class Found(msgspec.Struct, frozen=True, tag=True):
    """What a request found: the games (id, game), the store's hidden labels, the logs."""

    games: list[tuple[int, FinishedGame]]
    hidden: list[str]
    logs: list[tuple[int, str, LogRow]] = []


class Failed(msgspec.Struct, frozen=True, tag=True):
    """The store could not be read (an `ArenaError`'s message: a damaged store)."""

    error: str


def answer(request: Request) -> Found:
    """Read what `request` asks for (nothing before the store exists)."""
    path = Path(request.store)
    if not path.exists():
        return Found([], [])
    with Store(path, readonly=True) as store:
        if isinstance(request, GamesOf):
            games = store.games_of(request.bot, request.choice)
            return Found(games, sorted(hidden(store, [])))
        games = store.recent_games(request.bot, request.count)
        return Found(games, sorted(hidden(store, [])), store.logs_of(request.bot, request.logs))


_requests = msgspec.msgpack.Decoder(Request)
_replies = msgspec.msgpack.Decoder(Found | Failed)
_encoder = msgspec.msgpack.Encoder()


def _frame(message: Request | Found | Failed) -> bytes:
    data = _encoder.encode(message)
    return len(data).to_bytes(HEADER, "big") + data


class Reader:
    """The reads of one running league: in its child while `open`, else in a thread."""

    def __init__(self) -> None:
        self._open = False
        self._process: trio.Process | None = None
        self._replies: FrameReader | None = None
        self._turn = trio.Lock()
        """One request at a time (the child reads one, then answers it)."""
        self._thread = trio.CapacityLimiter(1)

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[None]:
        """Read in a child (started at the first request) until the block ends."""
        self._open = True
        try:
            yield
        finally:
            self._open = False
            async with self._turn:
                await self._stop()

    async def read(self, request: Request) -> Found:
        if not self._open:
            return await trio.to_thread.run_sync(answer, request, limiter=self._thread)
        async with self._turn:
            for _ in range(2):  # a child that died is replaced once
                found = await self._ask(request)
                if found is not None:
                    return found
                await self._stop()
        raise ArenaError("the league's reading process ended twice in a row: see its log above")

    async def _ask(self, request: Request) -> Found | None:
        """The child's answer; None if it ended."""
        if self._process is None:
            self._process = await trio.lowlevel.open_process(
                [sys.executable, "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                start_new_session=True,  # a Ctrl-C reaches the server, which stops it
            )
            assert self._process.stdout is not None
            self._replies = FrameReader(self._process.stdout)
        assert self._process.stdin is not None and self._replies is not None
        try:
            await self._process.stdin.send_all(_frame(request))
        except trio.BrokenResourceError:
            return None
        payload = await self._replies.read()
        if payload is None:
            return None
        reply = _replies.decode(payload)
        if isinstance(reply, Failed):
            raise ArenaError(reply.error)
        return reply

    async def _stop(self) -> None:
        """End the child (its stdin closed; killed if it lingers)."""
        process, self._process, self._replies = self._process, None, None
        if process is None:
            return
        with trio.CancelScope(shield=True):
            assert process.stdin is not None
            await process.stdin.aclose()
            with trio.move_on_after(QUIT_S):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()


def main() -> int:
    """Answer the requests read on stdin, one at a time, until it ends."""
    os.nice(READS_NICE)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while len(header := stdin.read(HEADER)) == HEADER:
        request = _requests.decode(stdin.read(int.from_bytes(header, "big")))
        reply: Found | Failed
        try:
            reply = answer(request)
        except ArenaError as exc:
            reply = Failed(str(exc))
        stdout.write(_frame(reply))
        stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
