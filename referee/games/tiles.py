"""Tile-drafting mechanics shared by the Azul family: a bag with its lid, the offer (factories
around a centre, with the first-player marker), and a floor line whose penalties are data.

Tiles are counted, not kept as objects: a group of tiles (the bag, the lid, one factory, the
centre) is a list of ints indexed by colour id. Nothing in these games depends on the order of
tiles inside a group, and counts make a drawn tile a choice weighted by what is left, legal-move
generation a scan of five ints, and copying a state a handful of short list copies.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.games.base import IllegalAction


def empty(colours: int) -> list[int]:
    """A group with no tile (a fresh lid, an emptied factory)."""
    return [0] * colours


def tiles_text(counts: list[int], letters: str) -> str:
    """Tile counts by colour as letters for `render` ("BB Y"), or "-" for none."""
    return " ".join(letters[colour] * count for colour, count in enumerate(counts) if count) or "-"


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


def take_colour(group: list[int], colour: int) -> int:
    """Remove every tile of `colour` from `group` and return how many there were."""
    count = group[colour]
    group[colour] = 0
    return count


CENTRE = -1
"""The source index of the centre in `Offer.take` (factories are 0, 1, ...)."""


class Offer:
    """The factory offer: factory displays around a centre, and the first-player marker that
    the first seat to take from the centre gets.

    A turn takes every tile of one colour from one source (`take`), in Summer Pavilion with one
    tile of the round's wild colour. What becomes of a factory's leftovers is the game's: Azul
    sends them to the centre (`to_centre`) unless a special factory says otherwise. Callers
    check a take is legal first; `take` only does it.
    """

    __slots__ = ("centre", "factories", "marker", "table")

    def __init__(self, factories: int, colours: int) -> None:
        self.factories = [empty(colours) for _ in range(factories)]
        self.centre = empty(colours)
        self.marker = -1
        """-1 while the first-player marker is in the centre, else the seat that took it."""
        self.table = 0
        """Tiles on the factories and in the centre: the offer phase ends at 0."""

    def copy(self) -> Offer:
        new = Offer(0, 0)  # not __new__ alone: a class compiled with mypyc must be initialised
        new.factories = [group[:] for group in self.factories]
        new.centre = self.centre[:]
        new.marker = self.marker
        new.table = self.table
        return new

    def fill(self, bag: Bag, per_factory: int, rng: random.Random) -> int:
        """A new round: the marker back in the centre, and the (empty) factories filled in order
        with `per_factory` tiles each; the number drawn.

        Filling stops where bag and lid run out, so later factories may be short or empty.
        """
        self.marker = -1
        drawn = 0
        for factory in self.factories:
            got = bag.draw_into(factory, per_factory, rng)
            drawn += got
            if got < per_factory:
                break
        self.table = drawn
        return drawn

    def restore(self, factories: list[list[int]], centre: list[int], marker: int) -> None:
        """Set the groups and the marker to those an observation shows (copied), recounted."""
        self.factories = [group[:] for group in factories]
        self.centre = centre[:]
        self.marker = marker
        self.recount()

    def recount(self) -> None:
        """Recompute `table` after the groups were edited by hand."""
        self.table = sum(map(sum, self.factories)) + sum(self.centre)

    def source(self, index: int) -> list[int] | None:
        """The group a take from `index` (a factory, or CENTRE) draws on; None if no such one."""
        if index == CENTRE:
            return self.centre
        if 0 <= index < len(self.factories):
            return self.factories[index]
        return None

    def holding(self, source: int, colour: int) -> list[int]:
        """The group of `source` when it holds `colour`, else the `IllegalAction` that names
        the rule broken (the checks every "take one colour" shares)."""
        group = self.source(source)
        if group is None:
            last = len(self.factories) - 1
            raise IllegalAction(
                "no such source", f"source {source}: factories are 0..{last}, -1 is the centre"
            )
        if not group[colour]:
            raise IllegalAction(
                "take a colour the source holds", f"source {source} has no colour {colour}"
            )
        return group

    def take(self, source: int, colour: int, seat: int, wild: int = -1) -> tuple[int, bool]:
        """`seat` takes every tile of `colour` from `source`: how many, and whether it took the
        first-player marker with them (the first take from the centre of a round).

        With a `wild` colour (Summer Pavilion), one tile of it comes along when the source
        holds any, and `colour == wild` takes exactly one wild tile (a source of wilds only)."""
        group = self.centre if source == CENTRE else self.factories[source]
        if wild < 0:
            count = take_colour(group, colour)
        elif colour == wild:
            group[wild] -= 1
            count = 1
        else:
            count = take_colour(group, colour)
            if group[wild]:
                group[wild] -= 1
                count += 1
        self.table -= count
        if source == CENTRE and self.marker < 0:
            self.marker = seat
            return count, True
        return count, False

    def to_centre(self, factory: int) -> None:
        """Move every tile left on `factory` to the centre."""
        centre = self.centre
        group = self.factories[factory]
        for colour, count in enumerate(group):
            if count:
                centre[colour] += count
                group[colour] = 0


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
