"""Alhambra's 54 building tiles as data (from the spec's tile list, which tests never read).

A tile's walls are a bitmask of its sides (N, E, S, W; tiles are never rotated). Building id 0
is the Lion Fountain: no walls, one per player, never bought. The checks of the tile list
(counts per type and per number of walls, 20 wall sides facing each way) are tests.
"""

from __future__ import annotations

__all__ = [
    "BUILDINGS",
    "CURRENCIES",
    "DIRECTIONS",
    "FOUNTAIN",
    "OPPOSITE",
    "PRICE",
    "STEP",
    "TYPE",
    "TYPES",
    "WALLS",
    "E",
    "N",
    "S",
    "W",
    "building_table",
    "wall_letters",
]

N, E, S, W = 1, 2, 4, 8
DIRECTIONS: tuple[int, ...] = (N, E, S, W)
STEP: dict[int, tuple[int, int]] = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}
"""Grid step to the neighbour across each side; y grows southwards (downwards on screen)."""
OPPOSITE: dict[int, int] = {N: S, E: W, S: N, W: E}
_LETTER: dict[str, int] = {"N": N, "E": E, "S": S, "W": W}

TYPES: tuple[str, ...] = ("pavilion", "seraglio", "arcades", "chambers", "garden", "tower")
"""Building types in scoring-table order (index 0 scores least)."""
CURRENCIES: tuple[str, ...] = ("yellow", "green", "blue", "orange")
"""Currencies by id; market slot k (0-based) takes currency k."""
FOUNTAIN = 0

BUILDINGS: tuple[tuple[int, str, int, str], ...] = (
    # (id, type, price, walls)
    (1, "pavilion", 2, "NEW"),
    (2, "pavilion", 3, "SW"),
    (3, "pavilion", 4, "ES"),
    (4, "pavilion", 5, "NW"),
    (5, "pavilion", 6, "N"),
    (6, "pavilion", 7, "E"),
    (7, "pavilion", 8, ""),
    (8, "seraglio", 3, "ESW"),
    (9, "seraglio", 4, "NE"),
    (10, "seraglio", 5, "SW"),
    (11, "seraglio", 6, "ES"),
    (12, "seraglio", 7, "W"),
    (13, "seraglio", 8, "S"),
    (14, "seraglio", 9, ""),
    (15, "arcades", 4, "NES"),
    (16, "arcades", 5, "NW"),
    (17, "arcades", 6, "SW"),
    (18, "arcades", 6, "NE"),
    (19, "arcades", 7, "ES"),
    (20, "arcades", 8, "N"),
    (21, "arcades", 8, "E"),
    (22, "arcades", 9, ""),
    (23, "arcades", 10, ""),
    (24, "chambers", 5, "NSW"),
    (25, "chambers", 6, "ES"),
    (26, "chambers", 7, "SW"),
    (27, "chambers", 7, "NE"),
    (28, "chambers", 8, "NW"),
    (29, "chambers", 9, "W"),
    (30, "chambers", 9, "S"),
    (31, "chambers", 10, ""),
    (32, "chambers", 11, ""),
    (33, "garden", 6, "ESW"),
    (34, "garden", 7, "NSW"),
    (35, "garden", 8, "SW"),
    (36, "garden", 8, "NE"),
    (37, "garden", 8, "NW"),
    (38, "garden", 9, "E"),
    (39, "garden", 10, "N"),
    (40, "garden", 10, "W"),
    (41, "garden", 10, ""),
    (42, "garden", 11, ""),
    (43, "garden", 12, "S"),
    (44, "tower", 7, "NEW"),
    (45, "tower", 8, "NES"),
    (46, "tower", 9, "ES"),
    (47, "tower", 9, "NE"),
    (48, "tower", 9, "NW"),
    (49, "tower", 10, "W"),
    (50, "tower", 11, "N"),
    (51, "tower", 11, "S"),
    (52, "tower", 11, ""),
    (53, "tower", 12, ""),
    (54, "tower", 13, "E"),
)


def wall_letters(walls: int) -> str:
    """The letters of a wall bitmask in N E S W order, like "NEW" (empty for none)."""
    return "".join(letter for letter, bit in _LETTER.items() if walls & bit)


TYPE: tuple[int, ...] = (-1, *(TYPES.index(kind) for _, kind, _, _ in BUILDINGS))
"""Type index by building id (-1 for the fountain)."""
PRICE: tuple[int, ...] = (0, *(price for _, _, price, _ in BUILDINGS))
WALLS: tuple[int, ...] = (
    0,
    *(sum(_LETTER[letter] for letter in walls) for _, _, _, walls in BUILDINGS),
)


def building_table() -> list[dict[str, int | str]]:
    """Every building by id as a bot in another language needs it (`arena games alhambra`):
    its type (and the type's index in scoring order), price and walls (letters and bitmask),
    read from the tables above that the engine plays with."""
    return [
        {
            "id": building,
            "type": TYPES[TYPE[building]],
            "type_index": TYPE[building],
            "price": PRICE[building],
            "walls": wall_letters(WALLS[building]),
            "wall_mask": WALLS[building],
        }
        for building, _, _, _ in BUILDINGS
    ]
