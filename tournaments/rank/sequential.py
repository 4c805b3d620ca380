"""The sequential final's choice of games. The first round seats every finalist at random
tables until each has the games a statement about it needs. After each look at its
certificate, the open steps — two neighbours in the estimated order not yet proven apart,
one of them still unsettled for the organiser's claim — are seated: each step at a table of its
own in pairs; at larger tables, each run of open steps cut into tables of consecutive
neighbours (a table of m neighbours informs m − 1 steps with every finishing order), padded
with the nearest finalists. A table's deals are forecast from what its neediest step lacks: the
information its estimated gap needs to pass the next look's bar, less what it has, at most a
few times what it has (a noisy gap is not trusted to ask for everything at once). Every other
finalist sits once at a random table on one deal, so that no finalist's evidence stops
growing (its statements rest on more than its first games). Each table plays fresh deals in
every rotation; the last round is cut to spend the budget."""

from __future__ import annotations

import collections
import itertools
import math
import random
from collections.abc import Sequence

from scipy import special

from tournaments.rank.certificate import Certificate, Claim
from tournaments.rank.certify import LEAST_GAMES, spent
from tournaments.rank.ratings import ELO_PER_NAT

AIM = 1.2
"""A round aims at this many times the information the next look's bar needs (an estimated
gap is noisy: just enough would often fall short by a hair and cost a look)."""
GROWTH = 3.0
"""A round adds at most this many times a step's information so far: a step's standard
error at least halves in a round, and a small estimated gap (often noise) cannot ask for
the whole budget at once."""
SMALLEST_GAP = 1e-3
"""The least estimated gap (natural log-odds) a forecast divides by."""

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
    return tables


def first_round(bots: Sequence[str], players: int, budget: int, rng: random.Random) -> Round:
    """The first look's round: random layers, one deal a table (a table drawn twice plays
    two), enough that every finalist plays `LEAST_GAMES` games — nothing is decided before,
    so a first look with fewer would spend its share of the error rate on nothing — cut to
    the budget."""
    count = math.ceil(LEAST_GAMES / players)
    drawn = collections.Counter(layers(bots, players, count, rng))
    return cut(list(drawn.items()), players, budget)


def next_round(
    certificate: Certificate, claim: Claim, players: int, budget: int, rng: random.Random
) -> Round:
    """The round after look `certificate.looks` (none when the claim holds), within `budget`
    games: the open steps' tables on their forecast deals, and a layer of the others on
    one."""
    if certificate.certified:
        return []
    ranked = [place.bot for place in certificate.places]
    steps = open_steps(certificate, claim)
    needs = [games_needed(certificate, step) for step in range(len(ranked) - 1)]
    focus: dict[Table, int] = {}
    for table, covered in seat_steps(ranked, steps, players):
        deals = max(1, math.ceil(max(needs[step] for step in covered) / players))
        key = tuple(sorted(table))
        focus[key] = max(focus.get(key, 0), deals)
    seated = {bot for table in focus for bot in table}
    others = [bot for bot in ranked if bot not in seated]
    thin = layers(others, players, 1, rng)
    return cut([*focus.items(), *((table, 1) for table in thin)], players, budget)


def open_steps(certificate: Certificate, claim: Claim) -> list[int]:
    """The steps (step i: the i-th finalist in the estimated order above the next, from 0)
    more games must prove: not yet proven, with a finalist more games must place on either
    side; when every step is proven but some interval is still wider than a point (a pair
    further apart undecided), the steps of the unsettled finalists."""
    ranked = [place.bot for place in certificate.places]
    wanted = set(unsettled(certificate, claim))
    touching = [
        step for step, pair in enumerate(itertools.pairwise(ranked)) if wanted.intersection(pair)
    ]
    return [step for step in touching if not certificate.separated[step]] or touching


def games_needed(certificate: Certificate, step: int) -> float:
    """The games at a table seating both of the finalists of `step` (each game a duel's
    information about their gap, which a whole finishing order gives at any table size
    near equal strengths) that would bring the step's information to `AIM` times what the
    next look's bar asks at its estimated gap — the bar being Holm's last one at that look,
    over the contrasts still undecided — at most `GROWTH` times what it has (0 for a
    certificate without standard errors: one deal then)."""
    if not certificate.step_errors:
        return 0.0
    upper, lower = certificate.places[step], certificate.places[step + 1]
    gap = max((upper.elo - lower.elo) / ELO_PER_NAT, SMALLEST_GAP)
    error = max(certificate.step_errors[step], 1e-9)
    bar = -special.ndtri(  # the normal's upper quantile
        spent(certificate.confidence, certificate.looks + 1) / 2 / undecided(certificate)
    )
    has = 1 / error**2
    wants = AIM * (bar / gap) ** 2
    chance = 1 / (1 + math.exp(-gap))
    return max(0.0, min(wants - has, GROWTH * has)) / (chance * (1 - chance))


def undecided(certificate: Certificate) -> int:
    """The contrasts the certificate leaves undecided (at least 1): every pair not proven
    apart, and every grade side not decided."""
    size = len(certificate.places)
    proven = sum(place.low - 1 for place in certificate.places)
    sides = sum(side.above is None for side in certificate.sides)
    return max(1, size * (size - 1) // 2 - proven + sides)


def cut(tables: Round, players: int, budget: int) -> Round:
    """`tables` within `budget` games (a table's deal is `players` games, one a rotation):
    every table's deals lowered alike, in proportion to fill the budget (a round cut by
    halves would leave up to half of it to rounds ever smaller, each a look and a pause of the
    league), and by halving while one deal a table still overflows; then, at one deal a
    table, the tables in order while they fit."""
    asked = sum(deals for _, deals in tables)
    if asked * players > budget:
        tables = [(table, max(1, deals * (budget // players) // asked)) for table, deals in tables]
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


def seat_steps(
    ranked: Sequence[str], steps: Sequence[int], players: int
) -> list[tuple[Table, list[int]]]:
    """Tables of `players` bots that tell the neighbours of `steps` in `ranked` (strongest
    first) apart, each with the steps it seats: a table a step in pairs; for larger tables,
    each run of consecutive steps cut into runs of `players` neighbours overlapping by one
    (every step inside one table), a short one padded with the nearest bots around it."""
    if len(ranked) < players:
        return []
    if players == 2:
        return [((ranked[step], ranked[step + 1]), [step]) for step in steps]
    found = []
    chosen = set(steps)
    for run in _runs(sorted(chosen)):
        for start in range(run[0], run[-1] + 1, players - 1):
            stop = min(start + players - 1, run[-1] + 1)  # the last bot a step here seats
            pad = players - (stop - start + 1)
            first = min(max(0, start - pad // 2), len(ranked) - players)
            covered = [step for step in range(first, first + players - 1) if step in chosen]
            found.append((tuple(ranked[first : first + players]), covered))
    return found


def _runs(steps: Sequence[int]) -> list[list[int]]:
    """`steps` (sorted) cut into runs of consecutive ones."""
    runs: list[list[int]] = []
    for step in steps:
        if runs and runs[-1][-1] == step - 1:
            runs[-1].append(step)
        else:
            runs.append([step])
    return runs
