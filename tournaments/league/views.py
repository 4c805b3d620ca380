"""The league's read models: what its pages and API show (the bots as a viewer may see them,
the leaderboard, the seasons, the scrimmages, a stored game) as structs, and the access rules
that decide who sees what (`Access`), once for every page, answer and download.

The web front imports these, the service (`service.LeagueService`, which makes them) and the
errors (`errors`) alone: the few names of the library it needs besides are given here too
(imported `as` themselves).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import msgspec

from tournaments.league.board_keeper import MIN_REFRESH_S as MIN_REFRESH_S
from tournaments.league.clones import MIN_SHARED as MIN_SHARED
from tournaments.league.copies import CSV_HEADERS as CSV_HEADERS
from tournaments.league.copies import rows as rows
from tournaments.league.errors import Forbidden
from tournaments.league.final import FinalProgress
from tournaments.league.grades import as_table as as_table
from tournaments.league.headline import clusters as clusters
from tournaments.league.reads import ListedGame as ListedGame
from tournaments.league.reads import Sees, seen
from tournaments.league.registry import (
    MAX_NAME as MAX_NAME,
)
from tournaments.league.registry import (
    WAITING as WAITING,
)
from tournaments.league.registry import (
    Author,
    Registry,
    Scrimmage,
    Season,
    Version,
)
from tournaments.league.registry import (
    numbers_by_label as numbers_by_label,
)
from tournaments.league.runtimes import ASKED as ASKED
from tournaments.league.shelf import NO_OPPONENTS, History, Opponents
from tournaments.store.results import FinishedGame
from tournaments.store.store import bot_of as bot_of

LOG_TAIL_BYTES = 8192
"""A stderr log's end shown on its bot's page."""


class StderrLog(msgspec.Struct, frozen=True):
    """One game's stderr of one of the bot's seats, as its page shows it."""

    game: int
    seat: int
    label: str
    bytes: int
    dropped: bool
    """Not kept: the version's logs had reached the league's `logs_mb`."""
    tail: str
    """Its last `LOG_TAIL_BYTES` (empty when dropped or its file is gone)."""


class Private(msgspec.Struct, frozen=True):
    """What only the bot's author and the organisers see."""

    version_logs: list[tuple[int, dict[str, str]]]
    """(version id, its build and check logs by kind)."""
    stderr: list[StderrLog]


class BotView(msgspec.Struct, frozen=True):
    """A bot as a given viewer may see it."""

    name: str
    house: bool
    disabled: bool
    author: str | None
    author_disabled: bool
    """Its author is disabled by the organisers."""
    versions: list[Version]
    games: list[tuple[int, FinishedGame]]
    more: int | None
    """The id to pass as `before` for its older games (None: these were the oldest)."""
    history: History | None
    private: Private | None
    """None unless the viewer is the bot's author or an organiser."""
    opponents: Opponents = NO_OPPONENTS
    """A page of its head-to-head rows, as the viewer may see them."""


class StoredGame(msgspec.Struct, frozen=True):
    """A stored game's record and who sat in it (store labels: `name` or `name@hash`)."""

    id: int
    names: list[str]
    record: bytes


class Standing(msgspec.Struct, frozen=True):
    """A leaderboard row: `arena table`'s standings row of a store label, and whose it is."""

    row: dict[str, Any]
    bot: str
    """The bot the label is a version of."""
    author: str
    """Its author's name ("" for a house bot)."""
    number: int | None
    """The version number of the label's version (None: a house bot's, or not known)."""
    disabled: bool
    change: float | None
    """Its Elo move since the board before (None: new on this board, or the first board)."""


class Leaderboard(msgspec.Struct, frozen=True):
    """What the leaderboard shows: the board's standings with their authors, the playing bots
    with no games yet, and the versions being checked."""

    number: int
    """The leaderboard's number, one more each time it is made again (its board, or the
    versions it lists, changed): what is rendered from one may be kept under it. (The board's
    own count, `BoardKeeper.generation`, moves with the board alone.)"""
    games: int
    made: float
    standings: list[Standing]
    """The bots' rows (each bot's newest version in the store), ranked among themselves."""
    earlier: list[Standing]
    """The rows of bots' older versions: their games stay rated, but they are no bot of the
    ranking (shown apart, with their version numbers)."""
    unplaced: list[tuple[str, str, int | None]]
    """(bot, its author or "house", its version number) of each playing bot not ranked yet."""
    waiting: list[Version]
    first: bool
    """The first board: no Elo moves to show yet."""
    apart: list[Standing] = []
    """With the organiser's `one_per_author`: the bots counted with a better-placed bot of
    their author (`league.headline`), unranked."""


