"""Sequential probability ratio test: "is A stronger than B?" with as few deals as possible.

The observations are per-deal scores: A's pairwise points against B averaged over the deal's
rotations (for two players a deal's two games give 0, ¼, ½, ¾ or 1 — fishtest's pentanomial
model; with more seats or rotations the grid is just finer). The test is the generalised SPRT
of Michel Van den Bergh as fishtest runs it: the log-likelihood ratio of the two hypotheses
"expected score s1" against "expected score s0", each maximised over all distributions with
that mean, is approximately

    LLR = n/2 · log(E[(x - s0)²] / E[(x - s1)²])

over the empirical distribution of the n deal scores. H0 is Elo ≤ elo0, H1 is Elo ≥ elo1
(logistic Elo); the test stops when LLR leaves (log(β/(1-α)), log((1-β)/α)), so wrongly
accepting H1 has probability ≤ α and wrongly accepting H0 ≤ β.

Like the ratings, the sample gets a prior of half a deal won and half a deal lost: without it
the first deals, often all wins or all losses, would have zero variance and decide at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import msgspec

from protocol.errors import RequestError
from tournaments.rank.ratings import score_from_elo

Decision = Literal["H0", "H1"]


class SprtBounds(msgspec.Struct, frozen=True, kw_only=True):
    """The hypotheses (Elo of A over B) and the error rates of a test."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise RequestError(f"need elo0 < elo1, got {self.elo0} and {self.elo1}")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise RequestError(f"alpha and beta must be in (0, 0.5), got {self.alpha}, {self.beta}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)


def llr(scores: Sequence[float], bounds: SprtBounds, *, prior: float = 1.0) -> float:
    """The GSPRT log-likelihood ratio of H1 against H0 for these per-deal scores."""
    if not scores:
        return 0.0
    weighted = [(score, 1.0) for score in scores] + [(0.0, prior / 2), (1.0, prior / 2)]
    total = sum(weight for _, weight in weighted)
    s0, s1 = score_from_elo(bounds.elo0), score_from_elo(bounds.elo1)
    r0 = sum(weight * (score - s0) ** 2 for score, weight in weighted) / total
    r1 = sum(weight * (score - s1) ** 2 for score, weight in weighted) / total
    return len(scores) / 2 * math.log(r0 / r1)


def decide(value: float, bounds: SprtBounds) -> Decision | None:
    """The decision an LLR has reached, or None to keep playing."""
    if value >= bounds.upper:
        return "H1"
    if value <= bounds.lower:
        return "H0"
    return None
