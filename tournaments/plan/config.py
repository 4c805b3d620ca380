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

    [participants]            # name = built-in bot or command line (run without a shell)
    random = "random"
    greedy = "greedy"
    mine = "python3 my_bot.py"

    [time]
    move_ms = 1000

    [limits]                  # per bot; 0 = unlimited (see referee.limits for the defaults)
    memory_mb = 2048
    cpu_s = 300

A participant may instead be a table with its own limits, which override `[limits]`, and its
own time control keys, which override `[time]` (time odds)::

    [participants.big]
    command = "java -jar big.jar"
    memory_mb = 8192
    time = {move_ms = 200}

Times are checked against `TIME_RANGES`: `move_ms` and `startup_ms` at least 1 (0 would forfeit
every decision), `bank_ms` 0 for no bank, `increment_ms` 0 for none.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from protocol.errors import RequestError
from protocol.messages import TimeControl
from referee import (
    ResourceLimits,
    SandboxChoice,
    SandboxRequest,
    SandboxUnavailable,
    TimeMode,
    bwrap_path,
    choose,
)
from referee.games import BadOptions, UnknownGame, find_game, parse_options
from tournaments.plan.botcommands import BotCommand, written

ScheduleKind = Literal["round-robin", "gauntlet"]
ExecutorKind = Literal["local", "inprocess", "dask"]

Positive = Annotated[int, msgspec.Meta(ge=1)]
NonNegative = Annotated[int, msgspec.Meta(ge=0)]
BotName = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[^,\s]+$")]
"""Bot names appear in tables and on the command line: no spaces, no commas."""


class ConfigError(RequestError):
    """The tournament file (or a flag overriding it) is wrong; the message says where and why."""


TIME_RANGES: dict[str, tuple[int, int, str]] = {
    "move_ms": (1, 3_600_000, "time per decision"),
    "bank_ms": (0, 86_400_000, "time bank; 0: no bank"),
    "increment_ms": (0, 3_600_000, "added to the bank per decision; 0: none"),
    "startup_ms": (1, 600_000, "time from start to `ready`"),
    "first_move_ms": (0, 600_000, "added to a game's first decision (JIT, class loading); 0: none"),
}
"""Each time control key: its smallest and largest value (ms) and what it means."""


def time_error(key: str, value: int) -> str | None:
    """Why `value` is impossible for time control key `key`, or None when it is fine."""
    low, high, meaning = TIME_RANGES[key]
    if low <= value <= high:
        return None
    zero = " (0 would forfeit at once)" if low == 1 else ""
    return f"{key} = {value}: must be from {low} to {high} ms{zero} ({meaning})"


