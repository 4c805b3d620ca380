"""The sequential final's choice of games: after each look at its certificate, the tables
whose games would most narrow what is still unsettled about the organiser's claim — the
finalists whose place interval is wider than a point and could reach the claimed places, seated
with their neighbours in the estimated order, on twice as many deals a table as the round
before — and a thin layer of random tables seating every other finalist on one deal, so that
no finalist's evidence stops growing (its statements rest on more than its first games). Each
table plays fresh deals in every rotation; the last round is cut to the budget."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence

from tournaments.rank.certify import Certificate, Claim

FIRST_LAYERS = 4
"""The first round seats every finalist this many times, at random tables: enough to join
the field into one comparable whole before any estimate exists."""

Table = tuple[str, ...]
Round = list[tuple[Table, int]]
"""A round: each table (its bots, in no particular order) and the deals it plays."""


def layers(bots: Sequence[str], players: int, count: int, rng: random.Random) -> list[Table]:
    """`count` random orders of `bots`, each cut into tables (the last one filled from the
    order's start; none when fewer bots than a table holds)."""
    if len(bots) < players:
        return []
    tables: list[Table] = []
    for _ in range(count):
        shuffled = list(bots)
        rng.shuffle(shuffled)
        for at in range(0, len(shuffled), players):
            table = shuffled[at : at + players]
            table += [bot for bot in shuffled if bot not in table][: players - len(table)]
            tables.append(tuple(sorted(table)))
    return list(dict.fromkeys(tables))


def first_round(bots: Sequence[str], players: int, budget: int, rng: random.Random) -> Round:
    """The first look's round: `FIRST_LAYERS` random layers, one deal a table, cut to the
    budget."""
    return cut([(table, 1) for table in layers(bots, players, FIRST_LAYERS, rng)], players, budget)


def next_round(
    certificate: Certificate, claim: Claim, players: int, budget: int, rng: random.Random
) -> Round:
    """The round after look `certificate.looks` (none when the claim holds), within `budget`
    games: the unsettled finalists' tables on 2^look deals each, and a layer of the others on
    one."""
    if certificate.certified:
        return []
    ranked = [place.bot for place in certificate.places]
    wanted = around(ranked, unsettled(certificate, claim), players)
    focus = open_tables(
        seat_sets(wanted, players, shift=certificate.looks * (players // 2)), certificate
    )
    seated = {bot for table in focus for bot in table}
    others = [bot for bot in ranked if bot not in seated]
    thin = layers(others, players, 1, rng) if len(others) >= players else []
    deals = 2**certificate.looks
    chosen = [(tuple(sorted(table)), deals) for table in focus]
    return cut(chosen + [(table, 1) for table in thin], players, budget)


def open_tables(tables: Sequence[Table], certificate: Certificate) -> list[Table]:
    """The `tables` (each in the estimated order) with two neighbours not yet proven apart —
    a table whose every step down is proven narrows nothing — or all of them when none is."""
    ranked = [place.bot for place in certificate.places]
    apart = {
        pair
        for pair, proven in zip(itertools.pairwise(ranked), certificate.separated, strict=True)
        if proven
    }
    found = [
        table for table in tables if not all(map(apart.__contains__, itertools.pairwise(table)))
    ]
    return found or list(tables)


def cut(tables: Round, players: int, budget: int) -> Round:
    """`tables` within `budget` games (a table's deal is `players` games, one a rotation):
    every table's deals lowered alike, by halving, until they fit; then, at one deal a table,
    the tables in order while they fit."""
    while sum(deals for _, deals in tables) * players > budget and any(
        deals > 1 for _, deals in tables
    ):
        tables = [(table, max(1, deals // 2)) for table, deals in tables]
    fits = max(0, budget // players)
    return tables[:fits] if sum(deals for _, deals in tables) > fits else tables


def unsettled(certificate: Certificate, claim: Claim) -> list[str]:
    """The finalists that more games must place to prove the claim, strongest first: those
    whose place interval is more than a point and could reach the claimed places (for grades:
    those with an undecided side, and their benchmarks)."""
    if claim.kind == "grades":
        open_sides = [side for side in certificate.sides if side.above is None]
        wanted = {side.bot for side in open_sides} | {side.benchmark for side in open_sides}
        return [place.bot for place in certificate.places if place.bot in wanted]
    reach = len(certificate.places) if claim.kind == "order" else claim.top
    return [
        place.bot for place in certificate.places if place.low != place.high and place.low <= reach
    ]


def seat_sets(ranked: Sequence[str], players: int, shift: int) -> list[Table]:
    """Tables of `players` bots that tell neighbours in `ranked` (strongest first) apart: every
    two neighbours for pairs; for larger tables, consecutive runs, started `shift` bots in
    (alternate it between rounds, so that a run's edges meet the next run)."""
    if players == 2:
        return list(itertools.pairwise(ranked))
    tables = []
    start = shift % players if len(ranked) > players else 0
    if start:
        tables.append(tuple(ranked[:players]))
    for at in range(start, len(ranked), players):
        run = ranked[at : at + players]
        if len(run) < players:
            run = ranked[max(0, len(ranked) - players) :]
        tables.append(tuple(run))
    return list(dict.fromkeys(tables))


def around(ranked: Sequence[str], wanted: Iterable[str], players: int) -> list[str]:
    """The `wanted` bots in the order of `ranked`, with neighbours of theirs added until a
    table can be seated (a single unsettled bot still needs opponents)."""
    chosen = set(wanted)
    if not chosen:
        return []
    grow = 1
    while len(chosen) < min(players, len(ranked)):
        for i, bot in enumerate(ranked):
            if bot in chosen:
                chosen.update(ranked[max(0, i - grow) : i + grow + 1])
        grow += 1
    return [bot for bot in ranked if bot in chosen]
