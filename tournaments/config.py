"""The tournament file: TOML decoded straight into msgspec Structs, then checked against the game.

Decoding is strict (an unknown key is an error naming it and where it is), so a typo such as
`deal = 4` for `deals = 4` fails loudly instead of silently playing the default. Everything that
can be checked without running a bot is checked here, so `arena run` fails before it starts any
process.

Example::

    game = "azul"
    players = 2
    deals = 4                 # deals per seat-set; each is played in every seat rotation
    seed = 7

    [participants]            # name = built-in bot or shell command
    random = "random"
    greedy = "greedy"
    mine = "python3 my_bot.py"

    [time]
    move_ms = 1000

    [limits]                  # per bot; 0 = unlimited (see referee.limits for the defaults)
    memory_mb = 2048
    cpu_s = 300

A participant may instead be a table with its own limits, which override `[limits]`::

    [participants.big]
    command = "java -jar big.jar"
    memory_mb = 8192
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from protocol.messages import TimeControl
from referee.games import BadOptions, UnknownGame, find_game, parse_options
from referee.limits import ResourceLimits
from referee.process import TimeMode
from referee.sandbox import SandboxKind, SandboxUnavailable, bwrap_path

ScheduleKind = Literal["round-robin", "gauntlet"]

Positive = Annotated[int, msgspec.Meta(ge=1)]
NonNegative = Annotated[int, msgspec.Meta(ge=0)]
BotName = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[^,\s]+$")]
"""Bot names appear in tables and on the command line: no spaces, no commas."""


class ConfigError(ValueError):
    """The tournament file (or a flag overriding it) is wrong; the message says where and why."""


class Participant(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A participant written as a table: its command and the limits it needs beyond `[limits]`."""

    command: str
    memory_mb: NonNegative | None = None
    cpu_s: NonNegative | None = None
    processes: NonNegative | None = None
    file_mb: NonNegative | None = None

    def resources(self, defaults: ResourceLimits) -> ResourceLimits:
        """`defaults` with this participant's own limits in place of the tournament's."""
        own = {
            name: getattr(self, name)
            for name in ResourceLimits.__struct_fields__
            if getattr(self, name) is not None
        }
        return msgspec.structs.replace(defaults, **own)


class Tournament(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One tournament as written in its TOML file (see the module docstring for an example)."""

    game: str
    participants: dict[BotName, str | Participant]
    """Bot name → built-in bot name (`random`, `greedy`), a shell command, or a `Participant`."""
    players: Positive = 2
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    schedule: ScheduleKind = "round-robin"
    candidate: str | None = None
    """The bot a gauntlet is about; every seat-set holds it and players-1 others."""
    deals: Positive = 2
    """Deals (seeds) per seat-set; each deal is played in every seat rotation."""
    max_seat_sets: Positive = 1000
    """Above this many seat-sets, a balanced sample of this size is played instead of all."""
    time: TimeControl = TimeControl()
    concurrency: NonNegative = 0
    """Matches played at once; 0 means one per CPU core."""
    seed: NonNegative = 0
    db: str | None = None
    """The SQLite store, relative to the tournament file; default: the file with suffix .sqlite."""
    limits: ResourceLimits = ResourceLimits()
    """The `[limits]` table: every bot's resource limits (0 = unlimited)."""
    sandbox: SandboxKind = "none"
    """"bwrap" runs every bot in a bubblewrap sandbox (which must be installed)."""
    time_mode: TimeMode = "wall"
    """"cpu" charges bots their CPU time instead of the wall-clock time of a decision."""
    probation_after: NonNegative = 3
    """A bot whose games end in its fault this many times in a row is reported (0: never)."""

    def command(self, name: str) -> str:
        """The command of participant `name`, however it was written."""
        entry = self.participants[name]
        return entry if isinstance(entry, str) else entry.command

    def resources(self, name: str) -> ResourceLimits:
        """The resource limits of participant `name`: its own, else the tournament's."""
        entry = self.participants[name]
        return self.limits if isinstance(entry, str) else entry.resources(self.limits)

    @property
    def workers(self) -> int:
        return self.concurrency or os.cpu_count() or 1


def fixed_settings(tournament: Tournament) -> dict[str, Any]:
    """What a store is bound to: changing any of these would make stored games incomparable.

    Participants, deals, schedule and concurrency may change between runs (more games are simply
    played); game, players, options, time control and seed may not.
    """
    return {
        "game": tournament.game,
        "players": tournament.players,
        "options": msgspec.to_builtins(
            parse_options(find_game(tournament.game), tournament.options)
        ),
        "time": msgspec.to_builtins(tournament.time),
        "seed": tournament.seed,
    }


def decode(data: bytes | str, source: str = "tournament file") -> Tournament:
    """Decode and check TOML text; `source` names it in error messages."""
    try:
        tournament = msgspec.toml.decode(data, type=Tournament)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    check(tournament, source)
    return tournament


def load(path: Path) -> Tournament:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read tournament file: {exc}") from None
    return decode(data, str(path))


def check(tournament: Tournament, source: str = "tournament") -> None:
    """The checks a Struct type cannot express: the game, its player range, options, schedule."""
    try:
        game = find_game(tournament.game)
        parse_options(game, tournament.options)
    except (UnknownGame, BadOptions) as exc:
        raise ConfigError(f"{source}: {exc}") from None
    if not game.min_players <= tournament.players <= game.max_players:
        raise ConfigError(
            f"{source}: {game.id} is for {game.min_players}–{game.max_players} players, "
            f"not players = {tournament.players}"
        )
    names = list(tournament.participants)
    if tournament.schedule == "gauntlet":
        if tournament.candidate not in tournament.participants:
            raise ConfigError(
                f"{source}: a gauntlet needs candidate = one of the participants "
                f"({', '.join(names)}), got {tournament.candidate!r}"
            )
    elif tournament.candidate is not None:
        raise ConfigError(f'{source}: candidate is only for schedule = "gauntlet"')
    if len(names) < tournament.players:
        raise ConfigError(
            f"{source}: {tournament.players} players per game need at least "
            f"{tournament.players} participants, got {len(names)}"
        )
    for name in tournament.participants:
        if not tournament.command(name).strip():
            raise ConfigError(f"{source}: participant {name!r} has an empty command")
    if tournament.sandbox == "bwrap":
        try:
            bwrap_path()
        except SandboxUnavailable as exc:
            raise ConfigError(f'{source}: sandbox = "bwrap": {exc}') from None


def override(tournament: Tournament, **changes: Any) -> Tournament:
    """The tournament with command-line values replacing the file's (None means "not given")."""
    given = {key: value for key, value in changes.items() if value is not None}
    time_keys = {"move_ms", "bank_ms", "increment_ms", "startup_ms"}
    time_changes = {key: given.pop(key) for key in time_keys & given.keys()}
    if time_changes:
        given["time"] = msgspec.structs.replace(tournament.time, **time_changes)
    try:
        # Round-trip through the decoder so flags get the same validation as the file.
        data = msgspec.to_builtins(msgspec.structs.replace(tournament, **given))
        result = msgspec.convert(data, type=Tournament)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"command line: {exc}") from None
    check(result, "command line")
    return result


def db_path(tournament: Tournament, file: Path) -> Path:
    """Where the store of the tournament in `file` lives (relative paths are from the file)."""
    if tournament.db is None:
        return file.with_suffix(".sqlite")
    return file.parent / tournament.db
