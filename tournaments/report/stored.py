"""Games read back from a tournament's store by id (for `replay`, `export` and `report`)."""

from __future__ import annotations

from pathlib import Path

from tournaments.errors import UsageError
from tournaments.store.results import FinishedGame, GameKey
from tournaments.store.store import Store

SQLITE_MAGIC = b"SQLite format 3\x00"


def is_store(path: Path) -> bool:
    """Whether `path` is an SQLite file (a store), as opposed to a JSON-lines record."""
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def stored_record(store: Store, game_id: int) -> bytes:
    """The record of game `game_id`, or a usage error that says where the ids are listed."""
    record = store.game_record(game_id)
    if record is None:
        raise UsageError(
            f"{store.path} has no game {game_id} (`arena table {store.path} -t games` lists "
            "the games with their ids)"
        )
    return record


def keyed_games(store: Store) -> list[tuple[GameKey, FinishedGame]]:
    """Every stored game with its key (id, seed, decisions), in the store's schedule order."""
    return list(zip(store.game_keys(), store.games(), strict=True))
