"""A season's final simulated, no bots needed: fields of finalists whose strengths are drawn
from a normal law of a given spread (its standard deviation, in Elo), whose games' finishing
orders are Plackett–Luce draws (the Gumbel trick: a seat's strength plus Gumbel noise orders
the table); today's final (every seat-set in every rotation, doubling deals, until every two
neighbours are told apart at a likelihood of superiority of 95%) and the sequential one
(`rank.sequential`, proven by `rank.certify`) run on the same fields, and each claim they make
is checked against the true order."""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import itertools
import math
import random
import statistics
import sys
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from tournaments.rank.certify import (
    Block,
    Certificate,
    Claim,
    Floats,
    Orders,
    certify,
    joined,
)
from tournaments.rank.doubling import SETTLED_LOS, doubling_round
from tournaments.rank.ratings import BASE_ELO, ELO_PER_NAT, estimate_score, fit
from tournaments.rank.sequential import first_round, next_round


def field(bots: int, spread: float, rng: np.random.Generator) -> Floats:
    """True strengths (natural log-odds units) of `bots` finalists, `spread` Elo apart (sd)."""
    return rng.normal(0.0, spread / ELO_PER_NAT, bots)


def names(bots: int) -> list[str]:
    return [f"bot{i:03d}" for i in range(bots)]


def play(
    strength: Floats, tables: Sequence[Sequence[int]], deals: int, rng: np.random.Generator
) -> Orders:
    """`deals` fresh deals of each table, each in every rotation: one Plackett–Luce order a
    game (the rotations of a deal are independent draws: the model has no seats)."""
    seats = np.array(tables, dtype=np.intp)
    players = seats.shape[1]
    at = np.repeat(seats, deals * players, axis=0)
    noise = strength[at] + rng.gumbel(size=at.shape)
    order = np.take_along_axis(at, np.argsort(-noise, axis=1), axis=1)
    deal = np.repeat(np.arange(len(seats) * deals), players)
    block = Block(order, np.ones(len(order)), deal)
    return Orders(names(len(strength)), [block], len(seats) * deals, len(order))


class Run(NamedTuple):
    """One final on one field: whether it made its claim, whether anything it claimed is
    wrong, whether every place interval holds the true place, and the games it played."""

    claimed: bool
    wrong: bool
    covered: bool
    games: int


def sequential_final(
    strength: Floats, players: int, claim: Claim, budget: int, rng: np.random.Generator
) -> Run:
    """The sequential final on a field: the rounds `rank.sequential` chooses until the claim
    holds or the budget is spent; judged on its last certificate."""
    bots = names(len(strength))
    index = {bot: i for i, bot in enumerate(bots)}
    chooser = random.Random(int(rng.integers(1 << 31)))
    chosen = first_round(bots, players, budget, chooser)
    orders = Orders(bots, [], 0, 0)
    start: Floats | None = None
    look = 0
    while chosen:
        for deals in sorted({deals for _, deals in chosen}):
            seats = [[index[bot] for bot in table] for table, many in chosen if many == deals]
            orders = joined(orders, play(strength, seats, deals, rng))
        look += 1
        certificate = certify(orders, claim, look=look, start=start, fragility=False)
        start = _fitted(certificate, index)
        chosen = next_round(certificate, claim, players, budget - orders.games, chooser)
    return _judged(certificate, claim, strength, orders.games)


def _fitted(certificate: Certificate, index: dict[str, int]) -> Floats:
    """The strengths a certificate places its finalists at (natural log-odds, by `index`):
    where the next look's fit starts, a step or two from its own."""
    start = np.zeros(len(index))
    for place in certificate.places:
        start[index[place.bot]] = (place.elo - BASE_ELO) / ELO_PER_NAT
    return start


def _judged(certificate: Certificate, claim: Claim, strength: Floats, games: int) -> Run:
    true_place = {bot: place for place, bot in enumerate(_true_order(strength), start=1)}
    places = certificate.places
    wanted = places if claim.kind == "order" else places[: claim.top]
    wrong = certificate.certified and any(true_place[p.bot] != p.place for p in wanted)
    covered = all(p.low <= true_place[p.bot] <= p.high for p in places)
    return Run(certificate.certified, wrong, covered, games)


def _true_order(strength: Floats) -> list[str]:
    bots = names(len(strength))
    return [bots[i] for i in np.argsort(-strength, kind="stable")]


