"""Whatever bytes a bot sends are its fault or a valid message, never an exception in the referee.

The decoders (`referee.answers`) get arbitrary bytes, arbitrary JSON and action objects of both
games; a decoded action then goes through the match loop's own legality probe
(`_Match.refusal`), where anything but `IllegalAction` from the engine would be a referee error.
"""

from __future__ import annotations

import json
import random
import sys
from types import SimpleNamespace
from typing import Any, cast

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refhelp import BOTS, Bots

from protocol.messages import TimeControl
from referee import BotSpec, Limits, run_match
from referee.answers import decode_answer, decode_ready
from referee.faults import FAULT_KINDS, BotFault
from referee.games import find_game, parse_options
from referee.match import _Match

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
"""Any JSON value (NaN and infinities come out as json.dumps writes them: not JSON at all)."""

KEYS = st.sampled_from(["type", "id", "index", "action", "name"]) | st.text(max_size=6)


def object_line(pairs: list[tuple[str, Any]], ascii_only: bool = True) -> bytes:
    """A JSON object written pair by pair, so that it may repeat a key."""
    body = ",".join(
        f"{json.dumps(key, ensure_ascii=ascii_only)}:{json.dumps(value, ensure_ascii=ascii_only)}"
        for key, value in pairs
    )
    return ("{" + body + "}").encode("utf-8", errors="surrogatepass")


def repeats_a_key(data: bytes) -> bool:
    """Whether some object in `data` has a key twice (for JSON that Python parses)."""
    repeated = False

    def pairs(items: list[tuple[str, Any]]) -> None:
        nonlocal repeated
        keys = [key for key, _ in items]
        repeated = repeated or len(set(keys)) < len(keys)

    json.loads(data, object_pairs_hook=pairs)
    return repeated


# ---- a few real positions of each game, with their legal lists ------------------------------

POSITIONS: list[tuple[str, dict[str, Any], int, int]] = [
    # (game, options, players, random decisions played from the start)
    ("azul", {}, 2, 0),
    ("azul", {}, 3, 11),
    ("azul", {"variant": "grey", "special_factories": True}, 2, 9),
    ("azul", {"variant": "grey", "special_factories": True}, 4, 25),
    ("azul", {"variant": "grey"}, 2, 40),
    ("5211", {}, 2, 0),
    ("5211", {}, 3, 4),
    ("5211", {"variant": "long"}, 5, 9),
]


def position(index: int, seed: int) -> tuple[Any, Any, tuple[int, ...], dict[int, list[Any]]]:
    """(engine, state, seats to act, their legal actions) after random play from `seed`."""
    game_id, options, players, moves = POSITIONS[index]
    game = find_game(game_id)
    state = game.new(players, seed, parse_options(game, options))
    rng = random.Random(seed)
    for _ in range(moves):
        to_act = game.to_act(state)
        if not to_act:
            break
        game.apply(state, {seat: rng.choice(game.legal(state, seat)) for seat in to_act})
    to_act = game.to_act(state)
    assert to_act, "every listed position is before the end of its game"
    return game, state, to_act, {seat: game.legal(state, seat) for seat in to_act}


def judge(line: bytes, index: int, seed: int, seat_pick: int) -> BotFault | None:
    """What the referee makes of `line` as an answer in that position: a fault, or None for an
    action the engine accepts. Any other exception fails the test."""
    game, state, to_act, legal = position(index, seed)
    seat = to_act[seat_pick % len(to_act)]
    try:
        action = decode_answer(line, 3, legal[seat], game.Action)
    except BotFault as fault:
        return checked(fault)
    probe = SimpleNamespace(game=game, state=state, decision=3)
    refusal = _Match.refusal(cast(_Match, probe), to_act, legal, seat, action)
    return None if refusal is None else checked(refusal)


def checked(fault: BotFault) -> BotFault:
    assert fault.kind in FAULT_KINDS
    assert fault.reason
    return fault


def answer(action: Any) -> bytes:
    return object_line([("type", "action"), ("id", 3), ("action", action)])


# ---- arbitrary bytes and arbitrary JSON ------------------------------------------------------

VALID = [
    b'{"type":"ready","name":"me"}',
    b'{"type":"action","id":3,"index":0}',
    b'{"type":"action","id":3,"action":{"type":"take","source":0,"colour":1,"line":2}}',
    b'{"type":"action","id":3,"action":{"type":"play","cards":[{"colour":1,"value":2}]}}',
]


