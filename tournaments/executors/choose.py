"""The executor a tournament asks for (`executor`, `scheduler`, `concurrency`)."""

from __future__ import annotations

from tournaments.config import Tournament
from tournaments.executors import Executor
from tournaments.executors.inprocess import InProcess
from tournaments.executors.local import Local
from tournaments.executors.ondask import OnDask


def executor_for(tournament: Tournament) -> Executor:
    """`ExecutorError` when it cannot be had here (Dask not installed)."""
    if tournament.executor == "dask":
        return OnDask(tournament.scheduler, tournament.workers)
    if tournament.executor == "local":
        return Local(tournament.workers)
    return InProcess(tournament.workers)
