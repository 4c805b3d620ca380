"""The executor a tournament asks for (`executor`, `scheduler`, `concurrency`)."""

from __future__ import annotations

from tournaments.executors import Executor
from tournaments.executors.budget import Share
from tournaments.executors.inprocess import InProcess
from tournaments.executors.local import Local
from tournaments.executors.ondask import OnDask
from tournaments.plan.config import Tournament


def executor_for(tournament: Tournament, nice: int = 0, share: Share | None = None) -> Executor:
    """`ExecutorError` when it cannot be had here (Dask not installed). `nice`: the local
    executor's referee processes run that much below this process's priority; `share`: the
    budget of units at once on this machine it shares with the process's other executors (a
    Dask cluster's workers are other machines: its own `workers` bound it)."""
    if tournament.executor == "dask":
        return OnDask(tournament.scheduler, tournament.workers)
    if tournament.executor == "local":
        return Local(tournament.workers, nice, share)
    return InProcess(tournament.workers, share)
