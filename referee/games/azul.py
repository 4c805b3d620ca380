"""Azul (Master Chocolatier edition, which plays like the 2017 original), with the grey-wall and
special-factory variants.

Colours are ids 0..4 (blue, yellow, red, black, white). Pattern line k (0..4) holds k + 1 tiles
and feeds wall row k; the coloured wall has colour (column - row) mod 5 at (row, column).
docs/games/azul.md describes the actions and the observation for bot authors; they are defined
in `azul_messages` (so that this module can be compiled with mypyc) and re-exported here. The
factories, centre and first-player marker are the shared `tiles.Offer`.

The rulings (what the engine does where the rulebook is cut or silent) are numbered in
docs/games/azul.md, "Rulings", the one list of them; the code names each (`ruling N`) where it
applies it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec

from referee.games.azul_messages import (
    Action,
    AzulObservation,
    AzulOptions,
    Decision,
    Place,
    PlayerView,
    Split,
    Take,
)
from referee.games.base import Game, GameResult, IllegalAction, WrongSeats, ranks_from_keys
from referee.games.tiles import CENTRE, Bag, FloorLine, Offer, take_colour, tiles_text

__all__ = [
    "CENTRE",
    "COLOUR_NAMES",
    "FLOOR",
    "FLOOR_LINE",
    "MARKER",
    "POWER_NAMES",
    "Action",
    "Azul",
    "AzulObservation",
    "AzulOptions",
    "AzulState",
    "Decision",
    "Place",
    "PlayerView",
    "Split",
    "Take",
    "complete_rows",
    "end_bonus",
    "tile_points",
    "wall_column",
]

# ---- constants -------------------------------------------------------------------------------

COLOURS = 5
COLOUR_NAMES = ("blue", "yellow", "red", "black", "white")
_LETTERS = "BYRKW"
TILES_PER_COLOUR = 20
FLOOR_LINE = 5
"""The `line` of a take that puts every tile on the floor."""
MARKER = 5
"""The first-player marker as it appears in a floor list (tiles are 0..4)."""
FLOOR = FloorLine((-1, -1, -2, -2, -2, -3, -3))
ROW_BONUS, COLUMN_BONUS, COLOUR_BONUS = 2, 7, 10
"""The end bonuses: a complete row, a complete column, a colour with all 5 tiles on the wall."""
FACTORY_SIZE = 4
MAX_ROUNDS = 100
"""Ruling 8: every game ends after this round at the latest."""
_ALL_COLOURS = (1 << COLOURS) - 1

# Special-factory powers (the gold side of the 9 discs) as kept in `AzulState.powers`; PLAIN is
# the blue side, PULL + colour pulls that colour.
PLAIN, PLUS_ONE, STAY, SPLIT, EXTRA_FLOOR, PULL = 0, 1, 2, 3, 4, 5
_DISCS = (PLUS_ONE, *range(PULL, PULL + COLOURS), STAY, SPLIT, EXTRA_FLOOR)
POWER_NAMES = ("", "+1", "stay", "split", "extra_floor", *(f"pull{c}" for c in range(COLOURS)))

# A player's extra floor disc: not held, held and empty, or holding a tile of colour >= 0.
_NO_DISC, _DISC_EMPTY = -2, -1

_TAKING, _SPLITTING, _PLACING, _OVER = 0, 1, 2, 3
_KINDS = ("take", "split", "place", "over")


def wall_column(row: int, colour: int) -> int:
    """Where `colour` goes in `row` on the coloured (standard) wall."""
    return (colour + row) % COLOURS


# ---- pre-built actions ---------------------------------------------------------------------

# Pre-built actions, so that `legal` allocates one list and nothing else.
_CENTRE_SLOT = 9
_TAKES: list[list[list[tuple[Take, ...]]]] = [
    [
        [
            tuple(
                Take(CENTRE if slot == _CENTRE_SLOT else slot, colour, line)
                for line in range(FLOOR_LINE + 1)
                if line == FLOOR_LINE or mask >> line & 1
            )
            for mask in range(1 << 5)
        ]
        for colour in range(COLOURS)
    ]
    for slot in range(_CENTRE_SLOT + 1)
]
"""_TAKES[source slot][colour][mask of open lines]: the takes, by line, floor last."""
_PLACES = [[Place(row, column) for column in range(5)] for row in range(5)]


def _colours_in(mask: int) -> tuple[int, ...]:
    return tuple(c for c in range(COLOURS) if mask >> c & 1)


_SPLITS = [
    tuple(
        Split(_colours_in(left), _colours_in(present & ~left))
        for left in range(1 << COLOURS)
        if left & ~present == 0
    )
    for present in range(1 << COLOURS)
]
"""_SPLITS[mask of leftover colours]: every split of them."""
_SEATS = [(seat,) for seat in range(4)]


# ---- state -----------------------------------------------------------------------------------


class AzulState:
    """A whole game, in plain lists and ints, mutated in place by `Azul.apply`.

    Per-player fields are lists indexed by seat. `wall[seat]` is 25 cells (row * 5 + column),
    each a colour or -1. `row_colours`, `column_colours` and `open_lines` are derived from the
    walls and pattern lines, and `table` from the factories and centre, all kept up to date for
    speed; after editing a state by hand call `sync()`. Every random event of a round (the discs,
    the draws) comes from `random.Random` seeded with `seed` and the round number, so a state needs
    no RNG object (cloning stays cheap) and a search bot can re-seed a clone to sample another
    future.
    """

    __slots__ = (
        "bag",
        "column_colours",
        "disc_factory",
        "extra",
        "floor",
        "grey",
        "line_colour",
        "line_count",
        "offer",
        "open_lines",
        "phase",
        "players",
        "powers",
        "round",
        "row_colours",
        "score",
        "seed",
        "special",
        "split_factory",
        "start",
        "tiling_row",
        "tiling_seat",
        "turn",
        "wall",
    )

    def __init__(
        self, players: int = 0, seed: int = 0, grey: bool = False, special: bool = False
    ) -> None:
        """A game set up for `players` seats; with none, a blank that `copy` fills in (compiled
        with mypyc, a class cannot be created by `__new__` alone)."""
        if not players:
            return
        factories = 2 * players + 1
        self.players = players
        self.seed = seed
        self.grey = grey
        self.special = special
        self.round = 0
        self.bag = Bag([TILES_PER_COLOUR] * COLOURS)
        self.offer = Offer(factories, COLOURS)
        self.powers = [PLAIN] * factories
        """This round's power per factory (PLAIN, PLUS_ONE, ..., PULL + colour)."""
        self.disc_factory = -1
        """The factory whose extra-floor disc a player took this round (it left the circle)."""
        self.start = 0  # ruling 1: round 1 starts with seat 0
        self.turn = 0
        """The seat to decide now (-1 once the game is over)."""
        self.phase = _TAKING
        self.split_factory = -1
        self.tiling_seat = 0
        self.tiling_row = 0
        self.line_colour = [[-1] * 5 for _ in range(players)]
        self.line_count = [[0] * 5 for _ in range(players)]
        self.wall = [[-1] * 25 for _ in range(players)]
        self.floor: list[list[int]] = [[] for _ in range(players)]
        self.extra = [_NO_DISC] * players
        """Extra floor disc per seat: -2 not held, -1 held and empty, else its tile's colour."""
        self.score = [0] * players
        self.row_colours = [[0] * 5 for _ in range(players)]
        self.column_colours = [[0] * 5 for _ in range(players)]
        self.open_lines = [[0] * COLOURS for _ in range(players)]
        """open_lines[seat][colour]: bit k set if pattern line k may take that colour now."""
        self.sync()

    def sync(self) -> None:
        """Recompute the derived fields from the walls, pattern lines, factories and centre."""
        self.offer.recount()
        for seat in range(self.players):
            cells = self.wall[seat]
            rows = self.row_colours[seat]
            columns = self.column_colours[seat]
            for index in range(5):
                rows[index] = columns[index] = 0
            for index, colour in enumerate(cells):
                if colour >= 0:
                    rows[index // 5] |= 1 << colour
                    columns[index % 5] |= 1 << colour
            _open_lines(self, seat)

    def copy(self) -> AzulState:
        new = AzulState()
        new.players = self.players
        new.seed = self.seed
        new.grey = self.grey
        new.special = self.special
        new.round = self.round
        new.bag = self.bag.copy()
        new.offer = self.offer.copy()
        new.powers = self.powers[:]
        new.disc_factory = self.disc_factory
        new.start = self.start
        new.turn = self.turn
        new.phase = self.phase
        new.split_factory = self.split_factory
        new.tiling_seat = self.tiling_seat
        new.tiling_row = self.tiling_row
        new.line_colour = [line[:] for line in self.line_colour]
        new.line_count = [line[:] for line in self.line_count]
        new.wall = [cells[:] for cells in self.wall]
        new.floor = [floor[:] for floor in self.floor]
        new.extra = self.extra[:]
        new.score = self.score[:]
        new.row_colours = [rows[:] for rows in self.row_colours]
        new.column_colours = [columns[:] for columns in self.column_colours]
        new.open_lines = [lines[:] for lines in self.open_lines]
        return new


def _open_lines(state: AzulState, seat: int) -> None:
    """Recompute which pattern lines may take each colour (one colour per line, not a colour
    already in the wall row, on the grey wall too: ruling 10; not a complete line: ruling 5).
    Whether the grey wall still has a space for the colour is not asked (ruling 11)."""
    colours = state.line_colour[seat]
    counts = state.line_count[seat]
    rows = state.row_colours[seat]
    open_lines = [0] * COLOURS
    for line in range(5):
        count = counts[line]
        if count == 0:
            for colour in range(COLOURS):
                if not rows[line] >> colour & 1:
                    open_lines[colour] |= 1 << line
        elif count <= line:
            open_lines[colours[line]] |= 1 << line
    state.open_lines[seat] = open_lines


def tile_points(cells: list[int], row: int, column: int) -> int:
    """Points for the tile just placed at (row, column): its horizontal run if 2 or more, plus
    its vertical run if 2 or more; a tile touching nothing scores 1."""
    base = row * 5
    across = 1
    k = column - 1
    while k >= 0 and cells[base + k] >= 0:
        across += 1
        k -= 1
    k = column + 1
    while k < 5 and cells[base + k] >= 0:
        across += 1
        k += 1
    down = 1
    k = row - 1
    while k >= 0 and cells[k * 5 + column] >= 0:
        down += 1
        k -= 1
    k = row + 1
    while k < 5 and cells[k * 5 + column] >= 0:
        down += 1
        k += 1
    if across == 1 and down == 1:
        return 1
    return (across if across > 1 else 0) + (down if down > 1 else 0)


def complete_rows(state: AzulState, seat: int) -> int:
    return sum(1 for mask in state.row_colours[seat] if mask == _ALL_COLOURS)


def end_bonus(state: AzulState, seat: int) -> int:
    """+2 per complete row, +7 per complete column, +10 per colour with all 5 tiles placed."""
    cells = state.wall[seat]
    columns = sum(1 for mask in state.column_colours[seat] if mask == _ALL_COLOURS)
    colours = sum(1 for colour in range(COLOURS) if cells.count(colour) == 5)
    return ROW_BONUS * complete_rows(state, seat) + COLUMN_BONUS * columns + COLOUR_BONUS * colours


def _tile_counts(state: AzulState) -> list[int]:
    """Tiles per colour over every place a tile can be (20 each, always)."""
    counts = [bag + lid for bag, lid in zip(state.bag.tiles, state.bag.lid, strict=True)]
    for group in [*state.offer.factories, state.offer.centre]:
        for colour, count in enumerate(group):
            counts[colour] += count
    for seat in range(state.players):
        for colour, count in zip(state.line_colour[seat], state.line_count[seat], strict=True):
            if count:
                counts[colour] += count
        for token in [*state.wall[seat], *state.floor[seat], state.extra[seat]]:
            if 0 <= token < COLOURS:
                counts[token] += 1
    return counts


def _neighbours(state: AzulState, factory: int) -> tuple[int, int]:
    """The factories left (index - 1) and right (index + 1) of `factory` in the circle,
    skipping a taken disc (ruling 15)."""
    count = len(state.offer.factories)
    left = (factory - 1) % count
    if left == state.disc_factory:
        left = (left - 1) % count
    right = (factory + 1) % count
    if right == state.disc_factory:
        right = (right + 1) % count
    return left, right


def _free_columns(state: AzulState, seat: int, row: int, colour: int) -> list[int]:
    """Grey wall: the empty spaces of `row` whose column does not hold `colour` yet."""
    cells = state.wall[seat]
    columns = state.column_colours[seat]
    return [
        column
        for column in range(5)
        if cells[row * 5 + column] < 0 and not columns[column] >> colour & 1
    ]


def _can_complete(state: AzulState, seat: int, row: int) -> bool:
    """Grey wall: can the missing colours of `row` still each find a free space of their own
    (a free space whose column does not hold that colour yet)?"""
    cells = state.wall[seat]
    columns = state.column_colours[seat]
    present = state.row_colours[seat][row]
    missing = [colour for colour in range(COLOURS) if not present >> colour & 1]
    free = [column for column in range(5) if cells[row * 5 + column] < 0]

    def assign(index: int, used: int) -> bool:
        if index == len(missing):
            return True
        colour = missing[index]
        return any(
            not used >> column & 1
            and not columns[column] >> colour & 1
            and assign(index + 1, used | 1 << column)
            for column in free
        )

    return assign(0, 0)


# ---- the game --------------------------------------------------------------------------------


class Azul(Game[AzulState, Action, AzulObservation]):
    id: ClassVar[str] = "azul"
    title: ClassVar[str] = "Azul"
    version: ClassVar[int] = 1
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    Options: ClassVar[type[msgspec.Struct]] = AzulOptions
    Action: ClassVar[Any] = Action
    Observation: ClassVar[type[msgspec.Struct]] = AzulObservation

    def setup(self, players: int, seed: int, options: AzulOptions) -> AzulState:
        state = AzulState(players, seed, options.variant == "grey", options.special_factories)
        _prepare_round(state)
        return state

    def to_act(self, state: AzulState) -> tuple[int, ...]:
        return () if state.phase == _OVER else _SEATS[state.turn]

    def legal(self, state: AzulState, seat: int) -> list[Action]:
        if seat != state.turn or state.phase == _OVER:
            return []
        if state.phase == _TAKING:
            open_lines = state.open_lines[seat]
            actions: list[Action] = []
            for slot, group in enumerate(state.offer.factories):
                if any(group):  # most factories are empty for most of a round
                    takes = _TAKES[slot]
                    for colour, count in enumerate(group):
                        if count:
                            actions += takes[colour][open_lines[colour]]
            takes = _TAKES[_CENTRE_SLOT]
            for colour, count in enumerate(state.offer.centre):
                if count:
                    actions += takes[colour][open_lines[colour]]
            return actions
        if state.phase == _SPLITTING:
            group = state.offer.factories[state.split_factory]
            return list(_SPLITS[sum(1 << c for c in range(COLOURS) if group[c])])
        row = state.tiling_row
        colour = state.line_colour[seat][row]
        return [_PLACES[row][column] for column in _free_columns(state, seat, row, colour)]

    def apply(self, state: AzulState, actions: Mapping[int, Action]) -> None:
        if state.phase == _OVER:
            raise IllegalAction("the game is over")
        seat = state.turn
        action = actions.get(seat)
        if action is None or len(actions) != 1:
            raise WrongSeats((seat,), actions)
        kind = type(action)
        if state.phase == _TAKING:
            if kind is not Take:
                raise IllegalAction("a take is expected now", repr(action))
            _take(state, seat, action)
        elif state.phase == _SPLITTING:
            if kind is not Split:
                raise IllegalAction("the split factory's leftovers must be split now", repr(action))
            _split(state, action)
        else:
            if kind is not Place:
                raise IllegalAction("a wall space must be chosen now", repr(action))
            _place(state, seat, action)

    def observe(self, state: AzulState, seat: int) -> AzulObservation:
        offer, bag = state.offer, state.bag
        return AzulObservation(
            seat=seat,
            round=state.round,
            variant="grey" if state.grey else "standard",
            special_factories=state.special,
            decision=_decision(state),
            start_player=state.start,
            marker=offer.marker,
            factories=[group[:] for group in offer.factories],
            powers=[POWER_NAMES[power] for power in state.powers],
            centre=offer.centre[:],
            bag=bag.tiles[:],
            lid=bag.lid[:],
            players=[_player_view(state, p) for p in range(state.players)],
        )

    def spectate(self, state: AzulState) -> AzulObservation:
        return self.observe(state, -1)

    def determinize(self, state: AzulState, seat: int, rng: random.Random) -> AzulState:
        """Everything but the future draws is public, and the seed alone decides them."""
        twin = state.copy()
        twin.seed = rng.getrandbits(63)
        return twin

    def from_observation(self, observation: AzulObservation, rng: random.Random) -> AzulState:
        """Everything but the future draws is public: only the seed is dealt from `rng`."""
        return _state_from(observation, rng.getrandbits(63))

    def scores(self, state: AzulState) -> list[int]:
        return state.score[:]

    def result(self, state: AzulState) -> GameResult | None:
        """Ruling 9: ranks by score, then complete wall rows; still tied, a shared rank."""
        if state.phase != _OVER:
            return None
        scores = state.score[:]
        keys = [(scores[p], complete_rows(state, p)) for p in range(state.players)]
        ranks = ranks_from_keys(keys)
        tiebreak = ""
        if len(set(scores)) < len(scores):
            tiebreak = "most complete wall rows"
            if len(set(keys)) < len(keys):
                tiebreak += "; still tied: shared rank"
        return GameResult(scores=scores, ranks=ranks, tiebreak=tiebreak)

    def clone(self, state: AzulState) -> AzulState:
        return state.copy()

    def broken_invariants(self, state: AzulState) -> list[str]:
        problems = []
        counts = _tile_counts(state)
        if counts != [TILES_PER_COLOUR] * COLOURS:
            problems.append(f"tiles per colour are {counts}, not {TILES_PER_COLOUR} each")
        if any(score < 0 for score in state.score):
            problems.append(f"a negative score: {state.score}")
        holders = [seat for seat in range(state.players) if MARKER in state.floor[seat]]
        if holders not in ([], [state.offer.marker]):
            problems.append(f"marker on floors {holders}, held by {state.offer.marker}")
        fresh = state.copy()
        fresh.sync()
        derived: tuple[str, ...] = ("row_colours", "column_colours")
        if state.phase == _TAKING:  # open lines are brought up to date when a seat's tiling ends
            derived += ("open_lines",)
        stale = [name for name in derived if getattr(fresh, name) != getattr(state, name)]
        if fresh.offer.table != state.offer.table:
            stale.append("offer.table")
        if stale:
            problems.append(f"derived fields out of date: {stale}")
        return problems

    def render(self, state: AzulState) -> str:
        return _render(state)


# ---- rules -----------------------------------------------------------------------------------


def _prepare_round(state: AzulState) -> None:
    """Phase C: the discs for the round (special factories), then the deal."""
    state.round += 1
    rng = random.Random(f"azul:{state.seed}:{state.round}")
    if state.special:
        count = len(state.offer.factories)
        discs = list(_DISCS)
        rng.shuffle(discs)
        gold = set(rng.sample(range(count), state.players))
        state.powers = [discs[i] if i in gold else PLAIN for i in range(count)]
    _deal(state, rng)
    if state.offer.table == 0:  # ruling 7: no tile at all, no turn could ever be played
        _finish(state)
        return
    state.phase = _TAKING
    state.turn = state.start


def _deal(state: AzulState, rng: random.Random) -> None:
    """Fill the factories, then the gold powers that act on filling (ruling 14): "+1" first,
    then each "pull X" in circle order from factory 0, on the tiles as they are at that moment."""
    offer = state.offer
    offer.fill(state.bag, FACTORY_SIZE, rng)  # ruling 6: in order, the last ones may be short
    factories = offer.factories
    powers = state.powers
    if PLUS_ONE in powers:
        offer.table += state.bag.draw_into(factories[powers.index(PLUS_ONE)], 1, rng)
    count = len(factories)
    for index, power in enumerate(powers):
        if power >= PULL:
            colour = power - PULL
            for neighbour in ((index - 1) % count, (index + 1) % count):
                if factories[neighbour][colour]:
                    factories[neighbour][colour] -= 1
                    factories[index][colour] += 1


def _line_error(state: AzulState, seat: int, colour: int, line: int) -> IllegalAction:
    """Why pattern line `line` cannot take `colour` (called only once it is known it cannot)."""
    where = f"line {line}, colour {colour}"
    count = state.line_count[seat][line]
    if count > line:  # ruling 5
        return IllegalAction("a complete pattern line takes no more tiles", where)
    if count and state.line_colour[seat][line] != colour:
        return IllegalAction("a pattern line may hold only one colour", where)
    return IllegalAction("that colour is already on the wall in this row", where)


def _check_take(state: AzulState, seat: int, action: Take) -> None:
    """Raise IllegalAction, naming the rule, unless `seat` may make this take now."""
    source, colour, line = action.source, action.colour, action.line
    if not 0 <= colour < COLOURS:
        raise IllegalAction("colours are 0..4", f"colour {colour}")
    # Raises unless the source holds the colour: ruling 4, the marker alone is not a take.
    state.offer.holding(source, colour)
    if line != FLOOR_LINE:
        if not 0 <= line < FLOOR_LINE:
            raise IllegalAction(
                "no such line", f"line {line}: pattern lines are 0..4, 5 is the floor"
            )
        if not state.open_lines[seat][colour] >> line & 1:
            raise _line_error(state, seat, colour, line)


def _take(state: AzulState, seat: int, action: Take) -> None:
    _check_take(state, seat, action)
    source, colour, line = action.source, action.colour, action.line
    count, first = state.offer.take(source, colour, seat)
    if first:
        # Ruling 2: the marker is taken even onto a full floor, without a further penalty.
        floor = state.floor[seat]
        if len(floor) < FLOOR.capacity:
            floor.append(MARKER)
    elif source != CENTRE:
        _leftovers(state, seat, source)
    _fill_line(state, seat, colour, line, count)
    if state.phase == _TAKING:
        _next_turn(state)


def _leftovers(state: AzulState, seat: int, source: int) -> None:
    """A factory's leftovers go to the centre, unless its gold power says otherwise."""
    power = state.powers[source]
    if power == SPLIT:
        if any(state.offer.factories[source]):  # ruling 15: asked only when tiles remain
            state.phase = _SPLITTING
            state.split_factory = source
    elif power != STAY:
        state.offer.to_centre(source)
        if power == EXTRA_FLOOR:
            state.extra[seat] = _DISC_EMPTY
            state.disc_factory = source


def _fill_line(state: AzulState, seat: int, colour: int, line: int, count: int) -> None:
    """`count` taken tiles onto pattern line `line` (the floor when 5); the excess to the floor."""
    if line != FLOOR_LINE:
        counts = state.line_count[seat]
        before = counts[line]
        room = line + 1 - before
        placed = count if count < room else room
        counts[line] = before + placed
        count -= placed
        state.line_colour[seat][line] = colour
        if before == 0 or placed == room:
            # The line now takes only this colour, or nothing once complete.
            shut = ~(1 << line)
            open_lines = state.open_lines[seat]
            for other in range(COLOURS):
                if other != colour or placed == room:
                    open_lines[other] &= shut
    if count:
        _drop(state, seat, colour, count)


def _drop(state: AzulState, seat: int, colour: int, count: int) -> None:
    """Tiles to the floor: the empty extra floor disc first (also at wall-tiling: ruling 16),
    then the floor, then the lid."""
    if state.extra[seat] == _DISC_EMPTY:
        state.extra[seat] = colour
        count -= 1
    FLOOR.drop(state.floor[seat], colour, count, state.bag)


def _split(state: AzulState, action: Split) -> None:
    group = state.offer.factories[state.split_factory]
    left, right = set(action.left), set(action.right)
    leftovers = {c for c in range(COLOURS) if group[c]}
    if len(left) != len(action.left) or len(right) != len(action.right) or left & right:
        raise IllegalAction("all tiles of one colour go to the same neighbour", repr(action))
    if left | right != leftovers:
        raise IllegalAction(
            "a split sends every leftover colour to a neighbour",
            f"the leftover colours are {sorted(leftovers)}",
        )
    left_factory, right_factory = _neighbours(state, state.split_factory)
    for colours, target in (
        (left, state.offer.factories[left_factory]),
        (right, state.offer.factories[right_factory]),
    ):
        for colour in colours:
            target[colour] += take_colour(group, colour)
    state.phase = _TAKING
    state.split_factory = -1
    _next_turn(state)


def _next_turn(state: AzulState) -> None:
    if state.offer.table:
        state.turn = (state.turn + 1) % state.players  # ruling 1: up the seats, wrapping round
    else:
        state.tiling_seat = state.tiling_row = 0
        _tile_walls(state)


def _place(state: AzulState, seat: int, action: Place) -> None:
    row, column = action.row, action.column
    if row != state.tiling_row:
        raise IllegalAction(
            "wall-tiling goes top to bottom", f"line {state.tiling_row} is next, not {row}"
        )
    if not 0 <= column < 5:
        raise IllegalAction("no such column", f"column {column}: columns are 0..4")
    if state.wall[seat][row * 5 + column] >= 0:
        raise IllegalAction("that wall space is taken", f"row {row}, column {column}")
    colour = state.line_colour[seat][row]
    if state.column_colours[seat][column] >> colour & 1:
        raise IllegalAction(
            "a wall column may not hold a colour twice", f"column {column}, colour {colour}"
        )
    _put_on_wall(state, seat, row, column)
    state.tiling_row += 1
    _tile_walls(state)


def _put_on_wall(state: AzulState, seat: int, row: int, column: int) -> None:
    """Move the tile of complete line `row` to the wall and score it; the rest to the lid."""
    colour = state.line_colour[seat][row]
    cells = state.wall[seat]
    cells[row * 5 + column] = colour
    state.row_colours[seat][row] |= 1 << colour
    state.column_colours[seat][column] |= 1 << colour
    state.score[seat] += tile_points(cells, row, column)
    state.bag.discard(colour, row)
    state.line_count[seat][row] = 0
    state.line_colour[seat][row] = -1


def _tile_walls(state: AzulState) -> None:
    """Phase B, resumable: stops at a grey-wall choice (phase "place") and goes on after it.

    Ruling 12: seat after seat from seat 0, each top to bottom; a single legal space is taken
    without asking."""
    while state.tiling_seat < state.players:
        seat = state.tiling_seat
        counts = state.line_count[seat]
        while state.tiling_row < 5:
            row = state.tiling_row
            if counts[row] == row + 1:
                colour = state.line_colour[seat][row]
                if not state.grey:
                    _put_on_wall(state, seat, row, wall_column(row, colour))
                else:
                    columns = _free_columns(state, seat, row, colour)
                    if len(columns) > 1:
                        state.phase = _PLACING
                        state.turn = seat
                        return
                    if columns:
                        _put_on_wall(state, seat, row, columns[0])
                    else:  # ruling 11: no legal space, the line's tiles go to the floor
                        state.line_count[seat][row] = 0
                        state.line_colour[seat][row] = -1
                        _drop(state, seat, colour, row + 1)
            state.tiling_row += 1
        _score_floor(state, seat)
        _open_lines(state, seat)
        state.tiling_seat += 1
        state.tiling_row = 0
    seats = range(state.players)
    if (  # a complete row; ruling 8: the round limit; ruling 13: grey rows that cannot complete
        any(complete_rows(state, seat) for seat in seats)
        or state.round >= MAX_ROUNDS
        or (
            state.grey
            and not any(_can_complete(state, seat, row) for seat in seats for row in range(5))
        )
    ):
        _finish(state)
        return
    if state.offer.marker >= 0:  # ruling 3: else the same player starts again
        state.start = state.offer.marker
    _prepare_round(state)


def _score_floor(state: AzulState, seat: int) -> None:
    """Floor penalties (the score stays >= 0); floor tiles and the extra disc's tile to the lid."""
    floor = state.floor[seat]
    state.score[seat] = max(0, state.score[seat] + FLOOR.penalty(len(floor)))
    for token in floor:
        if token != MARKER:
            state.bag.discard(token)
    floor.clear()
    if state.extra[seat] >= 0:
        state.bag.discard(state.extra[seat])
    if state.extra[seat] != _NO_DISC:
        state.disc_factory = -1  # the extra floor disc is back in the circle
    state.extra[seat] = _NO_DISC  # ruling 16: held until the seat's wall-tiling is done


def _finish(state: AzulState) -> None:
    for seat in range(state.players):
        state.score[seat] += end_bonus(state, seat)
    state.phase = _OVER
    state.turn = -1


# ---- observation and rendering ---------------------------------------------------------------


def _decision(state: AzulState) -> Decision:
    phase = state.phase
    kind = _KINDS[phase]
    if phase == _PLACING:
        row = state.tiling_row
        return Decision(kind, state.turn, row=row, colour=state.line_colour[state.turn][row])
    if phase == _SPLITTING:
        left, right = _neighbours(state, state.split_factory)
        return Decision(kind, state.turn, factory=state.split_factory, left=left, right=right)
    return Decision(kind, state.turn)


def _player_view(state: AzulState, seat: int) -> PlayerView:
    colours = state.line_colour[seat]
    counts = state.line_count[seat]
    cells = state.wall[seat]
    extra = state.extra[seat]
    # Written out rather than as comprehensions: one observation per decision of every match.
    return PlayerView(
        score=state.score[seat],
        lines=[
            [colours[0]] * counts[0],
            [colours[1]] * counts[1],
            [colours[2]] * counts[2],
            [colours[3]] * counts[3],
            [colours[4]] * counts[4],
        ],
        wall=[cells[0:5], cells[5:10], cells[10:15], cells[15:20], cells[20:25]],
        floor=state.floor[seat][:],
        extra_floor=None if extra == _NO_DISC else [] if extra == _DISC_EMPTY else [extra],
    )


def _state_from(observation: AzulObservation, seed: int) -> AzulState:
    """The state `observation` shows, drawing its future from `seed` (see `from_observation`)."""
    players = len(observation.players)
    state = AzulState(players, seed, observation.variant == "grey", observation.special_factories)
    decision = observation.decision
    state.round = observation.round
    state.bag.tiles = observation.bag[:]
    state.bag.lid = observation.lid[:]
    state.offer.restore(observation.factories, observation.centre, observation.marker)
    state.powers = [POWER_NAMES.index(name) for name in observation.powers]
    state.start = observation.start_player
    state.phase = _KINDS.index(decision.kind)
    state.turn = decision.seat
    state.split_factory = decision.factory
    if state.phase == _PLACING:
        state.tiling_seat, state.tiling_row = decision.seat, decision.row
    for seat, view in enumerate(observation.players):
        state.score[seat] = view.score
        for line, tiles in enumerate(view.lines):
            state.line_count[seat][line] = len(tiles)
            state.line_colour[seat][line] = tiles[0] if tiles else -1
        state.wall[seat] = [colour for row in view.wall for colour in row]
        state.floor[seat] = view.floor[:]
        extra = view.extra_floor
        state.extra[seat] = _NO_DISC if extra is None else extra[0] if extra else _DISC_EMPTY
    # The extra floor disc leaves the circle while someone holds it (split neighbours skip it).
    if EXTRA_FLOOR in state.powers and any(extra != _NO_DISC for extra in state.extra):
        state.disc_factory = state.powers.index(EXTRA_FLOOR)
    state.sync()
    return state


def _render(state: AzulState) -> str:
    decision = _decision(state)
    variant = "grey wall" if state.grey else "standard"
    if state.special:
        variant += ", special factories"
    head = f"Azul ({variant}) round {state.round}: "
    head += "game over" if state.phase == _OVER else f"seat {state.turn} to {decision.kind}"
    if state.phase == _PLACING:
        head += f" (line {decision.row}, {COLOUR_NAMES[decision.colour]})"
    elif state.phase == _SPLITTING:
        head += f" (factory {decision.factory} to {decision.left}/{decision.right})"
    out = [
        head,
        "colours: " + " ".join(f"{_LETTERS[c]}={name}" for c, name in enumerate(COLOUR_NAMES)),
    ]
    factories = []
    for index, group in enumerate(state.offer.factories):
        power = POWER_NAMES[state.powers[index]]
        label = f"{index}{'(' + power + ')' if power else ''}"
        factories.append(
            f"{label}: {'taken' if index == state.disc_factory else tiles_text(group, _LETTERS)}"
        )
    out.append("factories  " + " | ".join(factories))
    marker = "marker " if state.offer.marker < 0 and state.phase != _OVER else ""
    out.append(f"centre     {marker}{tiles_text(state.offer.centre, _LETTERS)}")
    out.append(
        f"bag {sum(state.bag.tiles)} ({tiles_text(state.bag.tiles, _LETTERS)}), "
        f"lid {sum(state.bag.lid)} ({tiles_text(state.bag.lid, _LETTERS)})"
    )
    for seat in range(state.players):
        flags = " start player" if seat == state.start else ""
        if state.offer.marker == seat:
            flags += ", has the marker"
        out.append(f"seat {seat}: score {state.score[seat]}{flags}")
        cells = state.wall[seat]
        for row in range(5):
            count = state.line_count[seat][row]
            tile = _LETTERS[state.line_colour[seat][row]] if count else ""
            line = "." * (row + 1 - count) + tile * count
            wall = " ".join(
                _LETTERS[cells[row * 5 + column]]
                if cells[row * 5 + column] >= 0
                else "."
                if state.grey
                else _LETTERS[(column - row) % 5].lower()
                for column in range(5)
            )
            out.append(f"  {line:>5} | {wall}")
        floor = " ".join("M" if token == MARKER else _LETTERS[token] for token in state.floor[seat])
        penalty = FLOOR.penalty(len(state.floor[seat]))
        extra = state.extra[seat]
        disc = (
            ""
            if extra == _NO_DISC
            else f"  extra disc: {_LETTERS[extra] if extra >= 0 else 'empty'}"
        )
        out.append(f"  floor: {floor or '-'} ({penalty}){disc}")
    return "\n".join(out)
