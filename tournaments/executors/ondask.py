"""The Dask executor: each unit is a task on a Dask cluster that runs `work.play_unit` (a trio
loop of its own on the worker), and its games come back here to be stored as tasks complete.

Dask is an optional dependency (`pip install 'tile-arena[dask]'`). With no scheduler address a
`LocalCluster` of `workers` single-threaded worker processes is started on this machine; with
one (`tcp://host:8786`), the units go to that cluster, whose workers need the project installed,
the runtimes the bots' commands name, bubblewrap and cgroups as any referee would
(docs/scaling.md). An uploaded version or a tournament's bot of its own files travels to the
workers as a bundle published on the cluster (`bundles`); a worker that lacks a runtime a unit
needs refuses it (`work.WorkerLacks`) and the unit goes to another; a worker whose game does not
replay (`verify`) is sent no more units (`refuse`). A unit a worker fails — its task raises,
its results cannot be fetched, are too large or unreadable, or it is not back by its deadline —
goes to another worker, or to the coordinator when no worker it trusts is left (`here`), and is
counted against the worker (`UnitFailed`; `MAX_FAILURES` block it): no worker stops the run.
Each game is delivered naming the worker that held its task's results.

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
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec
import trio

from bots import builtin_command
from referee import with_commands
from tournaments.errors import ungrouped
from tournaments.executors import Deliver, Ends
from tournaments.executors.bundles import Cache, held, key, pack, travels
from tournaments.executors.here import play_here
from tournaments.executors.work import (
    ExecutorError,
    GameDone,
    Needs,
    Result,
    Seat,
    UnitFailed,
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
    from distributed import Client, Future, LocalCluster

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
LOOK_S = 2.0
"""How often the scheduler is asked about the units in flight: one whose workers all left
(`no-worker`) is sent to those there, one past its deadline (`deadline_s`) goes elsewhere."""
CLOSE_S = 5.0
"""How long closing the client (and unpublishing the bundles) may take: a scheduler that is
gone never answers, and a server told to stop must not wait for it."""
MAX_FAILURES = 3
"""Units a worker may fail (`UnitFailed`) before it is sent no more."""
SLACK_S = 60.0
"""A unit's deadline beyond what its games' clocks allow (`deadline_s`)."""
DECISIONS_PER_GAME = 500
"""The decisions a unit's deadline allows each game, each at its whole clock: an allowance far
above any game's length, not a measurement."""
GAME_BYTES = 4 << 20
"""What a unit's results may take a game beside its stderr (`results_cap`): well above the
largest real record with observations, which results do not even carry."""

INSTALL = "pip install 'tile-arena[dask]' (from a source tree: pip install '.[dask]')"


def local_cluster(workers: int, **options: Any) -> LocalCluster:
    """A `LocalCluster` of `workers` single-threaded worker processes on a free port.

    Its scheduler is told plainly not to start the dashboard: without bokeh, distributed's
    attempt at it can fail the cluster's start ("module 'distributed.dashboard' has no attribute
    'scheduler'"), and `dashboard_address=None` would still take port 8787.
    """
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        scheduler_kwargs={"dashboard": False},
        **options,
    )


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
        """Addresses of the workers whose games did not replay, or that failed `MAX_FAILURES`
        units: sent no more units."""
        self.failures: Counter[str] = Counter()
        """Units each worker failed (`UnitFailed`)."""
        self.published: set[str] = set()
        """Hashes of the bundles published on the cluster by this executor."""

    def _connect(self) -> tuple[Client, Any]:
        from distributed import Client

        if self.scheduler is not None:
            try:
                return Client(self.scheduler, timeout=CONNECT_S), None
            except OSError as exc:
                raise ExecutorError(
                    f"cannot reach the Dask scheduler {self.scheduler}: {exc}"
                ) from None
        cluster = local_cluster(self.workers)
        return Client(cluster), cluster

    async def run(
        self, units: Iterator[UnitWork], deliver: Deliver, ends: Ends | None = None
    ) -> None:
        """`ends` is not heeded: a task plays its whole unit on a worker out of reach."""
        play = functools.partial(
            _play, units=units, deliver=deliver, refused=self.refused,
            published=self.published, failures=self.failures,
        )  # fmt: skip
        if self._kept is not None:
            await play(self._kept[0])
            return
        client, cluster = await trio.to_thread.run_sync(self._connect, abandon_on_cancel=True)
        try:
            await play(client)
        finally:
            await _closed(client, cluster, self.published)

    def refuse(self, worker: str) -> None:
        self.refused.add(worker)

    @contextlib.asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        self._kept = await trio.to_thread.run_sync(self._connect, abandon_on_cancel=True)
        try:
            yield
        finally:
            kept, self._kept = self._kept, None
            await _closed(*kept, self.published)


