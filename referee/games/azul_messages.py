"""Azul's messages: the options, the actions a bot sends and the observation it receives.

msgspec Structs, kept apart from the rules in `referee.games.azul` so that module can be compiled
with mypyc (the Structs must stay ordinary Python classes; see docs/benchmarks.md). Import them
from `referee.games.azul`, which re-exports them; docs/games/azul.md describes them.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = [
    "Action",
    "AzulObservation",
    "AzulOptions",
    "Decision",
    "Place",
    "PlayerView",
    "Split",
    "Take",
]


class AzulOptions(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """`variant`: "standard" (coloured wall) or "grey" (free wall, the player picks the column);
    `special_factories`: use the gold sides of the factory discs."""

    variant: Literal["standard", "grey"] = "standard"
    special_factories: bool = False


class _Action(
    msgspec.Struct, tag_field="type", tag=str.lower, frozen=True, forbid_unknown_fields=True
):
    """Base of the actions a bot sends (frozen, so they hash and can be pre-built)."""


class Take(_Action, frozen=True):
    """Take every tile of `colour` from `source` (a factory index, or -1 = the centre) and put
    them on pattern line `line` (0..4, line k holds k + 1 tiles) or all on the floor (line 5)."""

    source: int
    colour: int
    line: int


class Place(_Action, frozen=True):
    """Grey wall: put the tile of complete pattern line `row` on wall space (`row`, `column`)."""

    row: int
    column: int


class Split(_Action, frozen=True):
    """After a take from the "split" factory: which leftover colours go to its left neighbour and
    which to its right (every leftover colour in exactly one list; order inside does not matter)."""

    left: tuple[int, ...] = ()
    right: tuple[int, ...] = ()


Action = Take | Place | Split


class Decision(msgspec.Struct, frozen=True, omit_defaults=True):
    """What is being decided now, by whom, and the facts of a sub-step."""

    kind: str
    """"take", "place" (grey wall space), "split" (the split factory's leftovers) or "over"."""
    seat: int = -1
    row: int = -1
    """place: the complete pattern line / wall row being tiled."""
    colour: int = -1
    """place: the colour of its tile."""
    factory: int = -1
    """split: the split factory, whose leftovers are still on it."""
    left: int = -1
    """split: the factory that "left" sends tiles to."""
    right: int = -1


class PlayerView(msgspec.Struct):
    """One player's board."""

    score: int
    lines: list[list[int]]
    """Pattern line k (0..4): the colours of the tiles on it (all the same), at most k + 1."""
    wall: list[list[int]]
    """5 rows of 5 spaces: the colour there, or -1 if empty."""
    floor: list[int]
    """Floor tokens left to right: colours 0..4, or 5 for the first-player marker."""
    extra_floor: list[int] | None = None
    """Special factories: the held extra floor disc ([] empty, [colour]); null if not held."""


class AzulObservation(msgspec.Struct):
    """Everything public, which in Azul is everything but the order of future draws."""

    seat: int
    """The seat this observation is for."""
    round: int
    variant: str
    special_factories: bool
    decision: Decision
    start_player: int
    """The seat that began this round."""
    marker: int
    """-1 while the first-player marker is in the centre, else the seat that took it."""
    factories: list[list[int]]
    """factories[i][colour] = how many tiles of that colour factory i holds."""
    powers: list[str]
    """Per factory: "" (plain), "+1", "pull0".."pull4" (pull that colour), "stay", "split",
    "extra_floor"."""
    centre: list[int]
    """Tiles per colour in the centre (the marker is not a tile: see `marker`)."""
    bag: list[int]
    """Tiles per colour in the bag (what no one can see is only the order they come out)."""
    lid: list[int]
    """Tiles per colour in the box lid (they refill the bag when it runs out)."""
    players: list[PlayerView]
