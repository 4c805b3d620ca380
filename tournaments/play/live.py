"""What a run shows while it plays: on a terminal a live progress bar with ETA and the top of the
ladder; elsewhere (a redirect, nohup, CI) plain lines, one per finished game and the ladder every
so many games (like cutechess-cli's `-ratinginterval`).

Both go to stderr (stdout is kept for the final tables). The ladder is a plain maximum-likelihood
fit of the pair tallies (no bootstrap); the live one is redrawn at most twice a second.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from types import TracebackType
from typing import TextIO

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

from tournaments.rank.ratings import BASE_ELO, ELO_PER_NAT, Tally, fit, pair_outcomes
from tournaments.store.results import FinishedGame

TOP = 8
REFRESH_S = 0.5


class Ladder:
    """Pair tallies and games per bot, kept up to date game by game."""

    def __init__(self, games: Iterable[FinishedGame]) -> None:
        self.tally: Tally = {}
        self.games: dict[str, int] = {}
        for game in games:
            self.add(game)

    def add(self, game: FinishedGame) -> None:
        for bot in game.bots:
            self.games[bot] = self.games.get(bot, 0) + 1
        for pair, score in pair_outcomes(game):
            entry = self.tally.setdefault(pair, [0.0, 0.0])
            entry[0] += score
            entry[1] += 1

    def top(self, count: int = TOP) -> list[tuple[str, float, int]]:
        """(bot, Elo with mean 1500, games) of the best `count` bots; empty below two bots."""
        bots = sorted(self.games)
        if len(bots) < 2:
            return []
        strength = fit(self.tally, bots)
        mean = sum(strength.values()) / len(strength)
        order = sorted(bots, key=lambda bot: -strength[bot])
        return [
            (bot, BASE_ELO + (strength[bot] - mean) * ELO_PER_NAT, self.games[bot])
            for bot in order[:count]
        ]


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
        self.ladder = Ladder(stored)
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
        self.ladder.add(game)
        self.progress.advance(self.task)
        now = time.monotonic()
        if now - self.drawn >= REFRESH_S:
            self.drawn = now
            self.live.update(self._render())

    def _render(self) -> Group:
        ladder = Table("#", "bot", "Elo", "games", box=None)
        for place, (bot, elo, games) in enumerate(self.ladder.top(), 1):
            ladder.add_row(str(place), bot, f"{elo:.0f}", str(games))
        return Group(self.progress, ladder)


def game_line(game: FinishedGame) -> str:
    """One finished game in a line: who scored what, and who faulted."""
    seats = ", ".join(
        f"{bot} {score}" for bot, score in zip(game.bots, game.played.scores, strict=True)
    )
    faults = "; ".join(f"{game.bots[f.seat]} {f.kind}" for f in game.played.faults)
    return f"{seats} (deal {game.deal}, rotation {game.rotation})" + (
        f" FAULT: {faults}" if faults else ""
    )


class TextProgress:
    """Plain progress lines for logs: every `every` games, and the ladder every `ladder_every`
    games (0: never). The same callbacks as `LiveView`."""

    def __init__(
        self, stored: Iterable[FinishedGame], out: TextIO, *, every: int, ladder_every: int
    ) -> None:
        self.ladder = Ladder(stored)
        self.out = out
        self.every = every
        self.ladder_every = ladder_every
        self.total = 0
        self.done = 0
        self.played = 0

    def on_start(self, total: int, stored: int) -> None:
        self.total, self.done = total, stored
        self._print(f"arena: {total} games in the schedule, {stored} already stored")

    def on_game(self, game: FinishedGame) -> None:
        self.ladder.add(game)
        self.done += 1
        self.played += 1
        if self.every and (self.played % self.every == 0 or game.played.faults):
            self._print(f"arena: game {self.done}/{self.total}: {game_line(game)}")
        if self.ladder_every and self.played % self.ladder_every == 0:
            ranked = "  ".join(
                f"{place}. {bot} {elo:.0f} ({games})"
                for place, (bot, elo, games) in enumerate(self.ladder.top(), 1)
            )
            self._print(f"arena: ladder after {self.done} games: {ranked}")

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)
