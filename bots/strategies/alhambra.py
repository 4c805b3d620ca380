"""Greedy Alhambra heuristic: one decision at a time, valued from the observation only.

No memory and no simulation (every hand is public, so the observation is the whole public
state). The decisions of a turn, by phase:

- action: every choice gets a value and the best is taken.
  - buy: the building's worth − `SURPLUS` per unit of overpayment (with the cheapest payment,
    below) + `EXTRA` when the payment can be exact (another action follows). A building's worth
    is its majority gain: for each scoring still to come, my points in its type's ranking
    (`rank_points`, the engine's own tie rule, Dirk included) with one more building minus
    without, the next scoring counting fully and later ones `LATER` as much; `HOPE` × the gain
    of a second one more, since a majority two buildings away is still reachable; plus `BASE`
    for any building (walls, and one the others cannot have); plus `NO_SPOT` (negative) when
    no cell of my Alhambra takes it (it would sit in the reserve).
  - take: `MONEY` per unit of value taken + `ENABLE` × the worth of each market building the
    take newly lets me pay exactly (the market can change before my next turn, hence the
    factor). One card of any value or several summing to ≤ 5: this compares e.g. 2+3 with 8.
  - redesign: moving a reserve building to an empty cell is worth its worth (it counts again);
    moving an Alhambra building out, or swapping one out, never is (`OUT`): each costs a whole
    action (a turn, mostly) and the building leaving stops counting.
  - end (after an exact payment): 0, so a further action is taken whenever it is worth anything.
- pay: the payment is the set of cards of the slot's currency reaching the price with the least
  surplus, then the fewest cards (keeping cards for later); cards are offered in increasing
  order, so the smallest card of that set still unpaid is paid, and `end` once the price is met.
- place / final / redesign spot: each legal cell is valued as `WALL` × the gain in the longest
  outer wall × the scorings left, + `OPEN` × the expected number of legal cells left for a
  building not yet in anyone's hands (its walls drawn from those unseen), so the Alhambra stays
  open to future purchases. The reserve only when no cell is legal (`dirk`: never, Dirk scores
  majorities against me).
Ties are broken with the bot's RNG.
"""

from __future__ import annotations

import functools
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from referee.games.alhambra_messages import Buy, End, Pay, Place, Redesign, Reserve, Take
from referee.games.alhambra_placement import Grid, longest_outer_wall, spots
from referee.games.alhambra_scoring import POINTS, rank_points
from referee.games.alhambra_tiles import BUILDINGS, FOUNTAIN, PRICE, TYPE, TYPES, WALLS

if TYPE_CHECKING:
    from referee.games.alhambra_messages import AlhambraObservation, Money

SURPLUS = 0.6
"""Worth lost per unit of value paid beyond the price (no change is given)."""
EXTRA = 3.0
"""Worth of the extra action an exact payment gives."""
LATER = 0.6
"""Weight of scorings after the next one: counts will have changed by then."""
HOPE = 0.5
"""Weight of the gain from a second building of the type (a majority two buildings away)."""
NO_SPOT = -4.0
"""A building no cell takes goes to the reserve, where it scores nothing until redesigned."""
BASE = 2.0
"""Worth of any building besides its majority gain: walls, and one fewer for the others."""
MONEY = 0.5
"""Worth of one unit of money taken."""
ENABLE = 0.4
"""Share of a building's worth credited to a take that lets me pay for it exactly."""
OUT = -100.0
"""Moving a building out of the Alhambra, by removal or swap (it stops counting)."""
WALL = 1.0
"""Worth of one more edge of longest outer wall, per scoring left."""
OPEN = 0.5
"""Worth of one more expected legal cell for a future building."""
SCORINGS = 3


def choose(observation: AlhambraObservation, legal: list[Any], rng: random.Random) -> int:
    """Index into `legal` of a decision with the best heuristic value (see the module docstring)."""
    if observation.phase == "pay":
        return _pay(observation, legal)
    view = View.of_observation(observation)
    values = [view.value(action) for action in legal]
    best = max(values)
    return rng.choice([i for i, v in enumerate(values) if v > best - 1e-9])


def cheapest_payment(cards: Sequence[int], price: int) -> tuple[int, ...] | None:
    """The values (sorted) of a subset of `cards` reaching `price` with the least surplus, then
    the fewest cards; None when even all of them fall short. Remembered by the sorted values
    (`_cheapest`): the search asks about the same few hands thousands of times a second."""
    return _cheapest(tuple(sorted(cards)), price)


