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
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import msgspec
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
_TIE_ELO = 1e-6
"""Elo ratings closer than this are equal: bots tied in a resample share its places."""

Pair = tuple[str, str]
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


def _cholesky_solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve matrix · x = vector for a symmetric positive-definite matrix."""
    size = len(vector)
    lower = [[0.0] * size for _ in range(size)]
    for i in range(size):
        for j in range(i + 1):
            total = matrix[i][j] - sum(lower[i][k] * lower[j][k] for k in range(j))
            lower[i][j] = math.sqrt(total) if i == j else total / lower[j][j]
    forward = [0.0] * size
    for i in range(size):
        forward[i] = (vector[i] - sum(lower[i][k] * forward[k] for k in range(i))) / lower[i][i]
    solution = [0.0] * size
    for i in reversed(range(size)):
        rest = sum(lower[k][i] * solution[k] for k in range(i + 1, size))
        solution[i] = (forward[i] - rest) / lower[i][i]
    return solution


Row = tuple[int, int, float, float]
"""A pair as the solver sees it: (index of a, index of b, a's points, games)."""


def _solve(rows: Sequence[Row], size: int, prior: float, start: Sequence[float]) -> list[float]:
    """Maximum-likelihood strengths (natural log-odds units, mean 0) by Newton's method.

    The log-likelihood is concave, so a handful of iterations from a warm start suffice, each
    solving one small symmetric system. A penalty on (Σ strength)² fixes the free translation
    without pulling bots together, and a vanishing ridge keeps bots in groups that never met
    each other finite.
    """
    pairs = [(a, b, score + prior / 2, games + prior) for a, b, score, games in rows]
    strength = list(start)
    for _ in range(50):
        total = sum(strength)
        gradient = [-total - _RIDGE * value for value in strength]
        hessian = [[1.0] * size for _ in range(size)]
        for i in range(size):
            hessian[i][i] += _RIDGE
        for a, b, score, games in pairs:
            expected = 1 / (1 + math.exp(strength[b] - strength[a]))
            residual = score - games * expected
            weight = games * expected * (1 - expected)
            gradient[a] += residual
            gradient[b] -= residual
            hessian[a][a] += weight
            hessian[b][b] += weight
            hessian[a][b] -= weight
            hessian[b][a] -= weight
        step = _cholesky_solve(hessian, gradient)
        largest = max((abs(value) for value in step), default=0.0)
        scale = min(1.0, _MAX_STEP / largest) if largest else 1.0
        strength = [value + scale * delta for value, delta in zip(strength, step, strict=True)]
        if largest < 1e-9:
            break
    return strength


def fit(tallies: Mapping[Pair, Sequence[float]], bots: Sequence[str]) -> dict[str, float]:
    """Maximum-likelihood strengths of `bots` (log-odds units, mean 0) from pair tallies."""
    index = {bot: i for i, bot in enumerate(bots)}
    rows = [(index[a], index[b], score, games) for (a, b), (score, games) in tallies.items()]
    return dict(zip(bots, _solve(rows, len(bots), 1.0, [0.0] * len(bots)), strict=True))


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
    by_deal: dict[tuple[str, int], list[FinishedGame]] = defaultdict(list)
    for game in games:
        by_deal[game.deal_key].append(game)
    deals = [tally(by_deal[key]) for key in sorted(by_deal)]
    pairs = sorted({pair for deal in deals for pair in deal})
    bots = sorted({bot for pair in pairs for bot in pair})
    if anchor is not None and anchor not in bots:
        raise RequestError(f"anchor {anchor!r} has no games; bots: {', '.join(bots)}")
    index = {bot: i for i, bot in enumerate(bots)}
    ends = [(index[a], index[b]) for a, b in pairs]
    position = {pair: k for k, pair in enumerate(pairs)}
    # Each deal as (pair position, points, games) entries, cheap to add up with weights.
    clusters = [[(position[p], score, n) for p, (score, n) in deal.items()] for deal in deals]

    def refit(weights: Mapping[int, int], start: Sequence[float]) -> dict[int, float]:
        """Elo of the bots present in the deals drawn with these weights."""
        points, count = [0.0] * len(pairs), [0.0] * len(pairs)
        for deal, weight in weights.items():
            for k, score, n in clusters[deal]:
                points[k] += weight * score
                count[k] += weight * n
        rows = [(*ends[k], points[k], count[k]) for k in range(len(pairs)) if count[k]]
        present = sorted({i for a, b, _, _ in rows for i in (a, b)})
        strength = _solve(rows, len(bots), prior, start)
        if anchor is None:
            zero = statistics.fmean(strength[i] for i in present)
        elif index[anchor] in present:
            zero = strength[index[anchor]]
        else:
            return {}
        return {i: anchor_elo + (strength[i] - zero) * ELO_PER_NAT for i in present}

    everything = {deal: 1 for deal in range(len(deals))}
    point = refit(everything, [0.0] * len(bots))
    start = [(point[i] - anchor_elo) / ELO_PER_NAT for i in range(len(bots))]
    resamples = []
    rng = random.Random(seed)
    for _ in range(bootstrap if len(deals) > 1 else 0):
        drawn = Counter(rng.choices(range(len(deals)), k=len(deals)))
        resamples.append({bots[i]: elo for i, elo in refit(drawn, start).items()})
    return EloFit({bot: point[i] for i, bot in enumerate(bots)}, resamples)


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
    series: dict[str, list[float]] = defaultdict(list)
    for _, after in plackett_luce_steps(games):
        for label, (mu, _sigma) in after.items():
            series[name(label)].append(mu)
    return dict(series)


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


DealKey = tuple[str, int]


def deal_totals(games: Iterable[FinishedGame]) -> dict[Pair, dict[DealKey, tuple[float, int]]]:
    """For every pair (a < b) that met: a's points and the games, deal by deal (one pass)."""
    totals: dict[Pair, dict[DealKey, tuple[float, int]]] = defaultdict(dict)
    for game in games:
        for pair, score in pair_outcomes(game):
            points, count = totals[pair].get(game.deal_key, (0.0, 0))
            totals[pair][game.deal_key] = (points + score, count + 1)
    return dict(totals)


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
