"""Ratings: pure functions from finished games to numbers with error bars.

- `elo_ratings`: maximum-likelihood Elo (Bradley–Terry on the logistic Elo scale) over every
  pairwise outcome. A game of N seats gives N(N-1)/2 pairs from its ranks; equal ranks are a
  draw (half a point each). The likelihood only sees the total score of each pair, so the
  result does not depend on the order games were played in — unlike online Elo.
  95% intervals come from a bootstrap that resamples whole deals (all rotations of one seed at
  one table), because the rotations of a deal share its luck; `elo_fit` keeps the resamples,
  which also give each bot's probability of each place on the ladder.
- `plackett_luce`: openskill's Plackett–Luce rating, which models a whole finishing order at
  once; informative for 3+ seats, where pairs from one game are not independent.
- `head_to_head` (and `versus` over precomputed `deal_totals`): two bots' pairwise score, Elo
  difference ± interval and likelihood of superiority, with the variance estimated from
  per-deal totals (the pentanomial idea).

Every estimate adds one virtual draw per pair of bots that met (`prior`): it keeps a clean
sweep finite (a bot that won every game has no maximum-likelihood rating) and is negligible
once a pair has played a few dozen games.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import msgspec
import numpy as np
import numpy.typing as npt
from openskill.models import PlackettLuce

from protocol.errors import RequestError
from tournaments.rank.columns import (
    CHUNK,
    Column,
    Ids,
    grouped,
    grown,
    joined,
    places,
    split,
)
from tournaments.store.results import FinishedGame

BASE_ELO = 1500.0
ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of natural log-odds: a difference D wins with 1/(1+10^(-D/400))."""
_RIDGE = 1e-9
"""A vanishing pull towards 0: keeps groups of bots that never met each other finite."""
_MAX_STEP = 2.0
"""Largest Newton step, in natural log-odds: keeps early iterations from overshooting."""
_DENSE_BOTS = 64
"""Up to this many bots a Newton step is one dense solve (microseconds); beyond, BLAS's threads
make dense solves slow on a busy machine and their cost grows with the cube of the bots."""
_TIE_ELO = 1e-6
"""Elo ratings closer than this are equal: bots tied in a resample share its places."""

Pair = tuple[str, str]
DealKey = tuple[str, int]
Tally = dict[Pair, list[float]]
"""(a, b) with a < b → [score of a, games]."""


class Rating(msgspec.Struct, frozen=True):
    """An Elo rating with its confidence interval (lo, hi)."""

    elo: float
    lo: float
    hi: float

    @property
    def margin(self) -> float:
        """Half the width of the interval: the "±" shown in tables."""
        return (self.hi - self.lo) / 2


def elo_from_score(score: float) -> float:
    """Elo difference that gives an expected score of `score` (0 < score < 1)."""
    return ELO_PER_NAT * math.log(score / (1 - score))


