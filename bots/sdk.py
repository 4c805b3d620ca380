"""A tiny SDK for Python bots: a bot is one function of (observation, legal, context) -> action.

    from bots.sdk import run

    def choose(observation, legal, context):
        return 0                      # an index into `legal`, or one of its actions

    if __name__ == "__main__":
        run(choose, name="first-legal")

`run` speaks the protocol on stdin/stdout (docs/protocol.md): it answers `start` with `ready`,
decodes each `act` into the game's typed observation and actions, and keeps the process alive
across the games the referee plays with it. Logging goes to stderr, never stdout.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, Generic, TypeVar

import msgspec

from protocol.messages import (
    Answer,
    Clock,
    End,
    Quit,
    Ready,
    Start,
    TimeControl,
    TimeMode,
    ToBot,
)
from referee.games import find_game

Obs = TypeVar("Obs")
Act = TypeVar("Act")


class _TypedAct(ToBot, Generic[Obs, Act], tag="act"):
    """`act` as the SDK decodes it: observation and legal actions typed by the game."""

    id: int
    observation: Obs
    legal: list[Act]
    clock: Clock


@dataclass
class Context:
    """What a bot knows about the game in progress besides the observation."""

    game: str
    seat: int
    players: int
    options: dict[str, Any]
    time: TimeControl
    rng: random.Random
    clock: Clock = field(default_factory=lambda: Clock(move_ms=0, bank_ms=0))
    time_mode: TimeMode = "wall"
    """What the referee charges a decision: its wall-clock time, or the bot's CPU time in it."""


Choose = Callable[[Any, list[Any], Context], Any]
"""Returns an index into `legal` or an action (one of `legal`, or an equal struct)."""


class _Session:
    """Decoders for one game id, built once per game kind (not per decision)."""

    def __init__(self, game_id: str) -> None:
        game = find_game(game_id)
        typed_act = _TypedAct[game.Observation, game.Action]  # type: ignore[name-defined]
        self.decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(
            Start | typed_act | End | Quit
        )


def run(
    choose: Choose,
    name: str = "bot",
    *,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
) -> None:
    """Play every game the referee starts until `quit` or end of input."""
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout.buffer
    encoder = msgspec.json.Encoder()
    start_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(Start | End | Quit)
    sessions: dict[str, _Session] = {}
    decoder = start_decoder
    context: Context | None = None

    def send(message: msgspec.Struct) -> None:
        writer.write(encoder.encode(message) + b"\n")
        writer.flush()

    for line in reader:
        message = decoder.decode(line)
        if isinstance(message, Start):
            session = sessions.get(message.game)
            if session is None:
                session = sessions[message.game] = _Session(message.game)
            decoder = session.decoder
            context = Context(
                game=message.game,
                seat=message.seat,
                players=message.players,
                options=message.options,
                time=message.time,
                rng=random.Random(message.seed),
                time_mode=message.time_mode,
            )
            send(Ready(name=name))
        elif isinstance(message, _TypedAct):
            assert context is not None, "the referee sent `act` before `start`"
            context.clock = message.clock
            choice = choose(message.observation, message.legal, context)
            if isinstance(choice, int):
                send(Answer(id=message.id, index=choice))
            else:
                send(Answer(id=message.id, action=msgspec.Raw(encoder.encode(choice))))
        elif isinstance(message, Quit):
            return