async def _closed(client: Client, cluster: Any, published: set[str]) -> None:
    """`_close` off the trio thread, even when cancelled, but given up after `CLOSE_S` (left
    to finish in its thread) so that a scheduler that is gone does not hold a stop."""
    with trio.CancelScope(shield=True) as scope:
        scope.deadline = trio.current_time() + CLOSE_S
        await trio.to_thread.run_sync(_close, client, cluster, published, abandon_on_cancel=True)


def _close(client: Client, cluster: Any, published: set[str]) -> None:
    """Unpublish the bundles this executor published (while the scheduler answers), and close
    the client and cluster."""
    for content_hash in published:
        if client.status != "running":  # a scheduler that stopped took them with it
            break
        with contextlib.suppress(Exception):
            client.unpublish_dataset(key(content_hash))
    published.clear()
    client.close(timeout=CLOSE_S)
    if cluster is not None:
        cluster.close(timeout=CLOSE_S)


async def _workers(client: Client, refused: set[str]) -> tuple[int, list[str], bool]:
    """The worker threads units may go to now (at least 1), the addresses of their workers (all
    but those refused), and whether the cluster has any worker at all; asked off the trio
    thread."""
    try:
        counts = await trio.to_thread.run_sync(client.nthreads, abandon_on_cancel=True)
    except Exception:  # the scheduler is away: no worker until it is back
        await _connected(client)
        return 1, [], False
    allowed = [address for address in counts if address not in refused]
    threads = max(1, sum(counts[address] for address in allowed))
    return threads, allowed, bool(counts)


class Pending(NamedTuple):
    """A unit's task in flight, and what the unit met before it."""

    unit: UnitWork
    lacking: frozenset[str]
    """The workers that said they lack what it needs."""
    failed: frozenset[str]
    """The workers that failed it (`UnitFailed`): it goes to none of them again."""
    why: str
    """The last failure's reason ("" when none)."""
    deadline: float
    """When (trio's clock) it goes elsewhere if it is not back (`deadline_s`)."""


def deadline_s(unit: UnitWork) -> float:
    """How long `unit` may be away on a worker: `SLACK_S`, every seat's startup (its bots
    start once a unit), and for each of its games every seat's first move, bank and
    `DECISIONS_PER_GAME` decisions at its whole clock. Generous: what it catches is a worker
    that never answers, not a slow one."""
    startup = sum(seat.time.startup_ms for seat in unit.seats)
    per_game = sum(
        seat.time.first_move_ms
        + seat.time.bank_ms
        + DECISIONS_PER_GAME * (seat.time.move_ms + seat.time.increment_ms)
        for seat in unit.seats
    )
    return SLACK_S + (startup + len(unit.deals) * per_game) / 1000


def results_cap(unit: UnitWork) -> int:
    """The most bytes a unit's results may take (`GAME_BYTES` a game, and every seat's stderr
    cap): more is refused unread."""
    return len(unit.deals) * (GAME_BYTES + len(unit.seats) * (unit.limits.stderr_cap_bytes + 4096))


