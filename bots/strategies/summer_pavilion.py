"""Greedy Summer Pavilion heuristic: the decision with the best immediate value, from the
observation alone (no memory, no simulation), so it is fast and stateless.

A colour's **need** is what my board still asks of it: the costs of the open spaces a tile of
that colour may go on (each star's colour rule, see `allowed_colours`), counting the centre (or
any grey star) once, at its cheapest open space, since one colour goes there only once or its
rule will change. Tiles beyond the need are dead weight, discarded at -1 when I pass.

- take: `TILE` per new tile up to the colour's unmet need (need minus the tiles of it in hand),
  `SURPLUS` per tile beyond it, `WILD` for the wild tile that comes with it; taking the
  first-player marker costs the points it deducts, less `MARKER_EDGE` for starting phase 2.
- place: the run points the tile scores now, +1 per bonus tile it earns, plus progress towards
  the end bonuses — a star's value, or a cost's "all filled" bonus, times the growth of
  (filled / size)², so that concentrating on one star or cost is worth more than spreading —
  minus `SPEND` for each of the c − 1 tiles paid to the tower.
- pass: only when no placement is legal, or when the whole hand fits in storage (passing
  discards nothing) and no placement is worth more than `PASS_BELOW`: with more tiles, a
  placement always beats the -1 per discarded tile. Keep the (up to 4) tiles most worth
  keeping: next round's wild colour first, then colours my board needs. Nothing is kept after
  round 6 (stored tiles cost -1 at the end, like a discard).
- pay: the fewest wilds (a wild pays for any colour later).
- bonus: the colour with the most unmet need (ties: next round's wild colour).

Ties are broken with the bot's RNG.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Protocol

from referee.games.summer_pavilion import Pass, Place, allowed_colours, run_length
from referee.games.summer_pavilion_board import (
    CENTRE_STAR,
    COLOURS,
    FEATURES,
    FEATURES_OF,
    MULTI_STAR_VALUE,
    NUMBER_BONUS,
    STAR_VALUE,
    STARS,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from referee.games.summer_pavilion import (
        Bonus,
        PlayerView,
        SummerPavilionObservation,
        Take,
    )


class Table(Protocol):
    """The shared part of a game the valuations read: an observation has it, and so has the
    search's view of an engine state (`bots.search.summer_pavilion`)."""

    @property
    def round(self) -> int: ...
    @property
    def variant(self) -> str: ...
    @property
    def wild(self) -> int: ...
    @property
    def marker(self) -> int: ...
    @property
    def centre(self) -> list[int]: ...
    @property
    def factories(self) -> Sequence[list[int]]: ...
    @property
    def costs(self) -> Sequence[Sequence[int]]: ...


ROUNDS = 6
STORAGE = 4
"""Tiles a pass may keep."""
TILE = 1.0
"""A useful tile taken in phase 1: about the run point it will score once placed."""
WILD = 1.2
"""The wild tile that comes with a take: it pays for any colour."""
SURPLUS = -0.4
"""A tile no open space needs: it will most likely be discarded at -1."""
MARKER_EDGE = 0.5
"""Starting phase 2 first (the best spaces before the others) is worth a little."""
SPEND = 0.6
"""Each tile paid to the tower beyond the placed one: a tile that could have paid elsewhere."""
NEXT_WILD = 1.5
"""A kept tile of next round's wild colour: it will pay for any colour then."""
PASS_BELOW = 0.0
"""Pass when no placement is worth more than this."""


def choose(observation: SummerPavilionObservation, legal: list[Any], rng: random.Random) -> int:
    """Index into `legal` of a decision with the best heuristic value (see the module docstring)."""
    kind = observation.decision.kind
    me = observation.players[observation.seat]
    if kind == "take":
        needs = unmet_needs(observation, _cells(me), me.hand, me.storage)
        values = [take_value(observation, needs, action) for action in legal]
    elif kind == "pay":
        values = [-float(action.wilds) for action in legal]
    elif kind == "bonus":
        needs = unmet_needs(observation, _cells(me), me.hand, me.storage)
        values = [bonus_value(observation, needs, action) for action in legal]
    else:
        return _phase_two(observation, me, legal, rng)
    best = max(values)
    return rng.choice([index for index, value in enumerate(values) if value > best - 1e-9])


def _cells(player: PlayerView) -> list[int]:
    return [colour for star in player.stars for colour in star]


