"""What a run shows while it plays: a progress bar with ETA and the top of the ladder.

Drawn with rich on stderr (stdout is kept for the final tables), and only on a terminal: in
tests, pipes and CI logs a run is silent until it prints its tables. The ladder is a plain
maximum-likelihood fit of the pair tallies (no bootstrap), refreshed at most twice a second.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from types import TracebackType

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from tournaments.ratings import BASE_ELO, ELO_PER_NAT, Tally, fit, pair_outcomes
from tournaments.results import FinishedGame

TOP = 8
REFRESH_S = 0.5


class LiveView:
    """Progress and a live top-of-ladder; a context manager whose callbacks the runner calls."""

    def __init__(self, title: str, stored: Iterable[FinishedGame], console: Console) -> None:
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("games"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
        )
        self.task = self.progress.add_task(title, total=None)
        self.tally: Tally = {}
        self.games: dict[str, int] = {}
        for game in stored:
            self._count(game)
        self.live = Live(self._render(), console=console, refresh_per_second=4, transient=True)
        self.drawn = 0.0

    def __enter__(self) -> LiveView:
        self.live.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.live.update(self._render())  # the last games may have fallen between refreshes
        self.live.__exit__(kind, error, trace)

    def on_start(self, total: int, stored: int) -> None:
        # Resumed games count as done, but rich's ETA only uses the speed of this run.
        self.progress.reset(self.task, total=total, completed=stored)

    def on_game(self, game: FinishedGame) -> None:
        self._count(game)
        self.progress.advance(self.task)
        now = time.monotonic()
        if now - self.drawn >= REFRESH_S:
            self.drawn = now
            self.live.update(self._render())

    def _count(self, game: FinishedGame) -> None:
        for bot in game.bots:
            self.games[bot] = self.games.get(bot, 0) + 1
        for pair, score in pair_outcomes(game):
            entry = self.tally.setdefault(pair, [0.0, 0.0])
            entry[0] += score
            entry[1] += 1

    def _render(self) -> Group:
        ladder = Table("#", "bot", "Elo", "games", box=None)
        bots = sorted(self.games)
        if len(bots) > 1:
            strength = fit(self.tally, bots)
            mean = sum(strength.values()) / len(strength)
            order = sorted(bots, key=lambda bot: -strength[bot])
            for place, bot in enumerate(order[:TOP], 1):
                elo = BASE_ELO + (strength[bot] - mean) * ELO_PER_NAT
                ladder.add_row(str(place), bot, f"{elo:.0f}", str(self.games[bot]))
        return Group(self.progress, ladder)
