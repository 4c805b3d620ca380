"""The Summer Pavilion player board as data: stars, spaces, costs, and the 18 pillars, statues
and windows with the spaces around each.

A space is a cell index `star * 6 + (position - 1)`: stars 0..5 are the outer stars, numbered
by the colour of their coloured side (0 purple, 1 green, 2 orange, 3 yellow, 4 blue, 5 red), and
star 6 is the centre star. Positions 1..6 run clockwise round each star, a ring (6 touches 1).
"""

from __future__ import annotations

__all__ = [
    "CELLS",
    "CENTRE_STAR",
    "COLOURS",
    "COLOUR_NAMES",
    "COSTS",
    "FEATURES",
    "FEATURES_OF",
    "MULTI_STAR_VALUE",
    "NUMBER_BONUS",
    "RING",
    "STARS",
    "STAR_VALUE",
    "cell",
]

COLOURS = 6
COLOUR_NAMES = ("purple", "green", "orange", "yellow", "blue", "red")
STARS = 7
CENTRE_STAR = 6
CELLS = STARS * 6

RING = (2, 5, 4, 3, 1, 0)
"""The outer stars clockwise from the upper left: orange, red, blue, yellow, green, purple."""


def cell(star: int, position: int) -> int:
    """The cell index of `position` (1..6) on `star` (0..6)."""
    return star * 6 + position - 1


_GREY_OUTER = (3, 2, 1, 4, 5, 6)
COSTS: dict[bool, tuple[int, ...]] = {
    False: tuple(position for _star in range(STARS) for position in range(1, 7)),
    True: tuple(
        cost for star in range(STARS) for cost in (_GREY_OUTER if star != CENTRE_STAR else (3,) * 6)
    ),
}
"""COSTS[grey][cell]: the cost printed on a space (coloured side: its position)."""

STAR_VALUE = (20, 18, 17, 16, 15, 14)
"""End bonus of a complete star of one colour, by colour (purple 20 ... red 14)."""
MULTI_STAR_VALUE = 12
"""End bonus of a complete multicoloured star (the centre star on the coloured side)."""
NUMBER_BONUS = {1: 4, 2: 8, 3: 12, 4: 16}
"""End bonus when every space of that cost on the board is filled."""

WINDOW, STATUE, PILLAR = 3, 2, 1
"""The bonus tiles each kind of feature pays."""


def _features() -> tuple[tuple[int, str, tuple[int, ...]], ...]:
    features: list[tuple[int, str, tuple[int, ...]]] = []
    for index, star in enumerate(RING):
        following = RING[(index + 1) % 6]
        left_centre = index if index else 6
        name = COLOUR_NAMES[star]
        pillar = (cell(star, 2), cell(star, 3), cell(CENTRE_STAR, left_centre))
        features.append((PILLAR, f"pillar {name}", (*pillar, cell(CENTRE_STAR, index + 1))))
        statue = (cell(star, 1), cell(star, 2), cell(following, 3), cell(following, 4))
        features.append((STATUE, f"statue {name}", statue))
        features.append((WINDOW, f"window {name}", (cell(star, 5), cell(star, 6))))
    return tuple(features)


FEATURES = _features()
"""(bonus tiles, name, surrounding cells) for the 6 pillars, 6 statues and 6 windows."""
FEATURES_OF = tuple(
    tuple(index for index, (_, _, cells) in enumerate(FEATURES) if space in cells)
    for space in range(CELLS)
)
"""FEATURES_OF[cell]: the features that cell surrounds."""
