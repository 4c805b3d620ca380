"""The league's HTTP API answers (JSON), as msgspec Structs: what the server encodes and what
a client (`arena submit`, `arena fetch`) decodes with `type=`, one definition for both
sides."""

from __future__ import annotations

import msgspec


class VersionAnswer(msgspec.Struct, frozen=True):
    """`POST /api/versions`: the version uploaded (the same files again: that same version)."""

    bot: str
    version_id: int
    """Its id in the league, for programs (people read `number`)."""
    number: int
    """The bot's 1, 2, ... in upload order: the version number every page and message shows."""
    hash: str
    status: str
    url: str
    """The bot's page, relative to the server's address."""


class VersionRow(msgspec.Struct, frozen=True):
    version_id: int
    """Its id in the league, for programs."""
    number: int
    """The bot's version number (1, 2, ...), as its page shows it."""
    hash: str
    status: str
    reason: str | None
    """Public: what failed and where, never the bot's output."""
    logs: dict[str, str] | None = None
    """Its build and check logs: for its author and the organisers only."""


class BotAnswer(msgspec.Struct, frozen=True):
    """`GET /api/bots/NAME`: the bot and its versions, oldest first."""

    bot: str
    author: str | None
    disabled: bool
    versions: list[VersionRow]
    frozen_season: int | None = None
    """The season, while it is frozen for its final: a version that passes its check now
    plays from the next season (None: the season's ladder plays)."""


class FaultAnswer(msgspec.Struct, frozen=True):
    seat: int
    kind: str
    decision: int | None
    """The decision it happened at (-1: the handshake; None: after the game)."""


class GameFacts(msgspec.Struct, frozen=True):
    """What a bot's list says of one of its games (`GameRow`, `reads.ListedGame`)."""

    id: int
    seats: list[str]
    """Who sat in each seat: a bot's name, or `name@hash` for an older version of it."""
    scores: list[int]
    ranks: list[int]
    result: str
    """The bot's: "win" (first alone), "draw" (first, shared) or "loss"."""
    faults: list[FaultAnswer]


class GameRow(GameFacts, frozen=True):
    """One game of a bot's list (`GET /api/bots/NAME/games`)."""

    record: str
    """The game's record to download, relative to the server's address."""
    observations: dict[int, str]
    """Seat → its record with what it was sent, for the seats the asker may download: their
    own bots' (an organiser: every seat)."""
    season: int | None = None
    """The season whose ladder played it (game ids start again each season; None: a
    scrimmage's)."""


class GamesAnswer(msgspec.Struct, frozen=True):
    """`GET /api/bots/NAME/games`: the bot's games the query chose, newest first."""

    bot: str
    games: list[GameRow]
    more: int | None
    """Pass as `before` for the next, older page (None: this was the last)."""


class ScrimmageAnswer(msgspec.Struct, frozen=True):
    """`POST /api/bots/NAME/scrimmages` (the scrimmage asked for) and
    `GET /api/bots/NAME/scrimmages/ID` (it now, with its games): for its author and the
    organisers."""

    id: int
    """Its id: what `url` names it by."""
    bot: str
    number: int
    """The bot's version that plays it, by its number (1, 2, ... in upload order)."""
    opponent: str
    games: int
    """The games asked for (whole deals in every seat rotation: a few more may be played)."""
    status: str
    """queued, playing, done or failed."""
    reason: str | None
    """Why it failed."""
    url: str
    """Where to follow it (this answer, with its games so far), relative to the server's
    address."""
    page: str
    """The bot's page, where its author sees it listed."""
    played: list[GameRow]
    """Its games so far, newest first (none in the answer to asking for it)."""