def colour_needs(table: Table, cells: list[int]) -> list[int]:
    """Per colour, the tiles the open spaces that colour may go on would cost (see docstring)."""
    grey = table.variant == "grey"
    needs = [0] * COLOURS
    for star in range(STARS):
        costs = table.costs[star]
        open_costs = [costs[p] for p in range(6) if cells[star * 6 + p] < 0]
        if not open_costs:
            continue
        allowed = allowed_colours(cells, star, grey)
        once = star == CENTRE_STAR or grey
        for colour in range(COLOURS):
            if allowed >> colour & 1:
                needs[colour] += min(open_costs) if once else sum(open_costs)
    return needs


def unmet_needs(table: Table, cells: list[int], hand: list[int], storage: list[int]) -> list[int]:
    """Need minus the tiles of that colour already in hand or storage."""
    needs = colour_needs(table, cells)
    return [max(0, need - hand[colour] - storage[colour]) for colour, need in enumerate(needs)]


def take_value(table: Table, needs: list[int], action: Take) -> float:
    """A take's value (see the module docstring), given my `unmet_needs`."""
    wild = table.wild
    source = table.centre if action.source == -1 else table.factories[action.source]
    count = source[action.colour]
    with_wild = action.colour != wild and source[wild] > 0
    if action.colour == wild:
        count = 1
    useful = min(count, needs[action.colour])
    value = TILE * useful + SURPLUS * (count - useful) + (WILD if with_wild else 0.0)
    if action.source == -1 and table.marker == -1:
        value -= count + with_wild - MARKER_EDGE
    return value


def bonus_value(table: Table, needs: list[int], action: Bonus) -> float:
    """A bonus tile's value: the unmet need of its colour, a little more for next round's wild."""
    next_wild = 0.5 if action.colour == table.round % COLOURS else 0.0
    return needs[action.colour] + next_wild


def _phase_two(
    observation: SummerPavilionObservation, me: PlayerView, legal: list[Any], rng: random.Random
) -> int:
    """The best placement, unless passing is free (the whole hand fits in storage) and no
    placement is worth more than PASS_BELOW, or there is no placement: then the best pass."""
    cells = _cells(me)
    scored = [
        (place_value(observation, cells, action), index)
        for index, action in enumerate(legal)
        if isinstance(action, Place)
    ]
    if scored:
        best = max(value for value, _ in scored)
        if best > PASS_BELOW or sum(me.hand) > STORAGE:
            return rng.choice([index for value, index in scored if value > best - 1e-9])
    needs = unmet_needs(observation, _cells(me), me.hand, me.storage)
    passes = [
        (keep_value(observation, needs, action), index)
        for index, action in enumerate(legal)
        if isinstance(action, Pass)
    ]
    best = max(value for value, _ in passes)
    return rng.choice([index for value, index in passes if value > best - 1e-9])


def _star_value(colours: list[int], star: int, grey: bool) -> int:
    """The end bonus `star` is heading for with these tiles on it."""
    if not grey:
        return MULTI_STAR_VALUE if star == CENTRE_STAR else STAR_VALUE[star]
    placed = {colour for colour in colours if colour >= 0}
    return STAR_VALUE[placed.pop()] if len(placed) == 1 else MULTI_STAR_VALUE


def place_value(table: Table, cells: list[int], action: Place) -> float:
    """A placement's value on my board `cells` (see the module docstring)."""
    space = action.star * 6 + action.space - 1
    cost = table.costs[action.star][action.space - 1]
    after = cells[:]
    after[space] = action.colour
    value = float(run_length(after, space))
    for feature in FEATURES_OF[space]:
        bonus, _name, around = FEATURES[feature]
        if all(after[other] >= 0 for other in around):
            value += bonus
    ring = after[action.star * 6 : action.star * 6 + 6]
    filled = sum(colour >= 0 for colour in ring)
    star_value = _star_value(ring, action.star, table.variant == "grey")
    value += star_value * (filled**2 - (filled - 1) ** 2) / 36
    same_cost = [
        after[star * 6 + p] >= 0
        for star in range(STARS)
        for p in range(6)
        if table.costs[star][p] == cost
    ]
    done = sum(same_cost)
    value += NUMBER_BONUS.get(cost, 0) * (done**2 - (done - 1) ** 2) / len(same_cost) ** 2
    return value - SPEND * (cost - 1)


def keep_value(table: Table, needs: list[int], action: Pass) -> float:
    """A kept tile saves its -1 discard (a half point, and a half more if my board needs it),
    next round's wild colour most (`NEXT_WILD`); after the
    last round a stored tile costs the same -1, so keeping nothing is as good and simpler."""
    if table.round >= ROUNDS:
        return -float(len(action.keep))
    next_wild = table.round % COLOURS
    value = 0.0
    for colour in set(action.keep):
        kept = action.keep.count(colour)
        if colour == next_wild:
            value += NEXT_WILD * kept
        else:
            value += 0.5 * kept + 0.5 * min(kept, needs[colour])
    return value
