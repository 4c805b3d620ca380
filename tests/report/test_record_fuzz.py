"""Fuzzing what reads game records: mutated records (headers, decisions, faults, results;
wrong types, huge numbers, missing and extra fields, lines dropped, repeated or moved, bytes
cut off or replaced by bad UTF-8) fed to the readers, to `arena replay FILE` and, stored in a
real store through its public API, to `arena report`, `arena export` and `arena replay STORE
GAME`. The only outcomes allowed: success, a game's error viewer (the report), a replay that
diverges, or a one-line error naming the file, exit 1. A traceback fails the test (it escapes
`tournaments.cli.main`), and so does a hang (an alarm stops any example after a few seconds).
"""

from __future__ import annotations

import contextlib
import copy
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from crafted import alarm, arena, make_store, one_line_error, real_record
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reporthelp import report_games

from referee import BadRecord, replay
from tournaments.report.steps import with_observations
from tournaments.report.viewer import block_script, game_data, game_fields

INT = st.integers(-3, 12) | st.sampled_from([2**63, -(2**63) - 1, 10**400, 100_000])
"""Small numbers (seats, sources, colours), and numbers beyond 64 bits or any game's size."""

SPECIAL = st.sampled_from(
    [
        1e308,
        float("inf"),
        float("nan"),
        "",
        "/*ARENA:APP*/",
        "\x1b[2J",
        "\ud800",
        ["x"] * 9,
        ["x"] * 100_000,
    ]
)
"""Values chosen to hurt: not finite, control characters, a lone surrogate, player counts no
game has."""

