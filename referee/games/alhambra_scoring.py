"""Alhambra's scoring rounds: the points table, majorities per building type (Dirk ranked too)
and the longest outer wall.

Pure functions of the Alhambras and Dirk's buildings: the turn's flow in `referee.games.alhambra`
adds their points to the scores, and bots weigh purchases with them. The rulings are numbered in
docs/games/alhambra.md, "Rulings"; the code names those it applies.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.games.alhambra_placement import Grid, longest_outer_wall
from referee.games.alhambra_tiles import FOUNTAIN, TYPE, TYPES

__all__ = ["POINTS", "rank_points", "round_points"]

POINTS: tuple[tuple[tuple[int, ...], ...], ...] = (
    ((1,), (8, 1), (16, 8, 1)),
    ((2,), (9, 2), (17, 9, 2)),
    ((3,), (10, 3), (18, 10, 3)),
    ((4,), (11, 4), (19, 11, 4)),
    ((5,), (12, 5), (20, 12, 5)),
    ((6,), (13, 6), (21, 13, 6)),
)
"""Points by type, then scoring (1–3, index 0–2), then place."""


_RANKS: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}
"""`rank_points` by (counts, table): bots and searches ask about the same few again and again.
Cleared when it holds `_RANKS_KEPT`, so it stays small."""
_RANKS_KEPT = 4096


def rank_points(counts: Sequence[int], table: Sequence[int]) -> list[int]:
    """Points per participant for one type: ranked by count (≥ 1 needed); tied participants share
    the points of the places they occupy, rounded down, and push the next ones down."""
    key = (tuple(counts), tuple(table))
    points = _RANKS.get(key)
    if points is None:
        if len(_RANKS) >= _RANKS_KEPT:
            _RANKS.clear()
        points = _RANKS[key] = _ranked(*key)
    return list(points)


def _ranked(counts: tuple[int, ...], table: tuple[int, ...]) -> tuple[int, ...]:
    points = [0] * len(counts)
    place = 0
    for count in sorted({c for c in counts if c > 0}, reverse=True):
        tied = [i for i, c in enumerate(counts) if c == count]
        share = sum(table[place : place + len(tied)]) // len(tied)
        for i in tied:
            points[i] = share
        place += len(tied)
    return tuple(points)


def round_points(alhambras: list[Grid], dirk: list[int] | None, scoring: int) -> list[int]:
    """The points of scoring 1, 2 or 3 per player, then Dirk's when he plays (`dirk`: his
    buildings): majorities per type, Dirk ranked too, and the players' longest outer walls
    (ruling 17: Dirk scores no walls)."""
    k = scoring - 1
    counts = [[0] * len(TYPES) for _ in range(len(alhambras) + (dirk is not None))]
    for seat, grid in enumerate(alhambras):
        for building in grid.values():
            if building != FOUNTAIN:
                counts[seat][TYPE[building]] += 1
    if dirk is not None:
        for building in dirk:
            counts[-1][TYPE[building]] += 1
    points = [0] * len(counts)
    for kind in range(len(TYPES)):
        gains = rank_points([c[kind] for c in counts], POINTS[kind][k])
        for participant, gain in enumerate(gains):
            points[participant] += gain
    for seat, grid in enumerate(alhambras):
        points[seat] += longest_outer_wall(grid)
    return points
