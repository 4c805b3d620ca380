"""Deadlines of the tests' waits: a bound for a hung test, not for a slow machine.

A test that waits for a server, a ladder or a bot gives up after a number of seconds that an
idle machine needs with room to spare; on a loaded machine (other tests, other work on the
same cores) the same work takes longer, so every deadline here is stretched by the machine's
load per core, the worst seen while waiting: a healthy wait is never cut by the load, and a
hung one still ends.
"""

from __future__ import annotations

import os
import time


def stretch() -> float:
    """How many times longer work may take now than on an idle machine: the 1-minute load
    average per core, at least 1."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


class Deadline:
    """`seconds` of an idle machine from now, stretched by the worst load seen until asked."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.began = time.monotonic()
        self.worst = stretch()

    def passed(self) -> bool:
        self.worst = max(self.worst, stretch())
        return time.monotonic() - self.began > self.seconds * self.worst

    def left(self) -> float:
        """Seconds until it passes at the worst load seen so far (a timeout for one wait)."""
        self.worst = max(self.worst, stretch())
        return max(0.0, self.began + self.seconds * self.worst - time.monotonic())