class TimeOverride(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A participant's own time control keys (time odds), laid over the tournament's `[time]`."""

    move_ms: int | None = None
    bank_ms: int | None = None
    increment_ms: int | None = None
    startup_ms: int | None = None
    first_move_ms: int | None = None

    def over(self, base: TimeControl) -> TimeControl:
        own = {key: getattr(self, key) for key in TIME_RANGES if getattr(self, key) is not None}
        return msgspec.structs.replace(base, **own)


class Participant(BotCommand, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A participant written as a table: its command (`BotCommand`: command, args, name, cwd,
    files), and the limits and time it needs beyond `[limits]` and `[time]`."""

    memory_mb: NonNegative | None = None
    cpu_s: NonNegative | None = None
    processes: NonNegative | None = None
    file_mb: NonNegative | None = None
    disk_mb: NonNegative | None = None
    time: TimeOverride | None = None

    def resources(self, defaults: ResourceLimits) -> ResourceLimits:
        """`defaults` with this participant's own limits in place of the tournament's."""
        own = {
            name: getattr(self, name)
            for name in ResourceLimits.__struct_fields__
            if getattr(self, name) is not None
        }
        return msgspec.structs.replace(defaults, **own)


class Grade(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A `[[league.grades]]` entry: `grade = "B"`, `beats = {staff-medium = 50}` (a score % of
    at least 50 against the benchmark staff-medium)."""

    grade: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]
    beats: dict[str, Annotated[float, msgspec.Meta(ge=0, le=100)]]


FinalRule = Literal["sequential", "doubling"]
"""How a season's final chooses its games (`LeagueSettings.final`)."""


class LeagueSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A league file's `[league]` table: the tournament is fed by authors' uploads and never
    ends (`arena serve`); its `[participants]`, if any, are house bots that always play."""

    batch: Positive = 1024
    """Most deals a ladder unit plays of one seat-set (its blocks grow as it is repeated:
    `league.pairing`). Each seat-set's rotation is one unit of bot processes, started once for
    its deals: a Python bot's start costs as much CPU as some tens of quick games, so small
    units leave the ladder far below `arena run`'s games/s (`arena bench --only league`
    measures it; docs/benchmarks.md). A new version does not wait for a unit's end: an upload
    or a check ends the units in hand after their game in play."""
    upload_mb: Positive = 20
    """Largest upload (an archive or a single file)."""
    unpacked_mb: Positive = 100
    """Largest total size of an upload's files once unpacked."""
    files: Positive = 2000
    """Most files in one upload."""
    uploads_per_hour: NonNegative = 20
    """Uploads one author may make in an hour (0: none)."""
    build_s: Positive = 300
    """Wall-clock seconds a version's build step (`build` in its bot.toml) may take: it is
    killed beyond, and the version rejected."""
    log_kb: Positive = 64
    """A bot's stderr kept per game (what is beyond is cut, and the log says so)."""
    logs_mb: Positive = 20
    """A version's stderr kept over all its games: past it, its logs are no longer written
    (each game notes that its log was dropped)."""
    runtimes: list[str] = msgspec.field(default_factory=list)
    """Folders of runtimes an uploaded bot may use beside the system's `/usr`, `/bin`, `/lib*`
    and `/etc` (read-only): e.g. `["/opt/jdk-21"]`. Nothing else of the host is visible."""
    scrimmages_per_hour: NonNegative = 5
    """Scrimmages (unranked games against a chosen bot) one author may ask for in an hour."""
    scrimmage_games: Positive = 20
    """Most games one scrimmage may ask for."""
    benchmarks: list[str] = msgspec.field(default_factory=list)
    """House bots (participants) every author's bot is measured against on the benchmarks
    page: its score against each."""
    grades: list[Grade] = msgspec.field(default_factory=list)
    """The organiser's thresholds, best first: a bot's grade is the first whose every score
    it reaches."""
    certify: Literal["top", "order", "grades"] = "top"
    """What a season's final certifies (`rank.certify`): the top `certify_top` places in
    order, the whole order, or each finalist's side of every grade threshold against its
    benchmark."""
    certify_top: Positive = 10
    final: FinalRule = "sequential"
    """How a season's final chooses its games: the sequential final (`rank.sequential`: the
    tables that would most narrow what it certifies, until its certificate proves it), or the
    final before it (`rank.doubling`: every seat-set in rounds of doubling deals until every
    two neighbours are told apart at 95%, kept to be measured against it). Either publishes
    its certificate."""
    fingerprints: bool = False
    """Fingerprint every version that passes its check, for the organisers' copy check
    (`arena league clones`, /organiser/clones; `league.fingerprint`): some tens of games more
    per version, against house bots, which is why it is asked for."""
    one_per_author: bool = False
    """The leaderboard ranks one bot per author (its best placed), the author's others listed
    apart, and the season's final plays only that bot of each author (`league.headline`)."""


class Tournament(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One tournament as written in its TOML file (see the module docstring for an example)."""

    game: str
    participants: dict[BotName, str | Participant] = msgspec.field(default_factory=dict)
    """Bot name → built-in bot (`random`, `greedy`, `mcts`, `expert`), a command line (split
    into words and run without a shell: `tournaments.plan.botcommands`), or a `Participant`."""
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
    executor: ExecutorKind = "local"
    """Where the matches run (`tournaments.executors`): "local", a referee process per match at
    once; "inprocess", every match in this process; "dask", tasks on a Dask cluster."""
    scheduler: str | None = None
    """executor = "dask": the scheduler's address (tcp://host:8786); none: a `LocalCluster` of
    `concurrency` worker processes on this machine."""
    seed: NonNegative = 0
    db: str | None = None
    """The SQLite store, relative to the tournament file; default: the file with suffix .sqlite."""
    limits: ResourceLimits = ResourceLimits()
    """The `[limits]` table: every bot's resource limits (0 = unlimited)."""
    sandbox: SandboxRequest = "auto"
    """"auto": bubblewrap where it works here, else none with a warning; "bwrap": bubblewrap or
    refuse to run; "none": plain processes, silently (trusted bots)."""
    time_mode: TimeMode = "wall"
    """"cpu" charges bots their CPU time instead of the wall-clock time of a decision."""
    probation_after: NonNegative = 3
    """A bot whose games end in its fault this many times in a row is reported (0: never)."""
    league: LeagueSettings | None = None
    """Set in a league file (`arena serve`): its participants come from uploads."""

    def command(self, name: str) -> str:
        """The command of participant `name`, however it was written, as one line."""
        return written(self.participants[name])

    def resources(self, name: str) -> ResourceLimits:
        """The resource limits of participant `name`: its own, else the tournament's."""
        entry = self.participants[name]
        return self.limits if isinstance(entry, str) else entry.resources(self.limits)

    def own_time(self, name: str) -> TimeControl | None:
        """Participant `name`'s time control when it has time odds, else None (the
        tournament's)."""
        time = self.time_for(name)
        return None if time == self.time else time

    def time_for(self, name: str) -> TimeControl:
        """The time control of participant `name`: its own keys over the tournament's `[time]`."""
        entry = self.participants.get(name)  # a bot added with `arena add` has the tournament's
        if entry is None or isinstance(entry, str) or entry.time is None:
            return self.time
        return entry.time.over(self.time)

    @property
    def workers(self) -> int:
        return self.concurrency or os.cpu_count() or 1


DEALING_VERSION = 3
"""How deal seeds derive from the tournament seed: 3 = keyed by the store's secret and the table
(2 was by the secret alone, the same deal at every table, so a bot added after a report played
published deals; 1 a public hash of the seed alone, which a bot could search). A store of
version 2 is carried on (`CARRIED_DEALING`): its deals already begun keep their stored seeds, so
the rotations of one deal still share it, and every deal begun from then on is dealt by version
3. Stores of version 1 are refused."""
CARRIED_DEALING = {"dealing": 2}


def fixed_settings(tournament: Tournament) -> dict[str, Any]:
    """What a store is bound to: changing any of these would make stored games incomparable.

    Participants, deals, schedule, concurrency and executor may change between runs (more games
    are simply played; where they are played does not change them); game, players, options,
    time control and seed may not, nor the rules version of the engine or the way deal seeds
    are derived (`DEALING_VERSION`).
    """
    return {
        "game": tournament.game,
        "players": tournament.players,
        "options": msgspec.to_builtins(
            parse_options(find_game(tournament.game), tournament.options)
        ),
        "time": _time_setting(tournament.time),
        "seed": tournament.seed,
        "rules": find_game(tournament.game).version,
        "dealing": DEALING_VERSION,
    }


def _time_setting(time: TimeControl) -> dict[str, Any]:
    """The time control a store is bound to; `first_move_ms` only when set, so that stores made
    before it existed (without the key) go on binding the same."""
    setting: dict[str, Any] = msgspec.to_builtins(time)
    if not time.first_move_ms:
        del setting["first_move_ms"]
    return setting


def decode(data: bytes | str, source: str = "tournament file") -> Tournament:
    """Decode and check TOML text; `source` names it in error messages."""
    try:
        tournament = msgspec.toml.decode(data, type=Tournament)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{source}: {exc}{did_you_mean(str(exc))}") from None
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    check(tournament, source)
    return tournament


_UNKNOWN = re.compile(r"unknown field `([^`]*)`(?: - at `([^`]*)`)?")


def _fields_at(path: str) -> tuple[str, ...]:
    """The keys allowed at a decoder path such as `$`, `$.time` or `$.participants[...].time`."""
    parts = re.sub(r"\[[^\]]*\]", ".*", path).split(".")[1:]
    if parts[:1] == ["participants"] and len(parts) >= 2:
        return (
            TimeOverride.__struct_fields__
            if parts[2:] == ["time"]
            else Participant.__struct_fields__
        )
    tables: dict[str, tuple[str, ...]] = {
        "time": TimeControl.__struct_fields__,
        "limits": ResourceLimits.__struct_fields__,
    }
    return tables.get(".".join(parts), Tournament.__struct_fields__ if not parts else ())


def did_you_mean(message: str) -> str:
    """`; did you mean `concurrency`?` for a misspelt key in a decoder message, else ""."""
    found = _UNKNOWN.search(message)
    if found is None:
        return ""
    close = difflib.get_close_matches(found[1], _fields_at(found[2] or "$"), n=1)
    return f"; did you mean `{close[0]}`?" if close else ""


MAX_FILE_BYTES = 1 << 20
"""A tournament file is a page of TOML; one larger than this is refused unread (it may be
anything, endless as /dev/zero)."""


def _read(path: Path) -> bytes:
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read tournament file: {exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{path}: over {MAX_FILE_BYTES} bytes, which no tournament file is")
    return data


def load(path: Path) -> Tournament:
    return decode(_read(path), str(path))


def load_league(path: Path) -> Tournament:
    """A league file: a tournament file with a `[league]` table, which is looked for first (a
    tournament file without one is no league, whatever else is wrong with it)."""
    data = _read(path)
    try:
        table = msgspec.toml.decode(data)
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if not isinstance(table, dict) or "league" not in table:
        raise ConfigError(
            f"{path} has no [league] table: it is a tournament file (`arena run {path}`); a "
            "league file is a tournament file with a [league] table (docs/server.md)"
        )
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
    if tournament.scheduler is not None and tournament.executor != "dask":
        raise ConfigError(f'{source}: scheduler is only for executor = "dask"')
    if len(names) < tournament.players and tournament.league is None:
        raise ConfigError(
            f"{source}: {tournament.players} players per game need at least "
            f"{tournament.players} participants, got {len(names)}"
        )
    for name in tournament.participants:
        if not tournament.command(name).strip():
            raise ConfigError(f"{source}: participant {name!r} has an empty command")
    check_time(tournament.time, f"{source}: [time]")
    for name in tournament.participants:
        if tournament.time_for(name) is not tournament.time:
            check_time(tournament.time_for(name), f"{source}: participant {name!r}: time")
    if tournament.league is not None:
        check_benchmarks(tournament.league, names, source)
    if tournament.sandbox == "bwrap":
        try:
            bwrap_path()
        except SandboxUnavailable as exc:
            raise ConfigError(f'{source}: sandbox = "bwrap": {exc}') from None


def resolved_sandbox(requested: SandboxRequest, asked: str) -> SandboxChoice:
    """`requested` resolved on this machine (`referee.choose`): the one place a sandbox request
    becomes a sandbox. Where bubblewrap does not work, "bwrap" is a ConfigError naming how it
    was asked for (`asked`: `sandbox = "bwrap"` in a file, `--sandbox bwrap` as a flag)."""
    try:
        return choose(requested)
    except SandboxUnavailable as exc:
        raise ConfigError(f"{asked}: {exc}") from None


def check_benchmarks(league: LeagueSettings, house: list[str], source: str) -> None:
    """Benchmarks are house bots, and grades name only benchmarks."""
    for name in league.benchmarks:
        if name not in house:
            raise ConfigError(
                f"{source}: [league] benchmarks: {name!r} is not one of the house bots "
                f"([participants]: {', '.join(house) or 'none'})"
            )
    for grade in league.grades:
        if not grade.beats:
            raise ConfigError(f"{source}: grade {grade.grade!r} beats no benchmark")
        for name in grade.beats:
            if name not in league.benchmarks:
                raise ConfigError(
                    f"{source}: grade {grade.grade!r}: {name!r} is not one of the benchmarks "
                    f"({', '.join(league.benchmarks) or 'none: set [league] benchmarks'})"
                )


def check_time(time: TimeControl, where: str) -> None:
    """Refuse an impossible time control (a negative time would forfeit every game at once)."""
    for key in TIME_RANGES:
        error = time_error(key, getattr(time, key))
        if error is not None:
            raise ConfigError(f"{where}: {error}")


def override(tournament: Tournament, **changes: Any) -> Tournament:
    """The tournament with command-line values replacing the file's (None means "not given")."""
    given = {key: value for key, value in changes.items() if value is not None}
    time_keys = set(TIME_RANGES)
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
