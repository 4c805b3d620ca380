"""Games a league plays beside its ladder — a season's final, a scrimmage — on a store of their
own (`OpenSeason.side`), with the ladder's runner, limits and executors."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial

from tournaments.executors import Executor
from tournaments.executors.work import UnitWork
from tournaments.league.files import League
from tournaments.plan.config import Tournament
from tournaments.plan.prepare import Prepared
from tournaments.play.runner import Runner, in_batches
from tournaments.play.running import GameListener

Units = Callable[[Iterator[UnitWork]], Iterator[UnitWork]]
"""Which of the schedule's units to play (as the executor takes them)."""


async def play_side_games(
    league: League,
    side: Prepared,
    tournament: Tournament,
    executor: Executor,
    listener: GameListener,
    units: Units | None = None,
    tables: Iterable[tuple[tuple[int, ...], range]] | None = None,
) -> None:
    """Play the games of `tournament` (of `side`'s players) missing from `side`'s store that
    `units` keeps (all when None) — of its schedule, or of `tables` (seat-sets of store ids
    and the deals of each) when given."""
    runner = Runner(
        tournament,
        side.store,
        side.players,
        limits=league.limits(side.limits),
        on_game=listener.on_game,
        on_void=listener.on_void,
        on_probation=listener.on_probation,
        on_refused=listener.on_refused,
        executor=executor,
        tables=tables,
    )
    work = runner.work() if units is None else units(runner.work())
    play = partial(executor.run, work, runner.deliver)
    await in_batches(side.store, play)
