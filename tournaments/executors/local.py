"""The local executor: one referee process per match at once, so throughput grows with cores.

A single referee process spends about as much CPU per game as random bots themselves, so with
every match in one process (`InProcess`) a tournament is capped at one core's worth of referee
whatever the machine. Here each of `workers` referee processes (`tournaments.executors.worker`,
a fresh interpreter: nothing is forked from a process with threads) plays one unit at a time
and streams each finished game back; this process only schedules and stores.

Stopping: on Ctrl-C, SIGTERM or an error the coordinator closes each worker's stdin, the worker
cancels its unit (its bots are killed by the referee) and exits; one that does not within
`QUIT_S` is killed. A coordinator killed outright (`kill -9`) closes the pipes all the same.
A worker that dies mid-unit is replaced and the unit's games not yet delivered are played by
the new one (bot processes are new too, so no process sees a deal twice); a unit that kills
`STARTS` workers in a row stops the run.
"""

from __future__ import annotations

import contextlib
import functools
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator

import msgspec
import trio

from tournaments.executors import Deliver, Ends
from tournaments.executors.budget import Share
from tournaments.executors.fanout import Taking, fan_out
from tournaments.executors.frames import EndUnit, FrameReader, UnitEnd, frame, replies
from tournaments.executors.work import (
    ExecutorError,
    Result,
    UnitWork,
    played_by,
    this_machine,
    unplayed,
)
from tournaments.executors.yielding import give_way

QUIT_S = 10.0
"""How long a worker told to stop may take to kill its bots and exit before it is killed."""
STARTS = 3
"""Worker processes one unit may use up (each died under it) before the run stops."""

WORKER = [sys.executable, "-m", "tournaments.executors.worker"]


class WorkerDied(Exception):
    """The worker process ended in the middle of a unit."""


