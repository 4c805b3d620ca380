"""5211 (Azul special edition, 花磚密語): simultaneous hidden card plays, majority scoring.

The rules are those of the 5211 rulebook (design Tsuyoshi Hashiguchi, 2024). In short: 100
cards, 5 colours × 20 (per colour 5 roosters worth 1, 6×2, 5×3, 2×4, 1×5, 1×6). Remove
10/13/0/15 cards for 2/3/4/5 players, deal 5 each. A round has three turns: every seat
secretly picks 2 cards, then 1, then 1; each turn is revealed at once and hands are refilled.
Scoring (N players): exactly N+2 roosters played → only roosters score; otherwise the single
colour with the most cards, among colours below N+3 cards, scores its cards' values. When a
round starts with an empty draw pile it is the last one (no refills, the last card in hand is
discarded). Highest score wins; tie-break most cards in the score pile, else shared.

Simultaneous decisions: while a turn is open `to_act` lists every seat holding cards and
`apply` takes all their plays together, so no seat can ever see another's choice first. The
messages (options, play, observation) are defined in `g5211_messages` (so that this module can
be compiled with mypyc) and re-exported here.

Colour ids follow the rulebook's colour names: 0 yellow (黃), 1 green (綠), 2 orange (橘),
3 dark blue (深藍), 4 teal (藍綠). A card is (colour, value); value 1 is always a rooster.

The rulings (what the engine does where the rulebook is silent or ambiguous) are numbered in
docs/games/5211.md, "Rulings", the one list of them; the code names each (`ruling N`) where it
applies it.

All randomness (the shuffles) comes from `random.Random`, seeded by the game seed; the state
keeps the seed of the next shuffle as an int, so cloning a state copies no RNG.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import msgspec

from referee.games.base import Game, GameResult, IllegalAction, WrongSeats, ranks_from_keys
from referee.games.g5211_messages import (
    VARIANTS,
    Card,
    G5211Observation,
    G5211Options,
    Outcome,
    Play,
    RoundReport,
    Variant,
)

__all__ = [
    "CARDS",
    "COLOURS",
    "COLOUR_LETTERS",
    "DECK",
    "HAND_SIZE",
    "KINDS",
    "LONG_TARGET",
    "REMOVED",
    "TURN_CARDS",
    "VALUES_PER_COLOUR",
    "VARIANTS",
    "Card",
    "FiveTwoOneOne",
    "G5211Observation",
    "G5211Options",
    "Outcome",
    "Play",
    "RoundReport",
    "State",
    "Variant",
    "card_kind",
    "kind_colour",
    "kind_value",
    "score_round",
]

# ---- constants -------------------------------------------------------------------------------

COLOURS: tuple[str, ...] = ("yellow", "green", "orange", "dark blue", "teal")
"""Colour names by id, as the rulebook names them."""
COLOUR_LETTERS = "YGODT"
VALUES_PER_COLOUR: tuple[int, ...] = (1,) * 5 + (2,) * 6 + (3,) * 5 + (4,) * 2 + (5, 6)
"""The 20 card values of one colour; value 1 is the rooster."""
REMOVED: dict[int, int] = {2: 10, 3: 13, 4: 0, 5: 15}
"""Cards removed unseen at every (re)shuffle, by player count."""
HAND_SIZE = 5
TURN_CARDS: tuple[int, ...] = (2, 1, 1)
"""Cards each seat plays in turns 1, 2 and 3 of a round."""
LONG_TARGET = 50


def card_kind(colour: int, value: int) -> int:
    """The engine's int for a card; identical cards share it, and sorting orders by colour."""
    return colour * 8 + value


def kind_colour(kind: int) -> int:
    return kind >> 3


def kind_value(kind: int) -> int:
    return kind & 7


DECK: tuple[int, ...] = tuple(
    card_kind(colour, value) for colour in range(len(COLOURS)) for value in VALUES_PER_COLOUR
)
"""All 100 cards, in a fixed order (shuffled per game)."""
KINDS: tuple[int, ...] = tuple(sorted(set(DECK)))


# ---- messages --------------------------------------------------------------------------------


