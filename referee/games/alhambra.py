"""Alhambra (Dirk Henn, 2003) for 3–6 players, and 2 players with the neutral Dirk.

The rules are those of the spec (shared rules `alhambra.md`). In short: buy buildings from a
market of 4 slots (slot k takes currency k) with money cards, exact payment giving another action
(at most 5 per turn); take money from an offer of 4 (one card, or several summing to ≤ 5); or
redesign. Bought buildings go into the Alhambra (a grid around the fountain) or the reserve.
Two scoring cards lie in piles 2 and 4 of the money deck; scoring 3 ends the game when the
market cannot be refilled. Majorities per building type score, plus the longest outer wall.

A turn is a chain of small decisions by the player whose turn it is:
phase "action": Take | Buy(slot) | Redesign(building) | End (End only after an exact payment,
or when nothing else is possible); "pay": Pay(card), one card at a time in increasing order
(each set of cards has one path, and no list is large), then End once the sum reaches the
price; "redesign": Place(building, x, y) for a reserve building (an occupied cell swaps);
"place": Place | Reserve | GiveDirk for each building bought this turn, in any order; "final":
the end-of-game distribution's receivers place what they got (Place | Reserve), seat by seat.

The rulings (what the engine does where the rulebook is cut or silent, the spec's and its own)
are numbered in docs/games/alhambra.md, "Rulings", the one list of them; the code names each
(`ruling N`) where it applies it.

Randomness: the state keeps the seed of the next shuffle as an int, so cloning copies no RNG.

`apply` checks the one action it is given (`_allowed`) without building the legal list; the
placement checks of a decision read one `Layout` of the Alhambra, shared by equal Alhambras.

This module holds the state and the turn's flow; the rules that need no state are apart:
`alhambra_placement` (where a building may go, the longest outer wall), `alhambra_money` (money
cards, takes, payments) and `alhambra_scoring` (majorities, a scoring round's points).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import msgspec

from referee.games.alhambra_messages import (
    Action,
    AlhambraObservation,
    AlhambraOptions,
    Buy,
    End,
    GiveDirk,
    Pay,
    Phase,
    Place,
    Placed,
    Redesign,
    Reserve,
    Take,
)
from referee.games.alhambra_money import (
    card_of,
    currency_totals,
    kind_of,
    known_kind,
    money_kinds,
    payable,
    payment_steps,
    takes,
    value_of,
)
from referee.games.alhambra_placement import (
    Cell,
    Grid,
    alhambra_problems,
    by_row,
    can_place,
    can_redesign,
    can_remove,
    can_swap,
    layout_of,
    redesign_spots,
)
from referee.games.alhambra_scoring import round_points
from referee.games.alhambra_tiles import (
    BUILDINGS,
    CURRENCIES,
    FOUNTAIN,
    PRICE,
    TYPE,
    WALLS,
    E,
    N,
    S,
    W,
    building_table,
    wall_letters,
)
from referee.games.base import Game, GameResult, IllegalAction, WrongSeats, ranks_from_keys

__all__ = ["Alhambra", "State", "score_round"]

START_MONEY = 20
OFFER = 4
SLOTS = 4
MAX_ACTIONS = 5
PILES = 5
SCORING_CARDS = (36, 37)
"""Deck entries of scoring cards 1 and 2; money cards are kinds 0–35 (currency·9 + value − 1)."""
DIRK_START = 6
DIRK_AFTER_FIRST = 6


# ---- the state -------------------------------------------------------------------------------


class State:
    """An Alhambra game in progress. Stacks (bag, deck) have their top at the end."""

    __slots__ = (
        "actions",
        "alhambras",
        "bag",
        "current",
        "deck",
        "dirk",
        "dirk_buildings",
        "dirk_score",
        "discard",
        "extra",
        "hands",
        "market",
        "moving",
        "offer",
        "out_of_play",
        "paid",
        "paying",
        "pending",
        "phase",
        "piles",
        "players",
        "reserves",
        "scores",
        "scorings",
        "seed",
    )

    players: int
    dirk: bool
    seed: int
    bag: list[int]
    market: list[int]
    """Building id per slot, 0 when empty."""
    deck: list[int]
    offer: list[int]
    discard: list[int]
    hands: list[list[int]]
    """Sorted money kinds per seat."""
    alhambras: list[Grid]
    reserves: list[list[int]]
    pending: list[list[int]]
    dirk_buildings: list[int]
    out_of_play: list[int]
    scores: list[int]
    dirk_score: int
    current: int
    phase: Phase
    actions: int
    extra: bool
    """The last action was an exact payment: another action (or End) may follow."""
    paying: int
    paid: list[int]
    """The cards chosen so far for the building being bought (increasing kinds)."""
    moving: int
    scorings: int
    piles: tuple[tuple[int, int], ...]
    """Per scoring card, the range of deck positions (from the bottom) of the pile it was
    shuffled into: where determinize may re-place it."""

    def copy(self) -> State:
        other = State()
        other.players = self.players
        other.dirk = self.dirk
        other.seed = self.seed
        other.bag = self.bag.copy()
        other.market = self.market.copy()
        other.deck = self.deck.copy()
        other.offer = self.offer.copy()
        other.discard = self.discard.copy()
        other.hands = [hand.copy() for hand in self.hands]
        other.alhambras = [grid.copy() for grid in self.alhambras]
        other.reserves = [reserve.copy() for reserve in self.reserves]
        other.pending = [pending.copy() for pending in self.pending]
        other.dirk_buildings = self.dirk_buildings.copy()
        other.out_of_play = self.out_of_play.copy()
        other.scores = self.scores.copy()
        other.dirk_score = self.dirk_score
        other.current = self.current
        other.phase = self.phase
        other.actions = self.actions
        other.extra = self.extra
        other.paying = self.paying
        other.paid = self.paid.copy()
        other.moving = self.moving
        other.scorings = self.scorings
        other.piles = self.piles
        return other


def _shuffled(state: State, items: list[int]) -> list[int]:
    rng = random.Random(state.seed)
    rng.shuffle(items)
    state.seed = rng.getrandbits(64)
    return items


def _deal(state: State) -> None:
    """Set-up steps 2–4: start money to ≥ 20 from seat 0, the offer, the five piles with the
    scoring cards in piles 2 and 4, the start player."""
    cards = _shuffled(state, money_kinds(state.dirk))
    for hand in state.hands:  # ruling 1: from seat 0, each seat until its cards total ≥ 20
        while sum(value_of(k) for k in hand) < START_MONEY:
            hand.append(cards.pop())
        hand.sort()
    state.offer = [cards.pop() for _ in range(OFFER)]
    size, extra = divmod(len(cards), PILES)  # ruling 2: sizes differ by one, larger on top
    piles: list[list[int]] = []
    for pile in range(PILES):
        take = size + (pile < extra)
        piles.append([cards.pop() for _ in range(take)])
    rng = random.Random(state.seed)
    for card, pile in zip(SCORING_CARDS, (1, 3), strict=True):
        piles[pile].insert(rng.randint(0, len(piles[pile])), card)
    state.seed = rng.getrandbits(64)
    # pile 1 on top: the deck list holds pile 5 first (bottom) and pile 1 last (top)
    deck: list[int] = []
    ranges = {}
    for pile in reversed(range(PILES)):
        ranges[pile] = (len(deck), len(deck) + len(piles[pile]))
        deck.extend(reversed(piles[pile]))
    state.deck = deck
    state.piles = (ranges[1], ranges[3])
    # ruling 3: the start player holds the fewest cards, then the lowest total, then seat
    keys = [(len(h), sum(value_of(k) for k in h), seat) for seat, h in enumerate(state.hands)]
    state.current = min(keys)[2]


def _stack_deck(
    money: list[int], scoring: Sequence[int], piles: Sequence[tuple[int, int]], rng: random.Random
) -> list[int]:
    """A deck (top at the end) of `money` in a random order, with each scoring card of
    `scoring` at a random place of the pile it was shuffled into (`piles`, by scoring card,
    positions from the bottom) that the deck still reaches."""
    rng.shuffle(money)
    size = len(money) + len(scoring)
    places: dict[int, int] = {}
    for card in scoring:
        low, high = piles[SCORING_CARDS.index(card)]
        places[rng.randrange(low, min(high, size))] = card
    return [places[i] if i in places else money.pop() for i in range(size)]


def _draw_money(state: State) -> int | None:
    """The deck's top card, reshuffling the discards when the deck is empty (None: none left,
    and the offer stays short): ruling 9."""
    if not state.deck:
        if not state.discard:
            return None
        state.deck = _shuffled(state, state.discard)
        state.discard = []
    return state.deck.pop()


def score_round(state: State, scoring: int) -> None:
    """Scoring 1, 2 or 3 (`round_points`: majorities per type, Dirk ranked too, and the players'
    walls) added to the scores. The end always scores 3, even when a scoring card was never
    drawn (ruling 16)."""
    points = round_points(state.alhambras, state.dirk_buildings if state.dirk else None, scoring)
    for seat in range(state.players):
        state.scores[seat] += points[seat]
    if state.dirk:
        state.dirk_score += points[-1]
    state.scorings = scoring


def _draw_building(state: State) -> int:
    return state.bag.pop() if state.bag else 0


def _dirk_draws(state: State) -> None:
    """Ruling 17: after scoring 1, Dirk draws 6 buildings; after scoring 2, a third of the bag
    (rounded down). `_refill` calls it before the market is refilled."""
    if not state.dirk:
        return
    count = DIRK_AFTER_FIRST if state.scorings == 1 else len(state.bag) // 3
    for _ in range(min(count, len(state.bag))):
        state.dirk_buildings.append(state.bag.pop())


def _refill(state: State) -> None:
    """Step 3 of a turn: the offer, scorings (and Dirk's draws), the market; maybe the end."""
    drawn_scoring = 0
    while len(state.offer) < OFFER:
        card = _draw_money(state)
        if card is None:  # ruling 9: deck and discards are empty, the offer stays short
            break
        if card in SCORING_CARDS:
            drawn_scoring += 1
            continue
        state.offer.append(card)
    for _ in range(drawn_scoring):  # ruling 17: Dirk draws before the market is refilled
        score_round(state, state.scorings + 1)
        _dirk_draws(state)
    for slot in range(SLOTS):
        if not state.market[slot]:
            state.market[slot] = _draw_building(state)
    if all(state.market):
        state.current = (state.current + 1) % state.players
        _start_turn(state)
    else:
        _distribute(state)


def _start_turn(state: State) -> None:
    state.phase = "action"
    state.actions = 0
    state.extra = False


def _distribute(state: State) -> None:
    """The end (ruling 10): each market building goes to the player with the highest total value
    of its slot's currency (a tie, or nobody holding any, leaves it out of play); Dirk holds no
    money, so never him."""
    for slot in range(SLOTS):
        building = state.market[slot]
        if not building:
            continue
        state.market[slot] = 0
        totals = [currency_totals(hand)[slot] for hand in state.hands]
        best = max(totals)
        if best > 0 and totals.count(best) == 1:
            state.pending[totals.index(best)].append(building)
        else:
            state.out_of_play.append(building)
    _next_final(state)


def _next_final(state: State) -> None:
    for seat in range(state.players):
        if state.pending[seat]:
            state.current = seat
            state.phase = "final"
            return
    score_round(state, 3)  # ruling 16: even when no scoring card was drawn
    state.phase = "over"


def _after_action(state: State, exact: bool) -> None:
    state.actions += 1
    # ruling 4, ruling 13: at most 5 actions; the fifth, whatever it is, ends the action phase
    state.extra = exact and state.actions < MAX_ACTIONS
    if not state.extra:
        _end_actions(state)


def _end_actions(state: State) -> None:
    state.extra = False
    if state.pending[state.current]:
        state.phase = "place"
    else:
        _refill(state)


# ---- legal actions ---------------------------------------------------------------------------


_BUY: tuple[Buy, ...] = tuple(Buy(slot) for slot in range(SLOTS))
_REDESIGN: tuple[Redesign, ...] = tuple(Redesign(b) for b in range(len(BUILDINGS) + 1))
_RESERVE: tuple[Reserve, ...] = tuple(Reserve(b) for b in range(len(BUILDINGS) + 1))
_GIVE_DIRK: tuple[GiveDirk, ...] = tuple(GiveDirk(b) for b in range(len(BUILDINGS) + 1))
"""The actions that name a slot or a building, made once (frozen: legal lists share them)."""


def _buys(state: State, seat: int) -> list[Buy]:
    """The purchases the seat's cards can pay: a filled slot, enough of its currency."""
    market = state.market
    totals = currency_totals(state.hands[seat])
    return [
        _BUY[slot] for slot in range(SLOTS) if market[slot] and totals[slot] >= PRICE[market[slot]]
    ]


def _action_choices(state: State, seat: int) -> list[Action]:
    choices: list[Action] = list(takes(state.offer))
    choices += _buys(state, seat)
    if state.reserves[seat] or len(state.alhambras[seat]) > 1:
        layout = layout_of(state.alhambras[seat])
        # ruling 12: a reserve building is offered only when it has a legal cell or swap
        choices += [_REDESIGN[b] for b in state.reserves[seat] if layout.redesignable(WALLS[b])]
        grid = layout.grid
        choices += [_REDESIGN[b] for b in sorted(grid[cell] for cell in layout.removable())]
    # ruling 5: End may follow an exact payment; ruling 11: at once only when nothing else can
    if state.extra or (not choices and state.actions == 0):
        choices.append(End())
    return choices


def _placements(state: State, seat: int, dirk: bool) -> list[Action]:
    """Ruling 14: every building still to place, in any order, at the cells legal now."""
    pending = state.pending[seat]
    if not pending:
        return []
    layout = layout_of(state.alhambras[seat])
    choices: list[Action] = []
    for building in pending:
        choices += [Place(building, x, y) for x, y in layout.spots(WALLS[building])]
        choices.append(_RESERVE[building])
        if dirk:
            choices.append(_GIVE_DIRK[building])
    return choices


def _allowed(state: State, seat: int, action: Any) -> bool:
    """`action` (canonical) is in `legal(state, seat)`, checked alone: apply validates with it,
    without building the list."""
    phase = state.phase
    kind = type(action)
    if phase == "action":
        if kind is Take:
            return action in takes(state.offer)
        if kind is Buy:
            return action in _buys(state, seat)
        if kind is Redesign:
            return _may_redesign(state, seat, action.building)
        return kind is End and (state.extra or End() in _action_choices(state, seat))
    if phase == "pay":
        price = PRICE[state.market[state.paying]]
        if kind is End:
            return sum(value_of(k) for k in state.paid) >= price
        card = known_kind(action.card) if kind is Pay else None
        return card is not None and card in payable(
            state.hands[seat], state.paying, price, state.paid
        )
    grid = state.alhambras[seat]
    if phase == "redesign":
        cell = _cell(action) if kind is Place and action.building == state.moving else None
        if cell is None:
            return False
        return (
            can_swap(grid, cell, state.moving)
            if cell in grid
            else can_place(grid, cell, state.moving)
        )
    if kind not in (Place, Reserve, GiveDirk) or action.building not in state.pending[seat]:
        return False
    if kind is Place:
        cell = _cell(action)
        return cell is not None and can_place(grid, cell, action.building)
    return kind is Reserve or (state.dirk and phase == "place")


def _cell(action: Place) -> Cell | None:
    """The cell a placement names, None when its coordinates are no integers."""
    x, y = action.x, action.y
    return (x, y) if isinstance(x, int) and isinstance(y, int) else None


def _may_redesign(state: State, seat: int, building: int) -> bool:
    """Redesign with `building`: from the reserve to a spot or a swap, or out of the Alhambra."""
    grid = state.alhambras[seat]
    if building in state.reserves[seat]:
        return can_redesign(grid, building)
    cell = _cell_of(grid, building)
    return cell is not None and can_remove(grid, cell)


def _cell_of(grid: Grid, building: int) -> Cell | None:
    """Where `building` stands in the Alhambra (None: not there)."""
    return next((cell for cell, there in grid.items() if there == building), None)


# ---- the game --------------------------------------------------------------------------------


class Alhambra(Game[State, Action, AlhambraObservation]):
    """Alhambra: see the module docstring for the turn's decisions, docs/games/alhambra.md for
    the rulings."""

    id: ClassVar[str] = "alhambra"
    title: ClassVar[str] = "Alhambra"
    version: ClassVar[int] = 1
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    Options: ClassVar[type[msgspec.Struct]] = AlhambraOptions
    Action: ClassVar[Any] = Action
    Observation: ClassVar[type[msgspec.Struct]] = AlhambraObservation
    reference: ClassVar[dict[str, list[dict[str, Any]]]] = {"buildings": building_table()}

    def setup(self, players: int, seed: int, options: AlhambraOptions) -> State:
        state = State()
        state.players = players
        state.dirk = players == 2
        state.seed = seed
        state.bag = _shuffled(state, [b[0] for b in BUILDINGS])
        state.market = [state.bag.pop() for _ in range(SLOTS)]
        # ruling 17: Dirk's 6 buildings come after the market's 4
        state.dirk_buildings = [state.bag.pop() for _ in range(DIRK_START)] if state.dirk else []
        state.hands = [[] for _ in range(players)]
        state.discard = []
        _deal(state)
        state.alhambras = [{(0, 0): FOUNTAIN} for _ in range(players)]
        state.reserves = [[] for _ in range(players)]
        state.pending = [[] for _ in range(players)]
        state.out_of_play = []
        state.scores = [0] * players
        state.dirk_score = 0
        state.scorings = 0
        state.paying = -1
        state.paid = []
        state.moving = -1
        _start_turn(state)
        return state

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.phase == "over" else (state.current,)

    def legal(self, state: State, seat: int) -> list[Action]:
        if state.phase == "over" or seat != state.current:
            return []
        if state.phase == "action":
            return _action_choices(state, seat)
        if state.phase == "pay":
            return payment_steps(
                state.hands[seat],
                state.paying,
                PRICE[state.market[state.paying]],
                state.paid,
            )
        if state.phase == "redesign":
            building = state.moving
            cells = redesign_spots(state.alhambras[seat], building)
            return [Place(building, x, y) for x, y in cells]
        return _placements(state, seat, state.dirk and state.phase == "place")

    def apply(self, state: State, actions: Mapping[int, Action]) -> None:
        acting = self.to_act(state)
        if len(actions) != len(acting) or (acting and acting[0] not in actions):
            raise WrongSeats(acting, actions)
        seat = acting[0]
        action = _canonical(actions[seat])
        if not _allowed(state, seat, action):
            raise IllegalAction(_why(state, seat, action), f"seat {seat}: {action!r}")
        _do(state, seat, action)

    def observe(self, state: State, seat: int) -> AlhambraObservation:
        return _observation(state, seat)

    def spectate(self, state: State) -> AlhambraObservation:
        """Seat −1: the same public state (hands are public by ruling 18)."""
        return _observation(state, -1)

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        """Re-sample the bag order, the deck's order and the undrawn scoring cards' places within
        their piles, and the later shuffles' seed; everything else is public."""
        twin = state.copy()
        rng.shuffle(twin.bag)
        money = [card for card in twin.deck if card not in SCORING_CARDS]
        scoring = [card for card in SCORING_CARDS if card in twin.deck]
        twin.deck = _stack_deck(money, scoring, twin.piles, rng)
        twin.seed = rng.getrandbits(64)
        return twin

    def from_observation(self, observation: AlhambraObservation, rng: random.Random) -> State:
        """Everything is public but the orders of the bag and of the deck: the buildings not in
        sight go into the bag and the money cards not in sight into the deck, in random orders,
        with the scoring cards not yet drawn each at a random place of its pile; the seed of
        later shuffles is dealt from `rng` too."""
        state = State()
        state.players = observation.players
        state.dirk = observation.dirk
        state.market = [building or 0 for building in observation.market]
        state.offer = [kind_of(card) for card in observation.offer]
        state.discard = [kind_of(card) for card in observation.discard]
        state.hands = [sorted(kind_of(card) for card in hand) for hand in observation.hands]
        state.alhambras = [
            {(placed.x, placed.y): placed.building for placed in grid}
            for grid in observation.alhambras
        ]
        state.reserves = [reserve.copy() for reserve in observation.reserves]
        state.pending = [pending.copy() for pending in observation.pending]
        state.dirk_buildings = observation.dirk_buildings.copy()
        state.out_of_play = observation.out_of_play.copy()
        state.scores = observation.scores.copy()
        state.dirk_score = observation.dirk_score or 0
        state.current = observation.current
        state.phase = observation.phase
        state.actions = observation.actions
        # An action phase goes on after an action only when it was an exact payment.
        state.extra = state.phase in ("action", "pay", "redesign") and state.actions > 0
        state.paying = observation.paying if observation.paying is not None else -1
        state.paid = [kind_of(card) for card in observation.paid]
        state.moving = observation.moving if observation.moving is not None else -1
        state.scorings = observation.scorings
        state.piles = tuple((low, high) for low, high in observation.scoring_piles)
        placed = {building for grid in state.alhambras for building in grid.values()}
        placed.update(state.market, state.dirk_buildings, state.out_of_play)
        for buildings in (*state.reserves, *state.pending):
            placed.update(buildings)
        state.bag = [b for b in range(1, len(BUILDINGS) + 1) if b not in placed]
        rng.shuffle(state.bag)
        money = money_kinds(state.dirk)
        for hand in (state.offer, state.discard, state.paid, *state.hands):
            for card in hand:
                money.remove(card)
        # The first scoring card lies above the second, so the undrawn ones are the last.
        undrawn = observation.deck - len(money)
        scoring = list(SCORING_CARDS[len(SCORING_CARDS) - undrawn :])
        state.deck = _stack_deck(money, scoring, state.piles, rng)
        state.seed = rng.getrandbits(64)
        return state

    def scores(self, state: State) -> list[int]:
        return state.scores.copy()

    def result(self, state: State) -> GameResult | None:
        if state.phase != "over":
            return None
        ranks = ranks_from_keys([(score,) for score in state.scores])
        tiebreak = (
            "none: tied players share the victory"
            if len(set(state.scores)) < len(state.scores)
            else ""
        )
        return GameResult(scores=state.scores.copy(), ranks=ranks, tiebreak=tiebreak)

    def clone(self, state: State) -> State:
        return state.copy()

    def broken_invariants(self, state: State) -> list[str]:
        problems = []
        money = [*state.offer, *state.discard, *state.paid]
        money += [card for card in state.deck if card not in SCORING_CARDS]
        for hand in state.hands:
            money += hand
        if sorted(money) != money_kinds(state.dirk):
            problems.append(f"{len(money)} money cards, not the game's set")
        scoring_left = sum(card in SCORING_CARDS for card in state.deck)
        if state.phase != "over" and scoring_left + state.scorings != 2:
            problems.append(f"{scoring_left} scoring cards in the deck after {state.scorings}")
        buildings = [*state.bag, *state.dirk_buildings, *state.out_of_play]
        buildings += [b for b in state.market if b]
        for seat in range(state.players):
            buildings += [b for b in state.alhambras[seat].values() if b != FOUNTAIN]
            buildings += state.reserves[seat] + state.pending[seat]
        if sorted(buildings) != list(range(1, len(BUILDINGS) + 1)):
            problems.append(f"{len(buildings)} buildings, not the 54 (each once)")
        for seat, grid in enumerate(state.alhambras):
            problems += [f"seat {seat}: {p}" for p in alhambra_problems(grid)]
        if any(hand != sorted(hand) for hand in state.hands):
            problems.append("a hand is not sorted")
        return problems

    def render(self, state: State) -> str:
        return _render(state)


def _canonical(action: Action) -> Action:
    """The action in the legal list's spelling: a take's cards are a set (the rule is "one card,
    or several summing to at most 5"), listed there in increasing order; a bot may list them in
    any order, e.g. the offer's."""
    if isinstance(action, Take) and len(action.cards) > 1:
        return Take(tuple(sorted(action.cards, key=kind_of)))
    return action


def _why(state: State, seat: int, action: Any) -> str:
    """The rule an illegal action breaks, in words."""
    phase = state.phase
    if phase == "pay":
        return (
            "pay with cards of the slot's currency from your hand, in increasing order, "
            "then End once the sum reaches the price"
        )
    if phase == "redesign":
        return "the moved building must go to a legal spot of your Alhambra (or swap legally)"
    if phase in ("place", "final"):
        return "place a building you hold at a legal spot or in the reserve (or give it to Dirk)"
    if isinstance(action, Take):
        return "take one card from the offer, or several summing to at most 5"
    if isinstance(action, Buy):
        return "buy from a filled slot whose price your cards of its currency can pay"
    if isinstance(action, Redesign):
        return "redesign moves a reserve building to a legal spot or an Alhambra building out"
    if isinstance(action, End):
        return "the action phase ends only after an exact payment (or with no action possible)"
    return "not an action of this phase"


def _do(state: State, seat: int, action: Action) -> None:
    """Apply a legal action (checked by the caller)."""
    if isinstance(action, Take):
        for card in action.cards:
            kind = kind_of(card)
            state.offer.remove(kind)
            state.hands[seat].append(kind)
        state.hands[seat].sort()
        _after_action(state, exact=False)
    elif isinstance(action, Buy):
        state.phase = "pay"
        state.paying = action.slot
    elif isinstance(action, Pay):
        kind = kind_of(action.card)
        state.hands[seat].remove(kind)
        state.paid.append(kind)
    elif isinstance(action, End) and state.phase == "pay":
        building = state.market[state.paying]
        paid = sum(value_of(k) for k in state.paid)
        state.discard += state.paid
        state.paid = []
        state.market[state.paying] = 0
        state.pending[seat].append(building)
        state.paying = -1
        state.phase = "action"
        _after_action(state, exact=paid == PRICE[building])
    elif isinstance(action, Redesign):
        grid = state.alhambras[seat]
        if action.building in state.reserves[seat]:  # ruling 12: its cell is asked next
            state.phase = "redesign"
            state.moving = action.building
            return
        cell = next(c for c, b in grid.items() if b == action.building)
        del grid[cell]  # ruling 12: out of the Alhambra to the reserve at once
        state.reserves[seat].append(action.building)
        state.reserves[seat].sort()
        _after_action(state, exact=False)
    elif isinstance(action, Place):
        grid = state.alhambras[seat]
        cell = (action.x, action.y)
        if state.phase == "redesign":
            state.reserves[seat].remove(action.building)
            swapped = grid.get(cell)
            if swapped is not None:
                state.reserves[seat].append(swapped)
                state.reserves[seat].sort()
            grid[cell] = action.building
            state.moving = -1
            state.phase = "action"
            _after_action(state, exact=False)
            return
        state.pending[seat].remove(action.building)
        grid[cell] = action.building
        _after_place(state, seat)
    elif isinstance(action, Reserve):
        state.pending[seat].remove(action.building)
        state.reserves[seat].append(action.building)
        state.reserves[seat].sort()
        _after_place(state, seat)
    elif isinstance(action, GiveDirk):
        state.pending[seat].remove(action.building)
        state.dirk_buildings.append(action.building)
        _after_place(state, seat)
    else:  # End
        _end_actions(state)


def _after_place(state: State, seat: int) -> None:
    if state.pending[seat]:
        return
    if state.phase == "final":
        _next_final(state)
    else:
        _refill(state)


def _observation(state: State, seat: int) -> AlhambraObservation:
    """Ruling 18: every hand is public; the bag's and the deck's orders are not."""
    return AlhambraObservation(
        seat=seat,
        players=state.players,
        dirk=state.dirk,
        phase=state.phase,
        current=state.current,
        actions=state.actions,
        paying=state.paying if state.paying >= 0 else None,
        paid=[card_of(k) for k in state.paid],
        moving=state.moving if state.moving >= 0 else None,
        market=[b or None for b in state.market],
        offer=[card_of(k) for k in state.offer],
        hands=[[card_of(k) for k in hand] for hand in state.hands],
        alhambras=[
            [Placed(b, x, y) for (x, y), b in sorted(grid.items(), key=by_row)]
            for grid in state.alhambras
        ],
        reserves=[r.copy() for r in state.reserves],
        pending=[p.copy() for p in state.pending],
        dirk_buildings=sorted(state.dirk_buildings),
        scores=state.scores.copy(),
        dirk_score=state.dirk_score if state.dirk else None,
        scorings=state.scorings,
        deck=len(state.deck),
        discard=[card_of(k) for k in sorted(state.discard)],
        bag=len(state.bag),
        out_of_play=sorted(state.out_of_play),
        over=state.phase == "over",
        scoring_piles=list(state.piles),
    )


# ---- rendering -------------------------------------------------------------------------------

_INITIAL = "PSACGT"


def _label(building: int) -> str:
    if building == FOUNTAIN:
        return " F "
    return f"{_INITIAL[TYPE[building]]}{PRICE[building]:<2}"


def draw(grid: Grid) -> list[str]:
    """The Alhambra on a grid: '===' and '#' are walls, '...' and ':' open sides of a building;
    a cell shows the type's initial and the price (F: the fountain)."""
    xs = [x for x, _ in grid]
    ys = [y for _, y in grid]
    lines = []
    for y in range(min(ys), max(ys) + 2):
        top, middle = "", ""
        for x in range(min(xs), max(xs) + 2):
            here, above, left = grid.get((x, y)), grid.get((x, y - 1)), grid.get((x - 1, y))
            near = (here, above, left, grid.get((x - 1, y - 1)))
            top += "+" if any(b is not None for b in near) else " "
            top += _edge(here, N, above, S, "===", "...", "   ")
            middle += _edge(here, W, left, E, "#", ":", " ")
            middle += _label(here) if here is not None else "   "
        lines += [top.rstrip(), middle.rstrip()]
    return [line for line in lines if line] or [""]


def _edge(
    one: int | None, one_side: int, two: int | None, two_side: int, wall: str, side: str, none: str
) -> str:
    if (one is not None and WALLS[one] & one_side) or (two is not None and WALLS[two] & two_side):
        return wall
    return side if one is not None or two is not None else none


def _names(kinds: Iterable[int]) -> str:
    return " ".join(f"{CURRENCIES[k // 9][0].upper()}{value_of(k)}" for k in kinds) or "-"


def _render(state: State) -> str:
    market = " | ".join(
        f"{CURRENCIES[slot]}: {_label(b).strip()}{_walls(b)}" if b else f"{CURRENCIES[slot]}: -"
        for slot, b in enumerate(state.market)
    )
    lines = [
        f"Alhambra, {state.players} players{' + Dirk' if state.dirk else ''}: phase "
        f"{state.phase}, seat {state.current} ({state.actions} action(s)), "
        f"{state.scorings} scoring(s) done",
        f"market {market}",
        f"offer {_names(state.offer)} | deck {len(state.deck)} | discard {len(state.discard)}"
        f" | bag {len(state.bag)}",
    ]
    if state.dirk:
        lines.append(
            f"Dirk: score {state.dirk_score}, buildings "
            + (" ".join(_label(b).strip() for b in sorted(state.dirk_buildings)) or "-")
        )
    for seat in range(state.players):
        reserve = " ".join(_label(b).strip() for b in state.reserves[seat]) or "-"
        pending = " ".join(_label(b).strip() for b in state.pending[seat]) or "-"
        lines.append(
            f"seat {seat}: score {state.scores[seat]} | hand {_names(state.hands[seat])}"
            f" | reserve {reserve} | to place {pending}"
        )
        lines += ["  " + line for line in draw(state.alhambras[seat])]
    return "\n".join(lines)


def _walls(building: int) -> str:
    letters = wall_letters(WALLS[building])
    return f"[{letters}]" if letters else ""
