"""From a tournament file to everything a run needs: settings, store, and resolved players.

Shared by `arena run` and `arena add`, so both agree on where the store is, which bots take part
(the file's participants plus those added to the store) and under which ids and labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from protocol import TimeControl
from referee import Limits, ResourceLimits, SandboxChoice
from tournaments.errors import BotCommandError
from tournaments.plan.botcommands import BotCommand
from tournaments.plan.config import (
    CARRIED_DEALING,
    ConfigError,
    Tournament,
    db_path,
    fixed_settings,
    load,
    override,
    resolved_sandbox,
)
from tournaments.plan.entrants import Entrant, Player, entrant
from tournaments.store.store import Store


class Prepared(msgspec.Struct):
    file: Path
    tournament: Tournament
    store: Store
    players: list[Player]
    sandbox: SandboxChoice
    """The tournament's sandbox request resolved on this machine (`referee.choose`)."""
    removed: list[str] = []
    """Labels of participants left out because they were removed (`arena remove`)."""

    @property
    def limits(self) -> Limits:
        """Referee limits: the tournament's resource limits, sandbox and time mode; bot stderr
        logs go next to the store (`<store>.logs/`). A sandboxed bot sees none of the store (its
        secret keys every deal), the logs or the tournament file (its seed), even when its own
        program lives beside them."""
        store = self.store.path.resolve()
        logs = store.with_suffix(".logs")
        hidden = [store, logs, *(store.with_name(store.name + end) for end in ("-wal", "-shm"))]
        hidden.append(self.file.resolve())
        return Limits(
            log_dir=str(logs),
            resources=self.tournament.limits,
            sandbox=self.sandbox.kind,
            hidden=tuple(str(path) for path in hidden),
            time_mode=self.tournament.time_mode,
        )

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Prepared:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def resolve(
    name: str,
    command: str | BotCommand,
    base: Path | None,
    resources: ResourceLimits | None = None,
    time: TimeControl | None = None,
) -> Entrant:
    try:
        return entrant(name, command, base, resources, time)
    except (BotCommandError, OSError) as exc:
        raise ConfigError(f"participant {name!r}: {exc}") from None


def prepare(file: Path, *, db: Path | None = None, **overrides: Any) -> Prepared:
    """Load `file`, apply command-line `overrides`, open its store and register the bots.

    Raises ConfigError for a bad file or flag or a sandbox that cannot work here, StoreError for
    a store made for other settings.
    """
    tournament = override(load(file), **overrides)
    if tournament.league is not None:
        raise ConfigError(f"{file} is a league file ([league]): `arena serve {file}` runs it")
    return opened(file, tournament, db)


def opened(
    file: Path,
    tournament: Tournament,
    db: Path | None = None,
    entrants: Sequence[Entrant] | None = None,
    sandbox: SandboxChoice | None = None,
) -> Prepared:
    """`tournament` (of `file`, whose directory its relative paths start from) with its store
    open and its bots registered; what `prepare` does after reading the file, and what a
    league does when its season opens and for its finals and scrimmages, with its `entrants`
    resolved already (its house bots and uploaded versions: then the tournament's participants
    are not resolved again) and its `sandbox` too (not resolved again)."""
    # Everything the file decides first (sandbox, store path and binding, the participants
    # resolved and hashed), then the store once: one pass through each, no back and forth.
    if sandbox is None:
        sandbox = resolved_sandbox(tournament.sandbox, 'sandbox = "bwrap"')
    path, settings = db or db_path(tournament, file), fixed_settings(tournament)
    if entrants is None:
        entrants = [
            resolve(name, entry, file.parent, tournament.resources(name), tournament.own_time(name))
            for name, entry in tournament.participants.items()
        ]
    named = {entrant.name for entrant in entrants}
    store = Store(path)
    try:
        store.bind(settings, carried=CARRIED_DEALING)
        added = [
            resolve(row.name, row.command, None)
            for row in store.added_bots()
            if row.name not in named
        ]
        rows = [store.bot(e.name, e.command, e.hash) for e in entrants]
        rows += [store.bot(e.name, e.command, e.hash, added=True) for e in added]
    except BaseException:
        store.close()
        raise
    labels = store.labels()
    gone = store.excluded()
    players = [
        Player(row.id, labels[row.id], e)
        for row, e in zip(rows, [*entrants, *added], strict=True)
        if row.id not in gone
    ]
    removed = [labels[row.id] for row in rows if row.id in gone]
    return Prepared(file, tournament, store, players, sandbox, removed)
