"""Records: the format, replay reproducing the result, and divergences found and explained."""

from __future__ import annotations

import json
import sys
from typing import Any

import msgspec
import pytest
import trio
from refhelp import UNHURRIED, Bots

from protocol.messages import PROTOCOL_VERSION, TimeControl
from referee import BadRecord, Limits, MatchOutcome, parse_record, replay, replay_states, run_match
from referee.faults import Fault
from referee.games import GameResult, find_game
from referee.record import Header, RecordWriter


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> MatchOutcome:
    """One grey-wall game (its `place` sub-decisions included), played once for the module."""
    bots = Bots()
    specs = [bots.healthy(name="a"), bots.healthy("pick=last", name="b")]
    limits = Limits(log_dir=str(tmp_path_factory.mktemp("logs")))

    async def play() -> MatchOutcome:
        return await run_match("azul", {"variant": "grey"}, 3, specs, UNHURRIED, limits=limits)

    played = trio.run(play)
    bots.assert_none_left()
    return played


def lines(record: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.splitlines()]


def test_the_record_format(outcome: MatchOutcome) -> None:
    header, *middle, result = lines(outcome.record)
    assert header == {
        "type": "header",
        "record": 1,
        "protocol": PROTOCOL_VERSION,
        "game": "azul",
        "options": {"variant": "grey", "special_factories": False},
        "seed": 3,
        "match": outcome.match_id,
        "names": ["a", "b"],
        "commands": [header["commands"][0], header["commands"][1]],
        "time": {
            "move_ms": 60000,
            "bank_ms": 0,
            "increment_ms": 0,
            "startup_ms": 60000,
            "first_move_ms": 0,
        },
        "rules": find_game("azul").version,
        "seat_times": None,
        "starts": header["starts"],
    }
    # Each seat's `start` as it was sent (its own seed): what a re-run of one seat sends again.
    assert [start["seat"] for start in header["starts"]] == [0, 1]
    for start in header["starts"]:
        assert start["type"] == "start" and start["match"] == outcome.match_id
        assert start["options"] == header["options"] and start["time"] == header["time"]
        assert 0 <= start["seed"] < 2**63
    assert header["commands"][0][0] == sys.executable
    assert [line["n"] for line in middle] == list(range(1, outcome.decisions + 1))
    first = middle[0]
    assert set(first) == {"type", "n", "actions", "ms", "fallback"}
    assert list(first["actions"]) == ["0"] and first["fallback"] == []
    assert msgspec.convert(first["actions"]["0"], find_game("azul").Action)
    assert result == {
        "type": "result",
        "scores": outcome.result.scores,
        "ranks": outcome.result.ranks,
        "tiebreak": outcome.result.tiebreak,
        "decisions": outcome.decisions,
    }


def test_replay_reproduces_the_result(outcome: MatchOutcome) -> None:
    report = replay(outcome.record)
    assert report.identical
    assert report.divergence is None
    assert report.replayed == report.recorded == outcome.result
    assert report.decisions == outcome.decisions
    assert (report.game, report.seed, report.names) == ("azul", 3, ["a", "b"])


def test_replay_states_show_every_decision(outcome: MatchOutcome) -> None:
    frames = list(replay_states(outcome.record))
    assert [n for n, _ in frames] == list(range(outcome.decisions + 1))
    assert all(isinstance(text, str) and text for _, text in frames)


def _rewrite(record: bytes, n: int, change: dict[str, Any]) -> bytes:
    out = []
    for line in lines(record):
        if line["type"] == "decision" and line["n"] == n:
            line.update(change)
        out.append(json.dumps(line).encode())
    return b"\n".join(out)


def test_a_changed_action_is_found(outcome: MatchOutcome) -> None:
    bogus = {"actions": {"0": {"type": "take", "source": 0, "colour": 0, "line": 9}}}
    report = replay(_rewrite(outcome.record, 1, bogus))
    assert not report.identical
    assert report.decisions == 0
    assert report.divergence is not None
    assert report.divergence.startswith("decision 1: the recorded action is refused: ")


