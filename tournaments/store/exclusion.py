"""Bots removed from a tournament (`arena remove`) or hidden from one printout (`--exclude`).

A removed bot's games stay in the store (nothing is lost, and the schedule still knows they were
played) but every game it sat in is left out of the tables and ratings, whole: keeping the other
seats' results would hand its opponents free wins against a bot that never really played.

The list lives in the store (`Store.exclude`, `Store.excluded`), in a table of its own made
when the first bot is removed; this module says which games that leaves out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import TypeVar

from tournaments.errors import UsageError
from tournaments.store.results import FinishedGame
from tournaments.store.store import BotRow, Store


def matching(rows: Sequence[BotRow], wanted: str) -> list[BotRow]:
    """The store's bots that `wanted` names: NAME is every version, NAME@HASH (a prefix of the
    hash, as tables print it) one version. A name that matches nothing is a usage error."""
    name, _, prefix = wanted.partition("@")
    found = [row for row in rows if row.name == name and row.hash.startswith(prefix)]
    if not found:
        known = ", ".join(sorted({row.name for row in rows})) or "none"
        raise UsageError(f"no bot {wanted!r} in the store (bots: {known})")
    return found


def hidden(store: Store, names: Sequence[str]) -> set[str]:
    """Labels (as in `Store.games`) of the removed bots and of those named by `--exclude`."""
    rows = store.bots()
    ids = store.excluded()
    for wanted in names:
        ids |= {row.id for row in matching(rows, wanted)}
    labels = store.labels()
    return {labels[bot] for bot in ids if bot in labels}


Item = TypeVar("Item", bound=FinishedGame | tuple[object, FinishedGame])


def visible(games: Iterable[Item], hide: Collection[str]) -> list[Item]:
    """The games (or (key, game) pairs) none of whose seats is in `hide` (labels, as `hidden`
    gives them): the one place that says which games are shown (see the module docstring for
    why whole games)."""
    labels = set(hide)
    return [
        item
        for item in games
        if labels.isdisjoint((item if isinstance(item, FinishedGame) else item[1]).bots)
    ]
