"""The clocks a search's budget is measured on, and the timer of a budget of CPU time.

A search looks at its timer about once an iteration (`ismcts.Search.run`) and stops before an
iteration as slow as its slowest so far would end past the deadline; the timer's every value is
therefore read from the clocks, never estimated between readings: an estimate's errors would
count as slow iterations and stop the search early.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from protocol.messages import TimeMode

Timer = Callable[[], float]
"""A clock: seconds, from an arbitrary origin."""

CLOCKS: dict[TimeMode, Timer] = {
    "wall": time.perf_counter,
    "cpu": time.process_time,
}
"""The clock of each time mode. CPU time is the process's (`process_time`), not the thread's
(`thread_time`): the referee charges every thread of the bot's processes, and a library's
worker threads would escape the thread's clock."""


def cpu_timer(cpu_s: float, wall_s: float) -> Timer:
    """A timer of the seconds past the sooner of two deadlines from now, `cpu_s` of this
    process's CPU time and `wall_s` of wall-clock time: its own deadline is 0."""
    cpu, wall = CLOCKS["cpu"], CLOCKS["wall"]
    cpu_end, wall_end = cpu() + cpu_s, wall() + wall_s

    def past() -> float:
        on_cpu = cpu() - cpu_end
        on_wall = wall() - wall_end
        return on_cpu if on_cpu > on_wall else on_wall

    return past
