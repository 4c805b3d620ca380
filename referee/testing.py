"""Scripted fake bots and trio's mock clock, for testing the match loop and what is built on it.

A fake is a task in the caller's trio run speaking the protocol over
`trio.testing.memory_stream_one_way_pair` (the referee reads it with its own `LineReader`), and
it waits on trio's clock: under `trio.testing.MockClock` (`run_on_mock_clock`, or pytest-trio's
`autojump_clock` fixture) a bot that answers after 250 ms is charged 250 ms to the bit, in no
wall-clock time, whatever the machine's load. So the clock and fallback rules can be asserted
exactly; what only processes show (spawning, killing, the sandbox, limits, stderr) needs real
bot processes.

What a fake does is its `Script` (after python-chess's `MockTransport`): called with every
request (`start` or `act`) and the number of `act`s before it, it says which `Step` to take.
Delays that are binary fractions of a second (125 ms, 250 ms) keep every sum of times exact;
others are exact to the record's rounding (a microsecond), not always in a bank's whole ms.

    async def main() -> MatchOutcome:
        bots = [plays(after_ms=250), misbehaves(3, Hang())]  # the second hangs at its 3rd act
        async with fake_bots(bots, Limits()) as table:
            return await table.play("azul", seed=1, time=TimeControl(move_ms=1000))

    outcome = run_on_mock_clock(main)  # at once: a hang costs its 1000 ms on the mock clock
    assert [(f.seat, f.kind) for f in outcome.faults] == [(1, "timeout")]
"""

from __future__ import annotations

import json
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import trio
from trio.testing import MemorySendStream, MockClock, memory_stream_one_way_pair

from protocol.messages import DEFAULT_MAX_LINE_BYTES, Answer, Ready, TimeControl, encode_line
from referee.channel import BotChannel
from referee.faults import BotFault, describe_exit
from referee.lines import LineReader
from referee.match import MatchOutcome, play_match
from referee.process import BotHandle, BotSpec, Cancellable, Limits, open_bots

T = TypeVar("T")

GAME_LIMIT_S = 3600
"""The longest a fakes' game may take, on trio's clock (see `FakeTable.play`)."""


@dataclass(frozen=True)
class Reply:
    """Write `line` (its newline included) `after_ms` after the request came, on trio's clock;
    then exit with `exit_code` at once when it is given."""

    line: bytes
    after_ms: float = 0
    exit_code: int | None = None


@dataclass(frozen=True)
class Crash:
    """Exit with `code` (negative: killed by that signal), `stderr` being what it wrote there."""

    code: int
    stderr: str = ""


@dataclass(frozen=True)
class Hang:
    """Never answer (until killed)."""


Step = Reply | Crash | Hang
Script = Callable[[dict[str, Any], int], Step]
"""What a bot does on a request (the decoded message), given how many `act`s it had before
(in all its games)."""


def plays(pick: str = "first", after_ms: float = 0, slow: int | None = None) -> Script:
    """Say `ready`, then answer each `act` with its first legal action (`pick="last"`: its last
    one), `after_ms` late for the first `slow` acts (for all of them when None)."""

    def script(message: dict[str, Any], acts: int) -> Step:
        if message["type"] == "start":
            return Reply(encode_line(Ready()))
        index = len(message["legal"]) - 1 if pick == "last" else 0
        late = slow is None or acts < slow
        return Reply(encode_line(Answer(id=message["id"], index=index)), after_ms if late else 0)

    return script


def misbehaves(at: int, step: Step, base: Script | None = None) -> Script:
    """Play `base` (`plays()` when None), but take `step` at the `at`-th act (counted from 1;
    0 is the `start`)."""
    then = base or plays()

    def script(message: dict[str, Any], acts: int) -> Step:
        request = 0 if message["type"] == "start" else acts + 1
        return step if request == at else then(message, acts)

    return script


