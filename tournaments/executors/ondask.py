"""The Dask executor: each unit is a task on a Dask cluster that runs `work.play_unit` (a trio
loop of its own on the worker), and its games come back here to be stored as tasks complete.

Dask is an optional dependency (`pip install 'tile-arena[dask]'`). With no scheduler address a
`LocalCluster` of `workers` single-threaded worker processes is started on this machine; with
one (`tcp://host:8786`), the units go to that cluster, whose workers need the project installed,
the bots at the same paths (each worker checks their hashes: `work.check_bots`), bubblewrap and
cgroups as any referee would (docs/scaling.md).

Units are submitted lazily, about two per worker thread at a time, so the schedule is never
held in memory and a unit's missing games are looked up just before it is sent. Nothing is lost
if this process dies — a unit's games are stored when its task's results arrive, each game in
its own transaction, and the next run plays what is missing. A worker that dies mid-unit has
its task re-run elsewhere by the scheduler (with fresh bot processes); the games are stored
once, whatever is delivered twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import trio

from tournaments.executors import Deliver
from tournaments.executors.work import ExecutorError, UnitWork, play_unit

if TYPE_CHECKING:
    from distributed import Client, Future

POLL_S = 0.05
"""How often the coordinator looks for finished tasks (it never blocks its trio loop on Dask)."""
PER_THREAD = 2
"""Units in flight per worker thread: one playing, one waiting, so no thread idles."""
RECOUNT_S = 10.0
"""How often the cluster's worker threads are counted again."""
CONNECT_S = 30
"""How long to wait for the scheduler to answer."""

INSTALL = "pip install 'tile-arena[dask]' (from a source tree: pip install '.[dask]')"


def require_dask() -> None:
    """Raise `ExecutorError` naming the extra to install when Dask is missing."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ExecutorError(f'executor = "dask" needs Dask; install it with: {INSTALL}') from None


class OnDask:
    def __init__(self, scheduler: str | None, workers: int) -> None:
        require_dask()
        self.scheduler = scheduler
        """The scheduler's address; None: a `LocalCluster` on this machine."""
        self.workers = workers
        """Worker processes of the `LocalCluster` (unused with a scheduler address)."""

    def _connect(self) -> tuple[Client, Any]:
        from distributed import Client, LocalCluster

        if self.scheduler is not None:
            try:
                return Client(self.scheduler, timeout=CONNECT_S), None
            except OSError as exc:
                raise ExecutorError(
                    f"cannot reach the Dask scheduler {self.scheduler}: {exc}"
                ) from None
        cluster = LocalCluster(
            n_workers=self.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # None still takes 8787, and warns when another has it
        )
        return Client(cluster), cluster

    async def run(self, units: Iterator[UnitWork], deliver: Deliver) -> None:
        client, cluster = await trio.to_thread.run_sync(self._connect)
        try:
            await _play(client, units, deliver)
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(_close, client, cluster)


def _close(client: Client, cluster: Any) -> None:
    client.close()
    if cluster is not None:
        cluster.close()


async def _threads(client: Client) -> int:
    """Worker threads in the cluster now (at least 1), asked off the trio thread."""
    counts = await trio.to_thread.run_sync(client.nthreads)
    return max(1, sum(counts.values()))


async def _play(client: Client, units: Iterator[UnitWork], deliver: Deliver) -> None:
    from distributed import as_completed

    pending: dict[Future, UnitWork] = {}
    finished = as_completed(with_results=True)
    more = True
    threads, asked = await _threads(client), trio.current_time()
    while True:
        if trio.current_time() - asked > RECOUNT_S:  # workers may join or leave
            threads, asked = await _threads(client), trio.current_time()
        while more and len(pending) < PER_THREAD * threads:
            unit = next(units, None)
            if unit is None:
                more = False
                break
            future = client.submit(play_unit, unit, pure=False, key=f"arena-unit-{uuid.uuid4()}")
            pending[future] = unit
            finished.add(future)
        if not pending:
            return
        batch = finished.next_batch(block=False)
        if not batch:
            await trio.sleep(POLL_S)
            continue
        for future, results in batch:
            unit = pending.pop(future)
            if future.status == "error":  # (type, exception, traceback)
                raise _failure(unit, results[1])
            if future.status != "finished":  # cancelled: a CancelledError (the scheduler lost it)
                raise _failure(unit, results)
            for result in results:
                deliver(unit, result)


def _failure(unit: UnitWork, error: BaseException) -> ExecutorError:
    if isinstance(error, ExecutorError):
        return error
    return ExecutorError(
        f"the Dask task of seat-set {unit.tag} rotation {unit.rotation} failed: "
        f"{type(error).__name__}: {error}"
    )
