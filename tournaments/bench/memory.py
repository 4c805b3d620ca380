"""Memory flat in schedule length: walk a lazily generated schedule game by game.

Every game of a 2-player round-robin of 4 bots is generated the way the runner does it
(`seat_sets` → `units` → deals → seat rotations, each game's seed computed), and tracemalloc's
peak is taken over the walk. A schedule that were materialised anywhere would show a peak in
proportion to its length.
"""

from __future__ import annotations

import tracemalloc

from tournaments.plan.schedule import deal_seed, pieces_per_seat_set, seat_sets, seating, units
from tournaments.store.store import seat_set_key

BOTS = 4
PLAYERS = 2
SEAT_SETS = 6
"""2-player seat-sets of 4 bots: C(4, 2)."""


def schedule_peak_bytes(games: int, workers: int = 2) -> tuple[int, int]:
    """(games walked, tracemalloc peak in bytes) for a schedule of about `games` games."""
    deals = max(1, games // (SEAT_SETS * PLAYERS))
    pieces = pieces_per_seat_set(deals, SEAT_SETS, workers, PLAYERS)
    secret = bytes(32)
    tracemalloc.start()
    try:
        walked = 0
        for unit in units(seat_sets(range(BOTS), PLAYERS, limit=1000, seed=0), deals, pieces):
            for deal in unit.deals:
                deal_seed(secret, 0, seat_set_key(unit.seat_set), deal)
                seating(unit.seat_set, unit.rotation)
                walked += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return walked, peak