class FakeBot:
    """One fake bot: its script runs as a task of the table's nursery; to the referee it is a
    `BotChannel`, as a bot process is."""

    def __init__(self, script: Script, nursery: trio.Nursery) -> None:
        self._stdin, stdin = memory_stream_one_way_pair()
        stdout, stdout_end = memory_stream_one_way_pair()
        self._reader = LineReader(stdout_end, DEFAULT_MAX_LINE_BYTES)
        self.received: list[dict[str, Any]] = []
        """Every message the bot read, in order."""
        self.code: int | None = None
        """The exit code once it exited (or was killed)."""
        self.stderr = ""
        self._waiting: Cancellable | None = None
        self._scope = trio.CancelScope()
        nursery.start_soon(self._run, script, stdin, stdout)

    async def _run(
        self, script: Script, stdin: trio.abc.ReceiveStream, stdout: MemorySendStream
    ) -> None:
        """The bot's main loop: read each message, and answer requests as `script` says."""
        lines = LineReader(stdin, DEFAULT_MAX_LINE_BYTES)
        acts = 0
        with self._scope:
            while (line := await lines.readline()) is not None:
                message = json.loads(line)
                self.received.append(message)
                if message["type"] not in ("start", "act"):
                    continue
                step = script(message, acts)
                acts += message["type"] == "act"
                if isinstance(step, Crash):
                    self.stderr = step.stderr
                    self._exit(step.code)
                    stdout.close()
                    return
                if isinstance(step, Hang):
                    await trio.sleep_forever()
                await trio.sleep(step.after_ms / 1000)
                await stdout.send_all(step.line)
                if step.exit_code is not None:  # before the referee has read the line
                    self._exit(step.exit_code)
                    stdout.close()
                    return

    def _exit(self, code: int) -> None:
        """The bot's end: a wait for it is cut at once, as a process's pidfd does."""
        self.code = code
        if self._waiting is not None:
            self._waiting.cancel()

    def received_of(self, kind: str) -> list[dict[str, Any]]:
        """The messages of one `type` the bot read."""
        return [message for message in self.received if message["type"] == kind]

    # ---- the BotChannel, as `BotProcess` has it --------------------------------------------

    def start_game(self) -> None:
        """A fake has no resources to count."""

    async def ask(
        self,
        line: bytes,
        scope: Cancellable,
        *,
        sending: str,
        waiting: str,
        decision: int | None = None,
    ) -> tuple[bytes, BotFault | None]:
        self._waiting = scope
        try:
            if self.code is not None:
                scope.cancel()
            await self.send(line, doing=sending, decision=decision)
            answer = await self._reader.read_answer()
            if answer is None:
                return b"", await self._gone(waiting, decision)
            return answer, None
        except BotFault as fault:
            return b"", fault
        finally:
            self._waiting = None

    async def send(self, line: bytes, *, doing: str, decision: int | None = None) -> None:
        rest = self.offer(line)
        if rest is None:
            raise await self._gone(doing, decision)
        await self._stdin.send_all(rest)

    def offer(self, line: bytes) -> bytes | None:
        """Nothing is written without waiting (an in-memory stream is no pipe): all of `line`
        is left to `send`, as `BotProcess.offer` does off a pipe; None once the bot exited."""
        return None if self.code is not None else line

    async def _gone(self, doing: str, decision: int | None) -> BotFault:
        """A closed stream: a fake closes its stdout only when it exits."""
        assert self.code is not None, "a fake's stdout closes only at its exit"
        doing += "" if decision is None else f" {decision}"
        tail = await self.stderr_tail()
        return self.death_fault(
            self.code, f"exited ({describe_exit(self.code)}) while {doing}{tail}"
        )

    def exit_status(self) -> int | None:
        return self.code

    async def stderr_tail(self) -> str:
        return f"; last stderr lines: {self.stderr}" if self.stderr else "; stderr was empty"

    def death_fault(self, code: int, reason: str) -> BotFault:
        """Always a crash: a fake has no limits to hit."""
        return BotFault("crash", reason)

    def resource_fault(self, doing: str, decision: int | None = None) -> BotFault | None:
        """Never: a fake has no limits."""
        return None

    def cpu_s(self) -> float:
        """A fake's time is all waiting: it uses no CPU."""
        return 0.0

    def runnable(self) -> bool:
        """A fake waits on trio's clock, as a sleeping process does."""
        return False

    async def kill(self) -> None:
        """Stop the bot's task; one still running ends killed by SIGKILL, as a process would."""
        self._scope.cancel()
        if self.code is None:
            self._exit(-signal.SIGKILL)


class FakeTable:
    """Fake bots in the seats of `play_match`, each one's script given by its seat."""

    def __init__(
        self, handles: Sequence[BotHandle], scripts: Sequence[Script], nursery: trio.Nursery
    ) -> None:
        self.handles = handles
        self.scripts = scripts
        self.bots: dict[int, FakeBot] = {}
        """The bot of each seat, once the match opened it."""
        self._nursery = nursery

    async def open(self, handle: BotHandle) -> tuple[BotChannel, bool]:
        """`play_match`'s `open_channel`: the seat's live fake (a bot plays on into the next
        game, as a process does), else a new one (True) running the seat's script."""
        seat = self.handles.index(handle)
        bot = self.bots.get(seat)
        if bot is not None and bot.code is None:
            return bot, False
        self.bots[seat] = bot = FakeBot(self.scripts[seat], self._nursery)
        return bot, True

    async def play(
        self, game_id: str, seed: int, time: TimeControl | Sequence[TimeControl]
    ) -> MatchOutcome:
        """One game of `game_id` (default options) between the fakes; `TooSlowError` if it
        lasts an hour of trio's time (with nothing else to wait for, a wait with no deadline
        would hang the test: on a `MockClock` this fails it at once)."""
        with trio.fail_after(GAME_LIMIT_S):
            return await play_match(game_id, {}, seed, self.handles, time, open_channel=self.open)


@asynccontextmanager
async def fake_bots(scripts: Sequence[Script], limits: Limits) -> AsyncIterator[FakeTable]:
    """A table of one fake bot per script (named `fake0`, `fake1`, ...); none outlives it."""
    specs = [BotSpec(f"fake{seat}", ["fake"]) for seat in range(len(scripts))]
    async with open_bots(specs, limits) as handles, trio.open_nursery() as nursery:
        table = FakeTable(handles, scripts, nursery)
        try:
            yield table
        finally:
            for bot in table.bots.values():
                await bot.kill()


def run_on_mock_clock(main: Callable[[], Awaitable[T]]) -> T:
    """Run `main` in trio on a `MockClock` that jumps ahead whenever every task waits, so the
    fakes' delays and the referee's clocks take no wall-clock time."""
    return trio.run(main, clock=MockClock(autojump_threshold=0))