def test_a_changed_seat_is_found(outcome: MatchOutcome) -> None:
    first = lines(outcome.record)[1]["actions"]["0"]
    report = replay(_rewrite(outcome.record, 1, {"actions": {"1": first}}))
    assert report.divergence == (
        "decision 1: the recorded action is refused: actions must come from exactly the seats "
        "to act: seats [0] act now, got actions of seats [1]"
    )


def test_a_changed_result_is_found(outcome: MatchOutcome) -> None:
    *body, _ = outcome.record.splitlines()
    fake = json.dumps(
        {
            "type": "result",
            "scores": [99, 0],
            "ranks": [1, 2],
            "tiebreak": "",
            "decisions": outcome.decisions,
        }
    ).encode()
    report = replay(b"\n".join([*body, fake]))
    assert not report.identical
    assert report.divergence is not None and "differs from the recorded" in report.divergence


def test_a_truncated_record_is_found(outcome: MatchOutcome) -> None:
    header, first, *_ = outcome.record.splitlines()
    report = replay(header + b"\n" + first)
    assert not report.identical
    assert report.divergence == "the game is not over after 1 decisions and no seat faulted"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty record"),
        (b"not json\n", "line 1 of the record"),
        (b'{"type":"result","scores":[],"ranks":[],"tiebreak":"","decisions":0}', "starts with"),
    ],
)
def test_bad_records(data: bytes, message: str) -> None:
    with pytest.raises(BadRecord, match=message):
        parse_record(data)


def test_other_record_versions_are_refused(outcome: MatchOutcome) -> None:
    header, *rest = lines(outcome.record)
    header["record"] = 2
    with pytest.raises(BadRecord, match="record version 2; this referee reads version 1"):
        replay(b"\n".join(json.dumps(line).encode() for line in [header, *rest]))


def test_each_line_is_written_byte_for_byte_as_the_format_says() -> None:
    """The lines are kept as messages and encoded together at the game's end, and the usual
    decision has a shortcut of its own (`RecordWriter.turn`): the bytes are still the format's,
    line by line, a turn's those of the same decision written in full."""
    game = find_game("azul")
    action = game.legal(game.new(2, 5), 0)[0]
    header = Header(
        record=1,
        protocol=PROTOCOL_VERSION,
        game="azul",
        options={},
        seed=5,
        match="m",
        names=["a", "b"],
        commands=[["a"], ["b"]],
        time=TimeControl(),
    )
    fault = Fault(seat=1, kind="timeout", reason="slow", decision=2)
    result = GameResult(scores=[3, 0], ranks=[1, 2], tiebreak="forfeit")
    shortcut, in_full = RecordWriter(header), RecordWriter(header)
    shortcut.turn(1, {0: action}, 12.3456789)
    in_full.decision(1, {0: action}, {0: 12.3456789}, [])
    for writer in (shortcut, in_full):
        writer.decision(2, {0: action, 1: action}, {0: 0.0004, 1: 250.0}, [1])
        writer.fault(fault)
        writer.result(result, 2)
    encoded = msgspec.json.encode(action)
    expected = [
        msgspec.json.encode(header),
        b'{"type":"decision","n":1,"actions":{"0":%b},"ms":{"0":12.346},"fallback":[]}' % encoded,
        b'{"type":"decision","n":2,"actions":{"0":%b,"1":%b},"ms":{"0":0.0,"1":250.0},'
        b'"fallback":[1]}' % (encoded, encoded),
        b'{"type":"fault","seat":1,"kind":"timeout","reason":"slow","decision":2}',
        b'{"type":"result","scores":[3,0],"ranks":[1,2],"tiebreak":"forfeit","decisions":2}',
    ]
    assert shortcut.data() == in_full.data() == b"".join(line + b"\n" for line in expected)
