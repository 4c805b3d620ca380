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

import contextlib
import functools
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Any

import trio

from tournaments.executors import Deliver, Ends
from tournaments.executors.work import ExecutorError, Result, UnitWork, play_unit

if TYPE_CHECKING:
    from distributed import Client, Future

POLL_S = 0.05
"""How often the coordinator looks for finished tasks (it never blocks its trio loop on Dask)."""
DONE = ("finished", "error", "cancelled")
"""The statuses of a future whose task has ended ("lost": finished, but its worker died)."""
FETCH_S = 60.0
"""How long fetching a finished task's results may take: they are computed, so a transfer of
megabytes at most, unless their worker dies meanwhile and they are computed again (then the
fetch is given up and the task waited for anew)."""
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
        self._kept: tuple[Client, Any] | None = None
        """Inside `kept`: the client (and its `LocalCluster`) every run uses."""

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

    async def run(
        self, units: Iterator[UnitWork], deliver: Deliver, ends: Ends | None = None
    ) -> None:
        """`ends` is not heeded: a task plays its whole unit on a worker out of reach."""
        if self._kept is not None:
            await _play(self._kept[0], units, deliver)
            return
        client, cluster = await trio.to_thread.run_sync(self._connect)
        try:
            await _play(client, units, deliver)
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(_close, client, cluster)

    @contextlib.asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        self._kept = await trio.to_thread.run_sync(self._connect)
        try:
            yield
        finally:
            kept, self._kept = self._kept, None
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(_close, *kept)


def _close(client: Client, cluster: Any) -> None:
    client.close()
    if cluster is not None:
        cluster.close()


async def _threads(client: Client) -> int:
    """Worker threads in the cluster now (at least 1), asked off the trio thread."""
    counts = await trio.to_thread.run_sync(client.nthreads)
    return max(1, sum(counts.values()))


async def _play(client: Client, units: Iterator[UnitWork], deliver: Deliver) -> None:
    """Keep the cluster busy with units and deliver each unit's games once its task is done.

    Each ended task's results are fetched here, one at a time, by `Future.result`, and what a
    fetch that fails means is read from the status right after it. Before, with
    `as_completed(with_results=True)`: once a CI run waited for minutes, after a worker was
    killed, for two units whose results the scheduler held and `as_completed` never yielded; and
    a future's status read after its results were in hand could already say "lost" (its worker
    had just died), which stopped a run that had lost nothing."""
    pending: dict[Future, UnitWork] = {}
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
        if not pending:
            return
        done = [future for future in pending if future.status in DONE]
        if not done:
            await trio.sleep(POLL_S)
            continue
        for future in done:
            results = await _results(future, pending[future])
            if results is not None:
                unit = pending.pop(future)
                for result in results:
                    deliver(unit, result)


async def _results(future: Future, unit: UnitWork) -> list[Result] | None:
    """A done task's results, or None when they were lost meanwhile (their worker died: the
    scheduler computes them again, and the caller looks again later).

    Raises `ExecutorError` for a task that failed or was cancelled, and for results the cluster
    says it holds but which could not be fetched within `FETCH_S`."""
    status = future.status
    problem: BaseException | None = None
    if status == "finished":
        fetch = functools.partial(future.result, timeout=FETCH_S)
        try:
            results: list[Result] = await trio.to_thread.run_sync(fetch, abandon_on_cancel=True)
            return results
        except Exception as exc:  # the task's exception once computed again, a timeout, ...
            problem = exc
        status = future.status
    if status == "error":
        error = await trio.to_thread.run_sync(future.exception)
        raise _failure(unit, error or problem or RuntimeError("no exception given"))
    if status == "cancelled":  # the scheduler gave up on it
        raise _failure(unit, CancelledError(f"the scheduler cancelled task {future.key}"))
    if status == "finished":
        why = f"in {FETCH_S:.0f} s" if isinstance(problem, TimeoutError) else f"({problem!r})"
        raise ExecutorError(
            f"the results of seat-set {unit.tag} rotation {unit.rotation}, which the cluster "
            f"holds, could not be fetched {why}; the next run plays its games again"
        )
    return None  # "lost" or "pending": computed again


def _failure(unit: UnitWork, error: BaseException) -> ExecutorError:
    if isinstance(error, ExecutorError):
        return error
    return ExecutorError(
        f"the Dask task of seat-set {unit.tag} rotation {unit.rotation} failed: "
        f"{type(error).__name__}: {error}"
    )
