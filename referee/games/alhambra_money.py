"""Alhambra's money cards as ints, and the rules that only look at money: which takes the offer
allows, how a building is paid for card by card, what a hand holds in a currency.

A card's kind is `currency * 9 + value - 1` (0–35): the engine's state holds kinds, its messages
`Money` cards. Kept apart from the turn's flow in `referee.games.alhambra`. The rulings are
numbered in docs/games/alhambra.md, "Rulings"; the code names those it applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from referee.games.alhambra_messages import Action, End, Money, Pay, Take

__all__ = [
    "TAKE_LIMIT",
    "card_of",
    "currency_totals",
    "kind_of",
    "known_kind",
    "money_kinds",
    "payable",
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


_KINDS: dict[Money, int] = {card: kind for kind, card in enumerate(_MONEY)}


def known_kind(card: object) -> int | None:
    """The kind of `card` when it is one of the game's money cards, else None (a bot may send
    any currency and value)."""
    return _KINDS.get(card) if isinstance(card, Money) else None


def value_of(kind: int) -> int:
    """The value (1–9) of a money card's kind."""
    return kind % 9 + 1


def currency_totals(hand: list[int]) -> list[int]:
    """The total value of the cards of each currency in `hand`."""
    totals = [0, 0, 0, 0]
    for kind in hand:
        totals[kind // 9] += kind % 9 + 1
    return totals


_TAKES: dict[tuple[int, ...], tuple[Take, ...]] = {}
"""`takes` by sorted offer: every decision of an action phase asks for them, and the offers
recur. Cleared when it holds `_TAKES_KEPT` offers, so it stays small."""
_TAKES_KEPT = 4096


def takes(offer: Sequence[int]) -> tuple[Take, ...]:
    """Every take from the offer: one card, or several summing to at most `TAKE_LIMIT`; each set
    once, its cards in increasing order. Shared between calls: never mutate what it returns."""
    key = tuple(sorted(offer))
    found = _TAKES.get(key)
    if found is None:
        if len(_TAKES) >= _TAKES_KEPT:
            _TAKES.clear()
        found = _TAKES[key] = _enumerate_takes(key)
    return found


_SINGLE: tuple[Take, ...] = tuple(Take((card,)) for card in _MONEY)
"""The take of one card, by kind."""


def _enumerate_takes(offer: tuple[int, ...]) -> tuple[Take, ...]:
    """`takes` of a sorted offer: the single cards, then by size the sets of small cards (two
    or more cards sum to at most 5 only when each is worth at most 4)."""
    found: list[Take] = [_SINGLE[kind] for kind in dict.fromkeys(offer)]
    small = [kind for kind in offer if value_of(kind) < TAKE_LIMIT]
    combos: dict[tuple[int, ...], None] = {}
    for size in range(2, len(small) + 1):
        for combo in combinations(small, size):
            if sum(value_of(k) for k in combo) <= TAKE_LIMIT:
                combos[combo] = None
    found += [Take(tuple(card_of(k) for k in combo)) for combo in combos]
    return tuple(found)


def payable(hand: list[int], currency: int, price: int, paid: list[int]) -> list[int]:
    """The kinds of card of the sorted `hand` that may be added next to the payment `paid` in
    `currency`, each once: no smaller card than the last one added, and `price` still reachable
    (adding a card leaves only the cards from its own position in the hand on usable). Once the
    price is reached, more cards may still be added (ruling 6: no change is given)."""
    total = sum(value_of(k) for k in paid)
    lowest = paid[-1] if paid else 0
    usable = [k for k in hand if k // 9 == currency and k >= lowest]
    rest = sum(value_of(k) for k in usable)
    found: list[int] = []
    for index, kind in enumerate(usable):
        if (not index or usable[index - 1] != kind) and total + rest >= price:
            found.append(kind)
        rest -= value_of(kind)
    return found


_PAY: tuple[Pay, ...] = tuple(Pay(card) for card in _MONEY)
"""Paying one card, by kind."""


def payment_steps(hand: list[int], currency: int, price: int, paid: list[int]) -> list[Action]:
    """The payment's next steps: `Pay` each card of `payable`, then End once `price` is reached."""
    choices: list[Action] = [_PAY[kind] for kind in payable(hand, currency, price, paid)]
    if sum(value_of(k) for k in paid) >= price:
        choices.append(End())
    return choices
