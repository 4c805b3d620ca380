"""The Python SDK speaks the protocol: typed observations, index or action answers, reuse."""

from __future__ import annotations

import io
import random
from typing import Any

import msgspec

from bots.sdk import Context, run
from protocol import (
    Act,
    Answer,
    Clock,
    End,
    Quit,
    Start,
    TimeControl,
    encode_line,
    from_bot_decoder,
)
from referee.games import find_game
from referee.games.azul import AzulObservation, Take


def _session(game_id: str, players: int, seed: int) -> tuple[list[bytes], Any]:
    """The referee's side of one game: start, the first act of seat 0, end, then quit."""
    game = find_game(game_id)
    state = game.new(players, seed, game.Options())
    start = Start(
        protocol=1,
        game=game_id,
        options={},
        seat=0,
        players=players,
        time=TimeControl(),
        seed=99,
    )
    act = Act(
        id=1,
        observation=game.observe(state, 0),
        legal=game.legal(state, 0),
        clock=Clock(move_ms=1000, bank_ms=0),
    )
    end = End(scores=[0] * players, ranks=[1] * players, reason="game over")
    return [encode_line(m) for m in (start, act, end, start, act, Quit())], game.legal(state, 0)


def test_typed_observation_and_index_answer() -> None:
    lines, legal = _session("azul", 2, 5)
    seen: list[tuple[Any, list[Any], Context]] = []

    def choose(observation: Any, legal: list[Any], context: Context) -> int:
        seen.append((observation, legal, context))
        return len(legal) - 1

    out = io.BytesIO()
    run(choose, name="t", stdin=io.BytesIO(b"".join(lines)), stdout=out)
    answers = [from_bot_decoder.decode(line) for line in out.getvalue().splitlines()]
    assert [type(a).__name__ for a in answers] == ["Ready", "Answer", "Ready", "Answer"]
    assert answers[1] == Answer(id=1, index=len(legal) - 1)
    observation, typed_legal, context = seen[0]
    assert isinstance(observation, AzulObservation)
    assert all(isinstance(action, Take) for action in typed_legal)
    assert typed_legal == legal
    assert (context.game, context.seat, context.players) == ("azul", 0, 2)
    # The bot's RNG is seeded from `start.seed` (99), afresh for every game.
    assert context.rng.random() == random.Random(99).random()
    assert seen[1][2] is not context


def test_action_answers_are_encoded_as_objects() -> None:
    lines, legal = _session("5211", 3, 2)

    def choose(observation: Any, legal: list[Any], context: Context) -> Any:
        return legal[0]

    out = io.BytesIO()
    run(choose, stdin=io.BytesIO(b"".join(lines[:2])), stdout=out)
    answer = from_bot_decoder.decode(out.getvalue().splitlines()[1])
    assert isinstance(answer, Answer) and answer.index is None
    game = find_game("5211")
    assert msgspec.json.decode(answer.action, type=game.Action) == legal[0]
