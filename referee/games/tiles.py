"""Tile-drafting mechanics shared by the Azul family: a bag with its lid, factories around a
centre, and a floor line whose penalties are data.

Tiles are counted, not kept as objects: a group of tiles (the bag, the lid, one factory, the
centre) is a list of ints indexed by colour id. Nothing in these games depends on the order of
tiles inside a group, and counts make a drawn tile a choice weighted by what is left, legal-move
generation a scan of five ints, and copying a state a handful of short list copies.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def empty(colours: int) -> list[int]:
    """A group with no tile (a fresh lid, an emptied factory)."""
    return [0] * colours


class Bag:
    """The draw bag and the box lid that refills it.

    Discarded tiles go to the lid; when a draw finds the bag empty, every lid tile goes back into
    the bag and drawing goes on. When both are empty, drawing stops short and the caller decides
    what that means (Azul: the round starts with short factories).
    """

    __slots__ = ("lid", "tiles")

    def __init__(self, tiles: list[int], lid: list[int] | None = None) -> None:
        self.tiles = tiles
        self.lid = lid if lid is not None else empty(len(tiles))

    def copy(self) -> Bag:
        return Bag(self.tiles[:], self.lid[:])

    def draw_into(self, group: list[int], count: int, rng: random.Random) -> int:
        """Draw up to `count` tiles at random onto `group`, refilling the bag from the lid when
        it runs out; how many were drawn (fewer only when bag and lid are both empty)."""
        tiles = self.tiles
        total = sum(tiles)
        for drawn in range(count):
            if total == 0:
                total = sum(self.lid)
                if total == 0:
                    return drawn
                tiles[:] = self.lid
                self.lid = empty(len(tiles))
            # int(random() * n) rather than randrange(n): four times faster, and its bias for n
            # of a few hundred is far below anything a game could show.
            pick = int(rng.random() * total)
            colour = 0
            while pick >= tiles[colour]:
                pick -= tiles[colour]
                colour += 1
            tiles[colour] -= 1
            group[colour] += 1
            total -= 1
        return count

    def discard(self, colour: int, count: int = 1) -> None:
        self.lid[colour] += count


def fill_factories(
    factories: list[list[int]], bag: Bag, per_factory: int, rng: random.Random
) -> int:
    """Fill the (empty) factories in order with `per_factory` tiles each; the number drawn.

    Filling stops where bag and lid run out, so later factories may be short or empty.
    """
    total = 0
    for factory in factories:
        drawn = bag.draw_into(factory, per_factory, rng)
        total += drawn
        if drawn < per_factory:
            break
    return total


def take_colour(group: list[int], colour: int) -> int:
    """Remove every tile of `colour` from `group` and return how many there were."""
    count = group[colour]
    group[colour] = 0
    return count


def move_all(source: list[int], target: list[int]) -> None:
    """Move every tile of `source` onto `target` (a factory's leftovers to the centre)."""
    for colour, count in enumerate(source):
        if count:
            target[colour] += count
            source[colour] = 0


class FloorLine:
    """The rules of a floor line: its spaces and the penalty printed on each.

    A floor is a list of the tokens on it, left to right (tile colours, or a game's marker
    token). Tiles beyond the last space go straight to the lid without penalty.
    """

    __slots__ = ("capacity", "penalties", "totals")

    def __init__(self, penalties: Sequence[int]) -> None:
        self.penalties = tuple(penalties)
        self.capacity = len(self.penalties)
        totals = [0]
        for penalty in self.penalties:
            totals.append(totals[-1] + penalty)
        self.totals = tuple(totals)
        """totals[k]: the summed (negative) penalty of the first k spaces."""

    def penalty(self, occupied: int) -> int:
        """The total penalty (a negative number or 0) for `occupied` filled spaces."""
        return self.totals[min(occupied, self.capacity)]

    def drop(self, floor: list[int], colour: int, count: int, bag: Bag) -> None:
        """Put `count` tiles of `colour` on the free spaces, left to right; the rest to the lid."""
        room = self.capacity - len(floor)
        if count > room:
            bag.discard(colour, count - room)
            count = room
        floor.extend([colour] * count)
