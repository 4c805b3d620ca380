"""Azul: Summer Pavilion, with the grey side of the boards as the "grey" variant.

Colours are ids 0..5 (purple, green, orange, yellow, blue, red), also the order of the wild
colours: round k's wild colour is k - 1. The board (stars, costs, pillars, statues, windows) is
data in `summer_pavilion_board`; star s (0..5) is the outer star whose coloured side is colour s,
star 6 the centre star. The factories, centre and first-player marker are the shared
`tiles.Offer` (taking with one wild), the bag and the tower are `tiles.Bag` (the tower is its
lid). docs/games/summer-pavilion.md describes the actions and the observation for bot authors;
they are defined in `summer_pavilion_messages` and re-exported here.

The rulings (what the engine does where the rulebook leaves a choice) are numbered in
docs/games/summer-pavilion.md, "Rulings", the one list of them; the code names each
(`ruling N`) where it applies it.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec

from referee.games.base import Game, GameResult, IllegalAction, WrongSeats, ranks_from_keys
from referee.games.summer_pavilion_board import (
    CELLS,
    CENTRE_STAR,
    COLOUR_NAMES,
    COLOURS,
    COSTS,
    FEATURES,
    FEATURES_OF,
    MULTI_STAR_VALUE,
    NUMBER_BONUS,
    RING,
    STAR_VALUE,
    STARS,
)
from referee.games.summer_pavilion_messages import (
    Action,
    Bonus,
    Decision,
    Pass,
    Pay,
    Place,
    PlayerView,
    SummerPavilionObservation,
    SummerPavilionOptions,
    Take,
)
from referee.games.tiles import CENTRE, Bag, Offer, tiles_text

__all__ = [
    "Action",
    "Bonus",
    "Decision",
    "Pass",
    "Pay",
    "Place",
    "PlayerView",
    "SummerPavilion",
    "SummerPavilionObservation",
    "SummerPavilionOptions",
    "SummerPavilionState",
    "Take",
    "deduct",
    "end_bonus",
    "run_length",
]

# ---- constants -------------------------------------------------------------------------------

TILES_PER_COLOUR = 22
FACTORY_SIZE = 4
SUPPLY_SIZE = 10
STORAGE = 4
START_SCORE = 5
"""Ruling 1: every score starts here."""
ROUNDS = 6
_LETTERS = "PGOYBR"

_TAKING, _PLACING, _PAYING, _BONUS, _OVER = 0, 1, 2, 3, 4
_KINDS = ("take", "place", "pay", "bonus", "over")
_SEATS = [(seat,) for seat in range(4)]

# Pre-built actions, so that `legal` allocates the list and nothing else: those of a set of
# colours (a bit mask) are one tuple, so a source's takes or a space's placements are one extend.


def _by_mask(actions: list[Action]) -> list[tuple[Action, ...]]:
    """`actions` (one per colour) by every set of colours as a bit mask: those of the set, in
    colour order."""
    rows: list[tuple[Action, ...]] = [()]
    for action in actions:
        rows += [(*row, action) for row in rows]
    return rows


_TAKES = [
    _by_mask([Take(source, colour) for colour in range(COLOURS)]) for source in range(CENTRE, 9)
]
"""_TAKES[source + 1][colours]: the takes from `source` of those colours (a mask)."""
_PLACES = [
    _by_mask([Place(space // 6, space % 6 + 1, colour) for colour in range(COLOURS)])
    for space in range(CELLS)
]
"""_PLACES[cell][colours]: the placements on `cell` of those colours (a mask)."""
_STAR_SPACES = {
    grey: [
        tuple((space, costs[space], _PLACES[space]) for space in range(star * 6, star * 6 + 6))
        for star in range(STARS)
    ]
    for grey, costs in COSTS.items()
}
"""_STAR_SPACES[grey][star]: the star's cells, each with its cost and `_PLACES` row."""
_PAYS = [Pay(wilds) for wilds in range(7)]
_BONUSES = [Bonus(colour) for colour in range(COLOURS)]
_TOP_COST = max(max(costs) for costs in COSTS.values())
"""The dearest space of either side: 6."""


