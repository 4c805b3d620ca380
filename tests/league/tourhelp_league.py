"""Hand-made finished games for the league's tests."""

from __future__ import annotations

from tournaments.results import FinishedGame, Played


def finished(bots: list[str], ranks: list[int]) -> FinishedGame:
    """A game of `bots` (by seat) that ended in `ranks`."""
    played = Played(
        scores=[10 * (len(ranks) - rank) for rank in ranks],
        ranks=ranks,
        tiebreak=None,
        moves=[1] * len(bots),
        think_ms=[1.0] * len(bots),
        faults=[],
        wall_ms=1.0,
    )
    return FinishedGame(
        seat_set=",".join(bots), deal=0, rotation=0, bots=tuple(bots), played=played
    )
