"""What a final's certificate says (`certify` computes it): each finalist's place with its
simultaneous interval, its side of the grade thresholds, and what the organiser asked.

Apart from the computation so that the league's pages and its final's progress read and write
certificates without loading the numerical libraries `certify` needs (scipy takes longer to
import than the rest of the server).
"""

from __future__ import annotations

import msgspec


class Place(msgspec.Struct, frozen=True):
    """A finalist's estimated place and strength, and the simultaneous interval of its place."""

    bot: str
    place: int
    elo: float
    low: int
    """Its best place the certificate allows."""
    high: int
    """Its worst."""


class Side(msgspec.Struct, frozen=True):
    """A finalist against a benchmark's threshold (a pairwise score, in per cent)."""

    bot: str
    benchmark: str
    least_pct: float
    above: bool | None
    """Proven above the threshold, proven below it, or not decided (None)."""


class Claim(msgspec.Struct, frozen=True):
    """What an organiser asks a final to certify: the top `top` places in order, every place
    (`order`), or each finalist's side of each grade threshold against its benchmark."""

    kind: str = "top"
    """"top", "order" or "grades"."""
    top: int = 10
    thresholds: list[tuple[str, float]] = msgspec.field(default_factory=list)
    """For "grades": (benchmark, least pairwise score in per cent)."""

    def describe(self) -> str:
        if self.kind == "top":
            return f"the top {self.top} in order"
        if self.kind == "order":
            return "the whole order"
        return "each finalist's side of the grade thresholds"


class Certificate(msgspec.Struct, frozen=True):
    """What a final's games prove, every statement at once at `confidence`."""

    claim: str
    certified: bool
    """The organiser's claim holds."""
    confidence: float
    looks: int
    """Looks at the data so far (each spends its share of the error rate; 0: a final of fixed
    games, one look spending all of it)."""
    games: int
    deals: int
    places: list[Place]
    """Strongest first."""
    separated: list[bool]
    """Each finalist (but the last) proven above the next."""
    sides: list[Side]
    first_fragility: int | None
    """The fewest deals found whose removal changes first place (None: no deal does)."""
    step_errors: list[float] = msgspec.field(default_factory=list)
    """The standard error of each finalist's strength (but the last's) minus the next's, in
    natural log-odds units: what a sequential final forecasts its next round's deals from
    (a certificate decoded without it: none, and one deal a table)."""