def todays_final(strength: Floats, players: int, budget: int, rng: np.random.Generator) -> Run:
    """Today's final on a field: every seat-set, every rotation, doubling deals, until its
    standings' neighbours are told apart head to head (its claim: the whole order)."""
    tables = list(itertools.combinations(range(len(strength)), players))
    orders = Orders(names(len(strength)), [], 0, 0)
    played = 0
    while True:
        chosen = doubling_round(orders.bots, players, played, budget - orders.games)
        if len(chosen) < len(tables):  # not one more deal of every seat-set
            return Run(False, False, True, orders.games)
        deals = chosen[0][1]
        orders = joined(orders, play(strength, tables, deals, rng))
        played += deals
        order, settled = _standings(orders)
        if settled:
            wrong = order != _true_order(strength)
            return Run(True, wrong, not wrong, orders.games)


def _standings(orders: Orders) -> tuple[list[str], bool]:
    """Today's final's standings of the orders (the Elo fit of pairwise scores) and whether
    every two neighbours in them are told apart (likelihood of superiority ≥ `SETTLED_LOS`,
    from per-deal totals as `arena table` has them)."""
    bots = orders.bots
    size = len(bots)
    (block,) = orders.blocks
    firsts, seconds = zip(*itertools.combinations(range(block.order.shape[1]), 2), strict=True)
    above = block.order[:, list(firsts)].ravel()
    below = block.order[:, list(seconds)].ravel()
    deal = np.repeat(block.deal, len(firsts))
    low, high = np.minimum(above, below), np.maximum(above, below)
    key = (deal * size + low) * size + high
    cells, where = np.unique(key, return_inverse=True)
    points = np.bincount(where, (above == low).astype(np.float64))
    games = np.bincount(where).astype(np.float64)
    pair = cells % (size * size)
    totals: dict[tuple[str, str], list[tuple[float, int]]] = {}
    for code, point, count in zip(pair.tolist(), points.tolist(), games.tolist(), strict=True):
        totals.setdefault((bots[code // size], bots[code % size]), []).append((point, int(count)))
    tallies = {
        key: [sum(p for p, _ in deals), sum(n for _, n in deals)] for key, deals in totals.items()
    }
    rating = fit(tallies, bots)
    order = sorted(bots, key=rating.__getitem__, reverse=True)
    for upper, lower in itertools.pairwise(order):
        first, second = sorted((upper, lower))
        deals = totals[first, second]
        if upper != first:
            deals = [(count - point, count) for point, count in deals]
        if 100 * estimate_score(deals).los < SETTLED_LOS:
            return order, False
    return order, True


class Setting(NamedTuple):
    bots: int
    spread: float
    players: int
    claim: Claim
    budget: int


class Row(NamedTuple):
    """One rule on one setting over its replications."""

    setting: Setting
    rule: str
    runs: int
    claimed_pct: float
    wrong_pct: float
    """Runs whose claim was made and is wrong (the family-wise error)."""
    covered_pct: float
    """Runs whose every place interval holds the true place (today's final has none: its
    order held)."""
    games: float
    """Median games a run played."""
    games_claimed: float | None
    """Median games of the runs that made their claim."""
    share_of_todays: float | None = None
    """The sequential final's games over today's, median over the fields where both made
    the same claim (the whole order; None: no such field, or today's did not run)."""


def field_runs(setting: Setting, seed: int, run: int, todays: bool) -> tuple[Run, Run | None]:
    """Field `run` of `setting` (drawn from `seed` and `run` alone), played by the
    sequential final and (when `todays`) by today's."""
    rng = np.random.default_rng([seed, run])
    strength = field(setting.bots, setting.spread, rng)
    sequential = sequential_final(strength, setting.players, setting.claim, setting.budget, rng)
    today = todays_final(strength, setting.players, setting.budget, rng) if todays else None
    return sequential, today


def replicate(setting: Setting, runs: int, seed: int, todays: bool, jobs: int = 1) -> list[Row]:
    """Both rules (today's only when `todays`) on `runs` fields of `setting`, each field
    drawn once and played by both (`jobs`: processes playing fields at once; the fields and
    their results do not depend on it)."""
    play_field = functools.partial(field_runs, setting, seed, todays=todays)
    if jobs > 1:
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            found = list(pool.map(play_field, range(runs)))
    else:
        found = list(map(play_field, range(runs)))
    sequential = [run for run, _ in found]
    today = [run for _, run in found if run is not None]
    both = [
        mine.games / theirs.games
        for mine, theirs in found
        if theirs is not None and mine.claimed and theirs.claimed and setting.claim.kind == "order"
    ]
    rows = [_row(setting, "sequential", sequential, statistics.median(both) if both else None)]
    return rows + ([_row(setting, "today", today)] if today else [])


def _row(setting: Setting, rule: str, runs: list[Run], share: float | None = None) -> Row:
    claimed = [run.games for run in runs if run.claimed]
    return Row(
        setting,
        rule,
        len(runs),
        100 * len(claimed) / len(runs),
        100 * sum(run.wrong for run in runs) / len(runs),
        100 * sum(run.covered for run in runs) / len(runs),
        statistics.median(run.games for run in runs),
        statistics.median(claimed) if claimed else None,
        share,
    )


SPREADS = (100.0, 300.0)
PLAYERS = (2, 4)
TOP = 10


def settings(
    bots: Sequence[int],
    budget: int,
    top: int = TOP,
    spreads: Sequence[float] = SPREADS,
    players: Sequence[int] = PLAYERS,
    whole_order: bool = True,
) -> list[tuple[Setting, bool]]:
    """The simulated settings, each with whether today's final runs on it too (where two
    deals of its every seat-set fit the budget; once a field, its claim being the whole order
    whatever the sequential final's): per field size, spread and table size, the top 10
    claimed (the whole order for fields of 10 or fewer), and for fields of at most 20 also the
    whole order, the claim today's final makes (`top`: another number of places claimed;
    `players`: the table sizes; `whole_order`: False claims only the top places)."""
    found = []
    for size, spread, seats in itertools.product(bots, spreads, players):
        claims = [Claim("top", top=top)] if size > top else []
        if size <= 2 * top and (whole_order or not claims):
            claims.append(Claim("order"))
        todays = 2 * seats * math.comb(size, seats) <= budget  # once a field: one claim
        found += [
            (Setting(size, spread, seats, claim, budget), todays and claim is claims[0])
            for claim in claims
        ]
    return found


def markdown(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table."""
    from tournaments.output import render_table

    body = [
        [
            row.setting.bots,
            f"{row.setting.spread:.0f}",
            row.setting.players,
            row.setting.claim.describe() if row.rule == "sequential" else "the whole order",
            row.rule,
            row.runs,
            f"{row.claimed_pct:.0f}%",
            f"{row.wrong_pct:.1f}%",
            f"{row.covered_pct:.0f}%" if row.rule == "sequential" else "—",
            f"{row.games:,.0f}",
            "—" if row.games_claimed is None else f"{row.games_claimed:,.0f}",
            "—" if row.share_of_todays is None else f"{row.share_of_todays:.2f}",
        ]
        for row in rows
    ]
    headers = [
        "finalists",
        "spread (Elo)",
        "players",
        "claim",
        "final",
        "fields",
        "claimed",
        "wrong",
        "intervals hold",
        "games (median)",
        "games when claimed (median)",
        "games over today's, both claimed (median)",
    ]
    return render_table(headers, body, "github")


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m tournaments.bench.final_sim`: the simulation at sizes of one's choosing,
    printed as a Markdown table (`arena bench --only final-sim` runs the published sizes)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--bots", type=int, nargs="+", default=[20, 100, 200])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--budget", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=TOP, help="places claimed in order")
    parser.add_argument("--spreads", type=float, nargs="+", default=list(SPREADS))
    parser.add_argument("--players", type=int, nargs="+", default=list(PLAYERS))
    parser.add_argument(
        "--top-only", action="store_true", help="no whole-order claim where the top is claimed"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes playing fields at once")
    args = parser.parse_args(argv)
    rows = []
    chosen = settings(
        args.bots, args.budget, args.top, args.spreads, args.players, not args.top_only
    )
    for setting, todays in chosen:
        rows += replicate(setting, args.runs, args.seed, todays, args.jobs)
        print(markdown(rows[-2 if todays else -1 :]), file=sys.stderr, flush=True)
    print(markdown(rows))


if __name__ == "__main__":
    main()
