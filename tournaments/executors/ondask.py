"""The Dask executor: each unit is a task on a Dask cluster that runs `work.play_unit` (a trio
loop of its own on the worker), and its games come back here to be stored as tasks complete.

Dask is an optional dependency (`pip install 'tile-arena[dask]'`). With no scheduler address a
`LocalCluster` of `workers` single-threaded worker processes is started on this machine; with
one (`tcp://host:8786`), the units go to that cluster, whose workers need the project installed,
the runtimes the bots' commands name, bubblewrap and cgroups as any referee would
(docs/scaling.md). An uploaded version or a tournament's bot of its own files travels to the
workers as a bundle published on the cluster (`bundles`); a worker that lacks a runtime a unit
needs refuses it (`work.WorkerLacks`) and the unit goes to another; a worker whose game does not
replay (`verify`) is sent no more units (`refuse`). Each game is delivered naming the worker
that held its task's results.

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

import msgspec
import trio

from bots import builtin_command
from referee import with_commands
from tournaments.executors import Deliver, Ends
from tournaments.executors.bundles import Cache, held, key, pack, travels
from tournaments.executors.work import (
    ExecutorError,
    GameDone,
    Needs,
    Result,
    Seat,
    UnitWork,
    WorkerLacks,
    lacking,
    missing,
    needs,
    play_unit,
    played_by,
)
from tournaments.plan.schedule import seating

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
WAIT_S = 0.5
"""How often a unit that no worker can take yet looks again (the cluster has no worker yet, or
none answered what it has)."""

INSTALL = "pip install 'tile-arena[dask]' (from a source tree: pip install '.[dask]')"


def require_dask() -> None:
    """Raise `ExecutorError` naming the extra to install when Dask is missing."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ExecutorError(f'executor = "dask" needs Dask; install it with: {INSTALL}') from None


class OnDask:
    remote = True

    def __init__(self, scheduler: str | None, workers: int) -> None:
        require_dask()
        self.scheduler = scheduler
        """The scheduler's address; None: a `LocalCluster` on this machine."""
        self.workers = workers
        """Worker processes of the `LocalCluster` (unused with a scheduler address)."""
        self._kept: tuple[Client, Any] | None = None
        """Inside `kept`: the client (and its `LocalCluster`) every run uses."""
        self.refused: set[str] = set()
        """Addresses of the workers whose games did not replay: sent no more units."""
        self.published: set[str] = set()
        """Hashes of the bundles published on the cluster by this executor."""

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
            await _play(self._kept[0], units, deliver, self.refused, self.published)
            return
        client, cluster = await trio.to_thread.run_sync(self._connect)
        try:
            await _play(client, units, deliver, self.refused, self.published)
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(_close, client, cluster, self.published)

    def refuse(self, worker: str) -> None:
        self.refused.add(worker)

    @contextlib.asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        self._kept = await trio.to_thread.run_sync(self._connect)
        try:
            yield
        finally:
            kept, self._kept = self._kept, None
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(_close, *kept, self.published)


def _close(client: Client, cluster: Any, published: set[str]) -> None:
    """Unpublish the bundles this executor published, and close the client and cluster."""
    for content_hash in published:
        with contextlib.suppress(Exception):  # already gone with a scheduler that stopped
            client.unpublish_dataset(key(content_hash))
    published.clear()
    client.close()
    if cluster is not None:
        cluster.close()


async def _workers(client: Client, refused: set[str]) -> tuple[int, list[str]]:
    """The worker threads units may go to now (at least 1) and the addresses of their workers
    (all but those refused), asked off the trio thread."""
    counts = await trio.to_thread.run_sync(client.nthreads)
    allowed = [address for address in counts if address not in refused]
    if counts and not allowed:
        raise ExecutorError(
            f"every worker of the cluster sent games that did not replay ({', '.join(counts)}); "
            "see `arena workers`"
        )
    threads = max(1, sum(counts[address] for address in allowed))
    return threads, allowed


