"""An action that names the same choice in another order means that choice, in every game.

The list fields of actions are sets or multisets (Alhambra's `take` cards, 5211's `play` cards,
Summer Pavilion's `pass` keep, Azul's `split` left and right): `legal` lists each choice once,
in one order, but a bot may list the same cards or colours in any other (the offer's draw
order, say). Before, Alhambra refused a take whose cards came in offer order — a forfeit for
a legal move — and Summer Pavilion a keep not in ascending order. Every game of the registry is
played out at random; at each decision, legal actions are submitted with each list reversed
and must give exactly the state the legal spelling gives.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from test_conformance import CASES, snapshot, start

from referee.games import Game

CHECKED_PER_DECISION = 3
"""Respelled actions tried at each decision (Summer Pavilion offers 210 passes at once)."""


def respelled(action: Any) -> Any | None:
    """`action` with every list field of two or more items reversed, or None if that changes
    nothing (no such field, or only palindromes like two equal cards)."""
    changes = {
        field: tuple(reversed(value))
        for field in action.__struct_fields__
        if isinstance(value := getattr(action, field), tuple) and len(value) > 1
    }
    if not changes or all(changes[field] == getattr(action, field) for field in changes):
        return None
    return msgspec.structs.replace(action, **changes)


def after(game: Game[Any], state: Any, actions: dict[int, Any]) -> Any:
    twin = game.clone(state)
    game.apply(twin, actions)
    return snapshot(twin)


@pytest.mark.parametrize(("game_id", "options", "players"), CASES)
def test_a_list_in_another_order_is_the_same_action(
    game_id: str, options: dict[str, Any], players: int
) -> None:
    game, state = start(game_id, options, players, seed=3)
    rng = random.Random(f"{game_id}/{players}")
    respelled_seen = 0
    while not game.is_over(state):
        joint = {seat: rng.choice(game.legal(state, seat)) for seat in game.to_act(state)}
        for seat in joint:
            others = [respelled(action) for action in game.legal(state, seat)]
            candidates = [
                (legal, other)
                for legal, other in zip(game.legal(state, seat), others, strict=True)
                if other is not None
            ]
            for legal, other in rng.sample(candidates, min(CHECKED_PER_DECISION, len(candidates))):
                assert after(game, state, {**joint, seat: other}) == after(
                    game, state, {**joint, seat: legal}
                ), f"{other!r} was not taken as {legal!r}"
                respelled_seen += 1
        game.apply(state, joint)
    if game_id in ("alhambra", "5211", "summer-pavilion"):
        assert respelled_seen > 0  # the game has such actions: some were tried