CARDS: tuple[Card | None, ...] = tuple(
    Card(kind_colour(k), kind_value(k)) if k in KINDS else None for k in range(KINDS[-1] + 1)
)
_PLAYS: dict[tuple[int, ...], Play] = {}


def _play(kinds: tuple[int, ...]) -> Play:
    """Plays are immutable, so each distinct one is built once and shared."""
    play = _PLAYS.get(kinds)
    if play is None:
        play = _PLAYS[kinds] = Play(tuple(_card(k) for k in kinds))
    return play


def _card(kind: int) -> Card:
    card = CARDS[kind]
    assert card is not None
    return card


def _cards(kinds: Sequence[int]) -> list[Card]:
    return [_card(k) for k in kinds]


# ---- rules -----------------------------------------------------------------------------------


def score_round(players: int, played: Sequence[Sequence[int]]) -> tuple[Outcome, int | None]:
    """Which cards of a round score: ("roosters", None), ("majority", colour) or ("none", None).

    Ruling 1: colours at or over the limit are out first; then the highest count held by exactly
    one colour is the majority (repeatedly removing tied tops reaches the same colour).
    """
    counts = [0] * len(COLOURS)
    roosters = 0
    for cards in played:
        for kind in cards:
            counts[kind >> 3] += 1
            if kind & 7 == 1:
                roosters += 1
    if roosters == players + 2:
        return "roosters", None
    limit = players + 3
    alive = [count for count in counts if 0 < count < limit]
    for count in sorted(set(alive), reverse=True):
        if alive.count(count) == 1:
            return "majority", counts.index(count)
    return "none", None


class State:
    """A 5211 game in progress: hands sorted card-kind lists, the draw pile's top at the end."""

    __slots__ = (
        "checking",
        "deal",
        "discard",
        "hands",
        "hidden_discard",
        "last_round",
        "long",
        "over",
        "pile",
        "piles",
        "played",
        "players",
        "previous",
        "removed",
        "round",
        "scored",
        "seed",
        "totals",
        "turn",
    )

    players: int
    long: bool
    seed: int
    """Seed of the next shuffle (drawn from the previous shuffle's RNG)."""
    hands: list[list[int]]
    pile: list[int]
    removed: list[int]
    played: list[list[int]]
    piles: list[list[int]]
    """Score piles since the last shuffle."""
    discard: list[int]
    hidden_discard: list[int]
    """Cards discarded face down from hands after a last round (Ruling 4)."""
    totals: list[int]
    """Running scores, including points of score piles reshuffled away (long variant)."""
    scored: list[int]
    """Cards scored over the whole game (the tie-break, ruling 6)."""
    deal: int
    round: int
    turn: int
    """0, 1 or 2: index into TURN_CARDS."""
    last_round: bool
    checking: bool
    """Long variant: the pile has been exhausted once, so every round end checks for ≥ 50."""
    previous: RoundReport | None
    over: bool

    def copy(self) -> State:
        other = State()
        other.players = self.players
        other.long = self.long
        other.seed = self.seed
        other.hands = [hand.copy() for hand in self.hands]
        other.pile = self.pile.copy()
        other.removed = self.removed.copy()
        other.played = [cards.copy() for cards in self.played]
        other.piles = [pile.copy() for pile in self.piles]
        other.discard = self.discard.copy()
        other.hidden_discard = self.hidden_discard.copy()
        other.totals = self.totals.copy()
        other.scored = self.scored.copy()
        other.deal = self.deal
        other.round = self.round
        other.turn = self.turn
        other.last_round = self.last_round
        other.checking = self.checking
        other.previous = self.previous
        other.over = self.over
        return other


def _shuffle_and_deal(state: State) -> None:
    """Gather all 100 cards, shuffle, remove unseen cards per the table and deal 5 to each seat."""
    rng = random.Random(state.seed)
    deck = list(DECK)
    rng.shuffle(deck)
    state.seed = rng.getrandbits(64)
    n = state.players
    cut = REMOVED[n]
    state.removed = deck[:cut]
    state.hands = [
        sorted(deck[cut + seat * HAND_SIZE : cut + (seat + 1) * HAND_SIZE]) for seat in range(n)
    ]
    state.pile = deck[cut + n * HAND_SIZE :]
    state.played = [[] for _ in range(n)]
    state.piles = [[] for _ in range(n)]
    state.discard = []
    state.hidden_discard = []
    state.last_round = not state.pile