def _keep_counts(keep: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(keep.count(colour) for colour in range(COLOURS))


_BITS = tuple(1 << colour for colour in range(COLOURS))


def _colours_of(counts: list[int] | tuple[int, ...]) -> int:
    """The colours (a bit mask) `counts` holds at least one tile of."""
    return sum(itertools.compress(_BITS, counts))


_FIELD_BITS = 4
_GUARDS = sum(8 << _FIELD_BITS * colour for colour in range(COLOURS))
"""Counts of at most 4 per colour packed in an int, a field of 4 bits each (see `_packed`):
each field's bit 3 set, a guard that a subtraction borrows exactly when it goes below 0."""


def _packed(counts: tuple[int, ...]) -> int:
    return sum(count << _FIELD_BITS * colour for colour, count in enumerate(counts))


_KEPT = {
    keep: _keep_counts(keep)
    for size in range(STORAGE + 1)
    for keep in itertools.combinations_with_replacement(range(COLOURS), size)
}
"""Every keep as `legal` spells it (a sorted tuple) with its tiles per colour: 210, the multisets
of at most 4 of 6 colours, by size, then in order (the order `legal` lists them in)."""
_KEEPS = [(_packed(counts), _colours_of(counts), Pass(keep)) for keep, counts in _KEPT.items()]
_KEEPS_WITHIN = [
    [(packed, action) for packed, colours, action in _KEEPS if not colours & ~held]
    for held in range(1 << COLOURS)
]
"""_KEEPS_WITHIN[colours]: the passes (in order, counts packed) keeping only those colours (a
mask): all a hand of those colours may allow, 35 of the 210 for three colours."""
_PASSES: dict[tuple[int, ...], tuple[Action, ...]] = {}
"""`_legal_passes` by the hand's counts capped at 4: at most 5^6 entries (14 MB with all)."""


# ---- state -----------------------------------------------------------------------------------


class SummerPavilionState:
    """A whole game, in plain lists and ints, mutated in place by `SummerPavilion.apply`.

    Per-player fields are lists indexed by seat; `board[seat]` is 42 cells (see the board
    module), each a colour or -1; `hand` and `storage` count tiles per colour. `draws` numbers
    the random draws so far: each draws from `random.Random` seeded with `seed` and that number,
    so a state needs no RNG object and a search bot can re-seed a clone to sample another future.
    """

    __slots__ = (
        "bag",
        "board",
        "draws",
        "grey",
        "hand",
        "offer",
        "owed",
        "passed",
        "pending",
        "phase",
        "players",
        "round",
        "score",
        "seed",
        "start",
        "storage",
        "supply",
        "turn",
    )

    def __init__(self, players: int = 0, seed: int = 0, grey: bool = False) -> None:
        """A game set up for `players` seats (before any draw); with none, a blank that `copy`
        fills in (compiled with mypyc, a class cannot be created by `__new__` alone)."""
        if not players:
            return
        self.players = players
        self.seed = seed
        self.grey = grey
        self.draws = 0
        self.round = 0
        self.bag = Bag([TILES_PER_COLOUR] * COLOURS)
        self.offer = Offer(2 * players + 1, COLOURS)
        self.supply = [0] * COLOURS
        self.hand = [[0] * COLOURS for _ in range(players)]
        self.storage = [[0] * COLOURS for _ in range(players)]
        self.board = [[-1] * CELLS for _ in range(players)]
        self.score = [START_SCORE] * players
        self.passed = [False] * players
        self.phase = _TAKING
        self.start = 0
        self.turn = 0
        """The seat to decide now (-1 once the game is over)."""
        self.pending = (-1, -1)
        """Phase "pay": the cell and colour of the placement being paid for."""
        self.owed = 0
        """Phase "bonus": the bonus tiles still owed."""

    def copy(self) -> SummerPavilionState:
        new = SummerPavilionState()
        new.players = self.players
        new.seed = self.seed
        new.grey = self.grey
        new.draws = self.draws
        new.round = self.round
        new.bag = self.bag.copy()
        new.offer = self.offer.copy()
        new.supply = self.supply[:]
        new.hand = [counts[:] for counts in self.hand]
        new.storage = [counts[:] for counts in self.storage]
        new.board = [cells[:] for cells in self.board]
        new.score = self.score[:]
        new.passed = self.passed[:]
        new.phase = self.phase
        new.start = self.start
        new.turn = self.turn
        new.pending = self.pending
        new.owed = self.owed
        return new

    @property
    def wild(self) -> int:
        """This round's wild colour."""
        return self.round - 1


# ---- pure rules ------------------------------------------------------------------------------


def deduct(score: int, points: int) -> int:
    """A deduction: never below 1, and a score at 1 or below is not reduced (ruling 1)."""
    return score if score <= 1 else max(1, score - points)


def run_length(cells: list[int], space: int) -> int:
    """The contiguous run of occupied spaces round the star's ring through `space` (ruling 5)."""
    base = space - space % 6
    position = space % 6
    run = 1
    for step in (1, -1):
        for k in range(1, 6):
            if cells[base + (position + step * k) % 6] < 0:
                break
            run += 1
        else:
            return 6  # the whole ring is full: counted once
    return run


def allowed_colours(cells: list[int], star: int, grey: bool) -> int:
    """The colours (a bit mask) a new tile on `star` may have under the star's rule.

    Grey side, ruling 16: 0-1 tiles take any colour, two of one colour only it, two colours
    only new ones; ruling 17: no star is held to one-coloured or multicoloured beyond that."""
    if not grey and star != CENTRE_STAR:
        return 1 << star
    every = (1 << COLOURS) - 1
    present = 0
    count = 0
    for colour in cells[star * 6 : star * 6 + 6]:
        if colour >= 0:
            present |= 1 << colour
            count += 1
    if not grey:
        return every & ~present
    if count <= 1:
        return every
    if present & (present - 1) == 0:  # one colour so far, twice or more
        return present
    return every & ~present


def wild_range(hand: list[int], colour: int, wild: int, cost: int) -> tuple[int, int]:
    """Ruling 3: the fewest and most wild tiles a payment of `cost` for `colour` may use; empty
    (lo > hi) when the hand cannot pay. A tile of the wild colour placed as itself uses no wild."""
    real = hand[colour]
    if colour == wild:
        return (0, 0) if real >= cost else (1, 0)
    if real < 1:
        return 1, 0
    return max(0, cost - real), min(cost - 1, hand[wild])


def star_bonus(cells: list[int], star: int) -> int:
    """End bonus of `star` (0 unless complete): one colour -> its value, else 12 (on the grey
    side the centre star too: ruling 16)."""
    colours = cells[star * 6 : star * 6 + 6]
    if min(colours) < 0:
        return 0
    if colours.count(colours[0]) == 6:
        return STAR_VALUE[colours[0]]
    return MULTI_STAR_VALUE


def end_bonus(cells: list[int], grey: bool) -> int:
    """Complete stars plus "every space of cost n filled" (n = 1..4)."""
    total = sum(star_bonus(cells, star) for star in range(STARS))
    costs = COSTS[grey]
    for cost, bonus in NUMBER_BONUS.items():
        if all(cells[space] >= 0 for space in range(CELLS) if costs[space] == cost):
            total += bonus
    return total


def _tile_counts(state: SummerPavilionState) -> list[int]:
    """Tiles per colour over every place a tile can be (22 each, always)."""
    groups = [state.bag.tiles, state.bag.lid, state.supply, state.offer.centre]
    groups += state.offer.factories + state.hand + state.storage
    counts = [sum(column) for column in zip(*groups, strict=True)]
    for cells in state.board:
        for colour in cells:
            if colour >= 0:
                counts[colour] += 1
    return counts


# ---- the game --------------------------------------------------------------------------------


class SummerPavilion(Game[SummerPavilionState, Action, SummerPavilionObservation]):
    id: ClassVar[str] = "summer-pavilion"
    title: ClassVar[str] = "Azul: Summer Pavilion"
    version: ClassVar[int] = 1
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    Options: ClassVar[type[msgspec.Struct]] = SummerPavilionOptions
    Action: ClassVar[Any] = Action
    Observation: ClassVar[type[msgspec.Struct]] = SummerPavilionObservation

    def setup(self, players: int, seed: int, options: SummerPavilionOptions) -> SummerPavilionState:
        state = SummerPavilionState(players, seed, options.variant == "grey")
        # Ruling 15: the supply is filled before the factories.
        state.bag.draw_into(state.supply, SUPPLY_SIZE, _rng(state))
        _prepare_round(state)
        return state

    def to_act(self, state: SummerPavilionState) -> tuple[int, ...]:
        return () if state.phase == _OVER else _SEATS[state.turn]

    def legal(self, state: SummerPavilionState, seat: int) -> list[Action]:
        if seat != state.turn or state.phase == _OVER:
            return []
        phase = state.phase
        if phase == _TAKING:
            return _legal_takes(state)
        if phase == _PAYING:
            lo, hi = _pending_range(state)
            return list(_PAYS[lo : hi + 1])
        if phase == _BONUS:
            return [_BONUSES[c] for c in range(COLOURS) if state.supply[c]]
        actions = _legal_places(state, seat)
        actions += _legal_passes(state.hand[seat])  # ruling 11: never empty, Pass() at least
        return actions

    def apply(self, state: SummerPavilionState, actions: Mapping[int, Action]) -> None:
        if state.phase == _OVER:
            raise IllegalAction("the game is over")
        seat = state.turn
        action = actions.get(seat)
        if action is None or len(actions) != 1:
            raise WrongSeats((seat,), actions)
        kind = type(action)
        phase = state.phase
        if phase == _TAKING:
            if kind is not Take:
                raise IllegalAction("a take is expected in phase 1", repr(action))
            _take(state, seat, action)
        elif phase == _PLACING:
            if kind is Place:
                _place(state, seat, action)
            elif kind is Pass:
                _pass(state, seat, action)
            else:
                raise IllegalAction("a place or a pass is expected in phase 2", repr(action))
        elif phase == _PAYING:
            if kind is not Pay:
                raise IllegalAction("the pending placement's wilds must be chosen", repr(action))
            _pay(state, seat, action)
        else:
            if kind is not Bonus:
                raise IllegalAction("a bonus tile must be chosen from the supply", repr(action))
            _bonus(state, seat, action)

    def observe(self, state: SummerPavilionState, seat: int) -> SummerPavilionObservation:
        costs = COSTS[state.grey]
        return SummerPavilionObservation(
            seat=seat,
            round=state.round,
            variant="grey" if state.grey else "standard",
            wild=state.wild,
            decision=_decision(state),
            start_player=state.start,
            marker=state.offer.marker,
            factories=[group[:] for group in state.offer.factories],
            centre=state.offer.centre[:],
            supply=state.supply[:],
            bag=state.bag.tiles[:],
            tower=state.bag.lid[:],
            costs=[list(costs[star * 6 : star * 6 + 6]) for star in range(STARS)],
            players=[_player_view(state, p) for p in range(state.players)],
        )

    def spectate(self, state: SummerPavilionState) -> SummerPavilionObservation:
        return self.observe(state, -1)

    def determinize(
        self, state: SummerPavilionState, seat: int, rng: random.Random
    ) -> SummerPavilionState:
        """Everything but the future draws is public, and the seed alone decides them."""
        twin = state.copy()
        twin.seed = rng.getrandbits(63)
        return twin

    def from_observation(
        self, observation: SummerPavilionObservation, rng: random.Random
    ) -> SummerPavilionState:
        """Everything but the future draws is public: only the seed is dealt from `rng`."""
        return _state_from(observation, rng.getrandbits(63))

    def scores(self, state: SummerPavilionState) -> list[int]:
        return state.score[:]

    def result(self, state: SummerPavilionState) -> GameResult | None:
        if state.phase != _OVER:
            return None
        scores = state.score[:]
        ranks = ranks_from_keys([(score,) for score in scores])  # ruling 14: ties share
        tiebreak = "none: tied players share the rank" if len(set(scores)) < len(scores) else ""
        return GameResult(scores=scores, ranks=ranks, tiebreak=tiebreak)

    def clone(self, state: SummerPavilionState) -> SummerPavilionState:
        return state.copy()

    def broken_invariants(self, state: SummerPavilionState) -> list[str]:
        problems = []
        counts = _tile_counts(state)
        if counts != [TILES_PER_COLOUR] * COLOURS:
            problems.append(f"tiles per colour are {counts}, not {TILES_PER_COLOUR} each")
        if min(state.score) < 1:
            problems.append(f"a score below 1: {state.score}")
        if sum(state.supply) > SUPPLY_SIZE:
            problems.append(f"the supply holds {sum(state.supply)} tiles")
        if any(sum(stored) > STORAGE for stored in state.storage):
            problems.append(f"more than {STORAGE} stored tiles: {state.storage}")
        table = state.offer.table
        state.offer.recount()
        if state.offer.table != table:
            problems.append(f"offer.table is {table}, the offer holds {state.offer.table}")
            state.offer.table = table
        for seat, cells in enumerate(state.board):
            for star in range(STARS):
                colours = [c for c in cells[star * 6 : star * 6 + 6] if c >= 0]
                if not _star_is_sound(colours, star, state.grey):
                    problems.append(f"seat {seat} star {star} breaks its rule: {colours}")
        return problems

    def render(self, state: SummerPavilionState) -> str:
        return _render(state)


# ---- rules -----------------------------------------------------------------------------------


def _rng(state: SummerPavilionState) -> random.Random:
    """The RNG of the next random draw, seeded with the game seed and the draw counter
    (ruling 15; see `SummerPavilionState`)."""
    state.draws += 1
    return random.Random(f"summer-pavilion:{state.seed}:{state.draws}")


def _star_is_sound(colours: list[int], star: int, grey: bool) -> bool:
    distinct = len(set(colours))
    if not grey and star != CENTRE_STAR:
        return distinct <= 1 and (not colours or colours[0] == star)
    if not grey or len(colours) <= 1:
        return distinct == len(colours)
    return distinct in (1, len(colours))


def _prepare_round(state: SummerPavilionState) -> None:
    """Phase 3 (and the first round's deal): stored tiles back to hands, factories filled."""
    state.round += 1
    for seat in range(state.players):
        hand, stored = state.hand[seat], state.storage[seat]
        for colour in range(COLOURS):
            hand[colour] += stored[colour]
            stored[colour] = 0
        state.passed[seat] = False
    # Ruling 8: the tower is poured into the bag only when a draw finds it empty; when both run
    # out, the factories are filled in order and the last ones stay short.
    state.offer.fill(state.bag, FACTORY_SIZE, _rng(state))
    state.turn = state.start
    if state.offer.table:
        state.phase = _TAKING
    else:  # ruling 9: no tile at all, straight to phase 2
        _start_placing(state)


def _legal_takes(state: SummerPavilionState) -> list[Action]:
    wild = 1 << state.wild
    actions: list[Action] = []
    groups = (state.offer.centre, *state.offer.factories)  # sources CENTRE (-1), 0, 1, ...
    for takes, group in zip(_TAKES, groups, strict=False):  # _TAKES: up to 9 factories
        if any(group):
            colours = _colours_of(group)
            # Every colour but the wild one; the wild one only from a source of nothing else.
            actions += takes[colours & ~wild or colours]
    return actions


def _take(state: SummerPavilionState, seat: int, action: Take) -> None:
    source, colour, wild = action.source, action.colour, state.wild
    if not 0 <= colour < COLOURS:
        raise IllegalAction("colours are 0..5", f"colour {colour}")
    group = state.offer.holding(source, colour)
    if colour == wild and sum(group) != group[wild]:
        raise IllegalAction(
            "the wild colour is taken only from a source holding nothing else",
            f"colour {colour} is wild this round",
        )
    with_wild = colour != wild and group[wild] > 0
    count, first = state.offer.take(source, colour, seat, wild)
    hand = state.hand[seat]
    if with_wild:
        hand[wild] += 1
        hand[colour] += count - 1
    else:
        hand[colour] += count
    if first:  # ruling 2: the marker costs every tile taken, the wild included
        state.score[seat] = deduct(state.score[seat], count)
    if source != CENTRE:
        state.offer.to_centre(source)
    if state.offer.table:
        state.turn = (seat + 1) % state.players
    else:
        _start_placing(state)


def _start_placing(state: SummerPavilionState) -> None:
    """Phase 2 begins with the marker's holder, who also starts the next round; with no holder,
    this round's start player again (ruling 12)."""
    if state.offer.marker >= 0:
        state.start = state.offer.marker
    state.phase = _PLACING
    state.turn = state.start


def _legal_places(state: SummerPavilionState, seat: int) -> list[Action]:
    cells, grey = state.board[seat], state.grey
    payable = _payable(state.hand[seat], state.wild)
    actions: list[Action] = []
    if not payable[1]:
        return actions
    for star, spaces in enumerate(_STAR_SPACES[grey]):
        allowed = allowed_colours(cells, star, grey) & payable[1]
        if allowed:
            for space, cost, places in spaces:
                if cells[space] < 0:
                    colours = allowed & payable[cost]
                    if colours:
                        actions += places[colours]
    return actions


def _payable(hand: list[int], wild: int) -> list[int]:
    """By cost (0 to the top cost, 6): the colours (a mask) the hand can pay that cost for:
    held, with at least that many of the colour and wild tiles together (see `wild_range`)."""
    wilds = hand[wild]
    payable = [0] * (_TOP_COST + 1)
    for colour in range(COLOURS):
        count = hand[colour]
        if count:
            dearest = count if colour == wild else count + wilds
            payable[dearest if dearest < _TOP_COST else _TOP_COST] |= 1 << colour
    for cost in range(_TOP_COST - 1, -1, -1):
        payable[cost] |= payable[cost + 1]
    return payable


def _legal_passes(hand: list[int]) -> tuple[Action, ...]:
    """The passes a hand allows, by size, then as sorted tuples (so in a fixed order).

    Shared and immutable, from a cache keyed by the hand's counts capped at 4 (a keep holds at
    most 4 tiles, so more of a colour allows no other keep): every decision to place lists them,
    up to 210 and most of its legal list, and playouts meet the same hands again and again.
    """
    key = tuple([count if count < STORAGE else STORAGE for count in hand])
    passes = _PASSES.get(key)
    if passes is None:
        # A keep fits the hand when no colour's field borrows its guard: 8 + held - kept >= 8.
        room = _packed(key) | _GUARDS
        passes = tuple(
            [
                action
                for kept, action in _KEEPS_WITHIN[_colours_of(key)]
                if (room - kept) & _GUARDS == _GUARDS
            ]
        )
        _PASSES[key] = passes
    return passes


def _pending_range(state: SummerPavilionState) -> tuple[int, int]:
    space, colour = state.pending
    return wild_range(state.hand[state.turn], colour, state.wild, COSTS[state.grey][space])


def _place(state: SummerPavilionState, seat: int, action: Place) -> None:
    star, position, colour = action.star, action.space, action.colour
    if not 0 <= star < STARS:
        raise IllegalAction("no such star", f"star {star}: stars are 0..5 and 6 (the centre)")
    if not 1 <= position <= 6:
        raise IllegalAction("no such space", f"space {position}: spaces are 1..6")
    if not 0 <= colour < COLOURS:
        raise IllegalAction("colours are 0..5", f"colour {colour}")
    space = star * 6 + position - 1
    cells = state.board[seat]
    if cells[space] >= 0:
        raise IllegalAction("that space is taken", f"star {star}, space {position}")
    if not allowed_colours(cells, star, state.grey) >> colour & 1:
        raise IllegalAction(_colour_rule(state.grey, star), f"star {star}, colour {colour}")
    cost = COSTS[state.grey][space]
    lo, hi = wild_range(state.hand[seat], colour, state.wild, cost)
    if lo > hi:
        raise IllegalAction(
            "pay the cost with tiles of the colour or wild, at least one of the colour",
            f"cost {cost}, colour {colour}, hand {state.hand[seat]}",
        )
    state.pending = (space, colour)
    if lo == hi:  # ruling 4: a `pay` decision only when there is more than one way
        _complete_placement(state, seat, lo)
    else:
        state.phase = _PAYING


def _colour_rule(grey: bool, star: int) -> str:
    if grey:
        return "a grey star takes one colour once it holds two of it, else only colours not in it"
    if star == CENTRE_STAR:
        return "the centre star takes only colours not on it yet"
    return "a coloured star takes only its own colour"


def _pay(state: SummerPavilionState, seat: int, action: Pay) -> None:
    lo, hi = _pending_range(state)
    if not lo <= action.wilds <= hi:
        raise IllegalAction("pay with as many wilds as the hand allows", f"{lo}..{hi} wilds")
    _complete_placement(state, seat, action.wilds)


def _complete_placement(state: SummerPavilionState, seat: int, wilds: int) -> None:
    """Pay, place and score the pending placement, then its bonus tiles if any.

    Ruling 3: one tile of the colour is placed, the rest of the payment goes to the tower,
    before any refill draws (ruling 7). Ruling 6: the bonus tiles of every feature completed
    add up, one `bonus` decision each."""
    space, colour = state.pending
    state.pending = (-1, -1)
    cost = COSTS[state.grey][space]
    hand, bag, wild = state.hand[seat], state.bag, state.wild
    hand[colour] -= cost - wilds
    hand[wild] -= wilds
    if cost - wilds > 1:
        bag.discard(colour, cost - wilds - 1)
    if wilds:
        bag.discard(wild, wilds)
    cells = state.board[seat]
    cells[space] = colour
    state.score[seat] += run_length(cells, space)
    owed = 0
    for feature in FEATURES_OF[space]:
        bonus, _name, around = FEATURES[feature]
        if all(cells[other] >= 0 for other in around):
            owed += bonus
    if owed and sum(state.supply):
        state.owed = owed
        state.phase = _BONUS
        return
    if owed:  # ruling 7: the supply could pay nothing, it is refilled all the same
        _refill_supply(state)
    state.phase = _PLACING
    _next_placer(state)


def _bonus(state: SummerPavilionState, seat: int, action: Bonus) -> None:
    colour = action.colour
    if not 0 <= colour < COLOURS or not state.supply[colour]:
        raise IllegalAction("take a bonus tile the supply holds", f"colour {colour}")
    state.supply[colour] -= 1
    state.hand[seat][colour] += 1
    state.owed -= 1
    if state.owed and sum(state.supply):
        return
    state.owed = 0
    _refill_supply(state)  # ruling 7: after the bonus tiles, and at no other time in phase 2
    state.phase = _PLACING
    _next_placer(state)


def _refill_supply(state: SummerPavilionState) -> None:
    missing = SUPPLY_SIZE - sum(state.supply)
    if missing:
        state.bag.draw_into(state.supply, missing, _rng(state))


def _pass(state: SummerPavilionState, seat: int, action: Pass) -> None:
    """Ruling 10: keep 0-4 hand tiles in storage, the others to the tower at -1 each."""
    keep = action.keep
    counts = _KEPT.get(keep)
    if counts is None:  # not a keep as `legal` spells it: maybe in another order, maybe wrong
        if len(keep) > STORAGE:
            raise IllegalAction("keep at most 4 tiles", f"{len(keep)} tiles")
        if any(not 0 <= colour < COLOURS for colour in keep):
            raise IllegalAction("colours are 0..5", f"keep {list(keep)}")
        counts = _keep_counts(keep)
    hand = state.hand[seat]
    if any(need > have for need, have in zip(counts, hand, strict=True)):
        raise IllegalAction("keep only tiles of the hand", f"keep {list(keep)}, hand {hand}")
    stored = state.storage[seat]
    discarded = 0
    for colour in range(COLOURS):
        stored[colour] += counts[colour]
        rest = hand[colour] - counts[colour]
        if rest:
            state.bag.discard(colour, rest)
            discarded += rest
        hand[colour] = 0
    state.score[seat] = deduct(state.score[seat], discarded)
    state.passed[seat] = True
    _next_placer(state)


def _next_placer(state: SummerPavilionState) -> None:
    """The next seat clockwise that has not passed; once all have, the round ends."""
    for step in range(1, state.players + 1):
        seat = (state.turn + step) % state.players
        if not state.passed[seat]:
            state.turn = seat
            return
    if state.round >= ROUNDS:
        _finish(state)
    else:
        _prepare_round(state)


def _finish(state: SummerPavilionState) -> None:
    """The end bonuses, then -1 per stored tile (the order matters because of the floor of 1);
    stored tiles stay in storage (ruling 13)."""
    for seat in range(state.players):
        score = state.score[seat] + end_bonus(state.board[seat], state.grey)
        state.score[seat] = deduct(score, sum(state.storage[seat]))
    state.phase = _OVER
    state.turn = -1


# ---- observation and rendering ---------------------------------------------------------------


def _decision(state: SummerPavilionState) -> Decision:
    phase = state.phase
    kind = _KINDS[phase]
    if phase == _PAYING:
        space, colour = state.pending
        lo, hi = _pending_range(state)
        return Decision(
            kind,
            state.turn,
            star=space // 6,
            space=space % 6 + 1,
            colour=colour,
            cost=COSTS[state.grey][space],
            min_wilds=lo,
            max_wilds=hi,
        )
    if phase == _BONUS:
        return Decision(kind, state.turn, owed=state.owed)
    return Decision(kind, state.turn)


def _player_view(state: SummerPavilionState, seat: int) -> PlayerView:
    cells = state.board[seat]
    return PlayerView(
        score=state.score[seat],
        hand=state.hand[seat][:],
        storage=state.storage[seat][:],
        stars=[cells[star * 6 : star * 6 + 6] for star in range(STARS)],
        passed=state.passed[seat],
    )


def _state_from(observation: SummerPavilionObservation, seed: int) -> SummerPavilionState:
    """The state `observation` shows, drawing its future from `seed` (see `from_observation`)."""
    state = SummerPavilionState(len(observation.players), seed, observation.variant == "grey")
    decision = observation.decision
    state.round = observation.round
    state.bag.tiles = observation.bag[:]
    state.bag.lid = observation.tower[:]
    state.offer.restore(observation.factories, observation.centre, observation.marker)
    state.supply = observation.supply[:]
    for seat, view in enumerate(observation.players):
        state.hand[seat] = view.hand[:]
        state.storage[seat] = view.storage[:]
        state.board[seat] = [colour for star in view.stars for colour in star]
        state.score[seat] = view.score
        state.passed[seat] = view.passed
    state.phase = _KINDS.index(decision.kind)
    state.start = observation.start_player
    state.turn = decision.seat
    if state.phase == _PAYING:
        state.pending = (decision.star * 6 + decision.space - 1, decision.colour)
    state.owed = decision.owed
    return state


_STAR_ORDER = (*RING, CENTRE_STAR)
"""Stars in the order the render lists them: clockwise from the upper left, then the centre."""


def _star_name(star: int, grey: bool) -> str:
    if star == CENTRE_STAR:
        return "centre"
    return f"{'grey ' if grey else ''}{COLOUR_NAMES[star]}"


def _render(state: SummerPavilionState) -> str:
    decision = _decision(state)
    variant = "grey side" if state.grey else "coloured side"
    wild = COLOUR_NAMES[state.wild]
    head = f"Azul: Summer Pavilion ({variant}) round {state.round}, wild {wild}: "
    head += "game over" if state.phase == _OVER else f"seat {state.turn} to {decision.kind}"
    if state.phase == _PAYING:
        head += (
            f" (star {decision.star} space {decision.space} {COLOUR_NAMES[decision.colour]},"
            f" cost {decision.cost}, {decision.min_wilds}..{decision.max_wilds} wilds)"
        )
    elif state.phase == _BONUS:
        head += f" ({decision.owed} owed)"
    marker = "marker " if state.offer.marker < 0 and state.phase != _OVER else ""
    out = [
        head,
        "colours: " + " ".join(f"{_LETTERS[c]}={name}" for c, name in enumerate(COLOUR_NAMES)),
        "factories  "
        + " | ".join(
            f"{index}: {tiles_text(group, _LETTERS)}"
            for index, group in enumerate(state.offer.factories)
        ),
        f"centre     {marker}{tiles_text(state.offer.centre, _LETTERS)}",
        f"supply     {tiles_text(state.supply, _LETTERS)}",
        f"bag {sum(state.bag.tiles)} ({tiles_text(state.bag.tiles, _LETTERS)}), "
        f"tower {sum(state.bag.lid)} ({tiles_text(state.bag.lid, _LETTERS)})",
    ]
    costs = COSTS[state.grey]
    for seat in range(state.players):
        flags = " start player" if seat == state.start else ""
        if state.offer.marker == seat:
            flags += ", has the marker"
        if state.passed[seat]:
            flags += ", passed"
        out.append(
            f"seat {seat}: score {state.score[seat]}{flags};"
            f" hand {tiles_text(state.hand[seat], _LETTERS)};"
            f" storage {tiles_text(state.storage[seat], _LETTERS)}"
        )
        cells = state.board[seat]
        for star in _STAR_ORDER:
            spaces = " ".join(
                f"{position + 1}:{_LETTERS[colour] if colour >= 0 else '.'}"
                + (f"({costs[star * 6 + position]})" if state.grey else "")
                for position in range(6)
                for colour in (cells[star * 6 + position],)
            )
            out.append(f"  {_star_name(star, state.grey):>12}  {spaces}")
    return "\n".join(out)
