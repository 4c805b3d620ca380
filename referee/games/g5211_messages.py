"""5211's messages: the options, the play a bot sends and the observation it receives.

msgspec Structs, kept apart from the rules in `referee.games.g5211` so that module can be compiled
with mypyc (the Structs must stay ordinary Python classes). Import them from
`referee.games.g5211`, which re-exports them; docs/games/5211.md describes them.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = [
    "VARIANTS",
    "Card",
    "G5211Observation",
    "G5211Options",
    "Outcome",
    "Play",
    "RoundReport",
    "Variant",
]


Variant = Literal["standard", "long"]
VARIANTS: tuple[Variant, ...] = ("standard", "long")


class G5211Options(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """`long`: play on with reshuffles of all 100 cards until someone has ≥ 50."""

    variant: Variant = "standard"


class Card(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """One card: colour id 0–4 (see COLOURS) and value 1–6; value 1 is a rooster."""

    colour: int
    value: int


class Play(msgspec.Struct, tag_field="type", tag="play", forbid_unknown_fields=True, frozen=True):
    """The cards a seat puts face down this turn (2 in turn 1, else 1; fewer if it lacks them)."""

    cards: tuple[Card, ...]


Outcome = Literal["roosters", "majority", "none"]


class RoundReport(msgspec.Struct, frozen=True):
    """What the last scored round revealed: every seat's cards and what they scored."""

    round: int
    played: tuple[tuple[Card, ...], ...]
    outcome: Outcome
    colour: int | None
    """The majority colour when `outcome` is "majority", else None."""
    points: tuple[int, ...]


class G5211Observation(msgspec.Struct):
    """Everything one seat may know; nothing of others' hands, the pile order or removed cards."""

    seat: int
    players: int
    variant: Variant
    deal: int
    """1, then +1 at each reshuffle of the long variant."""
    round: int
    """Rounds counted from 1 over the whole game."""
    turn: int
    """1–3 within the round."""
    last_round: bool
    """This round started with an empty draw pile: no refills, the last card is discarded."""
    to_play: int
    """Cards this seat must choose now (0 when it is not asked)."""
    hand: list[Card]
    played: list[list[Card]]
    """Per seat, the cards revealed so far this round, in play order (one turn's two sorted)."""
    previous: RoundReport | None
    scores: list[int]
    """Running totals (in the long variant including the totals kept on paper)."""
    score_piles: list[list[Card]]
    """Per seat, the cards scored since the last shuffle."""
    hand_sizes: list[int]
    draw_pile: int
    removed: int
    discard: list[Card]
    """The revealed cards discarded since the last shuffle."""
    over: bool
    scored: list[int]
    """Per seat, the cards scored over the whole game (the tie-break): public, as every scored
    card was revealed, but after a reshuffle of the long variant no longer in `score_piles`.
    Added with `Game.from_observation` (issue 14), so a state rebuilt from an observation
    breaks ties as the true one does."""
