"""Greedy Azul heuristic: the decision with the best value by a one-decision estimate, from the
observation.

No memory and no simulation, so it is fast and stateless. A tile's worth on wall row r is the
points it would score there now (horizontal and vertical runs; on the grey wall, at its best
free space) plus its share of the end bonuses (+2 row, +7 column, +10 colour): `BONUS_SHARE[k]`
of each bonus for the tile that brings its row, column or colour from k to k + 1 tiles (from
1/25 for the first to 9/25 for the fifth: 1 in all, later tiles counting more since an
unfinished set scores nothing).
A line whose colour has no space left on the grey wall is worth the floor penalty its tiles
will cost. For each legal decision:

- take, onto pattern line r:
  - if the tiles complete the line, the tile's worth on row r;
  - if not, that worth (if positive) × the fraction of the line filled after the take × the
    chance of finishing it: `ROUND` when the table still holds the tiles it misses (outside
    the source taken), else `LATER` (it waits for a later round and blocks the line
    meanwhile), or 0 in the game's last round (someone's wall row has 4 tiles and its pattern
    line is full: the game ends at this round's wall-tiling);
  - a take to the floor: nothing.
  Then, for every take: plus the floor penalty it adds (a negative number: the excess tiles
  and the first-player marker, after an empty extra floor disc has caught one); plus `MARKER`
  for taking the marker (starting the next round), unless it is the last round; minus `WASTE`
  per tile that overflows the floor into the lid; minus `DENY` × the best value the next
  player could get from one take of what my take leaves, when positive (the same estimate on
  their board, a partial line counted at `ROUND`; the leftovers of a factory go to the centre,
  stay on a "stay" factory, and are left out for a "split" one).
- place (grey wall): the tile's worth on that space.
- split: send the leftovers so that the largest same-colour pile they create is smallest, since
  big piles are what the next player (an opponent) wants.

Ties are broken with the bot's RNG. Measured with `arena compare` (2 players, standard wall,
`--seed 20261125 --max-deals 200`, 400 games), pairwise points: 0.986 against the most-tiles
player of examples/azul-most-tiles (0.914 for the previous greedy, which scored a completion
at its wall points alone, partial lines at a fixed rate and nothing else), 0.869 against that
previous greedy. Weighing the next player's take (`DENY`) is worth 0.708 against the same
heuristic without it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from referee.games.azul import CENTRE, FLOOR, FLOOR_LINE, tile_points, wall_column

if TYPE_CHECKING:
    from referee.games.azul import AzulObservation, PlayerView, Split, Take

ROUND = 0.8
"""Chance of finishing a partial line whose missing tiles are still on the table."""
LATER = 0.4
"""Chance of finishing (and worth, for the line it blocks) a partial line that must wait."""
MARKER = 0.5
"""What starting the next round is worth (the first-player marker), besides its floor space."""
WASTE = 0.5
"""Cost of a tile that overflows the floor into the lid: no penalty, but lost to me."""
DENY = 1.0
"""Weight of the next player's best take after mine."""
BONUS_SHARE = (1 / 25, 3 / 25, 5 / 25, 7 / 25, 9 / 25)
"""BONUS_SHARE[k]: the share of a row, column or colour bonus counted for the tile that brings
it from k to k + 1 tiles ((k + 1)² - k² over 25: the whole bonus once all 5 are in)."""
_NONE = -1e9
"""The value of having no take at all."""


def choose(observation: AzulObservation, legal: list[Any], rng: random.Random) -> int:
    """Index into `legal` of a decision with the best heuristic value (see the module docstring)."""
    kind = observation.decision.kind
    if kind == "place":
        board = _Board(observation, observation.seat)
        colour = observation.decision.colour
        values = [board.worth_at(action.row, action.column, colour) for action in legal]
    elif kind == "split":
        values = [-_largest_pile(observation, action) for action in legal]
    else:
        values = _take_values(observation, legal)
    best = max(values)
    return rng.choice([index for index, value in enumerate(values) if value > best - 1e-9])


def _last_round(observation: AzulObservation) -> bool:
    """Will this round's wall-tiling complete a wall row (and so end the game)?"""
    for player in observation.players:
        for row, cells in enumerate(player.wall):
            if len(player.lines[row]) == row + 1 and sum(cell >= 0 for cell in cells) == 4:
                return True
    return False


