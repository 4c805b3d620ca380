"""The queue of versions waiting for their check (`checks.check_version`): several checked at
once, up to the league's concurrency, each holding a slot of the machine's games at once like a
ladder game (ahead of the ladder's: an author waits for their check, the ladder never ends),
the authors taking turns (`Turns`): a new version waits behind at most one check of each other
author's, however many versions they queued, and among authors who wait alike (a class's first
uploads) every other check goes to the newest version, so that one uploaded behind them is
checked among the next few.

A check that fails is the version's rejection, with its reason (`check_version`); one that
raises — the league's fault, not the version's — is told in the organiser's log and rejects its
version with a reason saying so, and the other checks go on.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable

import trio

from referee import Limits
from tournaments.executors.budget import Share
from tournaments.league.checks import check_version, reject
from tournaments.league.files import League
from tournaments.league.registry import Version
from tournaments.league.turns import Turns

COULD_NOT_CHECK = "the league could not check it (its organisers are told why): upload it again"
"""The public reason of a version whose check raised."""


class CheckQueue:
    """The league's checks of queued versions (`run`), `limits()` giving the league's referee
    limits now (those of the season open), `share` its slots of the games at once, and
    `on_checked` told after each check."""

    def __init__(
        self,
        league: League,
        limits: Callable[[], Limits],
        share: Share,
        on_checked: Callable[[], None],
    ) -> None:
        self.league, self.limits, self.share, self.on_checked = league, limits, share, on_checked
        self.turns: Turns[Version] = Turns(newest_too=True)
        self.checking: set[int] = set()
        """The ids of the versions being checked."""
        self.given_up: set[int] = set()
        """Versions whose check raised and that could not even be rejected: not tried again
        while the server runs."""

    async def run(self, changes: Callable[[], trio.Event]) -> None:
        """Check queued versions (those a stopped server left first) until cancelled; when
        none waits or every check is taken, wait for the next change (`changes`, as for the
        ladder: an upload, a check ended)."""
        async with trio.open_nursery() as nursery:
            while True:
                change = changes()
                for version in self.next():
                    self.checking.add(version.id)
                    nursery.start_soon(self._check, version)
                await change.wait()

    def next(self) -> list[Version]:
        """The queued versions to check now, in the authors' turns, as many as the league's
        concurrency leaves room for."""
        skip = self.checking | self.given_up
        queued = [v for v in self.league.registry.queued() if v.id not in skip]
        chosen: list[Version] = []
        while len(self.checking) + len(chosen) < self.league.tournament.workers:
            version = self.turns.next(queued)
            if version is None:
                break
            queued.remove(version)
            chosen.append(version)
        return chosen

    async def _check(self, version: Version) -> None:
        await self.share.acquire()
        try:
            await check_version(self.league, self.limits(), version)
        except Exception as exc:  # the league's own failure: the other checks go on
            await self._failed(version, exc)
        finally:
            # told before its slot is let go: the ladder's unit that takes the slot next is
            # planned with the version in
            self.checking.discard(version.id)
            self.on_checked()
            self.share.release()

    async def _failed(self, version: Version, exc: Exception) -> None:
        """Tell the organiser's log why `version`'s check raised, and reject it saying so."""
        told = "".join(traceback.format_exception(exc))
        print(
            f"arena serve: the check of {version.bot} failed:\n{told}", file=sys.stderr, flush=True
        )
        try:
            await reject(self.league, version, COULD_NOT_CHECK)
        except Exception as again:
            self.given_up.add(version.id)
            print(
                f"arena serve: {version.bot}'s version {version.number} could not be rejected "
                f"either ({again!r}): it waits until the server starts again",
                file=sys.stderr,
                flush=True,
            )
