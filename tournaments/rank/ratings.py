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

import math
import random
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import msgspec
import numpy as np
import numpy.typing as npt
from openskill.models import PlackettLuce

from protocol.errors import RequestError
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
    bots (a, b), a's points and the games."""

    a: npt.NDArray[np.intp]
    b: npt.NDArray[np.intp]
    points: npt.NDArray[np.float64]
    games: npt.NDArray[np.float64]


def _solve(
    rows: Rows, size: int, prior: float, start: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Maximum-likelihood strengths (natural log-odds units, mean 0) by Newton's method.

    The log-likelihood is concave, so a handful of iterations from a warm start suffice. A
    penalty on (Σ strength)² fixes the free translation without pulling bots together, and a
    vanishing ridge keeps bots in groups that never met each other finite.
    """
    points, games = rows.points + prior / 2, rows.games + prior
    strength = start.copy()
    for _ in range(50):
        expected = 1 / (1 + np.exp(strength[rows.b] - strength[rows.a]))
        gradient = _spread(rows, points - games * expected, size)
        gradient -= strength.sum() + _RIDGE * strength
        step = _newton_step(rows, games * expected * (1 - expected), gradient)
        largest = float(np.abs(step).max(initial=0.0))
        strength += (min(1.0, _MAX_STEP / largest) if largest else 1.0) * step
        if largest < 1e-9:
            break
    return strength


def _spread(rows: Rows, values: npt.NDArray[np.float64], size: int) -> npt.NDArray[np.float64]:
    """Each pair's value added to its bot a and taken from its bot b."""
    spread = np.bincount(rows.a, values, size) - np.bincount(rows.b, values, size)
    return spread.astype(np.float64, copy=False)


def _newton_step(
    rows: Rows, weight: npt.NDArray[np.float64], gradient: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Solve (Laplacian of the pairs' weights + 1·1ᵀ + ridge) · step = gradient: one dense
    solve for a few bots; beyond `_DENSE_BOTS`, conjugate gradients over the pairs, so a step
    costs what the pairs that met cost rather than the cube of the bots."""
    size = len(gradient)
    degree = np.bincount(rows.a, weight, size) + np.bincount(rows.b, weight, size)
    if size <= _DENSE_BOTS:
        hessian = np.full((size, size), 1.0)
        hessian[np.diag_indices(size)] += degree + _RIDGE
        np.subtract.at(hessian, (rows.a, rows.b), weight)
        np.subtract.at(hessian, (rows.b, rows.a), weight)
        return np.linalg.solve(hessian, gradient)

    from scipy.sparse import linalg  # half a second to import: only fields this large pay it

    def hessian_times(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return _spread(rows, weight * (x[rows.a] - x[rows.b]), size) + x.sum() + _RIDGE * x

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
    rows = Rows(
        np.array([index[a] for a, _ in tallies], dtype=np.intp),
        np.array([index[b] for _, b in tallies], dtype=np.intp),
        np.array([score for score, _ in tallies.values()], dtype=np.float64),
        np.array([games for _, games in tallies.values()], dtype=np.float64),
    )
    strength = _solve(rows, len(bots), 1.0, np.zeros(len(bots)))
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
    bootstrap draws them in), its pair's place, the first bot's points and the games."""

    bots: list[str]
    ends: npt.NDArray[np.intp]
    deal_of: npt.NDArray[np.intp]
    pair_of: npt.NDArray[np.intp]
    scores: npt.NDArray[np.float64]
    counts: npt.NDArray[np.float64]
    deals: int


class DealTally:
    """Pair tallies deal by deal, added to a batch of games at a time: the fit's input kept up
    to date as games are stored, so a refit costs the new games, not all of them again. Sums
    of points (halves) and games stay exact in any order, so the fit is the same however the
    games were batched."""

    def __init__(self) -> None:
        self._deals: dict[DealKey, int] = {}
        self._pairs: dict[Pair, int] = {}
        self._entries: dict[tuple[int, int], int] = {}
        self._sums = np.zeros((0, 2))
        """Per entry: the first bot's points and the games."""
        self._entry_deal: list[int] = []
        self._entry_pair: list[int] = []

    def add(self, games: Iterable[FinishedGame]) -> None:
        deals, pairs, entries = self._deals, self._pairs, self._entries
        which: list[int] = []
        scores: list[float] = []
        for game in games:
            deal = deals.setdefault(game.deal_key, len(deals))
            for pair, score in pair_outcomes(game):
                key = (deal, pairs.setdefault(pair, len(pairs)))
                entry = entries.get(key)
                if entry is None:
                    entry = entries[key] = len(entries)
                    self._entry_deal.append(key[0])
                    self._entry_pair.append(key[1])
                which.append(entry)
                scores.append(score)
        added = np.array(which, dtype=np.intp)
        size = len(entries)
        grown = np.zeros((size, 2))
        grown[: len(self._sums)] = self._sums
        grown[:, 0] += np.bincount(added, np.array(scores, dtype=np.float64), size)
        grown[:, 1] += np.bincount(added, minlength=size)
        self._sums = grown

    def rename(self, names: Mapping[str, str]) -> None:
        """Call bots by new names (`names`: old → new, every other bot as it was): in the
        seat sets, in the pairs, and as a pair's first bot (if its new name orders it second,
        its points become the other's)."""
        self._deals = {renamed(key, names): deal for key, deal in self._deals.items()}
        pairs, turned = {}, []
        for (a, b), pair in self._pairs.items():
            first, second = names.get(a, a), names.get(b, b)
            if first > second:
                first, second = second, first
                turned.append(pair)
            pairs[first, second] = pair
        self._pairs = pairs
        turn = np.isin(np.array(self._entry_pair, dtype=np.intp), turned)
        self._sums[turn, 0] = self._sums[turn, 1] - self._sums[turn, 0]

    def deals(self) -> Deals:
        """The tallies so far, bots, pairs and deals in the order the fit reads them."""
        pairs = list(self._pairs)
        bots = sorted({bot for pair in pairs for bot in pair})
        index = {bot: i for i, bot in enumerate(bots)}
        ends = np.array([(index[a], index[b]) for a, b in pairs], dtype=np.intp).reshape(-1, 2)
        pair_order = np.lexsort((ends[:, 1], ends[:, 0]))
        keys = list(self._deals)
        seat_sets = sorted({seat_set for seat_set, _ in keys})
        seat_set_place = {seat_set: i for i, seat_set in enumerate(seat_sets)}
        deal_order = np.lexsort(
            (
                np.array([deal for _, deal in keys], dtype=np.int64),
                np.array([seat_set_place[seat_set] for seat_set, _ in keys], dtype=np.intp),
            )
        )
        sums = self._sums
        return Deals(
            bots=bots,
            ends=ends[pair_order],
            deal_of=_places(deal_order)[np.array(self._entry_deal, dtype=np.intp)],
            pair_of=_places(pair_order)[np.array(self._entry_pair, dtype=np.intp)],
            scores=sums[:, 0].copy(),
            counts=sums[:, 1].copy(),
            deals=len(keys),
        )


def renamed(key: DealKey, names: Mapping[str, str]) -> DealKey:
    """A deal's key with its seat set's bots called by their new `names`."""
    seat_set, deal = key
    return ",".join(names.get(bot, bot) for bot in seat_set.split(",")), deal


def _places(order: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """Where each item goes in `order` (the inverse permutation)."""
    places = np.empty_like(order)
    places[order] = np.arange(len(order))
    return places


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
        self.point = self._refit(np.ones(deals.deals), np.zeros(size))
        """Every rated bot's Elo (by its index in `deals.bots`) from all the games."""
        self._start = (np.array([self.point[i] for i in range(size)]) - anchor_elo) / ELO_PER_NAT
        self._rng = _python_random(seed)
        self.left = bootstrap if deals.deals > 1 else 0
        """Resamples still to draw."""
        self.resamples: list[dict[str, float]] = []

    def draw(self) -> None:
        """One more bootstrap resample (deals drawn with replacement, in key order)."""
        count = self.deals.deals
        # What `random.Random(seed).choices(range(count), k=count)` draws, in C.
        picks = np.floor(self._rng.random_sample(count) * count).astype(np.intp)
        drawn = np.bincount(picks, minlength=count).astype(np.float64)
        bots = self.deals.bots
        self.resamples.append({bots[i]: elo for i, elo in self._refit(drawn, self._start).items()})
        self.left -= 1

    def fitted(self) -> EloFit:
        """The point estimates and the resamples drawn so far."""
        bots = self.deals.bots
        return EloFit({bot: self.point[i] for i, bot in enumerate(bots)}, self.resamples)

    def _refit(
        self, weights: npt.NDArray[np.float64], start: npt.NDArray[np.float64]
    ) -> dict[int, float]:
        """Elo of the bots present in the deals drawn with these weights (one per deal): a
        resample's totals are two weighted bincounts over the entries."""
        deals, pairs = self.deals, len(self.deals.ends)
        drawn = weights[deals.deal_of]
        points = np.bincount(deals.pair_of, drawn * deals.scores, pairs).astype(np.float64)
        count = np.bincount(deals.pair_of, drawn * deals.counts, pairs).astype(np.float64)
        met = count > 0
        rows = Rows(deals.ends[met, 0], deals.ends[met, 1], points[met], count[met])
        present = np.unique(np.concatenate([rows.a, rows.b]))
        strength = _solve(rows, len(deals.bots), self.prior, start)
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
    return series.series


class MuSeries:
    """`mu_series` extended a batch of games at a time (the games in the order stored), for
    whoever keeps ratings over time as games come and must not go over them all again."""

    def __init__(self, name: Callable[[str], str] = str) -> None:
        self.name = name
        self.series: dict[str, list[float]] = {}
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
                self.series.setdefault(bot, []).append(mu)
        return extended


class OnlinePlackettLuce:
    """openskill Plackett–Luce ratings updated one game at a time, for whoever sees games as
    they are stored (the league's ladder) and must not go over them all again."""

    def __init__(self) -> None:
        self._model = PlackettLuce()
        self._ratings: dict[str, Any] = {}

    def add(self, game: FinishedGame) -> dict[str, tuple[float, float]]:
        """Rate `game`; the (mu, sigma) of its seats' bots after it (none when one bot sat in
        two seats: Plackett–Luce has no meaning for it)."""
        if len(set(game.bots)) < len(game.bots):
            return {}
        model, ratings = self._model, self._ratings
        teams = [[ratings[bot] if bot in ratings else model.rating(name=bot)] for bot in game.bots]
        ranks = [float(rank) for rank in game.played.ranks]
        after = {}
        for bot, (rating,) in zip(game.bots, model.rate(teams, ranks=ranks), strict=True):
            ratings[bot] = rating
            after[bot] = (rating.mu, rating.sigma)
        return after

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
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
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
