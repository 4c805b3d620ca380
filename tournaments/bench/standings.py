"""What the leaderboard's standings cost as a league grows, on synthetic ladders of N bots that
each met a few dozen opponents (a league's shape: pairs grow with the bots, not with their
square): CPU time of the kept tables' refresh after new games (`rank.running`), as the board's
child makes it, and of the bootstrap spread over refreshes."""

from __future__ import annotations

import math
import random
import time
from typing import NamedTuple

from tournaments.rank.ratings import elo_fit
from tournaments.rank.running import RunningTables
from tournaments.store.results import FinishedGame, Played

OPPONENTS = 20
"""Pairings each bot starts: a league's ladder meets a few dozen opponents per bot."""
DEALS = 2
"""Deals of each pairing, each in both seat orders."""
NEW_GAMES = 1_000
"""Games stored between two refreshes: a busy ladder's output in one refresh's wait."""


def ladder(bots: int, seed: int = 0, deals: int = DEALS) -> list[FinishedGame]:
    """Two-player games of `bots` bots with Elo-like strengths, each pairing's deals played in
    both seat orders; the stronger bot wins as often as the Elo scale says."""
    rng = random.Random(seed)
    strength = [rng.gauss(0, 200) for _ in range(bots)]
    names = [f"bot{i:04d}" for i in range(bots)]
    games = []
    for i in range(bots):
        for j in rng.sample([j for j in range(bots) if j != i], min(OPPONENTS, bots - 1)):
            seat_set = f"{names[i]},{names[j]}"
            wins = 1 / (1 + 10 ** ((strength[j] - strength[i]) / 400))
            for deal in range(deals):
                for rotation, seats in enumerate(((i, j), (j, i))):
                    first_wins = (rng.random() < wins) == (seats[0] == i)
                    ranks = [1, 2] if first_wins else [2, 1]
                    games.append(_game(seat_set, deal, rotation, [names[s] for s in seats], ranks))
    return games


def _game(
    seat_set: str, deal: int, rotation: int, bots: list[str], ranks: list[int]
) -> FinishedGame:
    played = Played(scores=[3 - rank for rank in ranks], ranks=ranks, moves=[1, 1], think_ms=[0, 0])
    return FinishedGame(
        seat_set=seat_set, deal=deal, rotation=rotation, bots=tuple(bots), played=played
    )


def fit_seconds(games: list[FinishedGame], bootstrap: int) -> float:
    """CPU seconds of one `elo_fit` with `bootstrap` resamples, as `arena table` runs it."""
    started = time.process_time()
    elo_fit(games, bootstrap=bootstrap)
    return time.process_time() - started


class Refreshes(NamedTuple):
    """CPU seconds of the kept tables of a ladder."""

    new: int
    """The games that arrived last."""
    first_s: float
    """Counting every game but the last `new`, with the whole bootstrap: the first
    board of a league, or a start anew."""
    refresh_s: float
    """Then the last games' refresh: their tallies, the Elo fit, a budget of resamples."""
    bootstrap_s: float
    """The refreshes after it until the intervals are of every game (no more new games)."""
    refreshes: int
    """How many refreshes that took."""


def refresh_seconds(games: list[FinishedGame]) -> Refreshes:
    """The kept tables' refreshes of `games`, the last `NEW_GAMES` of them (a tenth of a
    smaller ladder) arriving after the others' board is made."""
    new = min(NEW_GAMES, len(games) // 10)
    tables = RunningTables()
    started = time.process_time()
    tables.add(games[:-new])
    tables.tables(math.inf)
    first = time.process_time() - started
    started = time.process_time()
    tables.add(games[-new:])
    drawing = tables.tables().drawing
    refresh = time.process_time() - started
    started, refreshes = time.process_time(), 0
    while drawing:
        drawing, refreshes = tables.tables().drawing, refreshes + 1
    return Refreshes(new, first, refresh, time.process_time() - started, refreshes)