@st.composite
def hostile_lines(draw: st.DrawFn) -> bytes:
    """Random bytes, or a valid line with random bytes spliced in, dropped or overwritten."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=120))
    line = draw(st.sampled_from(VALID))
    start = draw(st.integers(0, len(line)))
    end = draw(st.integers(start, len(line)))
    return line[:start] + draw(st.binary(max_size=8)) + line[end:]


@FAST
@given(line=hostile_lines(), index=st.integers(0, len(POSITIONS) - 1), seed=st.integers(0, 99))
def test_any_bytes_are_a_fault_or_a_message(line: bytes, index: int, seed: int) -> None:
    try:
        decode_ready(line)
    except BotFault as fault:
        checked(fault)
    judge(line, index, seed, 0)


@FAST
@given(
    pairs=st.lists(
        st.tuples(KEYS, JSON_VALUES | st.sampled_from(["ready", "action", 3])), max_size=5
    ),
    ascii_only=st.booleans(),
)
def test_any_json_object_is_a_fault_or_a_message(
    pairs: list[tuple[str, Any]], ascii_only: bool
) -> None:
    line = object_line(pairs, ascii_only)
    for decode in (decode_ready, lambda data: decode_answer(data, 3, ["a", "b"], int)):
        try:
            decode(line)
        except BotFault as fault:
            checked(fault)
        else:
            assert not repeats_a_key(line)  # a decoded message never had a key twice


class Pairs(list[tuple[str, Any]]):
    """A JSON object as its key-value pairs in order (so that a key may come twice)."""


def dump(node: Any) -> str:
    if isinstance(node, Pairs):
        return "{" + ",".join(f"{json.dumps(key)}:{dump(value)}" for key, value in node) + "}"
    if isinstance(node, list):
        return "[" + ",".join(dump(item) for item in node) + "]"
    return json.dumps(node)


def as_pairs(value: Any) -> Any:
    if isinstance(value, dict):
        return Pairs((key, as_pairs(item)) for key, item in value.items())
    if isinstance(value, list):
        return [as_pairs(item) for item in value]
    return value


def objects_in(node: Any) -> list[Pairs]:
    if isinstance(node, Pairs):
        return [node, *(found for _, value in node for found in objects_in(value))]
    if isinstance(node, list):
        return [found for item in node for found in objects_in(item)]
    return []


@FAST
@given(
    line=st.sampled_from(VALID),
    which=st.integers(0, 10),
    key=st.integers(0, 10),
    at=st.integers(0, 10),
    value=st.sampled_from([None, "ready", "action", "take", "play", 0, 1, 3, [], [1]])
    | st.integers()
    | st.text(max_size=4),
)
def test_a_valid_message_with_a_key_repeated_anywhere_is_malformed(
    line: bytes, which: int, key: int, at: int, value: Any
) -> None:
    message = as_pairs(json.loads(line))
    objects = objects_in(message)
    target = objects[which % len(objects)]
    name = target[key % len(target)][0]
    target.insert(at % (len(target) + 1), (name, value))
    hostile = dump(message).encode()
    if b'"ready"' in line:
        with pytest.raises(BotFault) as info:
            decode_ready(hostile)
        fault: BotFault | None = info.value
    else:
        fault = judge(hostile, 5 if b'"play"' in line else 0, 1, 0)
    assert fault is not None
    if fault.kind != "schema":  # a value of the wrong type may be seen first
        assert fault.kind == "malformed", fault.reason
        assert f"the key {name!r} twice" in fault.reason, fault.reason


@FAST
@given(value=JSON_VALUES)
def test_any_json_value_is_a_fault_or_a_message(value: Any) -> None:
    line = json.dumps(value).encode()
    for decode in (decode_ready, lambda data: decode_answer(data, 3, ["a"], int)):
        try:
            decode(line)
        except BotFault as fault:
            checked(fault)


# ---- action objects for both games, judged by the engines -------------------------------------

SMALL_INTS = st.integers(-2, 7) | st.sampled_from([2**31, 2**63 - 1, 2**63, -(2**63), 10**30])
CARDS = st.lists(
    st.fixed_dictionaries({"colour": SMALL_INTS, "value": SMALL_INTS})
    | st.dictionaries(st.sampled_from(["colour", "value", "x"]), SMALL_INTS, max_size=3),
    max_size=3,
)
SHAPES: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "take": {"source": SMALL_INTS, "colour": SMALL_INTS, "line": SMALL_INTS},
    "place": {"row": SMALL_INTS, "column": SMALL_INTS},
    "split": {"left": st.lists(SMALL_INTS, max_size=6), "right": st.lists(SMALL_INTS, max_size=6)},
    "play": {"cards": CARDS},
}
"""The actions of both games: each tag with its fields and values around the rules' edges."""