async def _play(
    client: Client,
    units: Iterator[UnitWork],
    deliver: Deliver,
    refused: set[str],
    published: set[str],
    failures: Counter[str] | None = None,
) -> None:
    """Keep the cluster busy with units and deliver each unit's games once its task is done.

    Each ended task's results are fetched here, one at a time, by `Future.result`, and what a
    fetch that fails means is read from the status right after it. Before, with
    `as_completed(with_results=True)`: once a CI run waited for minutes, after a worker was
    killed, for two units whose results the scheduler held and `as_completed` never yielded; and
    a future's status read after its results were in hand could already say "lost" (its worker
    had just died), which stopped a run that had lost nothing.

    A unit a worker fails (`_Failed`: its task raised, its results could not be fetched, were
    too large or unreadable, or it passed its deadline) goes to another worker, and the worker
    is counted against in `failures` (refused at `MAX_FAILURES`); a unit whose workers all left
    goes to those that are there. A unit that no worker it trusts can take any more — every
    worker failed it, or is refused — is played by the coordinator itself (`here`)."""
    failures = Counter() if failures is None else failures
    pending: dict[Future, Pending] = {}
    more = True
    known = set(refused)
    (threads, allowed, any_worker), asked = await _workers(client, refused), trio.current_time()
    looked = trio.current_time()
    here = [0]
    """Units the coordinator is playing itself."""

    probed: dict[tuple[str, Needs], list[str]] = {}
    """What each worker lacks of each unit's needs, asked once per worker and needs."""
    avoid_why: dict[str, str] = {}

    async with _nursery() as nursery:

        async def play_it_here(unit: UnitWork, why: str) -> None:
            try:
                await play_here(unit, functools.partial(deliver, unit), why)
            finally:
                here[0] -= 1

        async def submit(
            unit: UnitWork,
            lacking: frozenset[str] = frozenset(),
            failed: frozenset[str] = frozenset(),
            why: str = "",
        ) -> None:
            """Send `unit` to the workers that have what it needs and have not failed it
            (waiting for one while the cluster has none, or none has answered yet); to the
            coordinator when every worker failed it or is refused; `ExecutorError` when every
            worker lacks what it needs."""
            nonlocal threads, allowed, any_worker
            while True:
                candidates = [a for a in allowed if a not in lacking and a not in failed]
                workers, lack, answered = await _capable(client, unit, candidates, probed)
                if workers:
                    break
                if any_worker and not (candidates and not answered) and (failed or not allowed):
                    here[0] += 1  # counted in flight at once
                    nursery.start_soon(play_it_here, unit, why)
                    return
                if (allowed and not candidates) or (candidates and answered):
                    reasons = "; ".join(filter(None, [lack, avoid_why.get(unit.tag, "")]))
                    raise ExecutorError(f"no worker can play seat-set {unit.tag}: {reasons}")
                await trio.sleep(WAIT_S)  # no worker yet (jobs still queued), or none answered
                threads, allowed, any_worker = await _workers(client, refused)
            await _publish(client, unit, published)
            future = client.submit(
                play_on_worker,
                unit,
                pure=False,
                key=f"arena-unit-{uuid.uuid4()}",
                workers=workers,
                allow_other_workers=False,
            )
            deadline = trio.current_time() + deadline_s(unit)
            pending[future] = Pending(unit, lacking, failed, why, deadline)

        async def again(future: Future, worker: str | None, reason: str) -> None:
            """The task of `future` is given up (cancelled if still running): its unit goes
            elsewhere, and `worker` (None: nobody to blame) is counted against."""
            entry = pending.pop(future)
            if future.status not in DONE:
                cancel = functools.partial(client.cancel, [future])
                await trio.to_thread.run_sync(cancel, abandon_on_cancel=True)
            failed, why = entry.failed, entry.why
            if worker is not None:
                failures[worker] += 1
                blocked = failures[worker] >= MAX_FAILURES
                if blocked:
                    refused.add(worker)
                deliver(entry.unit, UnitFailed(worker, reason, blocked))
                failed, why = failed | {worker}, f"the worker {worker}: {reason}"
            await submit(entry.unit, entry.lacking, failed, why)

        while True:
            await _connected(client)
            now = trio.current_time()
            if now - asked > RECOUNT_S or refused != known:  # joined, left, refused
                known = set(refused)
                (threads, allowed, any_worker), asked = await _workers(client, refused), now
            while more and len(pending) + here[0] < PER_THREAD * threads:
                unit = next(units, None)
                if unit is None:
                    more = False
                    break
                await submit(unit)
            if not pending:
                if not more:
                    break  # the units played here end within the nursery
                await trio.sleep(POLL_S)
                continue
            if now - looked > LOOK_S:
                looked = now
                for future, (state, worker) in (await _states(client, pending)).items():
                    if state == "no-worker":  # the workers it may go to are gone
                        await again(future, None, "")
                    elif now > pending[future].deadline:
                        limit = deadline_s(pending[future].unit)
                        await again(future, worker, f"not back within its deadline ({limit:.0f} s)")
            done = [future for future in pending if future.status in DONE]
            if not done:
                await trio.sleep(POLL_S)
                continue
            for future in done:
                entry = pending[future]
                ask = functools.partial(client.who_has, [future])
                try:
                    holders = await trio.to_thread.run_sync(ask, abandon_on_cancel=True)
                except Exception:  # cancelled: the scheduler was lost meanwhile
                    holders = {}
                holder = next(iter(holders.get(future.key, ())), None)
                try:
                    results = await _results(client, future, entry.unit, holder)
                except WorkerLacks as lack:  # another worker may have it
                    del pending[future]
                    avoid_why[entry.unit.tag] = str(lack)
                    await submit(entry.unit, entry.lacking | {lack.worker}, entry.failed, entry.why)
                    continue
                except _Failed as failure:
                    await again(future, failure.worker, failure.reason)
                    continue
                if results is not None:
                    del pending[future]
                    for result in results:
                        deliver(entry.unit, played_by(holder or "an unknown worker", result))


