"""Alhambra's messages: the options, the actions a bot sends and the observation it receives.

msgspec Structs, kept apart from the rules in `referee.games.alhambra` so that module can be
compiled with mypyc. A turn is split into small decisions (an action, then its payment or its
spot, then a spot for every purchase), so no list of legal actions is large; see
docs/games/alhambra.md. Buildings are named by id (1–54, 0 the fountain); their type, price and
walls are in `referee.games.alhambra_tiles`.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = [
    "Action",
    "AlhambraObservation",
    "AlhambraOptions",
    "Buy",
    "End",
    "GiveDirk",
    "Money",
    "Pay",
    "Phase",
    "Place",
    "Placed",
    "Redesign",
    "Reserve",
    "Take",
]


class AlhambraOptions(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """No options: 2 players always play with the neutral Dirk."""


class Money(msgspec.Struct, forbid_unknown_fields=True, frozen=True, order=True):
    """One money card: currency 0–3 (yellow, green, blue, orange) and value 1–9."""

    currency: int
    value: int


class Take(msgspec.Struct, tag_field="type", tag="take", forbid_unknown_fields=True, frozen=True):
    """Take money from the offer: one card, or several whose values sum to at most 5."""

    cards: tuple[Money, ...]


class Buy(msgspec.Struct, tag_field="type", tag="buy", forbid_unknown_fields=True, frozen=True):
    """Buy the building of market slot 0–3; the next decision is the payment."""

    slot: int


class Pay(msgspec.Struct, tag_field="type", tag="pay", forbid_unknown_fields=True, frozen=True):
    """Add one card of the slot's currency to the payment being made (cards are added in
    increasing order, so each set of cards has one way of being paid); `End` completes it once
    the sum reaches the price."""

    card: Money


class Redesign(
    msgspec.Struct, tag_field="type", tag="redesign", forbid_unknown_fields=True, frozen=True
):
    """Redesign with one building: from the Alhambra it goes to the reserve at once; from the
    reserve the next decision is its spot (an empty cell, or an occupied one to swap)."""

    building: int


class Place(msgspec.Struct, tag_field="type", tag="place", forbid_unknown_fields=True, frozen=True):
    """Put a building at cell (x, y) of the Alhambra (the fountain is at (0, 0), y grows south);
    while redesigning, an occupied cell swaps the two buildings."""

    building: int
    x: int
    y: int


class Reserve(
    msgspec.Struct, tag_field="type", tag="reserve", forbid_unknown_fields=True, frozen=True
):
    """Put a building bought (or received at the end) this turn into the reserve."""

    building: int


class GiveDirk(
    msgspec.Struct, tag_field="type", tag="dirk", forbid_unknown_fields=True, frozen=True
):
    """Two players: give a building bought this turn to the neutral Dirk."""

    building: int


class End(msgspec.Struct, tag_field="type", tag="end", forbid_unknown_fields=True, frozen=True):
    """In the pay phase: complete the payment. In the action phase: end it (after an exact
    payment, or when no action is possible at all)."""


Action = Take | Buy | Pay | Redesign | Place | Reserve | GiveDirk | End

Phase = Literal["action", "pay", "redesign", "place", "final", "over"]


class Placed(msgspec.Struct, frozen=True):
    """A building in an Alhambra at cell (x, y)."""

    building: int
    x: int
    y: int


class AlhambraObservation(msgspec.Struct):
    """Everything public (every hand: ruling 18); never the deck or bag order nor where the
    scoring cards lie."""

    seat: int
    players: int
    dirk: bool
    phase: Phase
    current: int
    """The seat whose turn it is (in the final phase, the seat placing what it received)."""
    actions: int
    """Actions taken in this turn so far (at most 5)."""
    paying: int | None
    """In the pay phase, the slot being bought."""
    paid: list[Money]
    """In the pay phase, the cards chosen so far (out of the hand, not yet discarded)."""
    moving: int | None
    """In the redesign phase, the reserve building being moved."""
    market: list[int | None]
    offer: list[Money]
    hands: list[list[Money]]
    alhambras: list[list[Placed]]
    reserves: list[list[int]]
    pending: list[list[int]]
    """Per seat, the buildings it must still place this turn (or received at the end)."""
    dirk_buildings: list[int]
    scores: list[int]
    dirk_score: int | None
    scorings: int
    """Scorings done so far (3 when over)."""
    deck: int
    discard: list[Money]
    bag: int
    out_of_play: list[int]
    over: bool
    scoring_piles: list[tuple[int, int]]
    """Per scoring card (1, then 2), the deck positions [low, high), counted from the bottom,
    of the pile it was shuffled into (piles 2 and 4, built in view of everyone): where an
    undrawn one may lie. Added with `Game.from_observation` (issue 14): a state rebuilt from an
    observation needs it, and no seat could work it out from the rest."""