def _refill(state: State) -> None:
    """Ruling 2: one card at a time in seat order until hands hold 5 or the pile is empty."""
    hands, pile = state.hands, state.pile
    while pile:
        short = [hand for hand in hands if len(hand) < HAND_SIZE]
        if not short:
            return
        for hand in short:
            if not pile:
                return
            insort(hand, pile.pop())


def _end_round(state: State) -> None:
    """Score the round, then start the next one, reshuffle (long variant) or end the game."""
    n = state.players
    outcome, colour = score_round(n, state.played)
    points = [0] * n
    for seat, cards in enumerate(state.played):
        for kind in cards:
            if (outcome == "roosters" and kind & 7 == 1) or (
                outcome == "majority" and kind >> 3 == colour
            ):
                state.piles[seat].append(kind)
                points[seat] += kind & 7
                state.scored[seat] += 1
            else:
                state.discard.append(kind)
        state.totals[seat] += points[seat]
    state.previous = RoundReport(
        round=state.round,
        played=tuple(tuple(_card(k) for k in cards) for cards in state.played),
        outcome=outcome,
        colour=colour,
        points=tuple(points),
    )
    state.played = [[] for _ in range(n)]
    state.turn = 0
    exhausted = state.last_round
    if exhausted:  # ruling 4: the cards left in hand are discarded face down
        for hand in state.hands:
            state.hidden_discard.extend(hand)
            hand.clear()
    # ruling 6: the long variant checks for 50 from a pile's last round on, then reshuffles
    if state.long and (state.checking or exhausted) and max(state.totals) >= LONG_TARGET:
        state.over = True
        return
    if exhausted and not state.long:
        state.over = True
        return
    state.round += 1
    if exhausted:
        state.checking = True
        state.deal += 1
        _shuffle_and_deal(state)
    else:
        state.last_round = not state.pile


def _advance(state: State) -> None:
    """Close finished rounds and pass turns in which nobody holds a card (Ruling 3)."""
    while not state.over:
        if state.turn == len(TURN_CARDS):
            _end_round(state)
        elif any(state.hands):
            return
        else:
            state.turn += 1


def _action_kinds(seat: int, action: Any, hand: list[int], turn: int) -> list[int]:
    """The card kinds of one seat's play, checked against the rules; raises IllegalAction."""
    if not isinstance(action, Play):
        raise IllegalAction("the action must be a play of cards", f"seat {seat}: got {action!r}")
    required = min(TURN_CARDS[turn], len(hand))  # ruling 3: short of cards, play all you hold
    if len(action.cards) != required:
        raise IllegalAction(
            f"turn {turn + 1} plays {TURN_CARDS[turn]} card(s) (or all you hold if fewer)",
            f"seat {seat} played {len(action.cards)}, must play {required}",
        )
    remaining = hand.copy()
    kinds = []
    for card in action.cards:
        if not (0 <= card.colour < len(COLOURS) and 1 <= card.value <= 6):
            raise IllegalAction(
                "no such card: colours are 0-4 and values 1-6",
                f"seat {seat}: colour {card.colour}, value {card.value}",
            )
        kind = card_kind(card.colour, card.value)
        if kind not in remaining:
            raise IllegalAction(
                "you can play only cards from your hand",
                f"seat {seat}: no {_name(kind)} (left) in hand",
            )
        remaining.remove(kind)
        kinds.append(kind)
    kinds.sort()  # the order of two cards played together means nothing; keep states canonical
    return kinds


def _name(kind: int) -> str:
    return f"{COLOUR_LETTERS[kind >> 3]}{kind & 7}"


# ---- the game --------------------------------------------------------------------------------


