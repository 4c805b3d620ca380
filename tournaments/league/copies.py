"""The league's side of copy detection: fingerprint a version once its check has passed, and
compare the bots that play now (their playing versions) by their fingerprints.

Everything here is the organisers': the fingerprints and the clone secret live in the league's
fingerprint file (`fingerprint.Fingerprints`, one of its private files that no bot sees), and
nothing of them reaches a version's logs or pages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from referee import Limits
from tournaments.league.files import League
from tournaments.league.fingerprint import Fingerprint, Fingerprints, fingerprint
from tournaments.league.registry import Version

if TYPE_CHECKING:
    from tournaments.league.clones import Pair

CSV_HEADERS = [
    "bot",
    "author",
    "other bot",
    "other author",
    "likeness",
    "agreement",
    "shared positions",
    "baseline",
    "z",
    "verdict",
    "fingerprints cut short",
]


async def fingerprint_version(league: League, limits: Limits, version: Version) -> None:
    """Play `version`'s fingerprint games under `limits` (its check game's: the league's, at
    the ladder's priority) and keep its fingerprint."""
    with Fingerprints(league.fingerprints_path) as file:
        secret = file.secret()
    made = await fingerprint(league.tournament, league.entrant(version).spec, limits, secret)
    await trio.to_thread.run_sync(_keep, league, version.id, made)


def _keep(league: League, version: int, made: Fingerprint) -> None:
    with Fingerprints(league.fingerprints_path) as file:
        file.put(version, made)


def league_pairs(league: League) -> list[Pair]:
    """The playing bots of different authors compared, most suspicious first (bots without a
    fingerprint are left out)."""
    from tournaments.league.clones import compare  # scipy's sparse matrices: only when asked

    with Fingerprints(league.fingerprints_path) as file:
        kept = file.all()
    names = {author.id: author.name for author in league.registry.authors()}
    playing = [version for version in league.registry.playing() if version.id in kept]
    fingerprints = {version.bot: kept[version.id] for version in playing}
    authors = {version.bot: names[version.author] for version in playing}
    return compare(fingerprints, authors)


def rows(pairs: list[Pair]) -> list[list[str]]:
    """The pairs as rows under `CSV_HEADERS`."""
    return [
        [
            pair.a,
            pair.author_a,
            pair.b,
            pair.author_b,
            f"{pair.likeness:.3f}",
            f"{pair.agreement:.3f}",
            str(pair.shared),
            f"{pair.baseline:.3f}",
            f"{pair.z:.1f}",
            pair.verdict,
            " ".join(pair.cut),
        ]
        for pair in pairs
    ]
