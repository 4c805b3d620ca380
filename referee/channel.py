"""What the match loop needs of a seat's bot: the `BotChannel` protocol, and the seam opening one.

`referee.match` talks to a bot only through these methods, so anything that has them can sit
in a seat. The referee's own is `referee.process.BotProcess` (a sandboxed process on pipes,
opened by `BotHandle.ensure_started`); the match loop's tests put a scripted bot on trio's
in-memory streams in its place (`play_match(..., open_channel=...)`), which answers on trio's
clock, so the clock and fallback rules are checked on `trio.testing.MockClock` to the
millisecond instead of on wall-clock windows wide enough for a loaded machine. The match loop
measures time with `trio.current_time()` only, for the same reason.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from referee.faults import BotFault
from referee.process import BotHandle, Cancellable


class BotChannel(Protocol):
    """A bot the match loop can talk to: lines both ways, its death, its limits, its killing.

    `doing`, `sending` and `waiting` (followed by `decision` when given) only word a fault's
    reason, and are formatted only when a fault happens (these calls are on every decision's
    path).
    """

    def start_game(self) -> None:
        """A game starts: count its resources from now (the bot may have played before)."""

    async def ask(
        self,
        line: bytes,
        scope: Cancellable,
        *,
        sending: str,
        waiting: str,
        decision: int | None = None,
    ) -> tuple[bytes, BotFault | None]:
        """Send a request (`start`, `act`) and read the line that answers it: the line, or the
        fault (with b"") if the bot is gone or no longer reads, for an over-long line or an
        ended output (a crash if the bot exited). `scope` is cancelled when the bot exits
        during the call, at once if it has: a death must end a wait at once, not at its
        deadline."""

    async def send(self, line: bytes, *, doing: str, decision: int | None = None) -> None:
        """Write one line; a `BotFault` if the bot is gone or no longer reads."""

    def offer(self, line: bytes) -> bytes | None:
        """Write what can be written without waiting: the rest of `line` for `send` (b"" when
        all of it went), or None when the bot no longer reads."""

    def exit_status(self) -> int | None:
        """The bot's exit code (negative: the signal that killed it), or None while it runs."""

    async def stderr_tail(self) -> str:
        """The end of the bot's stderr, worded to follow a crash's reason."""

    def death_fault(self, code: int, reason: str) -> BotFault:
        """The fault of a bot that exited with `code`: a crash, or the limit its death shows."""

    def resource_fault(self, doing: str, decision: int | None = None) -> BotFault | None:
        """A `resource_limit` fault if the bot went over a limit (the counters are read: the
        match loop looks on a timer, `RESOURCE_CHECK_S`)."""

    def cpu_s(self) -> float:
        """CPU seconds the bot has used so far (the charge in cpu time mode)."""

    def runnable(self) -> bool:
        """Whether a thread of the bot is running or waiting for a CPU: one that the machine's
        load keeps waiting, rather than one that sleeps or waits for input (cpu time mode's
        backstop asks)."""

    async def kill(self) -> None:
        """End the bot and all it started, shielded from cancellation; again is a no-op."""


OpenChannel = Callable[[BotHandle], Awaitable[tuple[BotChannel, bool]]]
"""Opens a handle's channel for a game: the live one, or a new one (True) if it had none or
it died. The referee's is `BotHandle.ensure_started`, which starts the bot's process."""
