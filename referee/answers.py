"""Turn a line a bot sent into the message it must be, or a `BotFault` saying why it is not.

Pure functions, no I/O: the checks every reply goes through (strict decoding, the right message
type, the right id, exactly one of `action`/`index`, the index in range, the action object fitting
the game's Action type). Legality itself is the engine's business (see `referee.match`).

Every byte sequence is the bot's fault or a message, never an exception in the referee: a line
that is not UTF-8, nested too deeply for the decoder, or has an object with a key twice is
`malformed`. msgspec accepts duplicate keys (the last one wins), so they are looked for here,
cheaply: a JSON object's keys are each followed by a `:`, so a line with no more colons than
the keys its decoded message must have had cannot repeat one; only a line with more (a `:` in a
bot's name, say) is parsed again key by key.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec

from protocol.messages import Answer, FromBotMessage, Ready, from_bot_decoder
from referee.faults import BotFault, excerpt


def decode_message(line: bytes, expected: str) -> FromBotMessage:
    """Decode one line strictly; `expected` names the message wanted, for the reasons."""
    if not line.isascii():  # the usual line is ASCII: ~50 ns, no copy
        _check_utf8(line)
    try:
        message: FromBotMessage = from_bot_decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise BotFault(
            "schema", f"sent {excerpt(line)}, which is not a valid `{expected}` message: {exc}"
        ) from None
    except msgspec.DecodeError as exc:
        raise BotFault(
            "malformed", f"sent {excerpt(line)}, which is not a JSON message ({exc})"
        ) from None
    except RecursionError:
        raise _too_deep(line) from None
    if isinstance(message, Answer):
        # Keys certainly present: type, id, and whichever of index and action was given.
        keys = 2 + (message.index is not None)
        skipped = 0
        if message.action:
            keys += 1
            skipped = bytes(message.action).count(b":")  # checked when the action is decoded
    else:
        keys = 1 + (message.name != "")
        skipped = 0
    if line.count(b":") - skipped > keys:
        repeated = _repeated_key(line)
        if repeated is not None:
            raise _twice(f"sent {excerpt(line)}", repeated)
    return message


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
    index = message.index
    if (index is None) == (not message.action):  # neither or both
        which = "neither" if index is None else "both"
        raise BotFault(
            "schema",
            f"an `action` message needs exactly one of `action` or `index`; "
            f"the answer to decision {decision} had {which}",
        )
    if index is not None:
        if not 0 <= index < len(legal):
            raise BotFault(
                "bad_index",
                f"index {index} is out of range: decision {decision} has "
                f"{len(legal)} legal actions (0..{len(legal) - 1})",
            )
        return legal[index]
    raw = bytes(message.action)
    try:
        action = msgspec.json.decode(raw, type=action_type)
    except msgspec.ValidationError as exc:
        where = str(exc).replace("- at `$", "- at `$.action")
        if "- at `$" not in where:
            where += " - at `$.action`"
        raise BotFault(
            "schema", f"the action {excerpt(raw)} does not fit the game's actions: {where}"
        ) from None
    except RecursionError:
        raise _too_deep(raw) from None
    if raw.count(b":") > _keys(action):
        repeated = _repeated_key(raw)
        if repeated is not None:
            raise _twice(f"the action {excerpt(raw)}", repeated)
    return action


def _check_utf8(line: bytes) -> None:
    """A `malformed` fault unless `line` is UTF-8 (msgspec would raise UnicodeDecodeError for a
    bad string, and not look at all inside a value it skips)."""
    try:
        line.decode()
    except UnicodeDecodeError as exc:
        raise BotFault(
            "malformed",
            f"sent {excerpt(line)}, which is not UTF-8 (byte 0x{line[exc.start]:02x} at offset "
            f"{exc.start}: {exc.reason})",
        ) from None


def _too_deep(data: bytes) -> BotFault:
    return BotFault("malformed", f"sent {excerpt(data)}, which is nested too deeply to decode")


def _twice(shown: str, key: str) -> BotFault:
    return BotFault(
        "malformed", f"{shown}, in which an object has the key {key!r} twice (keys must be unique)"
    )


def _repeated_key(data: bytes) -> str | None:
    """The first key found twice in one object of `data` (valid JSON), or None.

    Called only when `data` has more colons than keys its decoded message certainly had: each
    key is followed by a colon, so with no more colons than keys, no key can be repeated.
    """
    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> None:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                found.append(key)
            seen.add(key)

    # Values are not needed: numbers are not even converted (no digit limit to trip on).
    try:
        json.loads(data, object_pairs_hook=pairs, parse_int=_ignore, parse_float=_ignore)
    except RecursionError:  # json's limit may differ from msgspec's
        raise _too_deep(data) from None
    return found[0] if found else None


def _ignore(_: str) -> None:
    return None


def _keys(value: Any) -> int:
    """How many object keys the decoded action `value` certainly came from (a lower bound).

    A struct's tag and each field that differs from its default were keys of the input; a field
    equal to its default may have been absent, so it is not counted.
    """
    kind = type(value)
    layout = _LAYOUTS.get(kind)
    if layout is None:
        if kind is list or kind is tuple:
            return sum(map(_keys, value))
        if not isinstance(value, msgspec.Struct):
            return 0
        layout = _LAYOUTS[kind] = _layout(kind)
    count, fields = layout
    for name, default in fields:
        item = getattr(value, name)
        if default is _REQUIRED or item != default:
            count += 1 if type(item) in _SCALARS else 1 + _keys(item)
    return count


_REQUIRED = object()
_SCALARS = frozenset({int, str, bool, float, type(None)})
_LAYOUTS: dict[type, tuple[int, tuple[tuple[str, Any], ...]]] = {}
"""Per struct type seen: 1 if it is tagged (else 0), and its fields with their defaults."""


def _layout(cls: type[msgspec.Struct]) -> tuple[int, tuple[tuple[str, Any], ...]]:
    tagged = int(cls.__struct_config__.tag_field is not None)
    fields = []
    for field in msgspec.structs.fields(cls):
        if field.default is not msgspec.NODEFAULT:
            default = field.default
        elif field.default_factory is not msgspec.NODEFAULT:
            default = field.default_factory()
        else:
            default = _REQUIRED
        fields.append((field.name, default))
    return tagged, tuple(fields)
