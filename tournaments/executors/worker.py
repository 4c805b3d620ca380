"""A referee process of the local executor: `python -m tournaments.executors.worker`.

It reads units on stdin and plays them one at a time (`work.play_games`), writing each game
back on stdout as soon as it is finished, then a `UnitEnd`; an `EndUnit` read meanwhile ends
the unit in play after its current game (the rest written back unplayed). Everything that
protects a match holds here as in any referee: the sandbox, the cgroups and limits (the unit's
`Limits`), and the seeds, which arrive computed (the store's secret stays with the
coordinator). When stdin ends — the coordinator closed it, or died, even by `kill -9` — the
unit in play is cancelled, its bots are killed, and the process exits: no worker or bot
outlives the coordinator.
"""

from __future__ import annotations

import os
import sys
import traceback

import trio

from referee import keep_priority
from tournaments.executors.frames import EndUnit, FrameReader, Reply, UnitEnd, frame, requests
from tournaments.executors.work import UnitWork, play_games


async def serve(stdin: trio.abc.ReceiveStream, stdout: trio.abc.SendStream) -> None:
    """Play the units read from `stdin` until it ends; replies go to `stdout`."""
    replies, outgoing = trio.open_memory_channel[Reply](float("inf"))
    work, incoming = trio.open_memory_channel[tuple[UnitWork, trio.Event]](1)
    async with trio.open_nursery() as nursery:

        async def read() -> None:
            reader = FrameReader(stdin)
            ends = trio.Event()  # of the newest unit read: an `EndUnit` is about it
            async with work:
                while (payload := await reader.read()) is not None:
                    request = requests.decode(payload)
                    if isinstance(request, EndUnit):
                        ends.set()  # a unit already done ignores it
                        continue
                    ends = trio.Event()
                    await work.send((request, ends))
            nursery.cancel_scope.cancel()  # the coordinator is gone or done: stop at once

        async def play() -> None:
            async with replies:
                async for unit, ends in incoming:
                    try:
                        await play_games(unit, replies.send_nowait, ends)
                    except Exception as exc:  # not a game's (those are voided): the unit's
                        error = traceback.format_exception_only(exc)[-1].strip()
                        replies.send_nowait(UnitEnd(f"a referee process failed: {error}"))
                    else:
                        replies.send_nowait(UnitEnd())

        async def write() -> None:
            async for reply in outgoing:
                await stdout.send_all(frame(reply))

        nursery.start_soon(read)
        nursery.start_soon(play)
        nursery.start_soon(write)


def main(argv: list[str]) -> None:
    """`[NICE]`: lower this worker's priority (and its bots', who inherit it) by NICE."""
    if argv:
        os.nice(int(argv[0]))
        keep_priority()  # its own session (see `local.Worker.start`)
    # The protocol owns the original stdout; anything else printed goes to stderr.
    stdin, stdout = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    trio.run(serve, trio.lowlevel.FdStream(stdin), trio.lowlevel.FdStream(stdout))


if __name__ == "__main__":
    main(sys.argv[1:])
