"""Which games a tournament plays: seat-sets, deals, rotations, seeds — generated lazily.

A *seat-set* is the group of bots that meet at one table. Each seat-set plays `deals` deals; a
deal is one seed (one shuffle of the bag), played once in every cyclic rotation of the seats,
so every bot of the set meets that deal from every seat and neither the luck of the draw nor the
seat order favours anyone. A deal's seed is keyed by the store's secret, the tournament seed,
the seat-set (its bots' store ids) and the deal number, so a tournament is reproducible by its
owner — but by no bot: the secret (random, created with the store, never shown to bots) keys
every seed, so knowing or guessing the tournament seed reveals nothing of the draws.

Why the seat-set is in the key: the tools publish seeds (the report's game list, exported
records), and a deal's seed tells its every draw. Were deal k the same at every table, a bot
added — or a new version uploaded — after a report would play deals whose draws it could have
read there. A bot's store id is new for every bot and every version, so each of its seat-sets,
and each of their deals, has never been dealt before. The price: two tables no longer see the
same deals, so comparing pairings between tables carries the luck of different draws (within a
table every rotation still shares the deal, so seat order and luck cancel there).

A unit of work is one rotation of a block of deals: the bot processes a unit opens play each of
its deals once, so no process ever plays two games of the same deal (it could remember the hidden
cards of one rotation — its own hand, the factory displays to come — and use them in another).

Nothing here holds the whole schedule: seat-sets are generated one at a time, so memory stays
flat however many games are played.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import secrets
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import Generic, NamedTuple, TypeVar

Bot = TypeVar("Bot", bound=Hashable)


def deal_seed(secret: bytes, seed: int, table: str, deal: int) -> int:
    """The game seed of deal number `deal` at `table` (a seat-set's key): a 63-bit keyed hash (a
    PRF) of the tournament seed, the table and the deal, under the store's `secret`, so it cannot
    be computed or inverted without it, and no two tables share a deal (see the module
    docstring)."""
    label = f"deal/{seed}/{table}/{deal}".encode()
    digest = hashlib.blake2b(label, key=secret, digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def owner_secret(seed: int | None) -> bytes:
    """A secret for a run without a store (`arena compare`): fresh and random, or — when the
    owner gives a seed to make the run reproducible — derived from it. A seed a bot could guess
    (a small number) makes the deals guessable too: reproducible runs want a long random seed."""
    if seed is None:
        return secrets.token_bytes(32)
    return hashlib.blake2b(f"owner-seed/{seed}".encode(), digest_size=32).digest()


def bot_seeds(secret: bytes, seed: int, deal: int, rotation: int, players: int) -> list[int]:
    """The seeds the seats' bots get for their own randomness in one game: reproducible for the
    owner, and, being keyed by the secret under another label, independent of the deal seed."""
    return [
        int.from_bytes(
            hashlib.blake2b(
                f"bot/{seed}/{deal}/{rotation}/{seat}".encode(), key=secret, digest_size=8
            ).digest(),
            "big",
        )
        >> 1
        for seat in range(players)
    ]


def seating(seat_set: Sequence[Bot], rotation: int) -> tuple[Bot, ...]:
    """The bot in each seat (seat 0 first) for one rotation: rotation r puts bot r in seat 0."""
    return tuple(seat_set[rotation:]) + tuple(seat_set[:rotation])


def full_count(bots: int, players: int, candidate: bool) -> int:
    """How many seat-sets a complete round-robin (or gauntlet, when `candidate`) has."""
    if candidate:
        return math.comb(bots - 1, players - 1)
    return math.comb(bots, players)


def seat_set_count(bots: int, players: int, candidate: bool, limit: int) -> int:
    return min(full_count(bots, players, candidate), limit)


def seat_sets(
    bots: Sequence[Bot],
    players: int,
    *,
    candidate: Bot | None = None,
    limit: int,
    seed: int,
) -> Iterator[tuple[Bot, ...]]:
    """Every seat-set, in the order of `bots`: all of them, or a balanced sample of `limit`.

    Round-robin: every `players`-subset of `bots`. Gauntlet (a `candidate` given): the candidate
    with every (players-1)-subset of the others. When there are more than `limit`, a sample is
    drawn so that every bot sits at (almost exactly) the same number of tables — a random
    subset would leave some bots with far fewer games than others. The sample depends on the
    whole field: when a bot joins a sampled tournament the sample is drawn anew, so games are
    played for seat-sets without the newcomer too (the games already stored still count).
    """
    field = [bot for bot in bots if bot != candidate]
    size = players if candidate is None else players - 1
    order = {bot: index for index, bot in enumerate(bots)}
    if full_count(len(bots), players, candidate is not None) <= limit:
        groups: Iterator[tuple[Bot, ...]] = itertools.combinations(field, size)
    else:
        groups = _balanced_sample(field, size, limit, random.Random(f"{seed}/schedule"))
    for group in groups:
        members = group if candidate is None else (candidate, *group)
        yield tuple(sorted(members, key=order.__getitem__))


def _balanced_sample(
    bots: Sequence[Bot], size: int, count: int, rng: random.Random
) -> Iterator[tuple[Bot, ...]]:
    """`count` distinct groups, each made of the bots that have sat at the fewest tables.

    Taking the least-used bots (ties broken at random) keeps every bot's number of tables
    within one of every other's at all times. When every such group has been used already, a
    random new group is taken instead: that only happens when the sample is nearly the whole
    round-robin, where balance comes from completeness anyway.
    """
    uses = dict.fromkeys(bots, 0)
    seen: set[frozenset[Bot]] = set()
    while len(seen) < count:
        for _ in range(100):
            group = sorted(bots, key=lambda bot: (uses[bot], rng.random()))[:size]
            if frozenset(group) not in seen:
                break
        else:
            while frozenset(group) in seen:
                group = rng.sample(list(bots), size)
        seen.add(frozenset(group))
        for bot in group:
            uses[bot] += 1
        yield tuple(group)


class Unit(NamedTuple, Generic[Bot]):
    """A block of work for one worker: one rotation of some deals of one seat-set, on one set of
    bot processes (which therefore never see the same deal twice)."""

    seat_set: tuple[Bot, ...]
    deals: range
    rotation: int


MIN_DEALS_PER_UNIT = 8
"""A unit is worth its bot process starts only if it plays a few deals."""


def pieces_per_seat_set(deals: int, seat_sets: int, workers: int, rotations: int = 1) -> int:
    """How many blocks each seat-set's deals are split into (each block is `rotations` units).

    Bot processes are reused within a unit (a process start can cost more than a game), so
    units should be big; but with few seat-sets and many deals, splitting gives every worker
    something to do (about two units per worker, so the last ones do not leave cores idle).
    """
    wanted = math.ceil(2 * workers / max(seat_sets * rotations, 1))
    return max(1, min(wanted, deals // MIN_DEALS_PER_UNIT))


def units(
    seat_sets: Iterable[tuple[Bot, ...]], deals: int, pieces: int, first: int = 0
) -> Iterator[Unit[Bot]]:
    """Each seat-set's deals from `first` to `deals` split into `pieces` contiguous, near-equal
    blocks, each block once per rotation of the seats."""
    bounds = [first + (deals - first) * index // pieces for index in range(pieces + 1)]
    for seat_set in seat_sets:
        for start, stop in itertools.pairwise(bounds):
            if start < stop:
                for rotation in range(len(seat_set)):
                    yield Unit(seat_set, range(start, stop), rotation)


def lap(start: int, most: int) -> range:
    """The next block of a seat-set whose deals before `start` are played or planned: as many
    again, at least one and at most `most` — deal 0, deal 1, deals 2-3, 4-7, … Played in
    every rotation before the next, laps over a league's seat-sets let each bot meet every
    opponent from every seat before any deal is repeated."""
    return range(start, start + min(max(start, 1), most))
