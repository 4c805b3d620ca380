"""Ratings: pure functions from finished games to numbers with error bars.

- `elo_ratings`: maximum-likelihood Elo (Bradley–Terry on the logistic Elo scale) over every
  pairwise outcome. A game of N seats gives N(N-1)/2 pairs from its ranks; equal ranks are a
  draw (half a point each). The likelihood only sees the total score of each pair, so the
  result does not depend on the order games were played in — unlike online Elo.
  95% intervals come from a bootstrap that resamples whole deals (all rotations of one seed at
  one table), because the rotations of a deal share its luck.
- `plackett_luce`: openskill's Plackett–Luce rating, which models a whole finishing order at
  once; informative for 3+ seats, where pairs from one game are not independent.
- `head_to_head`: two bots' pairwise score, Elo difference ± interval and likelihood of
  superiority, with the variance estimated from per-deal totals (the pentanomial idea).

Every estimate adds one virtual draw per pair of bots that met (`prior`): it keeps a clean
sweep finite (a bot that won every game has no maximum-likelihood rating) and is negligible
once a pair has played a few dozen games.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec
from openskill.models import PlackettLuce

from tournaments.results import FinishedGame

BASE_ELO = 1500.0
ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of natural log-odds: a difference D wins with 1/(1+10^(-D/400))."""
_RIDGE = 1e-9
"""A vanishing pull towards 0: fixes the free translation and bots in separate components."""
_MAX_STEP = 2.0
"""Largest Newton step, in natural log-odds: keeps early iterations from overshooting."""

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


def fit(
    tallies: Mapping[Pair, Sequence[float]],
    bots: Sequence[str],
    *,
    prior: float = 1.0,
    start: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Maximum-likelihood strengths in natural log-odds units (free translation, mean ≈ 0).

    Newton's method on the concave Bradley–Terry log-likelihood: a handful of iterations, each
    solving one small symmetric system, so a bootstrap of hundreds of refits stays fast.
    """
    index = {bot: i for i, bot in enumerate(bots)}
    pairs = [
        (index[a], index[b], score + prior / 2, games + prior)
        for (a, b), (score, games) in tallies.items()
    ]
    strength = [start.get(bot, 0.0) if start else 0.0 for bot in bots]
    for _ in range(100):
        gradient = [-_RIDGE * value for value in strength]
        hessian = [[0.0] * len(bots) for _ in bots]
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
        for i in range(len(bots)):
            hessian[i][i] += _RIDGE
        step = _cholesky_solve(hessian, gradient)
        largest = max((abs(value) for value in step), default=0.0)
        scale = min(1.0, _MAX_STEP / largest) if largest else 1.0
        strength = [value + scale * delta for value, delta in zip(strength, step, strict=True)]
        if largest < 1e-10:
            break
    return dict(zip(bots, strength, strict=True))


def _anchored(
    strength: Mapping[str, float], anchor: str | None, anchor_elo: float
) -> dict[str, float]:
    """Strengths on the Elo scale, with the anchor bot (or the mean) at `anchor_elo`."""
    zero = strength[anchor] if anchor is not None else statistics.fmean(strength.values())
    return {bot: anchor_elo + (value - zero) * ELO_PER_NAT for bot, value in strength.items()}


def _percentile(values: Sequence[float], fraction: float) -> float:
    """Linear-interpolated percentile of sorted `values`."""
    position = fraction * (len(values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def _by_deal(games: Iterable[FinishedGame]) -> list[Tally]:
    """Pair tallies per deal, deals in a fixed order so the bootstrap is order-independent."""
    deals: dict[tuple[str, int], list[FinishedGame]] = defaultdict(list)
    for game in games:
        deals[game.deal_key].append(game)
    return [tally(deals[key]) for key in sorted(deals)]


def _sum_tallies(parts: Iterable[tuple[Tally, int]]) -> Tally:
    totals: Tally = defaultdict(lambda: [0.0, 0.0])
    for part, weight in parts:
        for pair, (score, games) in part.items():
            totals[pair][0] += weight * score
            totals[pair][1] += weight * games
    return dict(totals)


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
    """Elo of every bot that played, anchored so the mean (or `anchor`) is `anchor_elo`.

    The interval is the central `confidence` range of `bootstrap` refits on deals drawn with
    replacement (a seeded RNG: the same games always give the same intervals).
    """
    deals = _by_deal(games)
    totals = _sum_tallies((part, 1) for part in deals)
    bots = sorted({bot for pair in totals for bot in pair})
    if anchor is not None and anchor not in bots:
        raise ValueError(f"anchor {anchor!r} has no games; bots: {', '.join(bots)}")
    strength = fit(totals, bots, prior=prior)
    point = _anchored(strength, anchor, anchor_elo)
    samples: dict[str, list[float]] = {bot: [] for bot in bots}
    rng = random.Random(seed)
    for _ in range(bootstrap if len(deals) > 1 else 0):
        drawn = Counter(rng.choices(range(len(deals)), k=len(deals)))
        resampled = _sum_tallies((deals[i], weight) for i, weight in drawn.items())
        present = sorted({bot for pair in resampled for bot in pair})
        if anchor is not None and anchor not in present:
            continue
        refit = fit(resampled, present, prior=prior, start=strength)
        for bot, elo in _anchored(refit, anchor, anchor_elo).items():
            samples[bot].append(elo)
    tail = (1 - confidence) / 2
    ratings = {}
    for bot in bots:
        values = sorted(samples[bot])
        if len(values) < 2:
            ratings[bot] = Rating(point[bot], -math.inf, math.inf)
        else:
            lo, hi = _percentile(values, tail), _percentile(values, 1 - tail)
            ratings[bot] = Rating(point[bot], min(lo, point[bot]), max(hi, point[bot]))
    return ratings


def plackett_luce(games: Iterable[FinishedGame]) -> dict[str, tuple[float, float]]:
    """openskill Plackett–Luce (mu, sigma) per bot, games taken in schedule order.

    The update is online, so the order matters a little; a fixed order (seat-set, deal,
    rotation) makes the numbers reproducible however the games were scheduled.
    """
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for game in sorted(games, key=lambda g: (g.seat_set, g.deal, g.rotation)):
        if len(set(game.bots)) < len(game.bots):
            continue  # one bot in two seats: Plackett–Luce has no meaning for it
        teams = [[ratings[bot] if bot in ratings else model.rating(name=bot)] for bot in game.bots]
        for bot, (rating,) in zip(
            game.bots,
            model.rate(teams, ranks=[float(rank) for rank in game.played.ranks]),
            strict=True,
        ):
            ratings[bot] = rating
    return {bot: (rating.mu, rating.sigma) for bot, rating in ratings.items()}


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


def head_to_head(
    games: Iterable[FinishedGame], a: str, b: str, *, prior: float = 1.0
) -> ScoreEstimate:
    """Bot a against bot b over every game where both sat (pairwise, from the ranks)."""
    deals: dict[tuple[str, int], tuple[float, int]] = {}
    for game in games:
        for (first, second), score in pair_outcomes(game):
            if {first, second} == {a, b}:
                points, count = deals.get(game.deal_key, (0.0, 0))
                deals[game.deal_key] = (points + (score if first == a else 1 - score), count + 1)
    return estimate_score(list(deals.values()), prior=prior)