JSON = st.recursive(
    st.none() | st.booleans() | INT | st.floats() | st.text(max_size=10) | SPECIAL,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
"""Any JSON: the wrong type for any field."""

SEAT = st.sampled_from(["0", "1", "2", "3", "-1", "7", "99999999999999999999", "x"])
ACTION = st.fixed_dictionaries(
    {"type": st.sampled_from(["take", "play", "place", "pass", "buy", "x"])},
    optional={
        "source": INT,
        "colour": INT,
        "line": INT,
        "cards": st.lists(st.fixed_dictionaries({"colour": INT, "value": INT}), max_size=3),
    },
)
TYPED = {
    "game": st.sampled_from(["azul", "5211", "summer-pavilion", "alhambra", "chess", ""]),
    "options": st.dictionaries(
        st.sampled_from(["variant", "special_factories", "x"]),
        st.sampled_from(["standard", "grey", "long", "blue", True, False, 1, "true", None]),
        max_size=3,
    ),
    "names": st.lists(st.text(max_size=5), max_size=6) | st.sampled_from([["x"] * 9]),
    "commands": st.lists(st.lists(st.text(max_size=5), max_size=2), max_size=3),
    "actions": st.dictionaries(SEAT, ACTION, max_size=3),
    "ms": st.dictionaries(SEAT, st.floats() | INT, max_size=3),
    "scores": st.lists(INT, max_size=5),
    "ranks": st.lists(INT, max_size=5),
    "fallback": st.lists(INT, max_size=4),
}
"""A value of the field's own type (one the decoder takes) but chosen to hurt; a field not
named here (a number: seed, seat, n, rules, ...) gets `INT`."""


def typed(key: str) -> st.SearchStrategy[Any]:
    if key in ("type", "kind", "reason", "tiebreak", "match"):
        return st.text(max_size=10) | st.sampled_from(["header", "decision", "fault", "result"])
    return TYPED.get(key, INT)


@st.composite
def mutated(draw: st.DrawFn, records: list[bytes]) -> bytes:
    """One of `records` with one to three line-level mutations, then maybe byte-level ones."""
    lines: list[Any] = [json.loads(line) for line in draw(st.sampled_from(records)).splitlines()]
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        index = draw(st.sampled_from([0, draw(st.integers(0, len(lines) - 1)), len(lines) - 1]))
        line = lines[index]
        match draw(st.integers(0, 7)):
            case 0 | 1 if isinstance(line, dict) and line:  # a field's value: its type, hostile
                key = draw(st.sampled_from(list(line)))
                line[key] = copy.deepcopy(draw(typed(key)))
            case 2 if isinstance(line, dict):  # any field's value: any type, or one more field
                line[draw(st.sampled_from([*line, "extra"]))] = copy.deepcopy(draw(JSON))
            case 3 if isinstance(line, dict) and line:  # a field missing
                del line[draw(st.sampled_from(list(line)))]
            case 4 if isinstance(line, dict) and isinstance(line.get("actions"), dict):
                actions = line["actions"]
                seat = draw(st.sampled_from(list(actions) or ["0"]))
                action = actions.get(seat)
                if isinstance(action, dict) and action and draw(st.booleans()):
                    action[draw(st.sampled_from(list(action)))] = draw(INT)  # one number off
                else:
                    actions[draw(SEAT)] = draw(ACTION)
            case 5:  # a line dropped, repeated or moved
                moved = lines.pop(index)
                if draw(st.booleans()):
                    lines.insert(draw(st.integers(0, len(lines))), moved)
                    if draw(st.booleans()):
                        lines.insert(draw(st.integers(0, len(lines))), moved)
            case 6:  # the record cut after some line
                del lines[draw(st.integers(0, len(lines))) :]
            case _:  # the whole line replaced
                lines[index] = copy.deepcopy(draw(JSON))
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        match draw(st.integers(0, 2)):
            case 0:  # bytes that are not UTF-8, a NUL, a newline, a quote
                bad = draw(
                    st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\n", b'"'])
                )
                data = data[:at] + bad + data[at + 1 :]
            case 1:  # cut short
                data = data[:at]
            case _:  # a number made huge
                data = data[:at] + b"1" + b"0" * 400 + data[at:]
    return data


def check_replay(code: int, out: str, err: str, names: str) -> None:
    """`arena replay`: identical (0), diverging (1, said on stdout), or a one-line error (1)."""
    assert code in (0, 1), err
    if code == 1 and err:
        assert one_line_error(err, "replay", names), err
    else:
        diverges = "DIVERGES" in out or '"identical": false' in out  # (the --json form)
        assert err == "" and (code == 0 or diverges)


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """Real records to mutate, one of each game (5211's decisions are simultaneous)."""
    directory = tmp_path_factory.mktemp("fuzz")
    return [
        real_record(directory, "azul", ["greedy", "random"], 2),
        real_record(directory, "5211", ["random", "random", "random"], 3),
        real_record(directory, "summer-pavilion", ["random", "random"], 4),
        real_record(directory, "alhambra", ["random", "random", "random"], 5),
    ]


FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def readers() -> list[Callable[[bytes], object]]:
    return [
        replay,
        lambda data: block_script("b", [1], [game_fields(game_data(data))]),
        with_observations,
    ]


def test_readers_take_any_mutated_record_or_refuse_it(records: list[bytes]) -> None:
    @FUZZ
    @given(mutated(records))
    def check(data: bytes) -> None:
        for read in readers():
            with alarm(5), contextlib.suppress(BadRecord):
                read(data)

    check()


def test_replay_of_any_mutated_record_file_is_clean(records: list[bytes]) -> None:
    @settings(FUZZ, max_examples=80)
    @given(mutated(records), st.sampled_from(["--show", "--json"]))
    def check(data: bytes, flag: str) -> None:
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "game.jsonl"
            path.write_bytes(data)
            check_replay(*arena("replay", path, flag), f"{path} is not a valid game record")

    check()


def test_report_export_and_replay_of_any_mutated_stored_record_are_clean(
    records: list[bytes],
) -> None:
    @settings(FUZZ, max_examples=40)
    @given(mutated(records))
    def check(data: bytes) -> None:
        with tempfile.TemporaryDirectory() as directory:
            store = Path(directory) / "fuzz.sqlite"
            (game_id,) = make_store(store, "azul", [data])
            code, _, err = arena("report", store, "-o", Path(directory) / "report", "-j", "1")
            assert code == 0, err
            assert game_id in report_games(Path(directory) / "report" / "index.html")
            code, _, err = arena("export", store, "-o", Path(directory) / "out", "--observations")
            assert code == 0 or (code == 1 and one_line_error(err, "export", f"{store}: game")), err
            replayed = arena("replay", store, game_id, "--show")
            check_replay(*replayed, f"{store} game {game_id} is not a valid game record")

    check()
