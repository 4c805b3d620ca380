"""Records say which rules they were played under, and a record of other rules is refused."""

from __future__ import annotations

import json
import random

import msgspec
import pytest

from protocol.messages import PROTOCOL_VERSION, TimeControl
from referee.games import find_game, simulate
from referee.record import (
    RECORD_VERSION,
    Header,
    RecordWriter,
    RulesMismatch,
    parse_record,
    replay,
)


def played_record(rules: int | None = None) -> bytes:
    """A whole random game of 5211 written as a record (with `rules` as its header says)."""
    game = find_game("5211")
    state = game.new(2, 11)
    writer = RecordWriter(
        Header(
            record=RECORD_VERSION,
            protocol=PROTOCOL_VERSION,
            game="5211",
            options={"variant": "standard"},
            seed=11,
            match="m",
            names=["a", "b"],
            commands=[["a"], ["b"]],
            time=TimeControl(),
            rules=game.version if rules is None else rules,
        )
    )
    rng = random.Random(3)
    decisions = 0
    while seats := game.to_act(state):
        actions = {seat: rng.choice(game.legal(state, seat)) for seat in seats}
        game.apply(state, actions)
        decisions += 1
        writer.decision(decisions, dict(actions), {}, [])
    result = game.result(state)
    assert result is not None
    writer.result(result, decisions)
    return writer.data()


def test_the_header_records_the_engine_rules_version() -> None:
    record = played_record()
    assert json.loads(record.splitlines()[0])["rules"] == find_game("5211").version
    assert replay(record).identical


def test_a_record_without_a_rules_version_was_played_under_version_one() -> None:
    header, *rest = played_record().splitlines()
    old = {key: value for key, value in json.loads(header).items() if key != "rules"}
    record = b"\n".join([msgspec.json.encode(old), *rest])
    assert parse_record(record).header.rules == 1
    assert replay(record).identical


def test_a_record_of_other_rules_is_refused_with_both_versions_named() -> None:
    record = played_record(rules=find_game("5211").version + 1)
    with pytest.raises(RulesMismatch, match=r"rules version 2; this engine plays version 1"):
        replay(record)


def test_simulate_plays_the_same_game_as_the_recorded_loop() -> None:
    """`simulate` with the recorded choices reaches the recorded result (one loop, one game)."""
    record = parse_record(played_record())
    game = find_game("5211")
    state = game.new(2, 11)
    plays = iter(record.decisions)
    current: dict[int, object] = {}

    def recorded(_state: object, seat: int, legal: list[object]) -> object:
        if not current:
            line = next(plays)
            current.update(
                {s: msgspec.json.decode(raw, type=game.Action) for s, raw in line.actions.items()}
            )
        return current.pop(seat)

    decisions = simulate(game, state, random.Random(0), recorded)
    assert decisions == len(record.decisions)
    assert record.result is not None
    assert game.scores(state) == record.result.scores
