"""The sequential final's choice of games: after each look at its certificate, the tables
whose games would most narrow what is still unsettled about the organiser's claim — the
finalists whose place interval is wider than a point and could reach the claimed places, seated
with their neighbours in the estimated order — each on fresh deals played in every rotation,
twice as many deals a table as the round before, the last round cut evenly to the budget."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence

from tournaments.rank.certify import LOOKS, Certificate, Claim

FIRST_LAYERS = 4
"""The first round seats every finalist this many times, at random tables: enough to join
the field into one comparable whole before any estimate exists."""


def first_round(bots: Sequence[str], players: int, rng: random.Random) -> list[tuple[str, ...]]:
    """Tables for the first look: `FIRST_LAYERS` random orders of the finalists, each cut into
    tables (the last one filled from the order's start)."""
    tables: list[tuple[str, ...]] = []
    for _ in range(FIRST_LAYERS):
        shuffled = list(bots)
        rng.shuffle(shuffled)
        for at in range(0, len(shuffled), players):
            table = shuffled[at : at + players]
            table += shuffled[: players - len(table)]
            tables.append(tuple(table))
    return list(dict.fromkeys(tables))


def next_round(certificate: Certificate, claim: Claim, players: int) -> list[tuple[str, ...]]:
    """The tables of the round after `certificate` (none when the claim holds or the looks
    are spent)."""
    if certificate.certified or certificate.looks >= LOOKS:
        return []
    ranked = [place.bot for place in certificate.places]
    wanted = around(ranked, unsettled(certificate, claim), players)
    return seat_sets(wanted, players, shift=certificate.looks * (players // 2))


def deals_per_table(look: int, tables: int, rotations: int, budget_left: int) -> int:
    """Deals each table of look `look` (from 1) plays: 2^(look-1), fewer when the budget
    left cannot hold them all — the same number at every table, so the cut is even (0: the
    budget is spent)."""
    return max(0, min(2 ** (look - 1), budget_left // max(tables * rotations, 1)))


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


def seat_sets(ranked: Sequence[str], players: int, shift: int) -> list[tuple[str, ...]]:
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
    grow = 1
    while len(chosen) < min(players, len(ranked)):
        for i, bot in enumerate(ranked):
            if bot in chosen:
                chosen.update(ranked[max(0, i - grow) : i + grow + 1])
        grow += 1
    return [bot for bot in ranked if bot in chosen]
