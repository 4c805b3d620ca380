"""What the generic adapters cannot read from a game's types: one small table per game.

- `universe`: every action the game could offer a seat, as the protocol's JSON (the index space
  of `actions.ActionSpace`), from the game's `reference` tables and a fresh game's first
  observation (which says, e.g., how many factories there are);
- `key`: how an action finds its index (default: its tuples sorted);
- `lengths`: the maximum length of every observation list that grows and shrinks (the others
  keep the length of the first observation), `SEATS` for one item per seat;
- `words`: the values of the observation's plain-string fields (`Literal` fields need none);
- `simultaneous`: whether several seats decide at once (OpenSpiel's SIMULTANEOUS dynamics);
- `max_decisions`: where OpenSpiel and the PettingZoo environments cut a game short (OpenSpiel
  needs a finite `max_game_length`). Azul (at most 100 rounds), Summer Pavilion (6 rounds) and
  standard 5211 always end within it; Alhambra and long 5211 have no bound in their rules
  (money and reshuffles never run out), so a game that reaches it is cut and scored from its
  current scores.

A new game needs an entry here; tests/research checks every registered game has one and that
its table covers every legal action and observation of random games.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import combinations_with_replacement, product
from typing import Any

import msgspec

from bots.research.actions import sort_tuples

__all__ = ["SEATS", "SPECS", "Spec"]

SEATS = -1
"""A length in `lengths`: one item per seat."""

Json = dict[str, Any]


@dataclass(frozen=True)
class Spec:
    universe: Callable[[Mapping[str, Any], Any], Iterable[Json]]
    """(the game's `reference` tables, a first observation) → every action."""
    max_decisions: int
    lengths: Mapping[str, int] = field(default_factory=dict)
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    key: Callable[[Any], Any] = sort_tuples
    simultaneous: bool = False


def grid(kind: str, **domains: Iterable[Any]) -> Iterator[Json]:
    """Every action of type `kind` whose fields take every combination of their domains."""
    names = list(domains)
    for values in product(*domains.values()):
        yield {"type": kind, **dict(zip(names, values, strict=True))}


def multisets(items: list[Any], sizes: range) -> Iterator[list[Any]]:
    for size in sizes:
        yield from map(list, combinations_with_replacement(items, size))


# ---- Azul ------------------------------------------------------------------------------------

AZUL_COLOURS = range(5)


def azul_actions(reference: Mapping[str, Any], first: Any) -> Iterator[Json]:
    """Takes (a factory or the centre, a colour, a line or the floor), grey-wall spaces, and the
    split factory's leftovers: each colour to the left, to the right, or absent."""
    sources = range(-1, len(first.factories))
    yield from grid("take", source=sources, colour=AZUL_COLOURS, line=range(6))
    yield from grid("place", row=range(5), column=range(5))
    for sides in product(("", "left", "right"), repeat=len(AZUL_COLOURS)):
        left = [colour for colour, side in enumerate(sides) if side == "left"]
        right = [colour for colour, side in enumerate(sides) if side == "right"]
        yield {"type": "split", "left": left, "right": right}


AZUL = Spec(
    universe=azul_actions,
    max_decisions=10_000,  # at most 100 rounds (the engine's cap) of under 100 decisions each
    lengths={"players[].lines[]": 5, "players[].floor": 7, "players[].extra_floor": 1},
    words={
        "variant": ("standard", "grey"),
        "decision.kind": ("take", "place", "split", "over"),
        "powers[]": ("", "+1", "stay", "split", "extra_floor", *(f"pull{c}" for c in AZUL_COLOURS)),
    },
)

# ---- Summer Pavilion -------------------------------------------------------------------------

PAVILION_COLOURS = range(6)


def pavilion_actions(reference: Mapping[str, Any], first: Any) -> Iterator[Json]:
    """Takes, placements on 7 stars of 6 spaces, wild payments (a space costs at most 6), bonus
    tiles, and passes keeping at most 4 tiles."""
    yield from grid("take", source=range(-1, len(first.factories)), colour=PAVILION_COLOURS)
    yield from grid("place", star=range(7), space=range(1, 7), colour=PAVILION_COLOURS)
    yield from grid("pay", wilds=range(7))
    yield from grid("bonus", colour=PAVILION_COLOURS)
    yield from grid("pass", keep=multisets(list(PAVILION_COLOURS), range(5)))


SUMMER_PAVILION = Spec(
    universe=pavilion_actions,
    max_decisions=2_000,  # 6 rounds, each bounded by the tiles in play
    words={
        "variant": ("standard", "grey"),
        "decision.kind": ("take", "place", "pay", "bonus", "over"),
    },
)

# ---- 5211 ------------------------------------------------------------------------------------


def g5211_actions(reference: Mapping[str, Any], first: Any) -> Iterator[Json]:
    """Plays of one or two cards (5 colours, values 1-6; two equal cards may be played)."""
    cards = [{"colour": colour, "value": value} for colour in range(5) for value in range(1, 7)]
    yield from grid("play", cards=multisets(cards, range(1, 3)))


G5211 = Spec(
    universe=g5211_actions,
    max_decisions=2_000,  # standard: a few dozen turns; long: reshuffles until someone has 50
    lengths={
        "hand": 5,
        "played[]": 4,
        "previous.played": SEATS,
        "previous.played[]": 4,
        "previous.points": SEATS,
        "score_piles[]": 100,
        "discard": 100,
    },
    simultaneous=True,
)

# ---- Alhambra --------------------------------------------------------------------------------

ALHAMBRA_REACH = 10
"""Cells are numbered modulo 2·REACH + 1 in each direction, centred on the fountain: two legal
spots share an index only in an Alhambra at least 20 cells wide (in 120 greedy games of 2 and 3
players, its buildings and legal spots together never spanned more than 14 cells)."""


def alhambra_actions(reference: Mapping[str, Any], first: Any) -> Iterator[Json]:
    """Takes (one card, or up to 4 summing to at most 5), purchases, payments, and every
    building's redesign, placement, reserve and gift to Dirk."""
    money = [{"currency": c, "value": v} for c in range(4) for v in range(1, 10)]
    small = [card for card in money if card["value"] <= 4]
    takes = [[card] for card in money] + [
        cards for cards in multisets(small, range(2, 5)) if sum(c["value"] for c in cards) <= 5
    ]
    buildings = [building["id"] for building in reference["buildings"]]
    cells = range(-ALHAMBRA_REACH, ALHAMBRA_REACH + 1)
    yield from grid("take", cards=takes)
    yield from grid("buy", slot=range(4))
    yield from grid("pay", card=money)
    yield from grid("redesign", building=buildings)
    yield from grid("place", building=buildings, x=cells, y=cells)
    yield from grid("reserve", building=buildings)
    yield from grid("dirk", building=buildings)
    yield {"type": "end"}


def _wrap(coordinate: int) -> int:
    return (coordinate + ALHAMBRA_REACH) % (2 * ALHAMBRA_REACH + 1) - ALHAMBRA_REACH


def alhambra_key(action: Any) -> Any:
    """Sorted cards; a placement's cell wrapped round (see `ALHAMBRA_REACH`)."""
    action = sort_tuples(action)
    if action.__struct_config__.tag == "place":
        return msgspec.structs.replace(action, x=_wrap(action.x), y=_wrap(action.y))
    return action


ALHAMBRA = Spec(
    universe=alhambra_actions,
    key=alhambra_key,
    max_decisions=5_000,  # random games take under 800
    lengths={
        "paid": 27,  # every card of one currency
        "offer": 4,
        "hands[]": 108,
        "alhambras[]": 55,
        "reserves[]": 54,
        "pending[]": 54,
        "dirk_buildings": 54,
        "discard": 108,
        "out_of_play": 54,
    },
)

SPECS: dict[str, Spec] = {
    "azul": AZUL,
    "summer-pavilion": SUMMER_PAVILION,
    "5211": G5211,
    "alhambra": ALHAMBRA,
}
