"""One seat's clock: a per-decision allowance, an optional bank, and a Fischer increment.

Pure arithmetic on milliseconds, no timers: the match loop measures the time (from writing the
request to reading the reply line) and asks the clock what was allowed. Keeping the rules here
makes them testable without processes and keeps the match loop about messages.
"""

from __future__ import annotations

from protocol.messages import Clock, TimeControl


class SeatClock:
    """The time a seat may still use in one game.

    Each decision may take `move_ms` (the first one `first_move_ms` more); whatever it takes
    beyond that is drawn from the bank, and the bank then grows by `increment_ms`. The referee
    tolerates a further `grace_ms` (scheduling jitter, pipe latency) that is never announced to
    the bot: bots plan with `available`.
    """

    __slots__ = (
        "available",
        "bank_ms",
        "every_move_ms",
        "grace_ms",
        "increment_ms",
        "limit_ms",
        "move_ms",
        "used_ms",
    )

    def __init__(self, time: TimeControl, grace_ms: int = 0) -> None:
        self.move_ms = time.move_ms + time.first_move_ms
        """The allowance of the next decision: the first one's includes `first_move_ms`."""
        self.every_move_ms = time.move_ms
        self.increment_ms = time.increment_ms
        self.grace_ms = grace_ms
        self.bank_ms: float = float(time.bank_ms)
        self.used_ms: float = 0.0
        """Total time charged in this game (reported as think time)."""
        self.available: Clock
        """What the `act` message tells the bot: this decision's allowance and the bank."""
        self.limit_ms: float
        """The hard limit for the next decision: allowance, bank and grace."""
        self._settle()

    def charge(self, used_ms: float) -> bool:
        """Charge one decision's time; False when it exceeded the limit (a timeout).

        Time beyond `move_ms` comes out of the bank; time within the grace margin empties the
        bank but is forgiven. The increment is added only after a decision made in time. The
        usual decision — within its allowance, no increment, not the first — changes nothing
        but `used_ms` (`available` and `limit_ms` are read at every decision: they are only
        worked out again when they change).
        """
        self.used_ms += used_ms
        if used_ms > self.limit_ms:
            self.bank_ms = 0.0
            self._settle()
            return False
        if used_ms > self.move_ms or self.increment_ms or self.move_ms != self.every_move_ms:
            overrun = max(0.0, used_ms - self.move_ms)
            self.bank_ms = max(0.0, self.bank_ms - overrun) + self.increment_ms
            self.move_ms = self.every_move_ms
            self._settle()
        return True

    def _settle(self) -> None:
        self.available = Clock(move_ms=self.move_ms, bank_ms=int(self.bank_ms))
        self.limit_ms = self.move_ms + self.bank_ms + self.grace_ms
