"""The sequential test: bounds, the log-likelihood ratio by hand, and decisions on simulations."""

from __future__ import annotations

import math
import random

import pytest

from protocol.errors import RequestError
from tournaments.rank.ratings import score_from_elo
from tournaments.rank.sprt import SprtBounds, decide, llr


def test_bounds_by_hand() -> None:
    bounds = SprtBounds(elo0=0, elo1=20, alpha=0.05, beta=0.05)
    assert bounds.upper == pytest.approx(math.log(19))
    assert bounds.lower == pytest.approx(-math.log(19))
    assert decide(3.0, bounds) == "H1"
    assert decide(-3.0, bounds) == "H0"
    assert decide(0.0, bounds) is None
    with pytest.raises(RequestError, match="elo0 < elo1"):
        SprtBounds(elo0=5, elo1=5)
    with pytest.raises(RequestError, match="alpha and beta"):
        SprtBounds(alpha=0.7)


def test_llr_by_hand() -> None:
    bounds = SprtBounds(elo0=0, elo1=100)
    scores = [1.0, 0.5, 0.75, 1.0]
    s0, s1 = 0.5, score_from_elo(100)
    # With the prior: half a deal at 0 and half at 1, so 5 deals' weight in all.
    points = [*scores, 0.0, 1.0]
    weights = [1, 1, 1, 1, 0.5, 0.5]
    r0 = sum(w * (x - s0) ** 2 for x, w in zip(points, weights, strict=True)) / 5
    r1 = sum(w * (x - s1) ** 2 for x, w in zip(points, weights, strict=True)) / 5
    assert llr(scores, bounds) == pytest.approx(4 / 2 * math.log(r0 / r1))
    assert llr([], bounds) == 0


def test_llr_sign_follows_the_evidence() -> None:
    bounds = SprtBounds(elo0=0, elo1=50)
    assert llr([0.75] * 50, bounds) > 0
    assert llr([0.5] * 50, bounds) < 0
    assert llr([0.25] * 50, bounds) < 0


def simulate(elo: float, bounds: SprtBounds, seed: int, limit: int = 20000) -> tuple[str, int]:
    """Pentanomial deals (two games, seats swapped) between bots `elo` apart."""
    rng = random.Random(seed)
    p = score_from_elo(elo)
    scores: list[float] = []
    while len(scores) < limit:
        scores.append(sum((rng.random() < p) for _ in range(2)) / 2)
        decision = decide(llr(scores, bounds), bounds)
        if decision is not None:
            return decision, len(scores)
    return "none", limit


def test_decisions_on_simulated_pairs() -> None:
    bounds = SprtBounds(elo0=0, elo1=50)
    verdicts = [simulate(150, bounds, seed) for seed in range(20)]
    assert all(decision == "H1" for decision, _ in verdicts)
    assert max(deals for _, deals in verdicts) < 100
    assert all(simulate(-150, bounds, seed)[0] == "H0" for seed in range(20))
    # At elo0 the test should wrongly accept H1 rarely (alpha = 5%).
    false_h1 = sum(simulate(0, bounds, seed)[0] == "H1" for seed in range(60))
    assert false_h1 <= 8