class FiveTwoOneOne(Game[State, Play, G5211Observation]):
    """5211, Azul edition: see the module docstring for the rules, docs/games/5211.md for the
    rulings."""

    id: ClassVar[str] = "5211"
    title: ClassVar[str] = "5211 (Azul edition)"
    version: ClassVar[int] = 1
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    Options: ClassVar[type[msgspec.Struct]] = G5211Options
    Action: ClassVar[Any] = Play
    Observation: ClassVar[type[msgspec.Struct]] = G5211Observation

    def setup(self, players: int, seed: int, options: G5211Options) -> State:
        state = State()
        state.players = players
        state.long = options.variant == "long"
        state.seed = seed
        state.totals = [0] * players
        state.scored = [0] * players
        state.deal = 1
        state.round = 1
        state.turn = 0
        state.checking = False
        state.previous = None
        state.over = False
        _shuffle_and_deal(state)
        return state

    def to_act(self, state: State) -> tuple[int, ...]:
        if state.over:
            return ()
        return tuple(seat for seat, hand in enumerate(state.hands) if hand)  # ruling 3

    def legal(self, state: State, seat: int) -> list[Play]:
        hand = state.hands[seat]
        if state.over or not hand:
            return []
        if TURN_CARDS[state.turn] == 1 or len(hand) == 1:
            return [_play((kind,)) for kind in dict.fromkeys(hand)]
        pairs = dict.fromkeys(
            (hand[i], hand[j]) for i in range(len(hand)) for j in range(i + 1, len(hand))
        )
        return [_play(pair) for pair in pairs]

    def apply(self, state: State, actions: Mapping[int, Play]) -> None:
        acting = self.to_act(state)
        if set(actions) != set(acting):
            raise WrongSeats(acting, actions)
        chosen = {
            seat: _action_kinds(seat, actions[seat], state.hands[seat], state.turn)
            for seat in acting
        }
        for seat, kinds in chosen.items():
            hand = state.hands[seat]
            for kind in kinds:
                hand.remove(kind)
            state.played[seat].extend(kinds)
        state.turn += 1
        if not state.last_round:
            _refill(state)
        _advance(state)

    def observe(self, state: State, seat: int) -> G5211Observation:
        hand = state.hands[seat]
        to_play = min(TURN_CARDS[state.turn], len(hand)) if hand and not state.over else 0
        return _observation(state, seat, hand, to_play)

    def spectate(self, state: State) -> G5211Observation:
        """Seat -1, with no hand: every hand is hidden from a spectator."""
        return _observation(state, -1, [], 0)

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        """Re-deal what `seat` has not seen — the others' hands, the removed cards and the draw
        pile (all one pool of unseen cards, in their sizes) — and the seed of later shuffles."""
        twin = state.copy()
        others = [other for other in range(state.players) if other != seat]
        unseen = twin.removed + twin.pile
        for other in others:
            unseen += twin.hands[other]
        rng.shuffle(unseen)
        cut = len(twin.removed)
        twin.removed = unseen[:cut]
        for other in others:
            size = len(twin.hands[other])
            twin.hands[other] = sorted(unseen[cut : cut + size])
            cut += size
        twin.pile = unseen[cut:]
        twin.seed = rng.getrandbits(64)
        return twin

    def from_observation(self, observation: G5211Observation, rng: random.Random) -> State:
        """Deal the cards this seat has not seen (the deck minus its hand, the revealed cards,
        the score piles and the discard) at random to the others' hands, the removed cards,
        the draw pile and the hands discarded face down after a last round; the seed of later
        shuffles too."""
        seat = observation.seat
        state = State()
        state.players = observation.players
        state.long = observation.variant == "long"
        state.seed = rng.getrandbits(64)
        state.played = [_kinds(cards) for cards in observation.played]
        state.piles = [_kinds(cards) for cards in observation.score_piles]
        state.discard = _kinds(observation.discard)
        mine = sorted(_kinds(observation.hand))
        unseen = list(DECK)
        for group in (mine, state.discard, *state.played, *state.piles):
            for kind in group:
                unseen.remove(kind)
        rng.shuffle(unseen)
        cut = observation.removed
        state.removed = unseen[:cut]
        state.hands = []
        for other, size in enumerate(observation.hand_sizes):
            if other == seat:
                state.hands.append(mine)
            else:
                state.hands.append(sorted(unseen[cut : cut + size]))
                cut += size
        state.pile = unseen[cut : cut + observation.draw_pile]
        state.hidden_discard = unseen[cut + observation.draw_pile :]
        state.totals = observation.scores.copy()
        state.scored = observation.scored.copy()
        state.deal = observation.deal
        state.round = observation.round
        state.turn = observation.turn - 1
        state.last_round = observation.last_round
        state.checking = observation.deal > 1
        state.previous = observation.previous
        state.over = observation.over
        return state

    def scores(self, state: State) -> list[int]:
        return state.totals.copy()

    def result(self, state: State) -> GameResult | None:
        if not state.over:
            return None
        keys: list[tuple[int, ...]] = list(zip(state.totals, state.scored, strict=True))
        ranks = ranks_from_keys(keys)
        tiebreak = ""
        if len(set(state.totals)) < len(state.totals):
            tiebreak = "most cards in the score pile"
            if len(set(keys)) < len(keys):
                tiebreak += "; still tied: shared victory"
        return GameResult(scores=state.totals.copy(), ranks=ranks, tiebreak=tiebreak)

    def clone(self, state: State) -> State:
        return state.copy()

    def broken_invariants(self, state: State) -> list[str]:
        problems = []
        places = [
            *state.hands,
            *state.played,
            *state.piles,
            state.pile,
            state.removed,
            state.discard,
            state.hidden_discard,
        ]
        cards = sorted(card for place in places for card in place)
        if cards != sorted(DECK):
            problems.append(f"{len(cards)} cards, not the 100 of the deck")
        if any(len(hand) > HAND_SIZE for hand in state.hands):
            problems.append(f"a hand over {HAND_SIZE}: {[len(h) for h in state.hands]}")
        if any(hand != sorted(hand) for hand in state.hands):
            problems.append("a hand is not sorted")
        if any(score < 0 for score in state.totals):
            problems.append(f"a negative score: {state.totals}")
        return problems

    def render(self, state: State) -> str:
        variant = "long" if state.long else "standard"
        if state.over:
            head = f"5211 {variant}, {state.players} players: game over after round {state.round}"
        else:
            last = ", last round (no refills)" if state.last_round else ""
            head = (
                f"5211 {variant}, {state.players} players: deal {state.deal}, "
                f"round {state.round}, turn {state.turn + 1}{last}"
            )
        lines = [
            head,
            f"draw pile {len(state.pile)}, removed {len(state.removed)}, "
            f"discard {len(state.discard) + len(state.hidden_discard)}",
        ]
        for seat in range(state.players):
            lines.append(
                f"seat {seat}: score {state.totals[seat]}, {state.scored[seat]} card(s) scored"
                f" | hand {_names(state.hands[seat])} | played {_names(state.played[seat])}"
                f" | pile {_names(sorted(state.piles[seat]))}"
            )
        report = state.previous
        if report is not None:
            if report.colour is not None:
                what = f"{COLOURS[report.colour]} was the majority"
            else:
                what = "roosters scored" if report.outcome == "roosters" else "nothing scored"
            gains = ", ".join(str(p) for p in report.points)
            lines.append(f"round {report.round}: {what} (points {gains})")
        return "\n".join(lines)


def _observation(state: State, seat: int, hand: list[int], to_play: int) -> G5211Observation:
    """Ruling 5: the score piles and the discard are public, by count and content."""
    return G5211Observation(
        seat=seat,
        players=state.players,
        variant="long" if state.long else "standard",
        deal=state.deal,
        round=state.round,
        turn=state.turn + 1,
        last_round=state.last_round,
        to_play=to_play,
        hand=_cards(hand),
        played=[_cards(cards) for cards in state.played],
        previous=state.previous,
        scores=state.totals.copy(),
        score_piles=[_cards(sorted(pile)) for pile in state.piles],
        hand_sizes=[len(hand) for hand in state.hands],
        draw_pile=len(state.pile),
        removed=len(state.removed),
        discard=_cards(sorted(state.discard)),
        over=state.over,
        scored=state.scored.copy(),
    )


def _kinds(cards: Sequence[Card]) -> list[int]:
    return [card_kind(card.colour, card.value) for card in cards]


def _names(kinds: Sequence[int]) -> str:
    return " ".join(_name(k) for k in kinds) or "-"
