"""Game records (JSON lines) and their replay through the rules engine.

A record holds what is needed to re-play a game exactly — game, options, seed, every decision's
actions — plus what happened around it (times, faults, fallback moves) and the result. Since
every engine draws its randomness from the seed, `replay` re-applies the recorded actions and
checks that the engine arrives at the same result; the first divergence is reported.

Format (one JSON object per line, `type` first):
    {"type":"header","record":1,"protocol":1,"game":"azul","options":{...},"seed":7,
     "match":"m1","names":["a","b"],"commands":[[...],[...]],"time":{...},"rules":1,
     "starts":[{"type":"start",...,"seat":0,"seed":...},...]}
    {"type":"decision","n":1,"actions":{"0":{...}},"ms":{"0":12.5},"fallback":[]}
    {"type":"fault","seat":1,"kind":"timeout","reason":"...","decision":5}
    {"type":"result","scores":[12,9],"ranks":[1,2],"tiebreak":"","decisions":40}
Actions are keyed by seat (JSON object keys are strings); `ms` holds the time charged to the
seats that were asked; `fallback` lists the seats whose action the fallback policy chose.
`starts` holds the `start` message each seat was sent, as sent (its own seed): a record shown to
anyone but the referee keeps only the viewer's own seats' (`tournaments.report.public`).
`rules` is the engine's rules `version` (records written before it existed say nothing and were
played under version 1); a record of other rules is refused rather than replayed wrongly.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from operator import attrgetter
from typing import Any

import msgspec

from protocol.errors import ArenaError
from protocol.messages import Start, TimeControl
from referee.faults import Fault, forfeit_result
from referee.games import (
    BadOptions,
    BadPlayerCount,
    Game,
    GameResult,
    IllegalAction,
    UnknownGame,
    find_game,
    parse_options,
)

RECORD_VERSION = 1

MAX_RECORD_BYTES = 32 << 20
"""The largest record read (32 MiB): about 20 times the largest real one (a 6-player Alhambra
game exported with its observations, 1.8 MB). Beyond it the bytes are refused unparsed: a
crafted file or a decompressed bomb must not take the reader's memory and time."""


class Header(msgspec.Struct, tag="header", tag_field="type"):
    """The first line: everything needed to set the game up again."""

    record: int
    protocol: int
    game: str
    options: dict[str, Any]
    """The options as the engine understood them (defaults filled in)."""
    seed: int
    match: str
    names: list[str]
    commands: list[list[str]]
    time: TimeControl
    rules: int = 1
    """The game's rules `version` the record was played under (1 before it was recorded)."""
    seat_times: list[TimeControl] | None = None
    """Each seat's time control when they differ (time odds); `time` is then seat 0's."""
    starts: list[Start] = []
    """The `start` message sent to each seat that was sent one, as sent (absent from records
    written before it was kept, and in a record shown to others than a seat's author)."""


class DecisionLine(msgspec.Struct, tag="decision", tag_field="type"):
    """One decision: the action of every seat that acted, applied together."""

    n: int
    actions: dict[int, msgspec.Raw]
    ms: dict[int, float] = {}
    fallback: list[int] = []


class FaultLine(msgspec.Struct, tag="fault", tag_field="type"):
    """A seat's fault; from here on that seat has forfeited."""

    seat: int
    kind: str
    reason: str
    decision: int


class ResultLine(msgspec.Struct, tag="result", tag_field="type"):
    """The last line: the result as the referee declared it (forfeits included)."""

    scores: list[int]
    ranks: list[int]
    tiebreak: str
    decisions: int


class _DecisionOut(msgspec.Struct, tag="decision", tag_field="type"):
    """`DecisionLine` as written: the actions are encoded with the line (the bytes are the same
    as encoding each action to `msgspec.Raw` first, one encoder call cheaper)."""

    n: int
    actions: dict[int, Any]
    ms: dict[int, float]
    fallback: list[int]


RecordLine = Header | DecisionLine | FaultLine | ResultLine

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(RecordLine)


class BadRecord(ArenaError):
    """The bytes are not a game record this version can read (the line number says where).

    The message may quote the record, and a crafted one may hold newlines or terminal escapes:
    it is made `printable`, so that it is shown as one line of plain text."""

    def __init__(self, message: str) -> None:
        super().__init__(printable(message))


