"""The final before the sequential one (`rank.sequential`), kept to be measured against it:
every seat-set in every rotation, in rounds of twice as many deals as it has played, until
every two neighbours in its standings are told apart head to head (likelihood of superiority at
least `SETTLED_LOS`) or its budget holds no further whole deal. A league plays it when its file
asks (`[league] final = "doubling"`); the simulator (`bench.final_sim`) plays it on synthetic
fields."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from tournaments.rank.sequential import Round, cut
from tournaments.rank.tables import pairs, standings
from tournaments.store.results import FinishedGame

BATCH = 1024
"""A round adds at most this many deals (the league's default batch)."""
SETTLED_LOS = 95.0
"""How sure each step down the standings must be, in per cent (head to head)."""


def next_deals(played: int, batch: int = BATCH) -> int:
    """The deals every seat-set has played after the next round: twice as many, at most
    `batch` more."""
    return max(1, min(2 * played, played + batch))


def doubling_round(bots: Sequence[str], players: int, played: int, budget: int) -> Round:
    """The next round after `played` deals of every seat-set of `bots`: every seat-set on the
    deals `next_deals` adds, as many as `budget` games hold whole (none when not one more
    fits; a first round smaller than one deal of every seat-set plays the seat-sets that fit,
    one deal each)."""
    tables = list(itertools.combinations(sorted(bots), players))
    if not tables:
        return []
    whole = played + budget // (len(tables) * players)
    deals = min(next_deals(played), whole) - played
    if deals <= 0:
        return [] if played else cut([(table, 1) for table in tables], players, budget)
    return [(table, deals) for table in tables]


def told_apart(games: Sequence[FinishedGame]) -> bool:
    """Every two neighbours in the standings of `games` told apart by their head to head."""
    order = [str(row["bot"]) for row in standings(games).records()]
    if len(order) < 2:
        return False
    met = {(row["bot"], row["opponent"]): row for row in pairs(games, order).records()}
    return all(
        (upper, lower) in met and met[upper, lower]["los_pct"] >= SETTLED_LOS
        for upper, lower in itertools.pairwise(order)
    )
