"""A state consistent with one seat's observation: what the search bot simulates from.

A bot receives only its observation, never the referee's state. `state_from_observation`
builds an engine state that gives back exactly that observation (`game.observe(state, seat)`
equals it; tests/bots/test_mcts.py checks this over whole games of every game and variant),
with every part the seat cannot see filled in at random from `rng`: Azul's future draws (the
seed), 5211's other hands, draw pile and removed cards. The search then samples further worlds
from it with `Game.determinize`.

This reads the engines' state classes directly; it belongs in the engine interface as
`Game.from_observation(observation, rng)` (one per game, next to `observe`), and moves there
when the engine layer has it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from referee.games.azul import POWER_NAMES, AzulObservation, AzulState
from referee.games.g5211 import DECK, Card, Observation, State, card_kind

_AZUL_PHASES = ("take", "split", "place", "over")
"""`Decision.kind` by the engine's phase number (the order of `AzulState.phase`)."""
_NO_DISC, _DISC_EMPTY = -2, -1
"""`AzulState.extra`: the extra floor disc not held, held and empty (else its tile's colour)."""


def _azul(observation: AzulObservation, rng: random.Random) -> AzulState:
    """Everything in Azul is public but the order of future draws, which the seed decides."""
    players = len(observation.players)
    state = AzulState(
        players, rng.getrandbits(63), observation.variant == "grey", observation.special_factories
    )
    decision = observation.decision
    state.round = observation.round
    state.bag.tiles = observation.bag[:]
    state.bag.lid = observation.lid[:]
    state.offer.factories = [group[:] for group in observation.factories]
    state.offer.centre = observation.centre[:]
    state.offer.marker = observation.marker
    state.powers = [POWER_NAMES.index(name) for name in observation.powers]
    state.start = observation.start_player
    state.phase = _AZUL_PHASES.index(decision.kind)
    state.turn = decision.seat
    state.split_factory = decision.factory
    if decision.kind == "place":
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
    held = any(extra != _NO_DISC for extra in state.extra)
    if held and "extra_floor" in observation.powers:
        state.disc_factory = observation.powers.index("extra_floor")
    state.sync()
    return state


def _kinds(cards: list[Card]) -> list[int]:
    return [card_kind(card.colour, card.value) for card in cards]


def _g5211(observation: Observation, rng: random.Random) -> State:
    """Deal the cards this seat has not seen (the deck minus its hand, the revealed cards, the
    score piles and the discard) at random to the others' hands, the removed cards, the pile and
    the hands discarded face down after a last round."""
    seat, players = observation.seat, observation.players
    state = State()
    state.players = players
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
    state.removed = unseen[: observation.removed]
    cut = observation.removed
    state.hands = []
    for other, size in enumerate(observation.hand_sizes):
        if other == seat:
            state.hands.append(mine)
        else:
            state.hands.append(sorted(unseen[cut : cut + size]))
            cut += size
    state.pile = unseen[cut : cut + observation.draw_pile]
    state.hidden_discard = unseen[cut + observation.draw_pile :]  # hands left at a last round's end
    state.totals = observation.scores[:]
    # The tie-break counts cards scored over the whole game; after a reshuffle of the long
    # variant only those since the shuffle are observable, so earlier ones are not counted.
    state.scored = [len(pile) for pile in state.piles]
    state.deal = observation.deal
    state.round = observation.round
    state.turn = observation.turn - 1
    state.last_round = observation.last_round
    state.checking = observation.deal > 1
    state.previous = observation.previous
    state.over = observation.over
    return state


_BUILDERS: dict[str, Callable[[Any, random.Random], Any]] = {"azul": _azul, "5211": _g5211}


class NoWorldModel(LookupError):
    """The game has no way yet to build a state from an observation, so it cannot be searched."""


def state_from_observation(game_id: str, observation: Any, rng: random.Random) -> Any:
    """A state of `game_id` whose observation for `observation.seat` is `observation`."""
    builder = _BUILDERS.get(game_id)
    if builder is None:
        raise NoWorldModel(f"the mcts bot cannot play {game_id}: no state from an observation")
    return builder(observation, rng)