def score_from_elo(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def pair_score(rank: int, other: int) -> float:
    """Points of the seat ranked `rank` against the seat ranked `other`: 1, ½ (tie) or 0."""
    return 1.0 if rank < other else 0.0 if rank > other else 0.5


def pair_outcomes(game: FinishedGame) -> Iterable[tuple[Pair, float]]:
    """Each pair of different bots in the game, ordered by name, with the first's score."""
    bots, ranks = game.bots, game.played.ranks
    for i in range(len(bots)):
        for j in range(i + 1, len(bots)):
            if bots[i] == bots[j]:
                continue
            score = pair_score(ranks[i], ranks[j])
            if bots[i] < bots[j]:
                yield (bots[i], bots[j]), score
            else:
                yield (bots[j], bots[i]), 1 - score


def tally(games: Iterable[FinishedGame]) -> Tally:
    totals: Tally = defaultdict(lambda: [0.0, 0.0])
    for game in games:
        for pair, score in pair_outcomes(game):
            totals[pair][0] += score
            totals[pair][1] += 1
    return dict(totals)


class Rows(NamedTuple):
    """The pairs as the solver sees them, one array entry per pair: the indices of its two
    bots (a, b), a's points and the games, each with the prior's virtual draw in (`prior`)."""

    a: npt.NDArray[np.integer[Any]]
    b: npt.NDArray[np.integer[Any]]
    points: npt.NDArray[np.float64]
    games: npt.NDArray[np.float64]


def _solve(rows: Rows, size: int, start: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Maximum-likelihood strengths (natural log-odds units, mean 0) by Newton's method.

    The log-likelihood is concave, so a handful of iterations from a warm start suffice. A
    penalty on (Σ strength)² fixes the free translation without pulling bots together, and a
    vanishing ridge keeps bots in groups that never met each other finite.
    """
    points, games = rows.points, rows.games
    strength = start.copy()
    for _ in range(50):
        # 1 / (1 + exp(b - a)), then the residuals, then the weights, in place and two
        # columns of the pairs at a time: a league's pairs are half a million.
        expected = _differences(strength, rows.b, rows.a)
        np.exp(expected, out=expected)
        expected += 1
        np.divide(1, expected, out=expected)
        residual = np.multiply(games, expected)
        gradient = _spread(rows, np.subtract(points, residual, out=residual), size)
        del residual
        gradient -= strength.sum() + _RIDGE * strength
        weight = np.multiply(games, expected)  # as the residual's: the same products
        weight *= np.subtract(1, expected, out=expected)
        del expected
        step = _newton_step(rows, weight, gradient)
        del weight  # not held through the next iteration's columns
        largest = float(np.abs(step).max(initial=0.0))
        strength += (min(1.0, _MAX_STEP / largest) if largest else 1.0) * step
        if largest < 1e-9:
            break
    return strength


def _differences(
    values: npt.NDArray[np.float64],
    first: npt.NDArray[np.integer[Any]],
    second: npt.NDArray[np.integer[Any]],
) -> npt.NDArray[np.float64]:
    """`values[first] - values[second]`, its temporaries a `CHUNK` long, not a column."""
    found = np.empty(len(first))
    for at in range(0, len(found), CHUNK):
        chunk = found[at : at + CHUNK]
        np.take(values, first[at : at + CHUNK], out=chunk)
        chunk -= values[second[at : at + CHUNK]]
    return found


def _sums(
    index: npt.NDArray[np.integer[Any]], values: npt.NDArray[np.float64], size: int
) -> npt.NDArray[np.float64]:
    """`np.bincount(index, values, size)` a `CHUNK` at a time: the same sums, since `np.add.at`
    adds in order as bincount does, with a chunk's temporaries (bincount converts a whole
    32-bit index)."""
    sums = np.zeros(size)
    for at in range(0, len(index), CHUNK):
        np.add.at(sums, index[at : at + CHUNK], values[at : at + CHUNK])
    return sums


def _spread(rows: Rows, values: npt.NDArray[np.float64], size: int) -> npt.NDArray[np.float64]:
    """Each pair's value added to its bot a and taken from its bot b."""
    return _sums(rows.a, values, size) - _sums(rows.b, values, size)


def _newton_step(
    rows: Rows, weight: npt.NDArray[np.float64], gradient: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Solve (Laplacian of the pairs' weights + 1·1ᵀ + ridge) · step = gradient: one dense
    solve for a few bots; beyond `_DENSE_BOTS`, conjugate gradients over the pairs, so a step
    costs what the pairs that met cost rather than the cube of the bots."""
    size = len(gradient)
    degree = _sums(rows.a, weight, size) + _sums(rows.b, weight, size)
    if size <= _DENSE_BOTS:
        hessian = np.full((size, size), 1.0)
        hessian[np.diag_indices(size)] += degree + _RIDGE
        np.subtract.at(hessian, (rows.a, rows.b), weight)
        np.subtract.at(hessian, (rows.b, rows.a), weight)
        return np.linalg.solve(hessian, gradient)

    from scipy.sparse import linalg  # half a second to import: only fields this large pay it

    def hessian_times(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        product = _differences(x, rows.a, rows.b)  # weight · (x[a] - x[b]), in place
        product *= weight
        return _spread(rows, product, size) + x.sum() + _RIDGE * x

    jacobi = 1 / (degree + 1 + _RIDGE)
    step, _ = linalg.cg(
        linalg.LinearOperator((size, size), matvec=hessian_times, dtype=np.float64),
        gradient,
        rtol=1e-12,
        atol=1e-14,
        maxiter=10 * size,
        M=linalg.LinearOperator((size, size), matvec=jacobi.__mul__, dtype=np.float64),
    )
    return np.asarray(step, dtype=np.float64)


def fit(tallies: Mapping[Pair, Sequence[float]], bots: Sequence[str]) -> dict[str, float]:
    """Maximum-likelihood strengths of `bots` (log-odds units, mean 0) from pair tallies."""
    index = {bot: i for i, bot in enumerate(bots)}
    prior = 1.0
    rows = Rows(
        np.array([index[a] for a, _ in tallies], dtype=np.intp),
        np.array([index[b] for _, b in tallies], dtype=np.intp),
        np.array([score for score, _ in tallies.values()], dtype=np.float64) + prior / 2,
        np.array([games for _, games in tallies.values()], dtype=np.float64) + prior,
    )
    strength = _solve(rows, len(bots), np.zeros(len(bots)))
    return dict(zip(bots, strength.tolist(), strict=True))


def _percentile(values: Sequence[float], fraction: float) -> float:
    """Linear-interpolated percentile of sorted `values`."""
    position = fraction * (len(values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


class EloFit(msgspec.Struct, frozen=True):
    """Elo point estimates and the bootstrap refits that judge them: the intervals and the
    rank probabilities come from the same resamples."""

    point: dict[str, float]
    """Every rated bot's Elo from all the games, bots in name order."""
    resamples: list[dict[str, float]]
    """Each bootstrap resample's Elo of the bots that played in it."""

    def ratings(self, confidence: float = 0.95) -> dict[str, Rating]:
        """Each bot's Elo with the central `confidence` range of its resampled Elo (an
        infinite one when fewer than two resamples rated it)."""
        tail = (1 - confidence) / 2
        ratings = {}
        for bot, elo in self.point.items():
            values = sorted(drawn[bot] for drawn in self.resamples if bot in drawn)
            if len(values) < 2:
                ratings[bot] = Rating(elo, -math.inf, math.inf)
            else:
                lo, hi = _percentile(values, tail), _percentile(values, 1 - tail)
                ratings[bot] = Rating(elo, min(lo, elo), max(hi, elo))
        return ratings

    def rank_probabilities(self) -> dict[str, list[float]]:
        """Each bot's probability of each place on the ladder (index 0: first): the share of
        the resamples in which its Elo put it there. Only resamples that rate every bot count
        (one that drew none of a bot's deals cannot place it); bots tied in a resample share
        their places equally. Empty when no resample rates every bot (no bootstrap)."""
        bots = list(self.point)
        complete = [drawn for drawn in self.resamples if len(drawn) == len(bots)]
        shares = {bot: [0.0] * len(bots) for bot in bots}
        for drawn in complete:
            order = sorted(bots, key=drawn.__getitem__, reverse=True)
            first = 0
            while first < len(order):
                last = first + 1  # the places first..last-1 go to bots of equal Elo
                while last < len(order) and drawn[order[first]] - drawn[order[last]] < _TIE_ELO:
                    last += 1
                for bot in order[first:last]:
                    for place in range(first, last):
                        shares[bot][place] += 1 / (last - first) / len(complete)
                first = last
        return shares if complete else {}


class Deals(NamedTuple):
    """Every deal's pair tallies as the fit and its bootstrap read them: the rated bots (in
    name order), the pairs that met (in name order, as indices of their two bots), and one
    entry per deal and pair: its deal's place among the deals in key order (the order the
    bootstrap draws them in; None when each deal has one entry, the entries in that order,
    as in every two-player league), its pair's place, the first bot's points and the games.

    The entries are narrow (a bootstrap under way keeps them for many refreshes): places of
    32 bits; points are halves and games small counts, exact in half precision up to
    `HALF_EXACT` games an entry (else single), and the fit sums them in double
    (`DealTally.pair_totals`' sums of whole pairs are double)."""

    bots: list[str]
    ends: npt.NDArray[np.int32]
    deal_of: npt.NDArray[np.int32] | None
    pair_of: npt.NDArray[np.int32]
    scores: npt.NDArray[np.floating[Any]]
    counts: npt.NDArray[np.floating[Any]]
    deals: int


class Outcomes(NamedTuple):
    """A batch's pairwise outcomes as `DealTally.add` counted them: each one's pair (its id)
    and the points of the pair's first bot by id (`DealTally.ends`)."""

    pair: Column
    points: npt.NDArray[np.float64]


_BOT_BITS = 31
"""Bits of a bot's (or a seat-set prefix's) id in a key; two such ids make a pair's key."""
_ID_BITS = 32
"""Bits of a deal value's code or a pair's id under a deal's or an entry's key."""
_OWN_CODES = 1 << 31
"""Deal values from 0 below this are their own codes in a deal's key (`_value_codes`)."""
HALF_EXACT = 1024
"""Games an entry of `Deals` may count for its points (halves) and games to be exact in half
precision."""


class DealTally:
    """Pair tallies deal by deal, added to a batch of games at a time: the fit's input kept up
    to date as games are stored, so a refit costs the new games, not all of them again. Sums
    of points (halves) and games stay exact in any order, so the fit is the same however the
    games were batched.

    Everything is kept in numpy columns (`columns.Ids`): bots by id (their labels the only
    strings), each seat-set as a chain of (prefix, bot) ids, each deal as (seat-set, deal
    value), each pair once, as (lower id, higher id), its points those of the lower id's bot,
    and each (deal, pair) entry's points and games. A rename changes a label only; which bot
    of a pair comes first by name is read when the tallies are."""

    def __init__(self) -> None:
        self.names: list[str] = []
        """Each bot's label, by id."""
        self._bot: dict[str, int] = {}
        self._seat_sets, self._deals = Ids(), Ids()
        self._other_values = Ids()
        """The deal values that are not their own codes in a deal's key (`_value_codes`)."""
        self._pairs, self._entries = Ids(), Ids()
        self._points = np.zeros(0, dtype=np.float32)
        """Per entry: the points of its pair's lower id (halves: exact in single precision);
        `_games`: the games."""
        self._games = np.zeros(0, dtype=np.int32)
        self._by_pair: tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]] | None = None
        """The entries ordered by pair (first seen first) and where each pair's begin."""

    def add(self, games: Iterable[FinishedGame]) -> Outcomes:
        """Count `games`; their pairwise outcomes."""
        seat_sets: list[list[int]] = []
        values: list[int] = []
        of: list[int] = []
        low: list[int] = []
        high: list[int] = []
        points: list[float] = []
        for n, game in enumerate(games):
            seat_sets.append([self._id(bot) for bot in game.seat_set.split(",")])
            values.append(game.deal)
            for (a, b), score in pair_outcomes(game):
                first, second = self._id(a), self._id(b)
                of.append(n)
                low.append(min(first, second))
                high.append(max(first, second))
                points.append(score if first < second else 1 - score)
        if not seat_sets:
            return Outcomes(np.zeros(0, dtype=np.int64), np.zeros(0))
        codes = self._value_codes(np.array(values, dtype=np.int64))
        deals = self._deals.add(joined(self._seat_set_ids(seat_sets), codes, _ID_BITS))
        pairs = self._pairs.add(joined(np.array(low), np.array(high), _BOT_BITS))
        entries = self._entries.add(joined(deals[np.array(of, dtype=np.int64)], pairs, _ID_BITS))
        size = len(self._entries)
        self._points = grown(self._points, size)
        self._games = grown(self._games, size)
        scored = np.array(points, dtype=np.float64)
        self._points[:size] += np.bincount(entries, scored, size)
        self._games[:size] += np.bincount(entries, minlength=size)
        self._by_pair = None
        return Outcomes(pairs, scored)

    def _value_codes(self, values: Column) -> Column:
        """Each deal value's code in a deal's key: a value from 0 below `_OWN_CODES` (a deal's
        index: every value a league stores) is its own; any other is `_OWN_CODES` + its id
        among such values."""
        other = (values < 0) | (values >= _OWN_CODES)
        if not other.any():
            return values
        codes = values.copy()
        codes[other] = _OWN_CODES + self._other_values.add(values[other])
        return codes

    def _id(self, bot: str) -> int:
        found = self._bot.get(bot)
        if found is None:
            found = self._bot[bot] = len(self.names)
            self.names.append(bot)
        return found

    def _seat_set_ids(self, seat_sets: list[list[int]]) -> Column:
        """Each seat-set's id: the id of its last seat's (prefix, bot) link."""
        width = max(map(len, seat_sets))
        bots = np.array([row + [-1] * (width - len(row)) for row in seat_sets], dtype=np.int64)
        ids = np.full(len(seat_sets), -1, dtype=np.int64)
        for seat in range(width):
            sits = bots[:, seat] >= 0
            ids[sits] = self._seat_sets.add(joined(ids[sits] + 1, bots[sits, seat], _BOT_BITS))
        return ids

    def rename(self, names: Mapping[str, str]) -> None:
        """Call bots by new names (`names`: old → new, every other bot as it was): in the
        seat sets, in the pairs, and as a pair's first bot (if its new name orders it second,
        its points become the other's)."""
        moved = {self._bot.pop(old): new for old, new in names.items() if old in self._bot}
        for bot, new in moved.items():
            self.names[bot] = new
            self._bot[new] = bot

    def bot_id(self, bot: str) -> int | None:
        return self._bot.get(bot)

    def ends(self) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
        """Every pair's bots (lower id, higher id), by pair id."""
        return self._pairs.halves(_BOT_BITS)

    def pair_of(self, a: str, b: str) -> tuple[int, bool] | None:
        """The id of the pair of bots `a` and `b`, and whether `a` is its higher id (the
        pair's points are `b`'s); None if they never met."""
        first, second = self._bot.get(a), self._bot.get(b)
        if first is None or second is None:
            return None
        key = joined(np.array([min(first, second)]), np.array([max(first, second)]), _BOT_BITS)
        found = int(self._pairs.find(key)[0])
        return None if found < 0 else (found, first > second)

    def deals_of(self, pair: int) -> list[tuple[float, int]]:
        """A pair's points (its lower id's) and games, deal by deal, in the order the deals
        were first seen."""
        if self._by_pair is None:
            self._by_pair = grouped(self._entries.lows(_ID_BITS), len(self._pairs))
        order, starts = self._by_pair
        end = int(starts[pair + 1]) if pair + 1 < len(starts) else len(order)
        entries = order[int(starts[pair]) : end]
        return list(zip(self._points[entries].tolist(), self._games[entries].tolist(), strict=True))

    def forget_grouping(self) -> None:
        """Free the entries grouped by pair (`deals_of`) until they are asked for again: a
        bootstrap drawn between refreshes must not hold them (a column an entry)."""
        self._by_pair = None

    def pairs(self) -> int:
        return len(self._pairs)

    def nbytes(self) -> int:
        """The columns' bytes: what the tally holds beyond its bots' labels."""
        held = (self._seat_sets, self._other_values, self._deals, self._pairs, self._entries)
        return sum(ids.nbytes() for ids in held) + self._points.nbytes + self._games.nbytes

    def name_places(self) -> Column:
        """Each bot's place among the bots in name order, by id."""
        places = np.empty(len(self.names), dtype=np.int64)
        places[sorted(range(len(self.names)), key=self.names.__getitem__)] = np.arange(
            len(self.names)
        )
        return places

    def deals(self) -> Deals:
        """The tallies so far, bots, pairs and deals in the order the fit reads them (the
        entries in no particular order: the fit's sums of halves are exact in any), made a
        `CHUNK` of entries at a time."""
        bots, ends, turned, pair_place = self._pairs_in_order()
        deal_place = self._deal_places()
        size = len(self._entries)
        one_each = self._one_entry_a_deal()
        deal_of = None if one_each else np.empty(size, dtype=np.int32)
        pair_of = np.empty(size, dtype=np.int32)
        half = self._games[:size].max(initial=0) <= HALF_EXACT
        exact: type[np.floating[Any]] = np.float16 if half else np.float32
        scores, counts = np.empty(size, dtype=exact), np.empty(size, dtype=exact)
        at = 0
        for keys, ids in self._entries.chunks():
            deal, pair = split(keys, _ID_BITS)
            end = at + len(keys)
            if deal_of is None:  # each entry at its deal's place
                rows: slice | npt.NDArray[np.int32] = deal_place[deal]
            else:
                rows = slice(at, end)
                deal_of[rows] = deal_place[deal]
            pair_of[rows] = pair_place[pair]
            games, points = self._games[ids], self._points[ids]
            scores[rows] = np.where(turned[pair], games - points, points)
            counts[rows] = games
            at = end
        return Deals(bots, ends, deal_of, pair_of, scores, counts, len(self._deals))

    def _one_entry_a_deal(self) -> bool:
        """Whether every deal has one entry (one pair): as many entries as deals, no two of
        them of one deal (the entries' keys are in deal order)."""
        if len(self._entries) != len(self._deals):
            return False
        last = -1
        for keys, _ in self._entries.chunks():
            deal = keys >> _ID_BITS
            if deal[0] == last or (deal[1:] == deal[:-1]).any():
                return False
            last = int(deal[-1])
        return True

    def pair_totals(self) -> Deals:
        """The tallies summed over each pair's deals, as `Deals` of one deal a pair: all a fit
        of every game needs (not its bootstrap), as many entries as pairs, exact in double."""
        bots, ends, turned, pair_place = self._pairs_in_order()
        size = len(ends)
        points, games = np.zeros(size), np.zeros(size)
        for keys, ids in self._entries.chunks():
            _, pair = split(keys, _ID_BITS)
            points += np.bincount(pair, self._points[ids], size)
            games += np.bincount(pair, self._games[ids], size)
        scores = np.where(turned, games - points, points)
        order = np.empty(size, dtype=np.int32)
        order[pair_place] = np.arange(size, dtype=np.int32)
        each = np.arange(size, dtype=np.int32)
        return Deals(bots, ends, None, each, scores[order], games[order], size)

    def _pairs_in_order(
        self,
    ) -> tuple[list[str], npt.NDArray[np.int32], npt.NDArray[np.bool_], npt.NDArray[np.int32]]:
        """The rated bots in name order; the pairs' ends as their places, in name order; and
        by pair id, whether its points are its second bot's by name, and its place."""
        low, high = self.ends()
        present = np.unique(np.concatenate([low, high]))
        bots = sorted(self.names[bot] for bot in present.tolist())
        place = np.full(len(self.names), -1, dtype=np.int32)
        place[present] = places(np.argsort(self.name_places()[present]))
        first, second = place[low], place[high]
        del low, high
        turned = first > second
        lower, higher = np.minimum(first, second), np.maximum(first, second)
        del first, second
        order = np.argsort(joined(lower, higher, _BOT_BITS))  # each pair once
        return bots, np.column_stack([lower[order], higher[order]]), turned, places(order)

    def _deal_places(self) -> npt.NDArray[np.int32]:
        """Each deal's place (by id) among the deals in key order: by seat-set key, then by
        deal value."""
        seat_set_place = self._seat_set_places()
        # A value's place among the values, under 2**32: the negative ones first (by their
        # places among the other values), then the own codes, then the large ones.
        others, other_place = self._other_values.keys(), self._other_values.places()
        negative = int((others < 0).sum())
        other_key = np.where(others < 0, other_place, other_place.astype(np.int64) + _OWN_CODES)
        keys = np.empty(len(self._deals), dtype=np.int64)
        for found, ids in self._deals.chunks():
            seat_set, code = split(found, _ID_BITS)
            value = code + negative
            large = code >= _OWN_CODES
            value[large] = other_key[code[large] - _OWN_CODES]
            keys[ids] = joined(seat_set_place[seat_set], value, _ID_BITS)
        order = np.argsort(keys)  # each deal once
        del keys
        return places(order)

    def _seat_set_places(self) -> npt.NDArray[np.int32]:
        """Each seat-set link's place (by id: a deal's seat-set is its last link's) among the
        links in the order of their seat-sets' keys (their labels joined by commas). A link's
        prefix is an older link (a lower id)."""
        prefix, bots = self._seat_sets.halves(_BOT_BITS)
        prefix -= 1  # -1: none
        depth = np.ones(len(bots), dtype=np.int32)
        walk = prefix.copy()
        while (on := walk >= 0).any():
            depth[on] += 1
            walk[on] = prefix[walk[on]]
        del walk
        base, widest = len(self.names) + 1, int(depth.max(initial=0))
        if all(min(name, default=",") > "," for name in self.names) and base**widest < 2**63:
            # Labels, none empty, of characters after the comma order as their joined keys do:
            # as the numbers whose digits are their bots' places in name order (0 after last).
            digit = self.name_places() + 1
            key = np.zeros(len(bots), dtype=np.int64)
            for level in range(1, widest + 1):
                found = np.flatnonzero(depth == level)
                for at in range(0, len(found), CHUNK):
                    links = found[at : at + CHUNK]
                    above = key[prefix[links]] if level > 1 else 0
                    key[links] = above + digit[bots[links]] * base ** (widest - level)
            del prefix, bots, depth
            return places(np.argsort(key))
        labels: list[str] = []
        for before, bot in zip(prefix.tolist(), bots.tolist(), strict=True):
            labels.append(self.names[bot] if before < 0 else f"{labels[before]},{self.names[bot]}")
        return places(np.array(sorted(range(len(labels)), key=labels.__getitem__)))


def renamed(key: DealKey, names: Mapping[str, str]) -> DealKey:
    """A deal's key with its seat set's bots called by their new `names`."""
    seat_set, deal = key
    return ",".join(names.get(bot, bot) for bot in seat_set.split(",")), deal


class Fitting:
    """An Elo fit of `deals`: the point estimate at once, the bootstrap's refits drawn one at a
    time (`draw`), so whoever must answer quickly can show the point estimate and spread the
    resamples over its time; drawn to the end, `fitted()` is `elo_fit`'s."""

    def __init__(
        self,
        deals: Deals,
        *,
        anchor: str | None = None,
        anchor_elo: float = BASE_ELO,
        prior: float = 1.0,
        bootstrap: int = 200,
        seed: int = 0,
    ) -> None:
        if anchor is not None and anchor not in deals.bots:
            raise RequestError(f"anchor {anchor!r} has no games; bots: {', '.join(deals.bots)}")
        self.deals, self.prior, self.anchor_elo = deals, prior, anchor_elo
        self._anchor = None if anchor is None else deals.bots.index(anchor)
        size = len(deals.bots)
        self.point = self._refit(None, np.zeros(size))
        """Every rated bot's Elo (by its index in `deals.bots`) from all the games."""
        self._start = (np.array([self.point[i] for i in range(size)]) - anchor_elo) / ELO_PER_NAT
        self._rng = _python_random(seed)
        self.left = bootstrap if deals.deals > 1 else 0
        """Resamples still to draw."""
        self._resamples: list[npt.NDArray[np.float64]] = []
        """Each resample's Elo by bot index, NaN for a bot it did not rate: a bootstrap of a
        thousand bots drawn over many refreshes holds arrays, not dicts of floats."""

    def draw(self) -> None:
        """One more bootstrap resample (deals drawn with replacement, in key order)."""
        count = self.deals.deals
        # What `random.Random(seed).choices(range(count), k=count)` draws, in C, a chunk at a
        # time (the same stream).
        drawn = np.zeros(count, dtype=np.int32)
        for start in range(0, count, CHUNK):
            picks = self._rng.random_sample(min(CHUNK, count - start))
            picks *= count
            np.add.at(drawn, np.floor(picks, out=picks).astype(np.intp), 1)
        rated = self._refit(drawn, self._start)
        resample = np.full(len(self.deals.bots), np.nan)
        resample[list(rated)] = list(rated.values())
        self._resamples.append(resample)
        self.left -= 1

    def elo(self) -> dict[str, float]:
        """Every rated bot's Elo from all the games, bots in name order."""
        return {bot: self.point[i] for i, bot in enumerate(self.deals.bots)}

    def fitted(self) -> EloFit:
        """The point estimates and the resamples drawn so far."""
        bots, resamples = self.deals.bots, []
        for resample in self._resamples:
            rated = np.flatnonzero(~np.isnan(resample))
            names = [bots[i] for i in rated.tolist()]
            resamples.append(dict(zip(names, resample[rated].tolist(), strict=True)))
        return EloFit(self.elo(), resamples)

    def _refit(
        self, weights: npt.NDArray[np.int32] | None, start: npt.NDArray[np.float64]
    ) -> dict[int, float]:
        """Elo of the bots present in the deals drawn this many times each (None: once): a
        resample's totals are two weighted bincounts over the entries, a `CHUNK` at a time
        (their sums of halves are exact, so the same in any order)."""
        deals, pairs = self.deals, len(self.deals.ends)
        points, count = np.zeros(pairs), np.zeros(pairs)
        for at in range(0, len(deals.pair_of), CHUNK):
            pair, scores = deals.pair_of[at : at + CHUNK], deals.scores[at : at + CHUNK]
            counts = deals.counts[at : at + CHUNK]
            if weights is not None:
                of = deals.deal_of
                drawn = weights[at : at + CHUNK] if of is None else weights[of[at : at + CHUNK]]
                scores, counts = drawn * scores, drawn * counts
            points += np.bincount(pair, scores, pairs)
            count += np.bincount(pair, counts, pairs)
        met = count > 0
        if not met.all():  # each whole column freed as its pairs that met are taken
            points = points[met]
            count = count[met]
        points += self.prior / 2
        count += self.prior
        rows = Rows(deals.ends[met, 0], deals.ends[met, 1], points, count)
        del points, count, met
        size = len(deals.bots)
        present = np.flatnonzero(
            np.bincount(rows.a, minlength=size) + np.bincount(rows.b, minlength=size)
        )
        strength = _solve(rows, size, start)
        if self._anchor is None:
            zero = float(strength[present].mean())
        elif self._anchor in present:
            zero = float(strength[self._anchor])
        else:
            return {}
        elo = self.anchor_elo + (strength[present] - zero) * ELO_PER_NAT
        return dict(zip(present.tolist(), elo.tolist(), strict=True))


def elo_fit(
    games: Sequence[FinishedGame],
    *,
    anchor: str | None = None,
    anchor_elo: float = BASE_ELO,
    prior: float = 1.0,
    bootstrap: int = 200,
    seed: int = 0,
) -> EloFit:
    """Elo of every bot that played, anchored so the mean (or `anchor`) is `anchor_elo`, and
    `bootstrap` refits on deals drawn with replacement (a seeded RNG over deals in a fixed
    order: the same games always give the same resamples, whatever order they come in)."""
    tally = DealTally()
    tally.add(games)
    fitting = Fitting(
        tally.deals(),
        anchor=anchor,
        anchor_elo=anchor_elo,
        prior=prior,
        bootstrap=bootstrap,
        seed=seed,
    )
    while fitting.left:
        fitting.draw()
    return fitting.fitted()


def _python_random(seed: int) -> np.random.RandomState:
    """numpy's Mersenne Twister in the state of `random.Random(seed)`: both make a float from
    two 32-bit draws the same way, so its draws are Python's (the resamples stay those of the
    pure-Python fit) at numpy's speed."""
    *words, position = random.Random(seed).getstate()[1]
    state = np.random.RandomState()
    state.set_state(("MT19937", np.array(words, dtype=np.uint32), position, 0, 0.0))
    return state


def elo_ratings(
    games: Sequence[FinishedGame],
    *,
    anchor: str | None = None,
    anchor_elo: float = BASE_ELO,
    prior: float = 1.0,
    bootstrap: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Rating]:
    """Elo of every bot that played, anchored so the mean (or `anchor`) is `anchor_elo`, with
    the central `confidence` range of `bootstrap` refits on resampled deals (see `elo_fit`)."""
    fitted = elo_fit(
        games, anchor=anchor, anchor_elo=anchor_elo, prior=prior, bootstrap=bootstrap, seed=seed
    )
    return fitted.ratings(confidence)


def plackett_luce(games: Iterable[FinishedGame]) -> dict[str, tuple[float, float]]:
    """openskill Plackett–Luce (mu, sigma) per bot, games taken in schedule order.

    The update is online, so the order matters a little; a fixed order (seat-set, deal,
    rotation) makes the numbers reproducible however the games were scheduled.
    """
    ordered = sorted(games, key=lambda g: (g.seat_set, g.deal, g.rotation))
    ratings: dict[str, tuple[float, float]] = {}
    for _, rated in plackett_luce_steps(ordered):
        ratings.update(rated)
    return ratings


def plackett_luce_steps(
    games: Iterable[FinishedGame],
) -> Iterator[tuple[FinishedGame, dict[str, tuple[float, float]]]]:
    """Each game (in the order given) with the (mu, sigma) of its seats' bots after it: the
    online update `plackett_luce` ends with, and a bot's rating over time."""
    online = OnlinePlackettLuce()
    for game in games:
        after = online.add(game)
        if after:
            yield game, after


def mu_series(
    games: Iterable[FinishedGame], name: Callable[[str], str] = str
) -> dict[str, list[float]]:
    """Each bot's openskill mu after each game it sat in (`games` in the order given: a
    rating over time); `name` maps a seat's label to its series (a league counts every
    version, `name@hash`, as its bot)."""
    series = MuSeries(name)
    series.add(games)
    return {bot: values.tolist() for bot, values in series.series.items()}


class MuSeries:
    """`mu_series` extended a batch of games at a time (the games in the order stored), for
    whoever keeps ratings over time as games come and must not go over them all again.
    Each series is an array of doubles: a league of a million games holds two million mu,
    eight bytes each rather than a float object and its list slot."""

    def __init__(self, name: Callable[[str], str] = str) -> None:
        self.name = name
        self.series: dict[str, array[float]] = {}
        self._online = OnlinePlackettLuce()

    def rename(self, names: Mapping[str, str]) -> None:
        """Call bots by new `names` (old → new) in the games to come; `name` must give a
        label's series to its new name too (the league's: a version renamed `name@hash` is
        still its bot's)."""
        self._online.rename(names)

    def add(self, games: Iterable[FinishedGame]) -> set[str]:
        """Rate `games`; the series they extended."""
        extended = set()
        for game in games:
            for label, (mu, _sigma) in self._online.add(game).items():
                extended.add(bot := self.name(label))
                self.series.setdefault(bot, array("d")).append(mu)
        return extended


class OnlinePlackettLuce:
    """openskill Plackett–Luce ratings updated one game at a time, for whoever sees games as
    they are stored (the league's ladder) and must not go over them all again.

    Each game is rated as openskill's `PlackettLuce.rate` rates it, by the model's own update
    (`_compute`) on the bots' kept ratings, in place: `rate` deep-copies its teams and gives
    each copy a fresh uuid, most of its cost over a league's million games (a test pins the
    numbers to `rate`'s)."""

    def __init__(self) -> None:
        self._model = PlackettLuce()
        self._ratings: dict[str, Any] = {}

    def add(self, game: FinishedGame) -> dict[str, tuple[float, float]]:
        """Rate `game`; the (mu, sigma) of its seats' bots after it (none when one bot sat in
        two seats: Plackett–Luce has no meaning for it)."""
        if len(set(game.bots)) < len(game.bots):
            return {}
        model, ratings = self._model, self._ratings
        tau = model.tau * model.tau
        seats = []
        for bot in game.bots:
            rating = ratings.get(bot)
            if rating is None:
                rating = ratings[bot] = model.rating(name=bot)
            rating.sigma = math.sqrt(rating.sigma * rating.sigma + tau)  # `rate`'s dynamics
            seats.append(rating)
        ranks = [float(rank) for rank in game.played.ranks]
        order = sorted(range(len(seats)), key=ranks.__getitem__)  # `rate`'s: best first
        model._compute(teams=[[seats[seat]] for seat in order], ranks=sorted(ranks))
        return {
            bot: (rating.mu, rating.sigma) for bot, rating in zip(game.bots, seats, strict=True)
        }

    def rename(self, names: Mapping[str, str]) -> None:
        """Call bots by new `names` (old → new): their ratings go on under them."""
        self._ratings = {names.get(bot, bot): rating for bot, rating in self._ratings.items()}

    def sigma(self, bot: str) -> float:
        """How uncertain `bot`'s rating is (infinite before its first game)."""
        rating = self._ratings.get(bot)
        return math.inf if rating is None else float(rating.sigma)


class ScoreEstimate(msgspec.Struct, frozen=True):
    """A mean pairwise score and what it says on the Elo scale."""

    games: int
    score: float
    """The observed mean score (without the prior)."""
    elo: float
    lo: float
    hi: float
    los: float
    """Probability that the true score is above one half."""


def estimate_score(
    deals: Sequence[tuple[float, int]], *, prior: float = 1.0, confidence: float = 0.95
) -> ScoreEstimate:
    """Mean score, Elo with its interval, and LOS, from per-deal totals (points, games).

    The standard error comes from the spread of the deal totals (a cluster-robust estimate), so
    correlated rotations are not counted as independent games. The interval is symmetric on the
    Elo (log-odds) scale — the delta method — which stays sensible near 0% and 100%, where an
    interval on the score scale would reach an infinite Elo. The prior adds half a win and half
    a loss, like one virtual draw, so a clean sweep still has a finite Elo.
    """
    observations: list[tuple[float, float]] = [*deals, (0.0, prior / 2), (prior / 2, prior / 2)]
    points = sum(p for p, _ in observations)
    games = sum(n for _, n in observations)
    mean = points / games
    count = len(observations)
    spread = sum((p - mean * n) ** 2 for p, n in observations)
    error = math.sqrt(count / (count - 1) * spread) / games
    z = _normal_quantile(0.5 + confidence / 2)
    elo = elo_from_score(mean)
    margin = z * ELO_PER_NAT * error / (mean * (1 - mean))
    played = sum(n for _, n in deals)
    return ScoreEstimate(
        games=played,
        score=sum(p for p, _ in deals) / played if played else 0.5,
        elo=elo,
        lo=elo - margin,
        hi=elo + margin,
        los=_los(mean, error),
    )


@functools.cache
def _normal_quantile(probability: float) -> float:
    """The standard normal's quantile: one per confidence, not one per pair's row."""
    return statistics.NormalDist().inv_cdf(probability)


def _los(mean: float, error: float) -> float:
    if error == 0:
        return 0.5 if mean == 0.5 else float(mean > 0.5)
    return 1 - statistics.NormalDist(mean, error).cdf(0.5)


DealTotals = dict[Pair, dict[DealKey, tuple[float, int]]]
"""(a, b) with a < b → deal → a's points and the games."""


def deal_totals(games: Iterable[FinishedGame], into: DealTotals | None = None) -> DealTotals:
    """For every pair (a < b) that met: a's points and the games, deal by deal (one pass),
    added to `into` when given (a running tally)."""
    totals: DealTotals = {} if into is None else into
    for game in games:
        for pair, score in pair_outcomes(game):
            deals = totals.setdefault(pair, {})
            points, count = deals.get(game.deal_key, (0.0, 0))
            deals[game.deal_key] = (points + score, count + 1)
    return totals


def versus(
    totals: Mapping[Pair, Mapping[DealKey, tuple[float, int]]],
    a: str,
    b: str,
    *,
    prior: float = 1.0,
) -> ScoreEstimate:
    """Bot a against bot b from `deal_totals`: score, Elo difference ± interval, LOS."""
    first, second = sorted((a, b))
    deals = list(totals.get((first, second), {}).values())
    if a != first:
        deals = [(count - points, count) for points, count in deals]
    return estimate_score(deals, prior=prior)


def head_to_head(
    games: Iterable[FinishedGame], a: str, b: str, *, prior: float = 1.0
) -> ScoreEstimate:
    """Bot a against bot b over every game where both sat (pairwise, from the ranks)."""
    return versus(deal_totals(games), a, b, prior=prior)
