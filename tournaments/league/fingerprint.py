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
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator
from pathlib import Path

import msgspec

from referee import BotSpec, Limits, open_bots, parse_record, play_match
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.config import Tournament
from tournaments.store.sqlitefile import SqliteFile, guarded

OPPONENT = "greedy"
"""The house bot in the other seats: fast, and deterministic given its seed."""

DEALS = 3
"""Deals per seat of a fingerprint."""

REPEATS = 10
"""Times each deal is played by the version (other seeds for it, a fresh process each)."""


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
    """The fingerprint games, one list per process (a seat and a repeat: a process never plays
    a deal twice), all drawn from `secret`, so every version of a league meets the same deals
    and house bots' seeds."""
    base = f"fingerprint:{game}:{players}"

    def bot_seed(deal: int, seat: int, repeat: int) -> int:
        return _derive(secret, f"{base}:bot:{deal}:{seat}:{repeat}")

    def ask(deal: int, seat: int, repeat: int) -> Ask:
        # the version's seed changes with the repeat; the house bots' never do
        seeds = [bot_seed(deal, other, repeat if other == seat else 0) for other in range(players)]
        return Ask(deal, _derive(secret, f"{base}:deal:{deal}"), seat, seeds)

    return [
        [ask(deal, seat, repeat) for deal in range(deals)]
        for seat in range(players)
        for repeat in range(repeats)
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


async def fingerprint(
    tournament: Tournament,
    spec: BotSpec,
    limits: Limits,
    secret: bytes,
    deals: int = DEALS,
    repeats: int = REPEATS,
) -> Fingerprint:
    """Play the version of `spec` in the fingerprint games of `tournament`'s game (at its time
    control, under `limits`) and gather its answers. The games are played one process per
    unit of `bank`, one unit after the other."""
    made = Fingerprint(tournament.game, tournament.players, {})
    house = parse_bot(OPPONENT)
    for unit in bank(secret, tournament.game, tournament.players, deals, repeats):
        seat = unit[0].seat
        specs = [spec if other == seat else house for other in range(tournament.players)]
        async with open_bots(specs, limits) as handles:
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
