"""A version's behavioural fingerprint: its decisions in the positions of secret deals, played
in games that look to the bot like any other of its games.

Why the positions are reached by play and never set up: a state injected in the middle of a
game shows itself to any bot that remembers its game (its first `act` would not be the game's
first decision, or the action applied would not be the one it sent). So the fingerprint plays
whole, ordinary games: the version in one seat, house bots (`OPPONENT`, deterministic given
their seeds) in the others, on deals drawn from the league's clone secret, which no bot and no
author sees and no game record or page publishes. One process plays a seat's deals one after
the other, as the ladder's units do, at the league's time control and limits; the records are
not kept.

A position is named by its deal, the seat and every action applied before it (`answers_of`),
so two versions share a position exactly when they and the house bots played the same moves up
to it: for every deal, the opening decisions, then as long as the two agree. A copy shares its
original's whole games; an independent bot shares the openings and what follows while they
agree. Each deal is played `repeats` times with other seeds for the version (the house bots'
stay): a deterministic bot answers the same way each time, a stochastic one shows the spread
of its choices at the positions it reaches again (`tournaments.league.clones` compares those
distributions). Few deals played many times, rather than many deals a few times: a bot that
breaks ties at random reaches a position again only a few moves into a deal, and the twos of
plays that do so grow with the square of the plays (a deterministic bot needs the deals, not
the plays, but its games are long and every position of them counts).

Its cost is capped: the fingerprint looks at its bots' CPU as they play (`Meter`) and, once
they have used `CPU_S`, kills the version's process where it is (its game ends as any game of
a crashed bot, its answers so far kept) and asks nothing more; the games come in an order that
plays every deal and seat once before any twice (`bank`). A bot cannot tell the cap from any
other end of its process: it is killed, not told. A slow bot so gets fewer plays of each deal,
and one slower still fewer deals, down to the positions of its first game it reached in time;
two versions are compared at the positions both answered. Its house bots' processes live for
the whole fingerprint (the version's are one a unit, as on the ladder): a process start costs
more CPU than a fast bot's games.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import trio

from referee import BotHandle, BotSpec, Limits, open_bots, parse_record, play_match
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.config import Tournament
from tournaments.store.sqlitefile import SqliteFile, guarded

OPPONENT = "greedy"
"""The house bot in the other seats: fast, and deterministic given its seed."""

DEALS = 3
"""Deals per seat of a fingerprint."""

REPEATS = 10
"""Times each deal is played by the version (other seeds for it, a fresh process each)."""

CPU_S = 50.0
"""The CPU seconds a fingerprint's bot processes (the version's and the house bots') may use
in all. The referee's own work is not in it (it shares the server's process with other games,
where it cannot be told apart): it is bounded by the bank (`DEALS` × `REPEATS` games per seat,
which no bot can lengthen past the game's rules), and docs/benchmarks.md measures it."""

LOOK_S = (0.05, 0.5)
"""The least and the most time between two looks at a fingerprint's CPU (`_hold`): its bots
overshoot its CPU by at most what they use in the least; a process that dies between two looks
is counted at the most it could have used since the last (`Meter`)."""


class Answer(msgspec.Struct, array_like=True):
    """A version's choices at one position (one per time it reached it), and where it is."""

    deal: int
    seat: int
    decision: int
    choices: list[str]
    """The actions chosen, as the record's JSON."""


class Fingerprint(msgspec.Struct):
    """A version's answers by position (`answers_of` names positions)."""

    game: str
    players: int
    answers: dict[str, Answer] = {}
    cpu_s: float = 0.0
    """The CPU seconds its bot processes used (`Meter`)."""
    cut: bool = False
    """Whether its bots used `CPU_S` before it asked every game of the bank."""

    def add(self, key: str, answer: Answer) -> None:
        found = self.answers.get(key)
        if found is None:
            self.answers[key] = answer
        else:
            found.choices.extend(answer.choices)


class Ask(msgspec.Struct, frozen=True):
    """One fingerprint game: the deal's number and seed, the seat, and every seat's bot seed."""

    deal: int
    seed: int
    seat: int
    bot_seeds: list[int]


def _derive(secret: bytes, label: str) -> int:
    digest = hmac.new(secret, label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def bank(
    secret: bytes, game: str, players: int, deals: int = DEALS, repeats: int = REPEATS
) -> list[list[Ask]]:
    """The fingerprint games, one list per process of the version (a seat and a repeat: a
    process never plays a deal twice), all drawn from `secret`, so every version of a league
    meets the same deals and house bots' seeds. Every seat's first play of the deals comes
    first, then every seat's second, and so on: a fingerprint cut short by its CPU (`CPU_S`)
    has played each deal and seat alike, fewer times."""
    base = f"fingerprint:{game}:{players}"

    def bot_seed(deal: int, seat: int, repeat: int) -> int:
        return _derive(secret, f"{base}:bot:{deal}:{seat}:{repeat}")

    def ask(deal: int, seat: int, repeat: int) -> Ask:
        # the version's seed changes with the repeat; the house bots' never do
        seeds = [bot_seed(deal, other, repeat if other == seat else 0) for other in range(players)]
        return Ask(deal, _derive(secret, f"{base}:deal:{deal}"), seat, seeds)

    return [
        [ask(deal, seat, repeat) for deal in range(deals)]
        for repeat in range(repeats)
        for seat in range(players)
    ]


def answers_of(record: bytes, seat: int, deal: int) -> Iterator[tuple[str, Answer]]:
    """The positions of a game's record where `seat` decided itself (not its fallback): each
    named by the deal, the seat and every action applied before it."""
    parsed = parse_record(record)
    chain = hashlib.sha256(
        f"{parsed.header.game}:{len(parsed.header.names)}:{deal}:{seat}".encode()
    )
    for line in parsed.decisions:
        mine = line.actions.get(seat)
        if mine is not None and seat not in line.fallback:
            choice = bytes(mine).decode()
            yield chain.hexdigest()[:24], Answer(deal, seat, line.n, [choice])
        for acting in sorted(line.actions):
            chain.update(b"%d:" % acting + bytes(line.actions[acting]) + b";")


class Meter:
    """The CPU seconds of a fingerprint's bot processes: each process's own accounting (its
    cgroup's, else /proc's: `BotHandle.process`) as last looked at, processes gone or restarted
    included, so that none is forgotten or counted twice. A process that died between two looks
    (a crash, a fault) took what it used since the last with it: it is counted at the most it
    could have used, the time since that look on every core."""

    def __init__(self) -> None:
        self._cores = os.cpu_count() or 1
        self._handles: list[BotHandle] = []
        self._seen: dict[tuple[int, int], float] = {}
        self._read: dict[tuple[int, int], float] = {}
        """When each live process was last read."""

    def watch(self, *handles: BotHandle) -> None:
        self._handles.extend(handles)

    def look(self) -> float:
        """The CPU seconds used so far (read now from every live process)."""
        now, live = time.monotonic(), set()
        for index, handle in enumerate(self._handles):
            process = handle.process
            if process is not None and process.exit_status() is None:
                with contextlib.suppress(OSError):  # it ended between the two reads
                    key = (index, handle.starts)
                    self._seen[key], self._read[key] = process.cpu_s(), now
                    live.add(key)
        for key in set(self._read) - live:
            self._seen[key] += (now - self._read.pop(key)) * self._cores
        return sum(self._seen.values())

    def close(self, handle: BotHandle) -> None:
        """`handle`'s process ends now, just looked at: nothing of it goes unseen."""
        index = self._handles.index(handle)
        for key in [key for key in self._read if key[0] == index]:
            del self._read[key]


async def _hold(meter: Meter, own: BotHandle, cpu_s: float, spent: trio.Event) -> None:
    """Kill the version's process (`own`) once `meter` says its bots have used `cpu_s`: its
    game ends as a crash, its answers so far kept. Its processes use at most one CPU second
    per second per core, so it looks no later than they could reach `cpu_s`, and every
    `LOOK_S` at least and at most."""
    cores = os.cpu_count() or 1
    least, most = LOOK_S
    while (used := meter.look()) < cpu_s:
        await trio.sleep(min(most, max(least, (cpu_s - used) / cores)))
    spent.set()
    meter.close(own)  # killed at once, just looked at
    if own.process is not None:
        await own.process.kill()


async def fingerprint(
    tournament: Tournament,
    spec: BotSpec,
    limits: Limits,
    secret: bytes,
    deals: int = DEALS,
    repeats: int = REPEATS,
    cpu_s: float = CPU_S,
) -> Fingerprint:
    """Play the version of `spec` in the fingerprint games of `tournament`'s game (at its time
    control, under `limits`) and gather its answers, until its bot processes have used
    `cpu_s`: the units of `bank` one after the other, a process of the version's each, the
    house bots' processes kept for all of them (ours, and nothing of them reaches the
    version)."""
    made = Fingerprint(tournament.game, tournament.players, {})
    house = [parse_bot(OPPONENT)] * (tournament.players - 1)
    # the version's process is killed at once after its last game: the CPU it would spend
    # quitting is never looked at, and a killed bot tells nothing to anyone
    own_limits = msgspec.structs.replace(limits, quit_ms=0)
    meter, spent = Meter(), trio.Event()
    async with open_bots(house, limits) as houses:
        meter.watch(*houses)
        for unit in bank(secret, tournament.game, tournament.players, deals, repeats):
            if spent.is_set():
                break
            seat = unit[0].seat
            async with open_bots([spec], own_limits) as (own,), trio.open_nursery() as nursery:
                meter.watch(own)
                nursery.start_soon(_hold, meter, own, cpu_s, spent)
                handles = [*houses[:seat], own, *houses[seat:]]
                for ask in unit:
                    outcome = await play_match(
                        tournament.game,
                        tournament.options,
                        ask.seed,
                        handles,
                        tournament.time_for(spec.name),
                        limits=limits,
                        bot_seeds=ask.bot_seeds,
                    )
                    for key, answer in answers_of(outcome.record, seat, ask.deal):
                        made.add(key, answer)
                    if spent.is_set():
                        break
                made.cpu_s = meter.look()
                meter.close(own)
                nursery.cancel_scope.cancel()
    made.cut = spent.is_set()
    return made


SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fingerprints (
    version INTEGER PRIMARY KEY,
    data BLOB NOT NULL
);
"""

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(Fingerprint).decode


def fingerprints_path(base: Path) -> Path:
    """The league's fingerprint file beside its first store `base` (one of its private files)."""
    return base.with_suffix(".clones.sqlite")


class Fingerprints(SqliteFile):
    """The league's fingerprint file: its clone secret and every fingerprinted version's
    fingerprint (by registry version id). Only the league's own processes read it."""

    KIND = "fingerprint file"
    NOUN = "fingerprint file"
    CALLED = "fingerprint file"
    LOCKED = "another league server is writing it; stop it"
    RESUMES = False
    RECOVERY = "delete it: a new one takes a new secret and fingerprints the versions again"
    UNREADABLE = (msgspec.DecodeError, ValueError)
    UNREADABLE_DETAIL = "a stored fingerprint cannot be read back"
    SCHEMA = _SCHEMA
    SCHEMA_VERSION = SCHEMA_VERSION

    def _schema_made(self) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO meta VALUES ('secret', ?)", (secrets.token_bytes(32).hex(),)
        )

    def _check_ours(self) -> None:
        self._check_tables(self._objects(), _SCHEMA, frozenset({"meta", "fingerprints"}))

    @guarded
    def secret(self) -> bytes:
        """The clone secret: the deals and seeds of every fingerprint game come from it."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()
        return bytes.fromhex(str(row[0]))

    @guarded
    def put(self, version: int, made: Fingerprint) -> None:
        with self._transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO fingerprints VALUES (?, ?)", (version, _encode(made))
            )

    @guarded
    def get(self, version: int) -> Fingerprint | None:
        row = self._db.execute(
            "SELECT data FROM fingerprints WHERE version = ?", (version,)
        ).fetchone()
        return None if row is None else _decode(row[0])

    @guarded
    def all(self) -> dict[int, Fingerprint]:
        rows = self._db.execute("SELECT version, data FROM fingerprints ORDER BY version")
        return {int(version): _decode(data) for version, data in rows}
