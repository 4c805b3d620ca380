"""The season's tournament prepared once (`OpenSeason`), owned by the running league: its store
open, its limits, its house bots, and its playing versions registered in the store as they come.

Every ladder round, check, final and scrimmage of the season takes what it needs from here
instead of preparing the tournament again from the league's file: the sandbox is resolved, the
store bound to the league's settings and its house bots registered once, when the season opens,
and a newly playing version is registered once, by the first round that meets it. The ladder's
rounds write their games through this same connection (one writer of the season's store in the
process), so a version registered between two games goes into the open batch's store, never
into a second connection waiting for it. A season's final and its scrimmages play on stores of
their own, opened here with the same sandbox and the league's limits (`side`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from referee import Limits
from tournaments.league.files import League
from tournaments.plan.config import Tournament
from tournaments.plan.entrants import Entrant, Player
from tournaments.plan.prepare import Prepared, opened
from tournaments.store.store import Store


class OpenSeason:
    """The league's season now (`League.season`) as an open tournament (close it, or use
    `with`): a gauntlet over its house bots and playing versions, each round's candidate and
    deals chosen by the ladder."""

    def __init__(self, league: League) -> None:
        self.league = league
        self.tournament: Tournament = msgspec.structs.replace(
            league.tournament, schedule="gauntlet"
        )
        """The ladder's tournament; each round sets its candidate and deals."""
        self._prepared: Prepared = opened(
            league.file, self.tournament, db=league.store_path, entrants=league.house()
        )
        self.limits: Limits = league.limits(self._prepared.limits)
        """The league's referee limits on this season's store (`League.limits`)."""
        self._house = [(player.id, player.entrant) for player in self._prepared.players]
        """The house bots' store ids and entrants (those removed from the store left out)."""
        self._versions: dict[int, tuple[int, Entrant]] = {}
        """Version id → its store id and entrant (registered in the store once)."""
        self._labels = self.store.labels()
        self._gone = self.store.excluded()

    @property
    def store(self) -> Store:
        """The season's store: the one connection its rounds write through."""
        return self._prepared.store

    def players(self) -> list[Player]:
        """The house bots and each bot's playing version now, with their store ids and labels;
        a version new to the store is registered first (a new version of a bot takes over its
        label: the labels are read again then)."""
        playing = self.league.registry.playing()
        new = [version for version in playing if version.id not in self._versions]
        for version in new:
            entrant = self.league.entrant(version)
            row = self.store.bot(entrant.name, entrant.command, entrant.hash)
            self._versions[version.id] = (row.id, entrant)
        if new:
            self._labels = self.store.labels()
        field = [*self._house, *(self._versions[version.id] for version in playing)]
        return [
            Player(bot, self._labels[bot], entrant)
            for bot, entrant in field
            if bot not in self._gone
        ]

    def side(self, path: Path, tournament: Tournament, entrants: Sequence[Entrant]) -> Prepared:
        """`tournament` of `entrants` on a store of its own (a final's, the scrimmages'), with
        this season's sandbox (close it, or use `with`); `League.limits` of its `limits`."""
        return opened(
            self.league.file,
            tournament,
            db=path,
            entrants=entrants,
            sandbox=self._prepared.sandbox,
        )

    def close(self) -> None:
        self._prepared.close()

    def __enter__(self) -> OpenSeason:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
