"""Work of the running league kept out of the server's process: a child process
(`python -m MODULE`, see `child`) started at its first request and kept while the league runs,
answering one request at a time, below the server's priority.

Why: work of tens or hundreds of milliseconds of Python (unpacking an upload, decoding a bot's
games) in the server's trio thread holds every page; in a thread it holds the GIL, and on a
busy machine the thread that holds it is preempted while the pages wait for it. A child has an
interpreter of its own and yields the cores to the server. It ends when its stdin does (the
league stopped, even by `kill -9`). Outside `open` (a front without the league's tasks, in
tests) the same work runs in a thread, one at a time.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, TypeVar

import msgspec
import trio

from protocol.errors import ArenaError, RequestError
from tournaments.executors.frames import FrameReader
from tournaments.league.child import HEADER, Failed, frame

QUIT_S = 5.0
"""How long a child told to stop may take before it is killed."""

Asked = TypeVar("Asked")
Answer = TypeVar("Answer")


class Kept(Generic[Asked, Answer]):
    """The child of `module`, whose `main` is `serve(work, …)`, answering `Asked` requests
    with an `Answer` (`work` is also what runs in a thread outside `open`)."""

    def __init__(self, module: str, answer: type[Answer], work: Callable[[Asked], Answer]) -> None:
        self.module, self.work = module, work
        self._replies_type: Any = answer | Failed
        self._open = False
        self._process: trio.Process | None = None
        self._replies: FrameReader | None = None
        self._turn = trio.Lock()

    @contextlib.asynccontextmanager
    async def open(self, at_once: bool = False) -> AsyncIterator[None]:
        """Work in the child until the block ends: started now if `at_once` (its interpreter
        and imports ready before the first request, which pages would wait for), else at the
        first request."""
        self._open = True
        try:
            if at_once:
                async with self._turn:
                    await self._start()
            yield
        finally:
            self._open = False
            with trio.CancelScope(shield=True):  # the league is often stopped by cancelling it
                async with self._turn:
                    await self._stop()

    async def ask(self, request: Asked) -> Answer:
        """`work(request)`'s answer, one request at a time; its refusal raised again."""
        async with self._turn:
            if not self._open:
                return await trio.to_thread.run_sync(self.work, request)
            for _ in range(2):  # a child that died is replaced once
                reply = await self._ask(request)
                if isinstance(reply, Failed):
                    raise (RequestError if reply.refused else ArenaError)(reply.error)
                if reply is not None:
                    return reply
                await self._stop()
        raise ArenaError(f"{self.module} ended twice in a row: its output above says why")

    async def _ask(self, request: Asked) -> Answer | Failed | None:
        """The child's reply; None if it ended."""
        self._process = self._process or await self._start()
        assert self._process.stdin is not None and self._replies is not None
        try:
            await self._process.stdin.send_all(frame(request))
        except trio.BrokenResourceError:
            return None
        payload = await self._replies.read()
        if payload is None:
            return None
        reply: Answer | Failed = msgspec.msgpack.decode(payload, type=self._replies_type)
        return reply

    async def _start(self) -> trio.Process:
        """The child, started (`python -m MODULE`), reading requests on its stdin."""
        self._process = await trio.lowlevel.open_process(
            [sys.executable, "-m", self.module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C reaches the server, which stops it
        )
        assert self._process.stdout is not None
        self._replies = FrameReader(self._process.stdout, HEADER)
        return self._process

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
            if process.stdout is not None:
                await process.stdout.aclose()