async def _play(
    client: Client,
    units: Iterator[UnitWork],
    deliver: Deliver,
    refused: set[str],
    published: set[str],
) -> None:
    """Keep the cluster busy with units and deliver each unit's games once its task is done.

    Each ended task's results are fetched here, one at a time, by `Future.result`, and what a
    fetch that fails means is read from the status right after it. Before, with
    `as_completed(with_results=True)`: once a CI run waited for minutes, after a worker was
    killed, for two units whose results the scheduler held and `as_completed` never yielded; and
    a future's status read after its results were in hand could already say "lost" (its worker
    had just died), which stopped a run that had lost nothing."""
    pending: dict[Future, tuple[UnitWork, frozenset[str]]] = {}
    """Each task in flight: its unit, and the workers that said they lack what it needs."""
    more = True
    known = set(refused)
    (threads, allowed), asked = await _workers(client, refused), trio.current_time()

    probed: dict[tuple[str, Needs], list[str]] = {}
    """What each worker lacks of each unit's needs, asked once per worker and needs."""

    async def submit(unit: UnitWork, avoid: frozenset[str] = frozenset()) -> None:
        """Send `unit` to the workers that have what it needs (waiting for one while the
        cluster has none, or none has answered yet); `ExecutorError` when every worker lacks
        it."""
        nonlocal threads, allowed
        while True:
            candidates = [address for address in allowed if address not in avoid]
            workers, lack, answered = await _capable(client, unit, candidates, probed)
            if workers:
                break
            if (allowed and not candidates) or (candidates and answered):
                why = "; ".join(filter(None, [lack, avoid_why.get(unit.tag, "")]))
                raise ExecutorError(f"no worker can play seat-set {unit.tag}: {why}")
            await trio.sleep(WAIT_S)  # no worker yet (jobs still queued), or none answered
            threads, allowed = await _workers(client, refused)
        await _publish(client, unit, published)
        future = client.submit(
            play_on_worker,
            unit,
            pure=False,
            key=f"arena-unit-{uuid.uuid4()}",
            workers=workers,
            allow_other_workers=False,
        )
        pending[future] = (unit, avoid)

    avoid_why: dict[str, str] = {}
    while True:
        if trio.current_time() - asked > RECOUNT_S or refused != known:  # joined, left, refused
            known = set(refused)
            (threads, allowed), asked = await _workers(client, refused), trio.current_time()
        while more and len(pending) < PER_THREAD * threads:
            unit = next(units, None)
            if unit is None:
                more = False
                break
            await submit(unit)
        if not pending:
            return
        done = [future for future in pending if future.status in DONE]
        if not done:
            await trio.sleep(POLL_S)
            continue
        for future in done:
            unit, avoid = pending[future]
            holders = await trio.to_thread.run_sync(client.who_has, [future])
            worker = next(iter(holders.get(future.key, ())), "an unknown worker")
            try:
                results = await _results(future, unit)
            except WorkerLacks as lack:  # another worker may have it
                del pending[future]
                avoid_why[unit.tag] = str(lack)
                await submit(unit, avoid | {lack.worker})
                continue
            if results is not None:
                del pending[future]
                for result in results:
                    deliver(unit, played_by(worker, result))


async def _capable(
    client: Client,
    unit: UnitWork,
    candidates: list[str],
    probed: dict[tuple[str, Needs], list[str]],
) -> tuple[list[str], str, bool]:
    """Those of `candidates` that have what `unit` needs — a worker not asked yet for these
    needs (one that joined) is asked now, before any such unit is sent to it — what the others
    lack, in words, and whether every candidate has answered."""
    need = needs(unit)
    unknown = [worker for worker in candidates if (worker, need) not in probed]
    if unknown:
        ask = functools.partial(client.run, missing, need, workers=unknown, on_error="return")
        try:
            answers = await trio.to_thread.run_sync(ask)
        except Exception:  # a worker left while asked: the others are asked again later
            answers = {}
        for worker in unknown:
            answer = answers.get(worker)
            if isinstance(answer, list):  # else it left meanwhile: asked again if it is back
                probed[(worker, need)] = answer
    able = [worker for worker in candidates if probed.get((worker, need)) == []]
    lack = "; ".join(
        f"the worker {worker} lacks {', '.join(probed[(worker, need)])}"
        for worker in candidates
        if probed.get((worker, need))
    )
    return able, lack, all((worker, need) in probed for worker in candidates)


async def _publish(client: Client, unit: UnitWork, published: set[str]) -> None:
    """Publish the bundle of each traveling seat of `unit` not published yet (packed and sent
    off the trio thread)."""
    for seat in unit.seats:
        if travels(seat) and seat.hash not in published:
            data = await trio.to_thread.run_sync(pack, seat)
            publish = functools.partial(
                client.publish_dataset, override=True, **{key(seat.hash): data}
            )
            await trio.to_thread.run_sync(publish)
            published.add(seat.hash)


def _builtin_here(seat: Seat) -> Seat:
    """A built-in bot run by this worker's Python (the coordinator's path means nothing here;
    its files were hashed as the installed project's)."""
    command = builtin_command(seat.command)
    if command is None:
        return seat
    return msgspec.structs.replace(seat, spec=msgspec.structs.replace(seat.spec, command=command))


def play_on_worker(unit: UnitWork) -> list[Result]:
    """What a unit's task runs on a worker: its bots from their bundles (fetched from the
    cluster into the worker's cache when missing), or checked where they must already be;
    `WorkerLacks` first if this worker lacks what the unit needs; then the unit's games."""
    from distributed import get_worker, worker_client

    worker = get_worker().address
    sent = unit.seats
    unit = msgspec.structs.replace(unit, seats=[_builtin_here(seat) for seat in unit.seats])
    missing = lacking(unit)
    if missing:
        raise WorkerLacks(worker, f"the worker {worker} lacks {', '.join(missing)}")

    def fetch(name: str) -> bytes:
        with worker_client() as client:
            data: bytes = client.get_dataset(name, default=b"")
        if not data:
            raise ExecutorError(f"the bundle {name} is not published on the cluster")
        return data

    cache = Cache()
    seats = [
        cache.located(seat, fetch) if travels(seat) and not held(seat) else seat
        for seat in unit.seats
    ]
    results = play_unit(msgspec.structs.replace(unit, seats=seats))
    commands = [seat.spec.command for seat in seating(sent, unit.rotation)]
    return [
        msgspec.structs.replace(result, record=with_commands(result.record, commands))
        if isinstance(result, GameDone)
        else result
        for result in results
    ]


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
        if isinstance(error, WorkerLacks):
            raise error
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
