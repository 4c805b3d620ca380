"""Where a building may stand in an Alhambra: the grid, its walls, reachability and holes, and the
longest outer wall.

Pure functions of a grid, apart from the turn's flow in `referee.games.alhambra`: the engine asks
them for legal spots and redesigns, the scoring for the walls, and bots plan with them.
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.games.alhambra_tiles import DIRECTIONS, FOUNTAIN, OPPOSITE, STEP, WALLS, E, N, S, W

__all__ = [
    "Grid",
    "alhambra_problems",
    "by_row",
    "can_place",
    "can_redesign",
    "can_remove",
    "can_swap",
    "longest_outer_wall",
    "redesign_spots",
    "spots",
]

Grid = dict[tuple[int, int], int]
"""An Alhambra: cell (x, y) → building id; the fountain (id 0) is at (0, 0)."""


def _side_open(grid: Grid, cell: tuple[int, int], building: int) -> tuple[bool, bool]:
    """(touches the Alhambra by a side, every shared side matches and one of them is open)."""
    x, y = cell
    walls = WALLS[building]
    touches = reachable = False
    matches = True
    for side in DIRECTIONS:
        dx, dy = STEP[side]
        other = grid.get((x + dx, y + dy))
        if other is None:
            continue
        touches = True
        wall = bool(walls & side)
        if wall != bool(WALLS[other] & OPPOSITE[side]):
            matches = False
        elif not wall:
            reachable = True
    return touches, matches and reachable


def _empty_neighbours(grid: Grid, cell: tuple[int, int]) -> list[tuple[int, int]]:
    x, y = cell
    return [(x + dx, y + dy) for dx, dy in STEP.values() if (x + dx, y + dy) not in grid]


def _outside(grid: Grid) -> set[tuple[int, int]]:
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
    xs = [x for x, _ in grid]
    ys = [y for _, y in grid]
    box = (max(xs) - min(xs) + 3) * (max(ys) - min(ys) + 3)
    return len(grid) + len(_outside(grid)) != box


def can_place(grid: Grid, cell: tuple[int, int], building: int) -> bool:
    """The placement rules for `building` at the empty `cell`: side contact, walls meet walls,
    reachable through an open side (every existing building is reachable), and no hole."""
    if cell in grid:
        return False
    touches, fits = _side_open(grid, cell, building)
    if not (touches and fits):
        return False
    if _locally_joined(grid, cell):
        return True
    grid[cell] = building
    try:
        return not _has_hole(grid)
    finally:
        del grid[cell]


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


def _locally_joined(grid: Grid, cell: tuple[int, int]) -> bool:
    """The empty side neighbours of `cell` stay joined around it once it is filled (one run of
    empty cells in the ring holds them all), so filling it encloses nothing. When not, a full
    check decides."""
    x, y = cell
    empty = [(x + dx, y + dy) not in grid for dx, dy in _RING]
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


def _frontier(grid: Grid) -> list[tuple[int, int]]:
    """Empty cells sharing a side with the Alhambra, in a deterministic order."""
    cells = {nxt for cell in grid for nxt in _empty_neighbours(grid, cell)}
    return sorted(cells, key=lambda c: (c[1], c[0]))


def spots(grid: Grid, building: int) -> list[tuple[int, int]]:
    """Every empty cell where `building` may be placed, row by row (north first)."""
    return [cell for cell in _frontier(grid) if can_place(grid, cell, building)]


def _mismatches(grid: Grid) -> list[tuple[int, int]]:
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


def _unreachable(grid: Grid) -> int:
    """How many buildings cannot be reached on foot (through open sides) from the fountain."""
    reached = {(0, 0)} if (0, 0) in grid else set()
    todo = list(reached)
    while todo:
        x, y = todo.pop()
        walls = WALLS[grid[(x, y)]]
        for side in DIRECTIONS:
            dx, dy = STEP[side]
            nxt = (x + dx, y + dy)
            if (
                nxt in grid
                and nxt not in reached
                and not walls & side
                and not WALLS[grid[nxt]] & OPPOSITE[side]
            ):
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


def can_remove(grid: Grid, cell: tuple[int, int]) -> bool:
    """Redesign b: the building at `cell` (not the fountain) may go to the reserve. The empty
    cell left is no hole when it has an empty side neighbour (all empty cells are outside)."""
    building = grid[cell]
    if building == FOUNTAIN or not _empty_neighbours(grid, cell):
        return False
    del grid[cell]
    try:
        return not _unreachable(grid)
    finally:
        grid[cell] = building


def can_swap(grid: Grid, cell: tuple[int, int], building: int) -> bool:
    """Redesign c: `building` may replace the one at `cell` (the same cells stay occupied, so
    no hole can appear; its sides must match and everything stay reachable)."""
    there = grid[cell]
    if there == FOUNTAIN:
        return False
    x, y = cell
    for side in DIRECTIONS:
        dx, dy = STEP[side]
        other = grid.get((x + dx, y + dy))
        if other is not None and bool(WALLS[building] & side) != bool(
            WALLS[other] & OPPOSITE[side]
        ):
            return False
    grid[cell] = building
    try:
        return not _unreachable(grid)
    finally:
        grid[cell] = there


def longest_outer_wall(grid: Grid) -> int:
    """Edges of the longest path of outer wall edges visiting no corner point twice (a closed
    ring counts all its edges). Outer: a wall side facing an empty cell."""
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


def redesign_spots(grid: Grid, building: int) -> list[tuple[int, int]]:
    """Empty cells where the reserve `building` may go, then occupied cells it may swap into."""
    found = spots(grid, building)
    found += [
        cell for cell, _ in sorted(grid.items(), key=by_row) if can_swap(grid, cell, building)
    ]
    return found


def can_redesign(grid: Grid, building: int) -> bool:
    """The reserve `building` has a spot of `redesign_spots` (checked without listing them)."""
    return any(can_place(grid, cell, building) for cell in _frontier(grid)) or any(
        can_swap(grid, cell, building) for cell in grid
    )