@st.composite
def action_objects(draw: st.DrawFn) -> Any:
    """Mostly action-shaped objects (a real tag, its fields, edge values), some anything."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON_VALUES)
    tag = draw(st.sampled_from([*SHAPES, "Take", ""]))
    action: dict[str, Any] = {"type": tag}
    for field, values in SHAPES.get(tag, {}).items():
        if draw(st.integers(0, 9)):  # now and then a field is missing
            action[field] = draw(values)
    if draw(st.integers(0, 9)) == 0:  # now and then one is wrong or unknown
        field = draw(st.sampled_from(["source", "row", "left", "cards", "value", "x"]))
        action[field] = draw(JSON_VALUES)
    return action


@FAST
@given(
    action=action_objects(),
    index=st.integers(0, len(POSITIONS) - 1),
    seed=st.integers(0, 99),
    seat=st.integers(0, 4),
)
def test_any_action_object_is_a_fault_or_legal(
    action: Any, index: int, seed: int, seat: int
) -> None:
    judge(answer(action), index, seed, seat)


@FAST
@given(
    index=st.integers(0, len(POSITIONS) - 1),
    seed=st.integers(0, 99),
    pick=st.integers(0, 10_000),
    field=st.integers(0, 5),
    value=SMALL_INTS | st.lists(SMALL_INTS, max_size=3),
)
def test_a_legal_action_with_one_field_changed_is_a_fault_or_legal(
    index: int, seed: int, pick: int, field: int, value: Any
) -> None:
    """Near misses reach the engines' rule checks rather than the decoder's."""
    _, _, to_act, legal = position(index, seed)
    seat = to_act[0]
    action = json.loads(json.dumps(msgspec.to_builtins(legal[seat][pick % len(legal[seat])])))
    keys = [key for key in action if key != "type"]
    if keys:
        action[keys[field % len(keys)]] = value
    judge(answer(action), index, seed, 0)


def test_every_legal_action_sent_as_an_object_is_accepted() -> None:
    for index in range(len(POSITIONS)):
        _, _, to_act, legal = position(index, 1)
        for action in legal[to_act[0]]:
            assert judge(answer(msgspec.to_builtins(action)), index, 1, 0) is None


# ---- the attacks of the issue, one by one ------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"type":"ready","name":"caf\xe9"}', "not UTF-8 (byte 0xe9 at offset 27"),
        (b'{"type":"ready","na\xffme":"x"}', "not UTF-8 (byte 0xff"),
        (b'{"type":"ready","name":"\xed\xa0\x80"}', "not UTF-8"),  # a UTF-16 surrogate
        (b'{"type":"ready","name":"x","name":"y"}', "has the key 'name' twice"),
        (b'{"type":"ready","type":"ready"}', "has the key 'type' twice"),
        (b"[" * 100_000, ""),
        (b'{"type":"ready","name":' + b"[" * 100_000, ""),
    ],
)
def test_hostile_ready(line: bytes, reason: str) -> None:
    with pytest.raises(BotFault) as info:
        decode_ready(line)
    assert info.value.kind in ("malformed", "schema")
    assert reason in info.value.reason
    assert len(info.value.reason) < 400


@pytest.mark.parametrize(
    ("line", "kind", "reason"),
    [
        (
            b'{"type":"action","id":3,"action":{"type":"take","source":"\xff"}}',
            "malformed",
            "not UTF-8 (byte 0xff at offset 58",
        ),
        (  # inside a value msgspec skips without looking: still not UTF-8
            b'{"type":"action","id":3,"action":{"type":"take","x":["\xc3"]}}',
            "malformed",
            "not UTF-8",
        ),
        (
            b'{"type":"action","id":3,"action":' + b"[" * 100_000,
            "malformed",
            "nested too deeply",
        ),
        (
            b'{"type":"action","id":3,"action":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
            "malformed",
            "nested too deeply",
        ),
        (b'{"type":"action","id":2,"id":3,"index":0}', "malformed", "the key 'id' twice"),
        (b'{"type":"action","id":3,"index":9,"index":0}', "malformed", "the key 'index' twice"),
        (
            b'{"type":"action","id":3,"action":{"type":"take","source":0,"colour":1,'
            b'"line":2,"colour":0}}',
            "malformed",
            'the action \'{"type":"take","source":0,"colour":1,"line":2,"colour":0}\', '
            "in which an object has the key 'colour' twice",
        ),
        (
            b'{"type":"action","id":3,"action":{"type":"split","left":[],"left":[1]}}',
            "malformed",
            "the key 'left' twice",
        ),
    ],
)
def test_hostile_azul_answers(line: bytes, kind: str, reason: str) -> None:
    fault = judge(line, 0, 1, 0)
    assert fault is not None
    assert (fault.kind, reason in fault.reason) == (kind, True), fault.reason


def test_a_repeated_key_inside_a_card_of_5211() -> None:
    line = answer({"type": "play", "cards": [{"colour": 1, "value": 2}]}).replace(
        b'"value": 2', b'"value": 2, "value": 3'
    )
    fault = judge(line, 5, 1, 0)
    assert fault is not None and "the key 'value' twice" in fault.reason


def test_colons_in_strings_do_not_make_a_duplicate() -> None:
    ready = decode_ready(b'{"type":"ready","name":"a:b:c:d:e"}')
    assert ready.name == "a:b:c:d:e"
    line = b'{"type":"action","id":3,"action":{"type":"split","left":[],"right":[]}}'
    fault = judge(line, 2, 1, 0)  # a split decoded with both lists at their defaults
    assert fault is None or "twice" not in fault.reason


# ---- end to end: a real bot that sends invalid UTF-8 ---------------------------------------------

BAD_UTF8_BOT = f"""
import sys
sys.path.insert(0, {str(BOTS)!r})
import botlib
botlib.play(
    lambda m: b'{{"type":"action","id":%d,"action":{{"type":"take","source":"\\xff"}}}}' % m["id"],
    sys.argv[1:],
)
"""


@pytest.mark.parametrize("game_id", ["azul", "5211"])
async def test_a_bot_sending_invalid_utf8_forfeits_and_the_match_finishes(
    bots: Bots, game_id: str
) -> None:
    spec = BotSpec(
        "bad-utf8", [sys.executable, "-c", BAD_UTF8_BOT, bots.marker], files=(str(BOTS),)
    )
    outcome = await run_match(
        game_id,
        {},
        7,
        [bots.healthy(), spec, bots.healthy(name="third")],
        TimeControl(move_ms=5000, startup_ms=20_000),
        limits=Limits(sandbox="none"),  # what is under test is the referee, not the sandbox
    )
    faults = [(fault.seat, fault.kind) for fault in outcome.faults]
    assert faults == [(1, "malformed")]
    assert "not UTF-8 (byte 0xff" in outcome.faults[0].reason
    ranks = outcome.result.ranks
    assert ranks[1] > max(ranks[0], ranks[2])  # the faulty seat is last
    assert outcome.moves[0] > 0
    bots.assert_none_left()


PADDED_BOT = f"""
import sys
sys.path.insert(0, {str(BOTS)!r})
import botlib
size = int(sys.argv[1])
def answer(m):
    line = b'{{"type":"action","id":%d,"index":0}}' % m["id"]
    return line + b" " * (size - len(line))  # JSON may end in spaces: a line of exactly size
botlib.play(answer, sys.argv[2:])
"""


@pytest.mark.parametrize("extra", [0, 1])
async def test_the_line_limit_is_exact_for_a_real_bot(bots: Bots, extra: int) -> None:
    """Answer lines of exactly max_line_bytes bytes, newline included, pass; one more forfeits."""
    limit = 300
    padded = BotSpec(
        "padded",
        [sys.executable, "-c", PADDED_BOT, str(limit - 1 + extra), bots.marker],
        files=(str(BOTS),),
    )
    outcome = await run_match(
        "azul",
        {},
        3,
        [padded, bots.healthy()],
        TimeControl(move_ms=5000, startup_ms=20_000),
        limits=Limits(sandbox="none", max_line_bytes=limit),
    )
    if extra:
        assert [(fault.seat, fault.kind) for fault in outcome.faults] == [(0, "line_too_long")]
        assert f"longer than {limit} bytes" in outcome.faults[0].reason
    else:
        assert outcome.faults == []
        assert outcome.moves[0] > 10  # a whole game of answers at the limit
    bots.assert_none_left()
