"""Small 5211 heuristics written for the clone corpus, each its own idea of a good play.

Run as `python -m bots.corpus.cards RULE`; each values a play by the sum over its cards:
- `lead`: follow the table: a card of a colour that leads this round and stays under the limit
  is worth `LEAD` × the colour's count plus its value; a card that breaks the limit costs it;
- `hoard`: spend the colour whose cards in hand are worth the most, others cost `SPEND` × their
  value;
- `roosters`: play roosters while the round can still reach its rooster count (each worth
  `ROOSTER`), else the cheapest cards;
- `high`: the most valuable cards, of the colours least seen on the table (`TABLE` × their
  count).
Ties go to the first legal play. The constants are module globals so that a copy can nudge
them (`bots.corpus.variant --set`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from bots.sdk import Context, run

LEAD = 2.0
SPEND = 0.5
ROOSTER = 3.0
TABLE = 0.3


def _table(observation: Any) -> list[int]:
    """The cards of each colour revealed this round."""
    counts = [0] * 5
    for cards in observation.played:
        for card in cards:
            counts[card.colour] += 1
    return counts


def lead(observation: Any, cards: tuple[Any, ...]) -> float:
    counts = _table(observation)
    limit = observation.players + 3
    value = 0.0
    for card in cards:
        counts[card.colour] += 1
        if counts[card.colour] >= limit:
            value -= card.value
        else:
            value += LEAD * counts[card.colour] + card.value
    return value


def hoard(observation: Any, cards: tuple[Any, ...]) -> float:
    worth = [0] * 5
    for card in observation.hand:
        worth[card.colour] += card.value
    mine = max(range(5), key=lambda colour: worth[colour])
    return sum(card.value if card.colour == mine else -SPEND * card.value for card in cards)


def roosters(observation: Any, cards: tuple[Any, ...]) -> float:
    shown = sum(card.value == 1 for played in observation.played for card in played)
    room = observation.players + 2 - shown
    value = 0.0
    for card in cards:
        if card.value == 1 and room > 0:
            value += ROOSTER
            room -= 1
        else:
            value -= card.value
    return value


def high(observation: Any, cards: tuple[Any, ...]) -> float:
    counts = _table(observation)
    return sum(card.value - TABLE * counts[card.colour] for card in cards)


RULES: dict[str, Callable[[Any, tuple[Any, ...]], float]] = {
    "lead": lead,
    "hoard": hoard,
    "roosters": roosters,
    "high": high,
}


def chooser(rule: Callable[[Any, tuple[Any, ...]], float]) -> Callable[[Any, list[Any], Any], int]:
    def choose(observation: Any, legal: list[Any], context: Context) -> int:
        return max(
            range(len(legal)), key=lambda index: (rule(observation, legal[index].cards), -index)
        )

    return choose


if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "lead"
    run(chooser(RULES[name]), name=f"cards-{name}")
