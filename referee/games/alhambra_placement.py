"""Where a building may stand in an Alhambra: the grid, its walls, reachability and holes, and the
longest outer wall.

Pure functions of a grid, apart from the turn's flow in `referee.games.alhambra`: the engine asks
them for legal spots and redesigns, the scoring for the walls, and bots plan with them.

The checks are quick because they need only part of the grid, on a legal Alhambra (the engine
never holds another; `alhambra_problems` is the whole check they are tested against): a building
fits a cell by its walls alone (`Layout` works out once what each cell of the frontier asks of
them, so one decision checks each wall pattern once); a swap keeps every passage, since the new
building must have the old one's walls wherever there is a neighbour; the removable buildings
are found in one search (`Layout.removable`); a hole is searched for only around the cell filled.

The rulings are numbered in docs/games/alhambra.md, "Rulings"; the code names those it applies.
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.games.alhambra_tiles import DIRECTIONS, FOUNTAIN, OPPOSITE, STEP, WALLS, E, N, S, W

__all__ = [
    "Cell",
    "Grid",
    "Layout",
    "alhambra_problems",
    "by_row",
    "can_place",
    "can_redesign",
    "can_remove",
    "can_swap",
    "layout_of",
    "longest_outer_wall",
    "redesign_spots",
    "spots",
]

Grid = dict[tuple[int, int], int]
"""An Alhambra: cell (x, y) → building id; the fountain (id 0) is at (0, 0)."""
Cell = tuple[int, int]
"""A cell (x, y) of an Alhambra's grid."""

_SIDES: tuple[tuple[int, int, int, int], ...] = tuple(
    (side, STEP[side][0], STEP[side][1], OPPOSITE[side]) for side in DIRECTIONS
)
"""Per side: its bit, the step to the neighbour across it, and the neighbour's side facing back."""
_ALL = N | E | S | W

_AROUND: dict[Cell, tuple[tuple[int, Cell, int], ...]] = {}
"""`_around` by cell."""


def _around(cell: Cell) -> tuple[tuple[int, Cell, int], ...]:
    """Per side of `cell`: its bit, the neighbour across it and the neighbour's side facing
    back, made once per cell (the cells of Alhambras are few)."""
    found = _AROUND.get(cell)
    if found is None:
        x, y = cell
        found = _AROUND[cell] = tuple(
            (side, (x + dx, y + dy), back) for side, dx, dy, back in _SIDES
        )
    return found


def _contact(grid: Grid, cell: Cell) -> tuple[int, int]:
    """(the sides of `cell` with a building across, those of them where that building has a
    wall facing `cell`): what a building there must match."""
    touch = need = 0
    for side, nxt, back in _around(cell):
        other = grid.get(nxt)
        if other is not None:
            touch |= side
            if WALLS[other] & back:
                need |= side
    return touch, need


def _fits(walls: int, touch: int, need: int) -> bool:
    """Walls meet walls and open sides open sides across every shared side (`_contact`), and
    one of them is open: the building touches the Alhambra and is reached from it."""
    return walls & touch == need and touch & ~walls != 0


def _empty_neighbours(grid: Grid, cell: Cell) -> list[Cell]:
    return [nxt for _, nxt, _ in _around(cell) if nxt not in grid]


def _outside(grid: Grid) -> set[Cell]:
    """The empty cells connected by sides to the outside of the Alhambra's bounding box."""
    xs = [x for x, _ in grid]
    ys = [y for _, y in grid]
    x0, x1, y0, y1 = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1
    seen = {(x0, y0)}
    todo = [(x0, y0)]
    while todo:
        x, y = todo.pop()
        for dx, dy in STEP.values():
            nxt = (x + dx, y + dy)
            if x0 <= nxt[0] <= x1 and y0 <= nxt[1] <= y1 and nxt not in grid and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _has_hole(grid: Grid) -> bool:
    """Ruling 7: some empty area, its cells joined through sides only, is enclosed (of any size)."""
    xs = [x for x, _ in grid]
    ys = [y for _, y in grid]
    box = (max(xs) - min(xs) + 3) * (max(ys) - min(ys) + 3)
    return len(grid) + len(_outside(grid)) != box


def can_place(grid: Grid, cell: Cell, building: int) -> bool:
    """The placement rules for `building` at the empty `cell`: side contact, walls meet walls,
    reachable through an open side (every existing building is reachable), and no hole (ruling
    7: no enclosed empty area of any size, joined through sides only)."""
    if cell in grid:
        return False
    touch, need = _contact(grid, cell)
    return _fits(WALLS[building], touch, need) and not _encloses(grid, cell)


