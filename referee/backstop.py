"""The wall-clock backstop of cpu time mode: when to stop waiting for a bot charged its CPU time.

In cpu time mode a bot is charged the CPU time it used, so a bot that sleeps or blocks would
never run out of time: the referee must also watch the wall clock. But on a loaded machine a
bot that computes within its budget may get a CPU only now and then, and a wall-clock limit
alone would forfeit it for the machine's load. So the backstop looks at the bot every
`CPU_MODE_WALL_FACTOR` times the limit of wall-clock time and keeps waiting while the bot is
working — its CPU time grew since the last look, or one of its threads is running or waiting
for a CPU — until `CPU_MODE_WALL_CAP` times the limit. It stops the wait when the bot used
more CPU time than its limit (a timeout its CPU clock decides), when it used none since the
last look and none of its threads is runnable (it sleeps or waits for something), or at the
cap (a bot that keeps working for that long is hung for practical purposes).
"""

from __future__ import annotations

import trio

from protocol.messages import CPU_MODE_WALL_CAP
from referee.channel import BotChannel
from referee.process import Cancellable

CPU_MODE_WALL_FACTOR = 3
"""In cpu time mode, how often the referee looks at a bot it waits for, in multiples of the
limit (in wall-clock time): a bot that sleeps or blocks is cut after this long."""


class Backstop:
    """One wait in cpu time mode: `watch` cuts it short when the bot's CPU clock would (or the
    bot does nothing, or the cap is reached), and `verdict` then says why."""

    __slots__ = ("began", "began_cpu_s", "channel", "limit_ms", "next_look", "verdict")

    def __init__(
        self, channel: BotChannel, limit_ms: float, began: float, began_cpu_s: float
    ) -> None:
        self.channel = channel
        self.limit_ms = limit_ms
        self.began = began
        self.began_cpu_s = began_cpu_s
        self.next_look = began + limit_ms * CPU_MODE_WALL_FACTOR / 1000
        """When the bot is looked at next (after the wait was cut: when it was)."""
        self.verdict: str | None = None
        """Why the wait was cut, in words that follow "no answer …: "; None while it was not."""

    async def watch(self, scope: Cancellable) -> None:
        """Look at the bot until a look cuts the wait (`scope` cancelled, `verdict` said);
        the caller cancels this task when the answer comes first."""
        window_s = self.limit_ms * CPU_MODE_WALL_FACTOR / 1000
        cap = self.began + self.limit_ms * CPU_MODE_WALL_CAP / 1000
        last_cpu_s = self.began_cpu_s
        while True:
            await trio.sleep_until(self.next_look)
            now = trio.current_time()
            cpu_s = self.channel.cpu_s()
            used_ms = (cpu_s - self.began_cpu_s) * 1000
            if used_ms > self.limit_ms:
                self.verdict = f"it used {used_ms:.0f} ms of CPU time, over its limit"
            elif cpu_s <= last_cpu_s and not self.channel.runnable():
                self.verdict = (
                    f"it used no CPU time in {window_s * 1000:.0f} ms of wall-clock time and "
                    "was not running (it sleeps or waits for something)"
                )
            elif now >= cap:
                self.verdict = (
                    f"it kept working for {(now - self.began) * 1000:.0f} ms of wall-clock time, "
                    f"the most it may take ({CPU_MODE_WALL_CAP} times its limit)"
                )
            else:
                last_cpu_s = cpu_s
                self.next_look = min(now + window_s, cap)
                continue
            self.next_look = now
            scope.cancel()
            return
