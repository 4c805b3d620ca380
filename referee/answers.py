"""Turn a line a bot sent into the message it must be, or a `BotFault` saying why it is not.

Pure functions, no I/O: the checks every reply goes through (strict decoding, the right message
type, the right id, exactly one of `action`/`index`, the index in range, the action object fitting
the game's Action type). Legality itself is the engine's business (see `referee.match`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from protocol.messages import Answer, FromBotMessage, Ready, from_bot_decoder
from referee.faults import BotFault, excerpt


def decode_message(line: bytes, expected: str) -> FromBotMessage:
    """Decode one line strictly; `expected` names the message wanted, for the reasons."""
    try:
        return from_bot_decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise BotFault(
            "schema", f"sent {excerpt(line)}, which is not a valid `{expected}` message: {exc}"
        ) from None
    except msgspec.DecodeError as exc:
        raise BotFault(
            "malformed", f"sent {excerpt(line)}, which is not a JSON message ({exc})"
        ) from None


def decode_ready(line: bytes) -> Ready:
    """The `ready` that must answer `start`."""
    message = decode_message(line, "ready")
    if not isinstance(message, Ready):
        raise BotFault("schema", f"sent {excerpt(line)} in answer to `start`; expected `ready`")
    return message


def decode_answer(line: bytes, decision: int, legal: Sequence[Any], action_type: Any) -> Any:
    """The action that an answer line to `act` number `decision` stands for.

    An `index` picks from `legal`; an `action` object is decoded into the game's `action_type`
    (its legality is checked by the caller against the engine).
    """
    message = decode_message(line, "action")
    if not isinstance(message, Answer):
        raise BotFault(
            "schema",
            f"sent {excerpt(line)} in answer to `act` {decision}; expected an `action` message",
        )
    if message.id != decision:
        raise BotFault(
            "wrong_id", f"answered decision {message.id}, but decision {decision} was asked"
        )
    has_action = len(message.action) > 0
    if has_action == (message.index is not None):
        which = "both" if has_action else "neither"
        raise BotFault(
            "schema",
            f"an `action` message needs exactly one of `action` or `index`; "
            f"the answer to decision {decision} had {which}",
        )
    if message.index is not None:
        if not 0 <= message.index < len(legal):
            raise BotFault(
                "bad_index",
                f"index {message.index} is out of range: decision {decision} has "
                f"{len(legal)} legal actions (0..{len(legal) - 1})",
            )
        return legal[message.index]
    try:
        return msgspec.json.decode(message.action, type=action_type)
    except msgspec.ValidationError as exc:
        where = str(exc).replace("- at `$", "- at `$.action")
        if "- at `$" not in where:
            where += " - at `$.action`"
        raise BotFault(
            "schema",
            f"the action {excerpt(bytes(message.action))} does not fit the game's actions: {where}",
        ) from None
