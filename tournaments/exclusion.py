"""Bots removed from a tournament (`arena remove`) or hidden from one printout (`--exclude`).

A removed bot's games stay in the store (nothing is lost, and the schedule still knows they were
played) but every game it sat in is left out of the tables and ratings, whole: keeping the other
seats' results would hand its opponents free wins against a bot that never really played.

The list lives in the store file, in a table of its own that this module creates when it first
removes a bot (the store's schema is untouched, so older arenas still read the file)::

    excluded(bot PRIMARY KEY REFERENCES bots(id), since)
"""

from __future__ import annotations

import datetime
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from tournaments.errors import UsageError
from tournaments.results import FinishedGame
from tournaments.store import EXCLUDED_SCHEMA, BotRow, Store, StoreError, untrusting


def exclude(path: Path, bots: Iterable[int]) -> None:
    """Mark these bot ids of the store at `path` as removed (again is harmless)."""
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    connection = untrusting(sqlite3.connect(path, timeout=10))
    try:
        with connection:  # one transaction
            connection.execute(EXCLUDED_SCHEMA)
            connection.executemany(
                "INSERT OR IGNORE INTO excluded VALUES (?, ?)", [(bot, now) for bot in bots]
            )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot record the removal in {path}: {exc}") from None
    finally:
        connection.close()


def excluded(path: Path) -> set[int]:
    """The removed bot ids of the store at `path` (read-only; none if nothing was removed)."""
    try:
        connection = untrusting(
            sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=10)
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read {path}: {exc}") from None
    try:
        return {int(row[0]) for row in connection.execute("SELECT bot FROM excluded")}
    except sqlite3.Error as exc:
        if "no such table" in str(exc):
            return set()
        raise StoreError(f"cannot read the removed bots of {path}: {exc}") from None
    finally:
        connection.close()


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
    ids = excluded(store.path)
    for wanted in names:
        ids |= {row.id for row in matching(rows, wanted)}
    labels = store.labels()
    return {labels[bot] for bot in ids if bot in labels}


def visible(games: Sequence[FinishedGame], hide: set[str]) -> list[FinishedGame]:
    """The games none of whose seats is hidden (see the module docstring for why whole games)."""
    return [game for game in games if hide.isdisjoint(game.bots)]
