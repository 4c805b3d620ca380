"""Finished games as plain data: what the store keeps and what ratings and tables read.

Kept apart from the referee's `MatchOutcome` so that ratings and tables are pure functions over
stored facts (testable with hand-made games) and the store does not depend on the referee.
"""

from __future__ import annotations

import msgspec


class FaultRow(msgspec.Struct, frozen=True):
    """A bot's fault in one game: which seat, what kind, why, at which decision (if any)."""

    seat: int
    kind: str
    reason: str
    decision: int | None = None


class Played(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one game, seat by seat (seat 0 first)."""

    scores: list[int]
    ranks: list[int]
    """1 = best; tied seats share a rank."""
    tiebreak: str = ""
    moves: list[int]
    """Decisions each seat made."""
    think_ms: list[float]
    """Total thinking time of each seat."""
    faults: list[FaultRow] = msgspec.field(default_factory=list)
    wall_ms: float = 0.0


class FinishedGame(msgspec.Struct, frozen=True, kw_only=True):
    """One stored game: where it sits in the schedule, who sat where, and what happened."""

    seat_set: str
    """The seat-set's key: its bots in schedule order (rotation 0), comma-separated."""
    deal: int
    rotation: int
    bots: tuple[str, ...]
    """The bot in each seat."""
    played: Played

    @property
    def deal_key(self) -> tuple[str, int]:
        """The unit resampled by the bootstrap: one deal of one seat-set, all its rotations.

        Rotations of a deal share the bag, so their results are correlated; resampling whole
        deals keeps that correlation inside the confidence intervals.
        """
        return (self.seat_set, self.deal)


class GameKey(msgspec.Struct, frozen=True):
    """How a stored game is named to users (its id) and what `FinishedGame` leaves out."""

    id: int
    seed: int
    decisions: int