class ScrimmageView(msgspec.Struct, frozen=True):
    """A scrimmage as its bot's page shows it: its version's number and its games."""

    scrimmage: Scrimmage
    number: int
    games: list[ListedGame]


class ScrimmageChoices(msgspec.Struct, frozen=True):
    """What a bot's author may ask a scrimmage of it with (`ask_scrimmage` takes these)."""

    versions: list[int]
    """The numbers of its versions that passed their check."""
    opponents: list[str]
    most: int
    """The most games one scrimmage plays."""
    per_hour: int
    """The scrimmages an author may ask for an hour."""


SCRIMMAGE_READY = frozenset({"playing", "superseded"})
"""The statuses of a version that passed its check: it may play scrimmages."""


class SeasonResult(msgspec.Struct, frozen=True):
    """A season, its final's standings (None before it is frozen) and whether its final's
    report is written."""

    season: Season
    final: FinalProgress | None
    report: bool


class GameList(msgspec.Struct, frozen=True):
    """The games of `bot` that a choice keeps, newest first, as a viewer may see them."""

    bot: str
    games: list[ListedGame]
    more: int | None
    """Pass as `before` for the next, older page (None: this was the last)."""


class Where(msgspec.Struct, frozen=True):
    """Which store a game is in: a season's ladder (None: this season's), or the scrimmages.
    (Its addresses are the front's.)"""

    season: int | None = None
    scrimmages: bool = False


LADDER = Where()
SCRIMMAGES = Where(scrimmages=True)
MAX_GAME_ID = 2**63 - 1
"""The largest game id SQLite holds: a larger one in an address is no game (not an error)."""


class Roster:
    """What the leaderboard reads of the registry — the versions waiting and playing, the
    authors' names, the bots — read once per change of the registry (`changes`), not once per
    board: at a thousand bots a read is milliseconds of the server's thread."""

    def __init__(self, registry: Registry, changes: object) -> None:
        self.changes = changes
        self.waiting, self.playing = registry.waiting(), registry.playing()
        self.authors = {author.id: author.name for author in registry.authors()}
        self.uploaded = registry.bots()
        self._registry = registry
        self._numbers: dict[str, int] | None = None

    def numbers_by_label(self) -> dict[str, int]:
        """Every version's number by its store label (read when a board first needs it)."""
        if self._numbers is None:
            self._numbers = numbers_by_label(self._registry.versions())
        return self._numbers


class Access:
    """Who may see what of the league's bots: an author their own bots' logs, their seats'
    fault reasons and their grades; an organiser every bot's; a signed-out visitor none."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def own_seats(self, names: Sequence[str], viewer: Author | None) -> list[int]:
        """The seats of a game of `names` whose logs `viewer` may see (their own bots'; an
        organiser's: every seat)."""
        return seen(names, functools.partial(self.may_see_private, viewer))

    def sees(self, viewer: Author | None) -> Sees:
        """Whose logs `viewer` may see (`may_see_private`), for the many bots of a list: the
        bots they own are read once, not once a seat."""
        if viewer is None or viewer.organiser:
            return Sees(every=viewer is not None)
        owned = [name for name, bot in self.registry.bots().items() if bot.author == viewer.id]
        return Sees(owned=owned)

    def may_see_private(self, viewer: Author | None, bot: str) -> bool:
        """An author sees only their own bots' logs; an organiser sees every bot's."""
        if viewer is None:
            return False
        return viewer.organiser or self.registry.owner(bot) == viewer.id


def refuse_unless_organiser(actor: Author) -> None:
    """`Forbidden` unless `actor` is an organiser: what only an organiser may do or see."""
    if not actor.organiser:
        raise Forbidden("only an organiser may do this")
