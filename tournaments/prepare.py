"""From a tournament file to everything a run needs: settings, store, and resolved players.

Shared by `arena run` and `arena add`, so both agree on where the store is, which bots take part
(the file's participants plus those added to the store) and under which ids and labels.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from referee import Limits
from tournaments.config import ConfigError, Tournament, db_path, fixed_settings, load, override
from tournaments.entrants import Entrant, entrant
from tournaments.runner import Player
from tournaments.store import Store


class Prepared(msgspec.Struct):
    file: Path
    tournament: Tournament
    store: Store
    players: list[Player]

    @property
    def limits(self) -> Limits:
        """Referee limits: bot stderr logs go next to the store (`<store>.logs/`)."""
        return Limits(log_dir=str(self.store.path.with_suffix(".logs")))

    def close(self) -> None:
        self.store.close()


def resolve(name: str, command: str, base: Path | None) -> Entrant:
    try:
        return entrant(name, command, base)
    except (ValueError, OSError) as exc:
        raise ConfigError(f"participant {name!r}: {exc}") from None


def prepare(file: Path, *, db: Path | None = None, **overrides: Any) -> Prepared:
    """Load `file`, apply command-line `overrides`, open its store and register the bots.

    Raises ConfigError for a bad file or flag, StoreError for a store made for other settings.
    """
    tournament = override(load(file), **overrides)
    store = Store(db or db_path(tournament, file))
    try:
        store.bind(fixed_settings(tournament))
        store.save_config(msgspec.to_builtins(tournament))
        entrants = [
            resolve(name, command, file.parent) for name, command in tournament.participants.items()
        ]
        added = [
            resolve(row.name, row.command, None)
            for row in store.added_bots()
            if row.name not in tournament.participants
        ]
        rows = [store.bot(e.name, e.command, e.hash) for e in entrants]
        rows += [store.bot(e.name, e.command, e.hash, added=True) for e in added]
    except BaseException:
        store.close()
        raise
    labels = store.labels()
    players = [
        Player(row.id, labels[row.id], e) for row, e in zip(rows, entrants + added, strict=True)
    ]
    return Prepared(file, tournament, store, players)
