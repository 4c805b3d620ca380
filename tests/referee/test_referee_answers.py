"""What bots send, checked without processes: every kind of bad answer and its reason."""

from __future__ import annotations

import msgspec
import pytest

from referee.answers import decode_answer, decode_ready
from referee.faults import BotFault


class Move(msgspec.Struct, tag="move", tag_field="type", forbid_unknown_fields=True):
    to: int


LEGAL = [Move(1), Move(2)]


def fault(line: bytes, decision: int = 4) -> BotFault:
    with pytest.raises(BotFault) as info:
        decode_answer(line, decision, LEGAL, Move)
    return info.value


def test_index_and_action_answers() -> None:
    assert decode_answer(b'{"type":"action","id":4,"index":1}', 4, LEGAL, Move) == Move(2)
    line = b'{"type":"action","id":4,"action":{"type":"move","to":7}}'
    assert decode_answer(line, 4, LEGAL, Move) == Move(7)


@pytest.mark.parametrize(
    ("line", "kind", "reason"),
    [
        (b"hello", "malformed", "sent 'hello', which is not a JSON message"),
        (b"\xff\xfe{", "malformed", "not UTF-8 (byte 0xff at offset 0: invalid start byte)"),
        (b'{"type":"action","id":4,"index":0,"id":4}', "malformed", "the key 'id' twice"),
        (b"[1, 2]", "schema", "Expected `object`, got `array`"),
        (b'{"type":"ready"}', "schema", "in answer to `act` 4; expected an `action` message"),
        (b'{"type":"action","id":4,"index":0,"foo":1}', "schema", "unknown field `foo`"),
        (
            b'{"type":"action","id":"4","index":0}',
            "schema",
            "Expected `int`, got `str` - at `$.id`",
        ),
        (b'{"type":"action","id":3,"index":0}', "wrong_id", "answered decision 3, but decision 4"),
        (b'{"type":"action","id":4}', "schema", "exactly one of `action` or `index`"),
        (
            b'{"type":"action","id":4,"index":0,"action":{"type":"move","to":1}}',
            "schema",
            "had both",
        ),
        (b'{"type":"action","id":4,"index":2}', "bad_index", "index 2 is out of range"),
        (b'{"type":"action","id":4,"index":-1}', "bad_index", "2 legal actions (0..1)"),
        (
            b'{"type":"action","id":4,"action":{"type":"move","to":1,"foo":2}}',
            "schema",
            "unknown field `foo` - at `$.action`",
        ),
        (
            b'{"type":"action","id":4,"action":{"type":"move","to":"x"}}',
            "schema",
            "Expected `int`, got `str` - at `$.action.to`",
        ),
        (b'{"type":"action","id":4,"action":null}', "schema", "at `$.action`"),
    ],
)
def test_bad_answers(line: bytes, kind: str, reason: str) -> None:
    error = fault(line)
    assert error.kind == kind
    assert reason in error.reason


def test_long_garbage_is_shown_truncated_with_its_size() -> None:
    error = fault(b"x" * 5000)
    assert error.kind == "malformed"
    assert "(5000 bytes)" in error.reason
    assert len(error.reason) < 300


def test_ready() -> None:
    assert decode_ready(b'{"type":"ready","name":"me"}').name == "me"
    with pytest.raises(BotFault, match="in answer to `start`; expected `ready`"):
        decode_ready(b'{"type":"action","id":1,"index":0}')
    with pytest.raises(BotFault, match="unknown field `version`"):
        decode_ready(b'{"type":"ready","version":2}')