class Worker:
    """One referee process and its pipes."""

    def __init__(self, process: trio.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.name = this_machine(f"pid {process.pid}")
        self._stdin = process.stdin
        self._replies = FrameReader(process.stdout)

    @classmethod
    async def start(cls, nice: int = 0) -> Worker:
        # Its own session: a Ctrl-C at the terminal reaches the coordinator only, which stops
        # the workers in order.
        process = await trio.lowlevel.open_process(
            [*WORKER, str(nice)] if nice else WORKER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        return cls(process)

    async def play(
        self, unit: UnitWork, deliver: Callable[[UnitWork, Result], None], ends: trio.Event | None
    ) -> None:
        """Send `unit`, deliver its games as they come; `WorkerDied` if the process ends. Once
        `ends` is set, the worker is asked to end the unit after its game in play."""
        try:
            await self._stdin.send_all(frame(unit))
        except trio.BrokenResourceError:
            raise WorkerDied from None
        error: BaseException | None = None
        async with trio.open_nursery() as nursery:
            if ends is not None:
                nursery.start_soon(self._end, ends)
            try:
                await self._replies_to(unit, deliver)
            except BaseException as exc:  # raised outside: callers see it, not a group around it
                error = exc
            nursery.cancel_scope.cancel()
        if error is not None:
            raise error

    async def _replies_to(
        self, unit: UnitWork, deliver: Callable[[UnitWork, Result], None]
    ) -> None:
        """Deliver the games of `unit` until its `UnitEnd`."""
        while (payload := await self._replies.read()) is not None:
            reply = replies.decode(payload)
            if isinstance(reply, UnitEnd):
                if reply.error is not None:
                    raise ExecutorError(reply.error)
                return
            deliver(unit, reply)
            # Games that came in one read are taken one at a time: each is replayed and
            # stored, and the server's pages ready meanwhile are answered before the next.
            await give_way()
        raise WorkerDied

    async def _end(self, ends: trio.Event) -> None:
        """Once `ends` is set, send `EndUnit`: whole (shielded, a few bytes), so that a unit
        ending meanwhile leaves no half frame before the next unit's."""
        await ends.wait()
        with trio.CancelScope(shield=True), contextlib.suppress(trio.BrokenResourceError):
            await self._stdin.send_all(frame(EndUnit()))  # to a dead worker: `play` sees it

    async def stop(self) -> None:
        """Close its stdin (it cancels its unit and exits), kill it if it lingers, reap it."""
        with trio.CancelScope(shield=True):
            await self._stdin.aclose()
            with trio.move_on_after(QUIT_S):
                await self.process.wait()
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()


class Local:
    remote = False

    def __init__(self, workers: int, nice: int = 0, share: Share | None = None) -> None:
        self.workers = workers
        """Referee processes, each playing one match at a time."""
        self.share = share
        """The budget of units at once this executor shares with others of its process."""
        self.nice = nice
        """How much lower than this process's the priority of the referee processes and their
        bots is: a league's web pages must answer while its games fill every core."""
        self._kept: list[Slot] | None = None
        """Inside `kept`: the slots whose referee processes wait for the next run."""
        self.refused: set[str] = set()
        """Referee processes whose games did not replay: stopped before their next unit."""

    async def run(
        self, units: Iterator[UnitWork], deliver: Deliver, ends: Ends | None = None
    ) -> None:
        serve = functools.partial(self._serve, deliver=deliver, ends=ends)
        await fan_out(units, self.workers, serve, self.share)

    @contextlib.asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        self._kept = []
        try:
            yield
        finally:
            slots, self._kept = self._kept, None
            for slot in slots:
                await slot.stop()

    def refuse(self, worker: str) -> None:
        self.refused.add(worker)

    async def _serve(
        self,
        receive: Taking,
        *,
        deliver: Deliver,
        ends: Ends | None,
    ) -> None:
        """One worker slot playing the units it takes from `receive`; its process kept for
        the next run when `kept` and the run ended well, else stopped."""
        slot = self._kept.pop() if self._kept else Slot(self.nice, self.refused)
        ended_well = False
        try:
            async with receive:
                async for unit in receive:
                    await slot.play(unit, deliver, None if ends is None else ends(unit))
            ended_well = True
        finally:
            if ended_well and self._kept is not None:
                self._kept.append(slot)
            else:
                await slot.stop()


class Slot:
    """A referee process, started when the first unit comes and replaced when it dies."""

    def __init__(self, nice: int, refused: set[str]) -> None:
        self.worker: Worker | None = None
        self.nice = nice
        self.refused = refused

    async def play(self, unit: UnitWork, deliver: Deliver, ends: trio.Event | None) -> None:
        """Play `unit` to its end (or until `ends` is set), on a new worker for the games left
        if one dies."""
        left = unit
        for _ in range(STARTS):
            if ends is not None and ends.is_set():  # ended before it began: no worker needed
                unplayed(left, left.deals, functools.partial(deliver, unit))
                return
            if self.worker is not None and self.worker.name in self.refused:
                await self.stop()
            if self.worker is None:
                self.worker = await Worker.start(self.nice)
            done: set[int] = set()

            def record(
                work: UnitWork, result: Result, done: set[int] = done, name: str = self.worker.name
            ) -> None:
                done.add(result.deal)
                deliver(unit, played_by(name, result))  # the unit as taken: a ladder's key

            try:
                await self.worker.play(left, record, ends)
                return
            except WorkerDied:
                code = await self.stop()
            left = msgspec.structs.replace(
                left, deals=[deal for deal in left.deals if deal.deal not in done]
            )
            if not left.deals:
                return
        raise ExecutorError(
            f"referee processes died {STARTS} times playing seat-set {unit.tag} rotation "
            f"{unit.rotation} (last exit code {code}); the games stored so far are kept"
        )

    async def stop(self) -> int | None:
        """Stop the worker, if any; its exit code."""
        worker, self.worker = self.worker, None
        if worker is None:
            return None
        await worker.stop()
        return worker.process.returncode