class _Board:
    """One player's board, as the heuristic reads it (tile worths cached by row and colour)."""

    def __init__(self, observation: AzulObservation, seat: int) -> None:
        self.player: PlayerView = observation.players[seat]
        self.cells = [colour for row in self.player.wall for colour in row]
        self.grey = observation.variant != "standard"
        self.floor = len(self.player.floor)
        self._worth: dict[tuple[int, int], float] = {}

    def worth_at(self, row: int, column: int, colour: int) -> float:
        """Points now plus the share of the end bonuses of a tile of `colour` at (row, column)."""
        cells = self.cells
        in_row = sum(cells[row * 5 + other] >= 0 for other in range(5))
        in_column = sum(cells[other * 5 + column] >= 0 for other in range(5))
        of_colour = cells.count(colour)
        bonus = 2 * BONUS_SHARE[in_row] + 7 * BONUS_SHARE[in_column] + 10 * BONUS_SHARE[of_colour]
        return tile_points(cells, row, column) + bonus

    def worth(self, row: int, colour: int) -> float:
        """What a tile of `colour` is worth on wall row `row` (its best space on the grey wall)."""
        key = (row, colour)
        value = self._worth.get(key)
        if value is None:
            cells = self.cells
            if not self.grey:
                value = self.worth_at(row, wall_column(row, colour), colour)
            else:
                spaces = [
                    column
                    for column in range(5)
                    if cells[row * 5 + column] < 0
                    and all(cells[other * 5 + column] != colour for other in range(5))
                ]
                if spaces:
                    value = max(self.worth_at(row, column, colour) for column in spaces)
                else:
                    value = float(FLOOR.penalty(self.floor + row + 1) - FLOOR.penalty(self.floor))
            self._worth[key] = value
        return value

    def line_value(self, line: int, colour: int, count: int, chance: float) -> tuple[float, int]:
        """The value of `count` tiles of `colour` on pattern line `line`, and the excess."""
        have = len(self.player.lines[line])
        size = line + 1
        placed = min(count, size - have)
        worth = self.worth(line, colour)
        if have + placed == size:
            return worth, count - placed
        return max(worth, 0.0) * chance * (have + placed) / size, count - placed

    def best_take(self, group: Sequence[int], marker: bool) -> float:
        """The best value of one take from `group` (tiles per colour) onto a pattern line: the
        line's value (as if the missing tiles will come this round) less the floor penalty."""
        best = _NONE
        lines = self.player.lines
        wall = self.player.wall
        floor = self.floor + marker
        for colour, count in enumerate(group):
            if not count:
                continue
            for line in range(5):
                tiles = lines[line]
                if len(tiles) > line or (tiles and tiles[0] != colour) or colour in wall[line]:
                    continue
                value, excess = self.line_value(line, colour, count, ROUND)
                value += FLOOR.penalty(floor + excess) - FLOOR.penalty(self.floor)
                best = max(best, value)
        return best


def _take_values(observation: AzulObservation, legal: list[Take]) -> list[float]:
    board = _Board(observation, observation.seat)
    me = board.player
    last = _last_round(observation)
    factories, centre = observation.factories, observation.centre
    table = [sum(group[colour] for group in factories) + centre[colour] for colour in range(5)]
    marker_free = observation.marker == -1
    denial = _Denial(observation)
    values = []
    for action in legal:
        source = centre if action.source == CENTRE else factories[action.source]
        excess = source[action.colour]
        value = 0.0
        if action.line != FLOOR_LINE:
            needed = action.line + 1 - len(me.lines[action.line]) - excess
            chance = ROUND if table[action.colour] - excess >= needed else 0.0 if last else LATER
            value, excess = board.line_value(action.line, action.colour, excess, chance)
        disc_empty = me.extra_floor == [] or (
            action.source != CENTRE and observation.powers[action.source] == "extra_floor"
        )
        if excess and disc_empty:
            excess -= 1
        marker = action.source == CENTRE and marker_free
        after = board.floor + marker + excess
        value += FLOOR.penalty(after) - FLOOR.penalty(board.floor)
        if marker and not last:
            value += MARKER
        value -= WASTE * max(0, after - FLOOR.capacity)
        values.append(value - DENY * max(0.0, denial.after(action)))
    return values


class _Denial:
    """The next player's best take after each of mine, by (source, colour)."""

    def __init__(self, observation: AzulObservation) -> None:
        self.observation = observation
        self.board = _Board(observation, (observation.seat + 1) % len(observation.players))
        self.factory_best = [
            self.board.best_take(group, False) if any(group) else _NONE
            for group in observation.factories
        ]
        self._cache: dict[tuple[int, int], float] = {}

    def after(self, action: Take) -> float:
        key = (action.source, action.colour)
        best = self._cache.get(key)
        if best is None:
            best = self._best_after(action.source, action.colour)
            self._cache[key] = best
        return best

    def _best_after(self, source: int, colour: int) -> float:
        observation = self.observation
        centre = observation.centre[:]
        marker = observation.marker == -1
        if source == CENTRE:
            centre[colour] = 0
            best = max(self.factory_best, default=_NONE)
            marker = False
        else:
            best = max(
                (value for index, value in enumerate(self.factory_best) if index != source),
                default=_NONE,
            )
            rest = observation.factories[source][:]
            rest[colour] = 0
            power = observation.powers[source]
            if power == "stay":
                best = max(best, self.board.best_take(rest, False))
            elif power != "split":
                centre = [here + more for here, more in zip(centre, rest, strict=True)]
        if any(centre):
            best = max(best, self.board.best_take(centre, marker))
        return best if best > _NONE else 0.0


def _largest_pile(observation: AzulObservation, action: Split) -> int:
    decision = observation.decision
    leftovers = observation.factories[decision.factory]
    largest = 0
    for colours, target in ((action.left, decision.left), (action.right, decision.right)):
        for colour in colours:
            largest = max(largest, observation.factories[target][colour] + leftovers[colour])
    return largest