@functools.lru_cache(maxsize=1 << 14)
def _cheapest(cards: tuple[int, ...], price: int) -> tuple[int, ...] | None:
    """`cheapest_payment` of sorted values."""
    best: dict[int, tuple[int, ...]] = {0: ()}
    for value in cards:
        for total, chosen in list(best.items()):
            if total >= price:
                continue  # a reached price needs no more cards
            grown = total + value
            candidate = (*chosen, value)
            if grown not in best or len(candidate) < len(best[grown]):
                best[grown] = candidate
    reached = [total for total in best if total >= price]
    if not reached:
        return None
    return best[min(reached)]


def _values(cards: Sequence[Money], currency: int) -> list[int]:
    return [card.value for card in cards if card.currency == currency]


def next_payment(hand: Sequence[int], price: int, paid: Sequence[int]) -> int | None:
    """The value of the next card of the cheapest payment of `price` from the `hand` values of
    the slot's currency, after the `paid` values; None once the price is met (then `end`)."""
    total = sum(paid)
    if total >= price:
        return None
    lowest = paid[-1] if paid else 0
    plan = cheapest_payment([v for v in hand if v >= lowest], price - total)
    return plan[0] if plan else None


def _pay(obs: AlhambraObservation, legal: list[Any]) -> int:
    """The next card of the cheapest payment, or `end` once the price is met."""
    slot = obs.paying
    building = obs.market[slot] if slot is not None else None
    assert slot is not None and building is not None, "a pay decision names the slot bought"
    paid = [card.value for card in obs.paid]
    value = next_payment(_values(obs.hands[obs.seat], slot), PRICE[building], paid)
    if value is not None:
        for index, action in enumerate(legal):
            if isinstance(action, Pay) and action.card.value == value:
                return index
    for index, action in enumerate(legal):
        if isinstance(action, End):
            return index
    return 0