def _encloses(grid: Grid, cell: Cell) -> bool:
    """Filling the empty `cell` encloses an empty area: some empty side neighbour of it no
    longer reaches past the Alhambra's bounding box (before, every empty cell did: no hole, and
    any empty cell past the box but `cell` reaches the open plane)."""
    if _locally_joined(grid, cell):
        return False
    xs = [x for x, _ in grid]
    ys = [y for _, y in grid]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    free: set[Cell] = set()  # cells shown to reach past the box
    for start in _empty_neighbours(grid, cell):
        seen = {start}
        todo = [start]
        while todo:
            here = todo.pop()
            x, y = here
            if x < x0 or x > x1 or y < y0 or y > y1 or here in free:
                break
            for _, nxt, _ in _around(here):
                if nxt != cell and nxt not in grid and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        else:
            return True
        free |= seen
    return False


_RING: tuple[tuple[int, int], ...] = (
    (0, -1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
)
"""The 8 cells around a cell in cyclic order (N, NE, E, ...): consecutive ones share a side."""


def _joined(ring: int) -> bool:
    """The empty cells of a ring (bit i: `_RING[i]` is empty) that share a side with its centre
    lie in one run of empty cells around it, so filling the centre keeps them joined."""
    empty = [bool(ring >> index & 1) for index in range(8)]
    if all(empty):
        return True
    start = empty.index(False)
    runs_with_sides = 0
    in_run = has_side = False
    for step in range(1, 9):
        index = (start + step) % 8
        if empty[index]:
            in_run = True
            has_side = has_side or index % 2 == 0
        elif in_run:
            runs_with_sides += has_side
            in_run = has_side = False
    return runs_with_sides <= 1


_JOINED: tuple[bool, ...] = tuple(_joined(ring) for ring in range(256))
"""`_joined` of every ring."""


_RINGS: dict[Cell, tuple[Cell, ...]] = {}
"""The cells of `_RING` around a cell, by cell (made once per cell)."""


def _locally_joined(grid: Grid, cell: Cell) -> bool:
    """Filling `cell` keeps its empty side neighbours joined around it (`_joined`), so it
    encloses nothing. When not, a search decides."""
    around = _RINGS.get(cell)
    if around is None:
        x, y = cell
        around = _RINGS[cell] = tuple((x + dx, y + dy) for dx, dy in _RING)
    ring = 0
    bit = 1
    for nxt in around:
        if nxt not in grid:
            ring |= bit
        bit <<= 1
    return _JOINED[ring]


def _row_first(cell: Cell) -> tuple[int, int]:
    """Sort key of a cell: row by row (north first), west to east."""
    x, y = cell
    return (y, x)


class Layout:
    """A legal Alhambra's frontier (the empty cells sharing a side with it) and its buildings,
    each cell with what it asks of a building's walls (`_contact`), worked out once for a copy
    of the grid: the placements, swaps, redesigns and removals of a decision, and of later ones
    while the Alhambra is unchanged (`grid` tells), all read it. Only a building's walls matter,
    so each wall pattern is checked once. Its lists are in no order (equal grids built in
    another order share a layout): what it answers is sorted."""

    def __init__(self, grid: Grid) -> None:
        self.grid: Grid = dict(grid)
        touch: dict[Cell, int] = {}
        need: dict[Cell, int] = {}
        occupied: list[tuple[Cell, int, int]] = []
        passages: dict[Cell, list[Cell]] = {}
        for cell, building in grid.items():
            walls = WALLS[building]
            touch_here = need_here = 0
            ways: list[Cell] = []
            for side, nxt, back in _around(cell):
                other = grid.get(nxt)
                if other is None:
                    touch[nxt] = touch.get(nxt, 0) | back
                    if walls & side:
                        need[nxt] = need.get(nxt, 0) | back
                    continue
                touch_here |= side
                if WALLS[other] & back:
                    need_here |= side
                elif not walls & side:
                    ways.append(nxt)
            passages[cell] = ways
            if building != FOUNTAIN:
                occupied.append((cell, touch_here, need_here))
        self.frontier: list[tuple[Cell, int, int]] = [
            (cell, sides, need.get(cell, 0)) for cell, sides in touch.items()
        ]
        """The empty cells with their `_contact`."""
        self.occupied = occupied
        """The cells of the buildings but the fountain with their `_contact`."""
        self.passages = passages
        """Per building's cell, the cells reached from it in one step (`_passages`)."""
        self._spots: dict[int, list[Cell]] = {}
        self._encloses: dict[Cell, bool] = {}
        self._redesignable: dict[int, bool] = {}
        self._removable: list[Cell] | None = None

    def spots(self, walls: int) -> list[Cell]:
        """The empty cells where a building with `walls` may be placed, row by row (a fresh
        list: worked out once per pattern)."""
        known = self._spots.get(walls)
        if known is None:
            known = self._spots[walls] = sorted(
                [
                    cell
                    for cell, touch, need in self.frontier
                    if _fits(walls, touch, need) and not self.encloses(cell)
                ],
                key=_row_first,
            )
        return known.copy()

    def swaps(self, walls: int) -> list[Cell]:
        """The occupied cells (not the fountain's) whose building one with `walls` may replace,
        row by row: its walls must be the old one's wherever there is a neighbour, so every
        passage stays and no hole can appear."""
        found = [cell for cell, touch, need in self.occupied if walls & touch == need]
        return sorted(found, key=_row_first)

    def redesign_spots(self, walls: int) -> list[Cell]:
        """`spots`, then `swaps`: where a reserve building with `walls` may go."""
        return self.spots(walls) + self.swaps(walls)

    def redesignable(self, walls: int) -> bool:
        """A reserve building with `walls` has a spot or a swap (checked once per pattern)."""
        known = self._redesignable.get(walls)
        if known is None:
            known = any(walls & touch == need for _, touch, need in self.occupied) or any(
                _fits(walls, touch, need) and not self.encloses(cell)
                for cell, touch, need in self.frontier
            )
            self._redesignable[walls] = known
        return known

    def encloses(self, cell: Cell) -> bool:
        """Filling the frontier `cell` encloses an empty area (`_encloses`, once per cell)."""
        known = self._encloses.get(cell)
        if known is None:
            known = self._encloses[cell] = _encloses(self.grid, cell)
        return known

    def removable(self) -> list[Cell]:
        """The cells whose building may go to the reserve (redesign b), in no order, found in
        one search: not the fountain, an empty side neighbour (the cell left joins the outside,
        so it is no hole), and no cut cell (`_cut_cells`: the rest stays reachable)."""
        if self._removable is None:
            cuts = _cut_cells(self.passages)
            self._removable = [
                cell for cell, touch, _ in self.occupied if touch != _ALL and cell not in cuts
            ]
        return self._removable


_LAYOUTS: dict[frozenset[tuple[Cell, int]], Layout] = {}
"""`layout_of` by Alhambra (its cells and buildings)."""
_LAST: dict[int, Layout] = {}
"""`layout_of` by the grid object last asked about (`id`), checked against the grid: a quicker
key than the contents while a grid is asked about again and again."""
_LAYOUTS_KEPT = 1024
"""The caches are cleared when they hold this many, so they stay small."""


def layout_of(grid: Grid) -> Layout:
    """The `Layout` of a legal `grid`, shared by every caller asking about the same Alhambra: one
    stays the same over most decisions, across the clones of a search too. Callers must not
    change it nor what it returns but the fresh lists of `spots`, `swaps` and
    `redesign_spots`."""
    layout = _LAST.get(id(grid))
    if layout is not None and layout.grid == grid:
        return layout
    key = frozenset(grid.items())
    layout = _LAYOUTS.get(key)
    if layout is None:
        if len(_LAYOUTS) >= _LAYOUTS_KEPT:
            _LAYOUTS.clear()
        layout = _LAYOUTS[key] = Layout(grid)
    if len(_LAST) >= _LAYOUTS_KEPT:
        _LAST.clear()
    _LAST[id(grid)] = layout
    return layout


def spots(grid: Grid, building: int) -> list[Cell]:
    """Every empty cell where `building` may be placed, row by row (north first)."""
    return layout_of(grid).spots(WALLS[building])


def _mismatches(grid: Grid) -> list[Cell]:
    """Cells with a wall meeting an open side to their east or south."""
    found = []
    for (x, y), building in grid.items():
        for side in (E, S):
            dx, dy = STEP[side]
            other = grid.get((x + dx, y + dy))
            if other is not None and bool(WALLS[building] & side) != bool(
                WALLS[other] & OPPOSITE[side]
            ):
                found.append((x, y))
    return found


def _passages(grid: Grid, cell: Cell) -> list[Cell]:
    """The buildings reached from `cell` in one step: across a side open on both buildings."""
    walls = WALLS[grid[cell]]
    found = []
    for side, nxt, back in _around(cell):
        other = grid.get(nxt)
        if other is not None and not walls & side and not WALLS[other] & back:
            found.append(nxt)
    return found


def _unreachable(grid: Grid) -> int:
    """How many buildings cannot be reached on foot (through open sides) from the fountain."""
    reached = {(0, 0)} if (0, 0) in grid else set()
    todo = list(reached)
    while todo:
        for nxt in _passages(grid, todo.pop()):
            if nxt not in reached:
                reached.add(nxt)
                todo.append(nxt)
    return len(grid) - len(reached)


def alhambra_problems(grid: Grid) -> list[str]:
    """What makes the whole Alhambra illegal, in words (empty when legal)."""
    problems = []
    if grid.get((0, 0)) != FOUNTAIN or list(grid.values()).count(FOUNTAIN) != 1:
        problems.append("the fountain must be at (0, 0), once")
    problems += [f"a wall meets an open side at {cell}" for cell in _mismatches(grid)]
    unreachable = _unreachable(grid)
    if unreachable:
        problems.append(f"{unreachable} building(s) not reachable from the fountain")
    if grid and _has_hole(grid):
        problems.append("an empty area is enclosed (a hole)")
    return problems


def _cut_cells(passages: Mapping[Cell, list[Cell]]) -> set[Cell]:
    """The cells whose building stands on every path from the fountain to some other building
    (the articulation points of the `passages`, the fountain's own cell maybe among them): one
    depth-first search, Tarjan's lowest reachable order per cell."""
    root = (0, 0)
    order = {root: 0}
    cuts: set[Cell] = set()
    _visit(passages, root, order, cuts)
    return cuts


def _visit(
    passages: Mapping[Cell, list[Cell]], cell: Cell, order: dict[Cell, int], cuts: set[Cell]
) -> int:
    """Search on from `cell` (numbered in `order`): the lowest order reached from its subtree
    by one step back, adding `cell` to `cuts` when a subtree reaches no higher than `cell`. The
    depth is at most the number of buildings."""
    here = order[cell]
    low = here
    for nxt in passages[cell]:
        seen = order.get(nxt)
        if seen is None:
            order[nxt] = len(order)
            below = _visit(passages, nxt, order, cuts)
            if below >= here:
                cuts.add(cell)
            elif below < low:
                low = below
        elif seen < low:
            low = seen
    return low


def can_remove(grid: Grid, cell: Cell) -> bool:
    """Redesign b: the building at `cell` of a legal Alhambra may go to the reserve
    (`Layout.removable`)."""
    return cell in layout_of(grid).removable()


def can_swap(grid: Grid, cell: Cell, building: int) -> bool:
    """Redesign c: `building` may replace the one at `cell` of a legal Alhambra (not the
    fountain): its sides must match (`Layout.swaps` says why that is all)."""
    if grid[cell] == FOUNTAIN:
        return False
    touch, need = _contact(grid, cell)
    return WALLS[building] & touch == need


def longest_outer_wall(grid: Grid) -> int:
    """Edges of the longest path of outer wall edges visiting no corner point twice (a closed
    ring counts all its edges): ruling 8. Outer: a wall side facing an empty cell (ruling 15)."""
    links: dict[tuple[int, int], list[tuple[int, tuple[int, int]]]] = {}
    edges = 0
    for (x, y), building in grid.items():
        walls = WALLS[building]
        for side in DIRECTIONS:
            dx, dy = STEP[side]
            if walls & side and (x + dx, y + dy) not in grid:
                a, b = _corners(x, y, side)
                links.setdefault(a, []).append((edges, b))
                links.setdefault(b, []).append((edges, a))
                edges += 1
    best = 0
    for start in sorted(links):
        best = max(best, _longest_from(links, start, start, {start}, set()))
    return best


def _corners(x: int, y: int, side: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two lattice points ending side `side` of the cell (x, y) (its NW corner is (x, y))."""
    if side == N:
        return (x, y), (x + 1, y)
    if side == S:
        return (x, y + 1), (x + 1, y + 1)
    if side == W:
        return (x, y), (x, y + 1)
    return (x + 1, y), (x + 1, y + 1)


def _longest_from(
    links: Mapping[tuple[int, int], list[tuple[int, tuple[int, int]]]],
    start: tuple[int, int],
    point: tuple[int, int],
    visited: set[tuple[int, int]],
    used: set[int],
) -> int:
    best = 0
    for edge, nxt in links[point]:
        if edge in used:
            continue
        if nxt == start:
            best = max(best, 1)  # closing a ring: the start point is its only repeat
            continue
        if nxt in visited:
            continue
        visited.add(nxt)
        used.add(edge)
        best = max(best, 1 + _longest_from(links, start, nxt, visited, used))
        used.discard(edge)
        visited.discard(nxt)
    return best


def by_row(item: tuple[tuple[int, int], int]) -> tuple[int, int]:
    """Sort key of a grid's (cell, building) item: row by row (north first), west to east."""
    (x, y), _ = item
    return (y, x)


def redesign_spots(grid: Grid, building: int) -> list[Cell]:
    """Empty cells where the reserve `building` may go, then occupied cells it may swap into."""
    return layout_of(grid).redesign_spots(WALLS[building])


def can_redesign(grid: Grid, building: int) -> bool:
    """The reserve `building` has a spot of `redesign_spots` (checked without listing them)."""
    return layout_of(grid).redesignable(WALLS[building])
