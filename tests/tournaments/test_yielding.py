"""The coordinator's games wait their turn on the trio thread: `give_way` returns once every
other task is blocked (or after its bound), and the local executor takes a backlog of games
from a worker's pipe one at a time, a ready page's every turn before the next game."""

from __future__ import annotations

import types

import trio
import trio.testing

from tournaments.executors.frames import UnitEnd, frame
from tournaments.executors.local import Worker
from tournaments.executors.work import GameUnplayed
from tournaments.executors.yielding import give_way

PAGE_TURNS = 20


async def _page(turns: list[int], seen: list[object]) -> None:
    """A page that needs `PAGE_TURNS` turns of the thread, noting the games delivered at each."""
    for _ in range(PAGE_TURNS):
        turns.append(len(seen))
        await trio.lowlevel.checkpoint()


def test_give_way_waits_for_every_ready_task() -> None:
    async def main() -> None:
        turns: list[int] = []
        done: list[object] = []

        async def game() -> None:
            await give_way(most_s=10.0)
            done.append("game")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(_page, turns, done)
            nursery.start_soon(game)
            nursery.start_soon(game)  # two giving way at once do not wait for each other
        assert turns == [0] * PAGE_TURNS
        assert done == ["game", "game"]

    trio.run(main)


def test_give_way_is_bounded_under_a_task_always_ready() -> None:
    async def main() -> None:
        async with trio.open_nursery() as nursery:

            async def busy() -> None:
                while True:
                    await trio.lowlevel.checkpoint()

            nursery.start_soon(busy)
            began = trio.current_time()
            await give_way(most_s=0.02)
            assert 0.02 <= trio.current_time() - began < 1.0
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_a_backlog_of_games_waits_for_a_ready_page() -> None:
    """Five games already in the worker's pipe: the page, ready all along, is answered after
    the first of them, not between each."""
    games = 5

    async def main() -> None:
        send, receive = trio.testing.memory_stream_one_way_pair()
        await send.send_all(
            b"".join(frame(GameUnplayed(deal, 0)) for deal in range(games)) + frame(UnitEnd())
        )
        worker = Worker(types.SimpleNamespace(pid=1, stdin=send, stdout=receive))  # type: ignore[arg-type]
        delivered: list[object] = []
        turns: list[int] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_page, turns, delivered)
            nursery.start_soon(worker._replies_to, None, lambda unit, game: delivered.append(game))
        assert max(turns) <= 1, turns
        assert [game.deal for game in delivered] == list(range(games))  # type: ignore[attr-defined]

    trio.run(main)
