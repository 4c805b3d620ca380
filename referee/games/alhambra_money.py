"""Alhambra's money cards as ints, and the rules that only look at money: which takes the offer
allows, how a building is paid for card by card, what a hand holds in a currency.

A card's kind is `currency * 9 + value - 1` (0–35): the engine's state holds kinds, its messages
`Money` cards. Kept apart from the turn's flow in `referee.games.alhambra`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from referee.games.alhambra_messages import Action, End, Money, Pay, Take

__all__ = [
    "TAKE_LIMIT",
    "card_of",
    "currency_total",
    "kind_of",
    "money_kinds",
    "payment_steps",
    "takes",
    "value_of",
]

TAKE_LIMIT = 5
"""Several cards may be taken from the offer when their values sum to at most this."""


def money_kinds(dirk: bool) -> list[int]:
    """Every money card's kind: 3 copies of each currency-value (2 with Dirk: 72 cards)."""
    return [kind for kind in range(36) for _ in range(2 if dirk else 3)]


_MONEY: tuple[Money, ...] = tuple(Money(kind // 9, kind % 9 + 1) for kind in range(36))


def card_of(kind: int) -> Money:
    """The money card of a kind."""
    return _MONEY[kind]


def kind_of(card: Money) -> int:
    """The kind of a money card."""
    return card.currency * 9 + card.value - 1


def value_of(kind: int) -> int:
    """The value (1–9) of a money card's kind."""
    return kind % 9 + 1


def currency_total(hand: list[int], currency: int) -> int:
    """The total value of the cards of `currency` in `hand`."""
    return sum(value_of(k) for k in hand if k // 9 == currency)


def takes(offer: Sequence[int]) -> list[Take]:
    """Every take from the offer: one card, or several summing to at most `TAKE_LIMIT`; each set
    once, its cards in increasing order."""
    found: dict[tuple[int, ...], None] = {}
    for size in range(1, len(offer) + 1):
        for combo in combinations(sorted(offer), size):
            if size == 1 or sum(value_of(k) for k in combo) <= TAKE_LIMIT:
                found[combo] = None
    return [Take(tuple(card_of(k) for k in combo)) for combo in found]


def payment_steps(hand: list[int], currency: int, price: int, paid: list[int]) -> list[Action]:
    """The cards of `hand` that may be added next to the payment `paid` in `currency` (no smaller
    card than the last one added, and `price` still reachable), then End once it is reached."""
    total = sum(value_of(k) for k in paid)
    lowest = paid[-1] if paid else 0
    usable = [k for k in hand if k // 9 == currency and k >= lowest]
    choices: list[Action] = []
    for index, kind in enumerate(usable):
        if index and usable[index - 1] == kind:
            continue
        # adding `kind` leaves only cards from its own position on usable afterwards
        if total + sum(value_of(k) for k in usable[index:]) >= price:
            choices.append(Pay(card_of(kind)))
    if total >= price:
        choices.append(End())
    return choices
