"""The coordinator's own work waits its turn on the trio thread.

Each game a worker sends back is replayed and stored on the coordinator's one thread (`local`).
A league serves its pages from that thread too, and a page needs several turns of it; trio runs
every ready task once a turn, so while workers had games waiting in their pipes (they play on
while the thread answers a burst of readers), every turn of every page also waited for one game
of each worker. `give_way` lets every other ready task run first, for at most `GIVE_WAY_S`: a
page waits for the game being replayed, not for the backlog. A page waiting on a child process
or on its client is not ready, so the games go on meanwhile; with nothing else ready, it costs
a turn of the thread.

Whether anything else is ready is known only between two turns (during one, the tasks still to
run in it are counted nowhere): `_Idle`, a trio instrument while any task is giving way, looks
there, after the I/O that woke tasks was taken in. (`trio.testing.wait_all_tasks_blocked` would
say the same, but `trio.testing` imports pytest where it is installed: megabytes in a server.)
"""

from __future__ import annotations

import trio

GIVE_WAY_S = 0.05
"""The longest a game waits for other ready tasks (then it is taken all the same): its worker,
whose pipe fills while it waits, plays on soon even under a flood of pages."""


class _Idle(trio.abc.Instrument):
    """Counts the turns of the scheduler that find no task ready but those giving way."""

    def __init__(self) -> None:
        self.giving_way = 0
        self.idle_turns = 0

    def after_io_wait(self, timeout: float) -> None:
        # Every task giving way is ready (it loops on checkpoints), so no other is when the
        # ready tasks are no more than they.
        if trio.lowlevel.current_statistics().tasks_runnable <= self.giving_way:
            self.idle_turns += 1


_idle: trio.lowlevel.RunVar[_Idle] = trio.lowlevel.RunVar("idle")


async def give_way(most_s: float = GIVE_WAY_S) -> None:
    """Return at the first turn of the scheduler with no task ready but those giving way, or
    after `most_s`."""
    try:
        idle = _idle.get()
    except LookupError:
        idle = _Idle()
        _idle.set(idle)
    if not idle.giving_way:
        trio.lowlevel.add_instrument(idle)
    idle.giving_way += 1
    try:
        seen, deadline = idle.idle_turns, trio.current_time() + most_s
        await trio.lowlevel.checkpoint()
        while idle.idle_turns == seen and trio.current_time() < deadline:
            await trio.lowlevel.checkpoint()
    finally:
        idle.giving_way -= 1
        if not idle.giving_way:
            trio.lowlevel.remove_instrument(idle)
