"""Every message of the bot protocol as a msgspec Struct (docs/protocol.md is the contract).

One JSON object per line, `type` tag first. Two tagged unions, one per direction. What bots send
is decoded strictly (unknown fields are a fault, so typos are caught); what the referee sends
may grow new fields with defaults, so bots should ignore fields they do not know.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

PROTOCOL_VERSION = 1
DEFAULT_MAX_LINE_BYTES = 1 << 20

TimeMode = Literal["wall", "cpu"]
"""What a decision is charged: the wall-clock time from `act` to the answer, or the bot's CPU
time in it."""
CPU_MODE_WALL_CAP = 30
"""In cpu time mode, the longest wait for an answer, in multiples of the limit (in wall-clock
time), however the bot works meanwhile (`referee.backstop`): a bot given too small a share of
a loaded machine must answer by then."""


class TimeControl(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The clock rules of a match, in milliseconds.

    Each decision may take `move_ms`; with a bank, time beyond `move_ms` is drawn from the bank,
    and `increment_ms` is added to the bank after every decision (Fischer). `startup_ms` bounds
    the time from process start to `ready`.
    """

    move_ms: int = 1000
    bank_ms: int = 0
    increment_ms: int = 0
    startup_ms: int = 10_000
    first_move_ms: int = 0
    """Added to `move_ms` for a game's first decision only (a JIT's or class loader's first
    work falls there); the `act` clock of that decision includes it."""


class Clock(msgspec.Struct, frozen=True):
    """Time available for this one decision: `move_ms` plus whatever is left in the bank."""

    move_ms: int
    bank_ms: int


# ---- referee -> bot -------------------------------------------------------------------------


class ToBot(msgspec.Struct, tag_field="type", tag=str.lower):
    """Base of the messages the referee sends."""


class Start(ToBot):
    """A game begins; the bot answers `ready`. Several games may follow on one process."""

    protocol: int
    game: str
    options: dict[str, Any]
    seat: int
    players: int
    time: TimeControl
    match: str = ""
    seed: int = 0
    """A seed for the bot's own randomness (63 bits), never derived from the game's seed: keyed
    by the tournament's secret, or random in `arena match` (`--bot-seed` fixes it), so a bot can
    be reproducible without learning anything about the game's hidden draws."""
    time_mode: TimeMode = "wall"
    """The clock `time` and every `act`'s `clock` are measured on: "cpu" charges the bot's CPU
    time, so a bot can budget its search in CPU time and a loaded machine does not weaken it."""


class Act(ToBot):
    """A decision: answer `action` with the same id, giving an action or an index into `legal`."""

    id: int
    observation: Any
    legal: list[Any]
    clock: Clock


class End(ToBot):
    """The game is over (normally or by a fault); another `start` or `quit` follows."""

    scores: list[int]
    ranks: list[int]
    reason: str


class Quit(ToBot):
    """No more games: exit now (the referee kills the process group shortly after)."""


ToBotMessage = Start | Act | End | Quit


# ---- bot -> referee -------------------------------------------------------------------------


class FromBot(
    msgspec.Struct, tag_field="type", tag=str.lower, forbid_unknown_fields=True, omit_defaults=True
):
    """Base of the messages a bot sends; decoded strictly."""


class Ready(FromBot):
    """The bot has read `start` and is ready to play."""

    name: str = ""


class Answer(FromBot, tag="action"):
    """The answer to `act` number `id`: exactly one of `action` (an object) or `index`."""

    id: int
    action: msgspec.Raw = msgspec.Raw()
    """The action object, kept undecoded until the game's type is known (empty when absent)."""
    index: int | None = None


FromBotMessage = Ready | Answer

to_bot_encoder = msgspec.json.Encoder()
from_bot_decoder = msgspec.json.Decoder(FromBotMessage)
to_bot_decoder = msgspec.json.Decoder(ToBotMessage)
from_bot_encoder = msgspec.json.Encoder()


def encode_line(message: msgspec.Struct) -> bytes:
    """One message as a JSON line (the framing both directions use)."""
    return to_bot_encoder.encode(message) + b"\n"


_ACT_LINE = (
    b'{"type":"act","id":%d,"observation":%b,"legal":%b,"clock":{"move_ms":%d,"bank_ms":%d}}\n'
)


def encode_act(id: int, observation: Any, legal: list[Any], clock: Clock) -> bytes:
    """`encode_line(Act(id, observation, legal, clock))`, byte for byte, with the constant parts
    written once: the referee sends one per decision."""
    observed, actions = to_bot_encoder.encode(observation), to_bot_encoder.encode(legal)
    return _ACT_LINE % (id, observed, actions, clock.move_ms, clock.bank_ms)
