"""Azul: Summer Pavilion's messages: the options, the actions a bot sends and the observation it
receives.

msgspec Structs, kept apart from the rules in `referee.games.summer_pavilion` so that module can
be compiled with mypyc. Import them from `referee.games.summer_pavilion`, which re-exports them;
docs/games/summer-pavilion.md describes them.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = [
    "Action",
    "Bonus",
    "Decision",
    "Pass",
    "Pay",
    "Place",
    "PlayerView",
    "SummerPavilionObservation",
    "SummerPavilionOptions",
    "Take",
]


class SummerPavilionOptions(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """`variant`: "standard" (the coloured side of the boards) or "grey" (the grey side: other
    costs, and every star chosen single- or multi-coloured as it fills)."""

    variant: Literal["standard", "grey"] = "standard"


class _Action(
    msgspec.Struct, tag_field="type", tag=str.lower, frozen=True, forbid_unknown_fields=True
):
    """Base of the actions a bot sends (frozen, so they hash and can be pre-built)."""


class Take(_Action, frozen=True):
    """Phase 1: take every tile of `colour` (not the wild colour) from `source` (a factory
    index, or -1 = the centre), and one wild tile with them if the source holds any. A source
    holding only wild tiles: `colour` is the wild colour, and exactly one wild tile is taken."""

    source: int
    colour: int


class Place(_Action, frozen=True):
    """Phase 2: place a tile of `colour` on space `space` (1..6) of star `star` (0..5 the outer
    stars, numbered by the colour of their coloured side; 6 the centre star), paying the space's
    cost from the hand. When the payment can mix wilds in more than one way, a `pay` decision
    follows."""

    star: int
    space: int
    colour: int


class Pay(_Action, frozen=True):
    """How many tiles of the wild colour pay (as wilds) for the pending placement; the rest of
    the cost is paid with tiles of the placed colour."""

    wilds: int


class Bonus(_Action, frozen=True):
    """One bonus tile owed for a completed pillar, statue or window: take a `colour` tile from
    the supply (asked once per tile owed)."""

    colour: int


class Pass(_Action, frozen=True):
    """Phase 2: pass for the rest of the round, keeping the tiles `keep` (colours, at most 4,
    from the hand; a multiset: any order, `legal` lists them ascending) in corner storage; every
    other hand tile is discarded to the tower at -1 point each."""

    keep: tuple[int, ...] = ()


Action = Take | Place | Pay | Bonus | Pass


class Decision(msgspec.Struct, frozen=True, omit_defaults=True):
    """What is being decided now, by whom, and the facts of a sub-step."""

    kind: str
    """"take" (phase 1), "place" (phase 2: a place or a pass), "pay" (the wilds of a pending
    placement), "bonus" (a bonus tile from the supply) or "over"."""
    seat: int = -1
    star: int = -1
    """pay: the pending placement's star."""
    space: int = -1
    """pay: the pending placement's space (1..6)."""
    colour: int = -1
    """pay: the pending placement's colour."""
    cost: int = 0
    """pay: the tiles the placement costs."""
    min_wilds: int = 0
    """pay: the fewest wild tiles the payment may use."""
    max_wilds: int = 0
    """pay: the most wild tiles the payment may use."""
    owed: int = 0
    """bonus: the bonus tiles still owed from this placement."""


class PlayerView(msgspec.Struct):
    """One player's board, hand and storage."""

    score: int
    hand: list[int]
    """Tiles per colour beside the board (taken, not yet placed or stored)."""
    storage: list[int]
    """Tiles per colour in the corner storage (kept when passing; back in the hand next round)."""
    stars: list[list[int]]
    """7 stars (0..5 outer, 6 centre) of 6 spaces (space 1 first): the colour there, or -1."""
    passed: bool
    """Phase 2: whether this player has passed for the rest of the round."""


class SummerPavilionObservation(msgspec.Struct):
    """Everything public, which is everything but the order of future draws."""

    seat: int
    """The seat this observation is for (-1: a spectator)."""
    round: int
    """1..6."""
    variant: str
    wild: int
    """This round's wild colour (round k: colour k - 1)."""
    decision: Decision
    start_player: int
    """Phase 1: the seat that began it; from phase 2 on: the seat that began phase 2 (the
    marker's holder, or the same seat if nobody took from the centre), who starts the next
    round."""
    marker: int
    """-1 while the first-player marker is in the centre, else the seat that took it."""
    factories: list[list[int]]
    """factories[i][colour] = how many tiles of that colour factory i holds."""
    centre: list[int]
    supply: list[int]
    """Tiles per colour in the supply (bonus tiles are taken from it)."""
    bag: list[int]
    """Tiles per colour in the bag (what no one can see is only the order they come out)."""
    tower: list[int]
    """Tiles per colour in the tower (discards; they refill the bag when it runs out)."""
    costs: list[list[int]]
    """costs[star][space - 1]: the cost printed on that space (fixed by the variant)."""
    players: list[PlayerView]