def printable(text: str) -> str:
    """`text` with each character that is not printable escaped as Python writes it (`\\n`,
    `\\x1b`): text from a record shown on a terminal (a name, an error) cannot drive it."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


class RulesMismatch(BadRecord):
    """A well-formed record of another rules version than the engine's: replaying it could not
    reproduce the game, so it is refused instead of reported as diverging."""


class RecordWriter:
    """Builds a record line by line, in memory (a game's record is a few hundred KiB at most).

    The lines are kept as messages and encoded together by `data`, in one call for the game
    rather than one per decision. What they hold must not change meanwhile: actions are frozen
    structs, and the containers are the writer's own (or given up to it)."""

    def __init__(self, header: Header) -> None:
        self._lines: list[msgspec.Struct] = [header]

    def decision(
        self, n: int, actions: dict[int, Any], ms: dict[int, float], fallback: list[int]
    ) -> None:
        """Decision `n`: `actions` (the writer's to keep), the time `ms` charged to each seat
        asked, and the seats whose action the fallback chose."""
        rounded = {seat: round(value, 3) for seat, value in ms.items()}
        self._lines.append(_DecisionOut(n, actions, rounded, sorted(fallback)))

    def turn(self, n: int, actions: dict[int, Any], ms: float) -> None:
        """`decision` of the usual decision: one seat asked (the one in `actions`), and its
        answer played."""
        [seat] = actions
        self._lines.append(_DecisionOut(n, actions, {seat: round(ms, 3)}, []))

    def start(self, message: Start) -> None:
        """The `start` message as it was sent to its seat (kept in the header)."""
        header = self._lines[0]
        assert isinstance(header, Header)
        header.starts.append(message)
        header.starts.sort(key=attrgetter("seat"))  # the seats start at once, in any order

    def fault(self, fault: Fault) -> None:
        self._lines.append(FaultLine(fault.seat, fault.kind, fault.reason, fault.decision))

    def result(self, result: GameResult, decisions: int) -> None:
        self._lines.append(
            ResultLine(list(result.scores), list(result.ranks), result.tiebreak, decisions)
        )

    def data(self) -> bytes:
        return _encoder.encode_lines(self._lines)


# ---- reading and replaying ------------------------------------------------------------------


class ParsedRecord(msgspec.Struct):
    header: Header
    decisions: list[DecisionLine]
    faults: list[Fault]
    result: ResultLine | None


def with_commands(record: bytes, commands: list[list[str]]) -> bytes:
    """`record` with its header's seat commands replaced: a game played from a worker's copy of
    the bots recorded as the coordinator runs them (the same game wherever it was played)."""
    header, newline, rest = record.partition(b"\n")
    decoded = msgspec.json.decode(header, type=Header)
    decoded.commands = commands
    return _encoder.encode(decoded) + newline + rest


def parse_record(record: bytes) -> ParsedRecord:
    """Split a record into its parts; `BadRecord` with the line number if it is not one.

    The header is checked as the engine would set the game up (a known game, its rules
    version, its options, its number of players), so that a reader can start the game from it
    without an error of the engine's escaping as a traceback."""
    if len(record) > MAX_RECORD_BYTES:
        raise BadRecord(f"over {MAX_RECORD_BYTES} bytes, more than any game record")
    header: Header | None = None
    decisions: list[DecisionLine] = []
    faults: list[Fault] = []
    result: ResultLine | None = None
    for number, item in _lines(record):
        if number == 1 and not isinstance(item, Header):
            raise BadRecord("a record starts with its header line")
        match item:
            case Header() if header is None:
                if item.record != RECORD_VERSION:
                    raise BadRecord(
                        f"record version {item.record}; this referee reads version {RECORD_VERSION}"
                    )
                header = item
            case DecisionLine():
                decisions.append(item)
            case FaultLine():
                faults.append(Fault(item.seat, item.kind, item.reason, item.decision))
            case ResultLine():
                result = item
            case _:
                raise BadRecord(f"line {number} of the record: a second header")
    if header is None:
        raise BadRecord("empty record")
    _check_setup(header)
    return ParsedRecord(header, decisions, faults, result)


def _lines(record: bytes) -> Iterator[tuple[int, RecordLine]]:
    """Each line of the record decoded, with its number: all at once where they surely number
    as they stand (plain ASCII, no blank line: what the referee writes, and what a coordinator
    checks by the thousand), else one by one, a bad line named by its number."""
    if record.isascii() and b"\n\n" not in record and not record.startswith(b"\n"):
        try:
            yield from enumerate(_decoder.decode_lines(record), start=1)
            return
        except (msgspec.DecodeError, RecursionError):
            pass  # the lines one by one say which is bad
    for number, line in enumerate(record.splitlines(), start=1):
        if not line.strip():
            continue
        if not line.isascii():  # msgspec leaves raw actions and tag values unchecked
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BadRecord(f"line {number} of the record: not UTF-8 ({exc})") from None
        try:
            yield number, _decoder.decode(line)
        except msgspec.DecodeError as exc:
            raise BadRecord(f"line {number} of the record: {exc}") from None
        except RecursionError:
            raise BadRecord(f"line {number} of the record: nested too deeply") from None


def _check_setup(header: Header) -> None:
    """`BadRecord` unless the engine can set up the game the header describes."""
    try:
        game = find_game(header.game)
        if header.rules != game.version:
            raise RulesMismatch(
                f"the record was played under {game.id} rules version {header.rules}; this "
                f"engine plays version {game.version}, so replaying it would not reproduce the game"
            )
        parse_options(game, header.options)
        game.check_players(len(header.names))
    except (UnknownGame, BadOptions, BadPlayerCount) as exc:
        raise BadRecord(f"the header: {exc}") from None


class ReplayReport(msgspec.Struct):
    """What replaying a record showed: whether the engine reproduces the recorded result."""

    game: str
    options: dict[str, Any]
    seed: int
    names: list[str]
    identical: bool
    """The replay applied every decision and arrived at exactly the recorded result."""
    recorded: GameResult | None
    replayed: GameResult | None
    decisions: int
    """Decisions replayed (up to the divergence, if any)."""
    faults: list[Fault]
    divergence: str | None = None
    """The first difference found, in words; None when identical."""


class Position(msgspec.Struct):
    """The game before decision `line` (None: after the last one); `state` is live: read it
    before taking the next position, which applies `line` to it."""

    game: Any
    state: Any
    line: DecisionLine | None


@functools.cache
def _action_decoder(action: type[Any]) -> msgspec.json.Decoder[Any]:
    """One decoder per game's action type (made once: a replay decodes every action)."""
    return msgspec.json.Decoder(action)


def positions(parsed: ParsedRecord) -> Iterator[Position]:
    """Every position of the record's game: the start, then after each decision — the one walk
    through a record that `replay`, `arena replay --show`, the report's viewer and `arena export
    --observations` share.

    Raises `BadRecord` where the engine refuses the record, naming the decision: an action it
    refuses, or actions of other seats than it asks (`WrongSeats`). (`parse_record` has checked
    the header: the game, its rules version, options and players are the engine's.)
    """
    header = parsed.header
    game: Game[Any] = find_game(header.game)
    state = game.new(len(header.names), header.seed, parse_options(game, header.options))
    decoder = _action_decoder(game.Action)
    for line in parsed.decisions:
        yield Position(game, state, line)
        try:
            actions = {seat: decoder.decode(raw) for seat, raw in line.actions.items()}
            game.apply(state, actions)
        except (msgspec.ValidationError, IllegalAction) as exc:
            raise BadRecord(f"decision {line.n}: the recorded action is refused: {exc}") from None
    yield Position(game, state, None)


def replay(record: bytes) -> ReplayReport:
    """Re-play a record through its engine and compare the result with the recorded one."""
    parsed = parse_record(record)
    header = parsed.header
    recorded = None
    if parsed.result is not None:
        recorded = GameResult(parsed.result.scores, parsed.result.ranks, parsed.result.tiebreak)
    replayed, done, divergence = None, -1, None
    try:
        for position in positions(parsed):
            done += 1
            last = position
        faulty = {fault.seat for fault in parsed.faults}
        final = last.game.result(last.state)
        if final is None and not faulty:
            divergence = f"the game is not over after {done} decisions and no seat faulted"
        else:
            replayed = forfeit_result(final, last.game.scores(last.state), faulty)
            if replayed != recorded:
                divergence = f"the replayed result {replayed} differs from the recorded {recorded}"
    except BadRecord as exc:
        divergence = exc.args[0]  # `done` counts the decisions applied before it
    return ReplayReport(
        game=header.game,
        options=header.options,
        seed=header.seed,
        names=header.names,
        identical=divergence is None,
        recorded=recorded,
        replayed=replayed,
        decisions=done,
        faults=parsed.faults,
        divergence=divergence,
    )


def replay_states(record: bytes) -> Iterator[tuple[int, str]]:
    """(decision number, rendered state) from the start (0) through every replayed decision.

    For `arena replay --show`; stops early at a divergence (see `replay` for the report).
    """
    n = 0
    try:
        for position in positions(parse_record(record)):
            yield n, position.game.render(position.state)
            if position.line is not None:
                n = position.line.n
    except BadRecord:
        return