async def _connected(client: Client) -> None:
    """Return once the client is connected to its scheduler (at once, mostly); while it tries
    to reconnect, wait; `ExecutorError` once it has given up."""
    while (status := getattr(client, "status", "running")) != "running":
        if status in ("closing", "closed"):
            raise ExecutorError(
                "the Dask scheduler is gone (the client could not reconnect); the games not "
                "stored are played when it is back and the league or run is started again"
            )
        await trio.sleep(WAIT_S)


@contextlib.asynccontextmanager
async def _nursery() -> AsyncIterator[trio.Nursery]:
    """A nursery that raises its one exception as itself (a run's `ExecutorError`), not in a
    group."""
    with ungrouped():
        async with trio.open_nursery() as nursery:
            yield nursery


async def _states(client: Client, pending: dict[Future, Pending]) -> dict[Future, tuple[str, str]]:
    """The scheduler's state of each task in flight not yet done, and the worker it runs on
    ("" if none): asked on the scheduler (`_task_states`), nothing when it cannot answer."""
    running = {future.key: future for future in pending if future.status not in DONE}
    ask = functools.partial(client.run_on_scheduler, _task_states, list(running))
    try:
        states = await trio.to_thread.run_sync(ask, abandon_on_cancel=True)
    except Exception:  # the scheduler is away: asked again later
        return {}
    return {running[key]: (state, on) for key, (state, on, _) in states.items() if key in running}