class View:
    """What one decision's valuation needs, computed once: from an observation
    (`View.of_observation`), or from an engine state by the search
    (`bots.search.alhambra`)."""

    def __init__(
        self,
        me: int,
        grids: Sequence[Grid],
        pending: Sequence[int],
        dirk_buildings: Sequence[int],
        scorings: int,
        market: Sequence[int | None],
        hand: Sequence[Money],
        reserve: Sequence[int],
        placed_elsewhere: Callable[[], Iterable[Iterable[int]]],
    ) -> None:
        """`grids`: every seat's Alhambra; `pending`: my buildings bought, not placed yet;
        `market`: the building per slot (None: empty); `placed_elsewhere`: the building groups
        out of the bag and the market besides the Alhambras (reserves, pending, Dirk's, out of
        play), asked only when a placement is valued."""
        self.me = me
        self.grid = grids[me]
        self.market = market
        self.hand = hand
        self.reserve = reserve
        self.grids = grids
        self.placed_elsewhere = placed_elsewhere
        players = len(grids)
        self.counts = [[0] * len(TYPES) for _ in range(players + bool(dirk_buildings))]
        for seat in range(players):
            for building in grids[seat].values():
                if building != FOUNTAIN:
                    self.counts[seat][TYPE[building]] += 1
        for building in pending:
            self.counts[me][TYPE[building]] += 1
        for building in dirk_buildings:
            self.counts[-1][TYPE[building]] += 1
        self.scorings_left = SCORINGS - scorings
        self._unseen_walls: Counter[int] | None = None
        self._worths: dict[int, float] = {}
        self._enabling: list[tuple[int, int, int]] | None = None

    @classmethod
    def of_observation(cls, obs: AlhambraObservation) -> View:
        def elsewhere() -> Iterable[Iterable[int]]:
            return (*obs.reserves, *obs.pending, obs.dirk_buildings, obs.out_of_play)

        return cls(
            obs.seat,
            [{(p.x, p.y): p.building for p in alhambra} for alhambra in obs.alhambras],
            obs.pending[obs.seat],
            obs.dirk_buildings,
            obs.scorings,
            obs.market,
            obs.hands[obs.seat],
            obs.reserves[obs.seat],
            elsewhere,
        )

    def value(self, action: Any) -> float:
        if isinstance(action, Buy):
            return self._buy(action.slot)
        if isinstance(action, Take):
            return self._take(action.cards)
        if isinstance(action, Redesign):
            if action.building in self.reserve and spots(self.grid, action.building):
                return self.worth(action.building)
            return OUT
        if isinstance(action, Place):
            if (action.x, action.y) in self.grid:
                return OUT  # a swap: the building swapped out stops counting
            return self._place(action)
        if isinstance(action, End):
            return 0.0
        return kept_out(action)

    def worth(self, building: int) -> float:
        """Majority gain of one more building of its type, plus `NO_SPOT` without a cell
        (remembered: a decision's takes and purchases ask about the same market buildings)."""
        known = self._worths.get(building)
        if known is None:
            known = self._worths[building] = self._worth(building)
        return known

    def _worth(self, building: int) -> float:
        kind = TYPE[building]
        column = tuple(row[kind] for row in self.counts)
        gain = _majority(kind, column, self.me, self.scorings_left)
        if not spots(self.grid, building):
            gain += NO_SPOT
        return gain + BASE

    def _buy(self, slot: int) -> float:
        building = self.market[slot]
        assert building is not None, "only a filled slot can be bought"
        price = PRICE[building]
        plan = cheapest_payment(_values(self.hand, slot), price)
        if plan is None:
            return -math.inf
        surplus = sum(plan) - price
        return self.worth(building) - SURPLUS * surplus + (EXTRA if surplus == 0 else 0.0)

    def _take(self, cards: Sequence[Money]) -> float:
        value = MONEY * sum(card.value for card in cards)
        if self._enabling is None:
            self._enabling = self._payable_later()
        for slot, price, before in self._enabling:
            reach = before
            for card in cards:
                if card.currency == slot:
                    reach |= reach << card.value
            if reach >> price & 1:
                building = self.market[slot]
                assert building is not None
                value += ENABLE * max(0.0, self.worth(building))
        return value

    def _payable_later(self) -> list[tuple[int, int, int]]:
        """(slot, price, subset sums of my cards of its currency) of the market's buildings my
        cards cannot pay exactly now: those a take may let me pay exactly (`_sums`)."""
        found = []
        for slot, building in enumerate(self.market):
            if building is not None:
                before = _sums(_values(self.hand, slot))
                if not before >> PRICE[building] & 1:
                    found.append((slot, PRICE[building], before))
        return found

    def _place(self, action: Place) -> float:
        grid = dict(self.grid)
        grid[(action.x, action.y)] = action.building
        wall = longest_outer_wall(grid) - longest_outer_wall(self.grid)
        return WALL * wall * self.scorings_left + OPEN * self._openness(grid)

    def _openness(self, grid: Grid) -> float:
        """Expected number of legal cells for a building not yet seen, by its walls."""
        walls = self._unseen()
        total = sum(walls.values())
        if not total:
            return 0.0
        legal = sum(count * len(spots(grid, _SAMPLE[mask])) for mask, count in walls.items())
        return legal / total

    def _unseen(self) -> Counter[int]:
        """Wall masks of the buildings in nobody's hands (the bag and the market)."""
        if self._unseen_walls is None:
            seen: set[int] = set()
            for grid in self.grids:
                seen.update(grid.values())
            for group in self.placed_elsewhere():
                seen.update(group)
            self._unseen_walls = Counter(WALLS[b] for b, *_ in BUILDINGS if b not in seen)
        return self._unseen_walls


@functools.lru_cache(maxsize=1 << 14)
def _majority(kind: int, column: tuple[int, ...], me: int, scorings_left: int) -> float:
    """`View.worth`'s majority gain for a type's counts (mine, the others', Dirk's): the same
    few columns recur over a search's playouts."""
    now = column[me]
    gain = 0.0
    for scoring in range(SCORINGS - scorings_left, SCORINGS):
        weight = 1.0 if scoring == SCORINGS - scorings_left else LATER
        table = POINTS[kind][scoring]
        points = [_mine(column, me, now + extra, table) for extra in range(3)]
        gain += weight * (points[1] - points[0] + HOPE * (points[2] - points[1]))
    return gain


def kept_out(action: Any) -> float:
    """A building kept out of the Alhambra: to the reserve, or to Dirk (only when nothing else
    is legal: he scores majorities against me). Needs no `View`: the search's playouts value it
    without building one."""
    return 2 * NO_SPOT if isinstance(action, Reserve) else 4 * NO_SPOT


def _mine(column: Sequence[int], me: int, count: int, table: Sequence[int]) -> int:
    counts = list(column)
    counts[me] = count
    return rank_points(counts, table)[me]


def _sums(values: Iterable[int]) -> int:
    """The sums of the subsets of `values` as bits (bit n set: some subset sums to n): a
    payment can be exact when the price's bit is set, as `cheapest_payment` would find, without
    building the plans."""
    reach = 1
    for value in values:
        reach |= reach << value
    return reach


_SAMPLE: dict[int, int] = {}
"""One building id per wall mask, to ask `can_place` about a mask."""
for _id, *_rest in BUILDINGS:
    _SAMPLE.setdefault(WALLS[_id], _id)