def _task_states(
    keys: list[str], dask_scheduler: Any = None
) -> dict[str, tuple[str, str, list[str]]]:
    """On the scheduler: each task's state, the worker it is processing on ("" if none) and the
    workers it erred on — the scheduler's word, never a worker's."""
    found = {}
    for name in keys:
        task = dask_scheduler.tasks.get(name)
        if task is not None:
            on = task.processing_on.address if task.processing_on is not None else ""
            found[name] = (str(task.state), on, sorted(task.erred_on or ()))
    return found


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


def play_on_worker(unit: UnitWork) -> bytes:
    """What a unit's task runs on a worker: its bots from their bundles (fetched from the
    cluster into the worker's cache when missing), or checked where they must already be;
    `WorkerLacks` first if this worker lacks what the unit needs; then the unit's games,
    encoded (the coordinator measures them before it decodes them: `results_cap`)."""
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
    return msgspec.msgpack.encode(
        [
            msgspec.structs.replace(result, record=with_commands(result.record, commands))
            if isinstance(result, GameDone)
            else result
            for result in results
        ]
    )


class _Failed(Exception):
    """A unit its worker failed: the unit goes elsewhere, the worker (None: unknown) is counted
    against."""

    def __init__(self, worker: str | None, reason: str) -> None:
        super().__init__(reason)
        self.worker = worker
        self.reason = reason


_decode_results = msgspec.msgpack.Decoder(list[Result]).decode


async def _results(
    client: Client, future: Future, unit: UnitWork, holder: str | None
) -> list[Result] | None:
    """A done task's results, or None when they were lost meanwhile (their worker died: the
    scheduler computes them again, and the caller looks again later). `holder` is the worker
    that holds them (the scheduler's word).

    Raises `WorkerLacks` as the worker said it, and `_Failed` for a task that failed or was
    cancelled, for results that could not be fetched within `FETCH_S`, and for results over
    `results_cap` (refused before they are decoded) or that are not results at all."""
    status = future.status
    problem: BaseException | None = None
    if status == "finished":
        fetch = functools.partial(future.result, timeout=FETCH_S)
        try:
            data = await trio.to_thread.run_sync(fetch, abandon_on_cancel=True)
        except Exception as exc:  # the task's exception once computed again, a timeout, ...
            problem = exc
        else:
            return _decoded(data, unit, holder)
        status = future.status
    if status == "error":
        error = await trio.to_thread.run_sync(future.exception, abandon_on_cancel=True)
        if isinstance(error, WorkerLacks):
            raise error
        ask = functools.partial(client.run_on_scheduler, _task_states, [future.key])
        try:
            erred = (await trio.to_thread.run_sync(ask, abandon_on_cancel=True))[future.key][2]
        except Exception:  # the scheduler is away, or forgot it
            erred = []
        error = error or problem or RuntimeError("no exception given")
        raise _Failed(erred[-1] if erred else None, f"its task failed: {_described(error)}")
    if status == "cancelled":  # the scheduler gave up on it
        raise _Failed(None, f"the scheduler cancelled task {future.key}")
    if status == "finished":
        why = f"in {FETCH_S:.0f} s" if isinstance(problem, TimeoutError) else f"({problem!r})"
        raise _Failed(holder, f"its results could not be fetched {why}")
    return None  # "lost" or "pending": computed again


def _decoded(data: object, unit: UnitWork, holder: str | None) -> list[Result]:
    """A task's results from what it returned: bytes within `results_cap`, decoded."""
    if not isinstance(data, bytes):
        raise _Failed(holder, f"it sent {type(data).__name__}, not encoded results")
    if len(data) > results_cap(unit):
        raise _Failed(holder, f"it sent {len(data)} bytes, over {results_cap(unit)} for the unit")
    try:
        return _decode_results(data)
    except msgspec.DecodeError as exc:
        raise _Failed(holder, f"its results are unreadable: {exc}") from None


def _described(error: BaseException) -> str:
    """An exception in one line, bounded (its text is the worker's)."""
    return f"{type(error).__name__}: {error}"[:500]
