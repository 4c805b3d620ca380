"""Crafted game records: each ends as a one-line error naming the file and what is wrong (exit
1), or, in `arena report`, as that game's error viewer — never a traceback, a hang or all of
the machine's memory.

A record's header sets the game up: a record with options the game does not have, or with 9
or 100,000 players, is refused as a bad record, not as the engine's `BadOptions` or
`BadPlayerCount` (a traceback in `arena replay` and `arena export`, the whole of `arena
report` stopped); and a record file is read only up to its limit, however big
(`arena replay /dev/zero`).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from crafted import make_store, one_line_error, real_record, run, with_header
from reporthelp import report_games

from referee import MAX_RECORD_BYTES, BadRecord, parse_record

HEADERS: dict[str, tuple[dict[str, Any], str]] = {
    "options": ({"options": {"variant": "blue"}}, "bad options for azul"),
    "option type": ({"options": {"variant": [[]]}}, "bad options for azul"),
    "9 players": ({"names": ["x"] * 9}, "azul is for 2-4 players, not 9"),
    "100,000 players": ({"names": ["x"] * 100_000}, "azul is for 2-4 players, not 100000"),
    "1 player": ({"names": ["x"]}, "azul is for 2-4 players, not 1"),
    "game": ({"game": "chess"}, "unknown game 'chess'"),
    "rules": ({"rules": 99}, "rules version 99"),
}
"""Header changes, each with what the error must say."""


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return real_record(tmp_path_factory.mktemp("record"), "azul", ["greedy", "random"], 1)


@pytest.mark.parametrize("change", list(HEADERS))
def test_replay_of_a_crafted_header_is_a_one_line_error(
    record: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    fields, says = HEADERS[change]
    path = tmp_path / "crafted.jsonl"
    path.write_bytes(with_header(record, **fields))
    code, err = run("replay", path, "--show")
    assert code == 1 and one_line_error(err, "replay", f"{path} is not a valid game record")
    assert says in err


def test_report_gives_each_crafted_game_its_error_viewer(
    record: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crafted = [with_header(record, **fields) for fields, _ in HEADERS.values()]
    store = tmp_path / "crafted.sqlite"
    good, *bad = make_store(store, "azul", [record, *crafted])
    code, err = run("report", store, "-o", tmp_path / "report", "-j", "1")
    assert code == 0, err
    games = report_games(tmp_path / "report" / "index.html")
    assert games[good]["error"] is None and games[good]["steps"]
    for game_id, (_, says) in zip(bad, HEADERS.values(), strict=True):
        assert says in games[game_id]["error"] and games[game_id]["steps"] == []


def test_export_and_replay_of_a_crafted_stored_game_are_one_line_errors(
    record: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "crafted.sqlite"
    (game_id,) = make_store(store, "azul", [with_header(record, names=["x"] * 9)])
    code, err = run("export", store, "-o", tmp_path / "out", "--observations")
    assert code == 1 and one_line_error(err, "export", f"{store}: game {game_id}")
    assert "not 9" in err
    code, err = run("replay", store, game_id, "--show")
    assert code == 1 and one_line_error(err, "replay", f"{store} game {game_id} is not a valid")
    assert "not 9" in err


def test_a_record_nested_too_deeply_is_a_bad_record(record: bytes) -> None:
    header = record.split(b"\n", 1)[0]
    deep = b'{"type":"decision","n":1,"actions":{"0":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    with pytest.raises(BadRecord, match="line 2 of the record: nested too deeply"):
        parse_record(header + b"\n" + deep)


def test_a_record_over_the_bound_is_refused_unparsed(record: bytes) -> None:
    padded = record + b" " * (MAX_RECORD_BYTES + 1 - len(record))
    with pytest.raises(BadRecord, match=f"over {MAX_RECORD_BYTES} bytes"):
        parse_record(padded)
    assert parse_record(padded[:-1]).result == parse_record(record).result


def test_replay_of_a_file_over_the_bound_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as file:
        file.truncate(MAX_RECORD_BYTES + 1)  # sparse: no disk used
    code, err = run("replay", path)
    assert code == 1 and one_line_error(err, "replay", f"{path} is not a valid game record")
    assert f"over {MAX_RECORD_BYTES} bytes" in err


def limit_memory() -> None:
    """In the child: 1 GiB of address space, so that a reader that keeps reading fails soon."""
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_replay_of_an_endless_file_stops_at_the_bound() -> None:
    argv = [sys.executable, "-m", "tournaments", "replay", "/dev/zero"]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=60, preexec_fn=limit_memory, check=False
    )
    assert done.returncode == 1
    assert one_line_error(done.stderr, "replay", "/dev/zero is not a valid game record")
    assert json.dumps(MAX_RECORD_BYTES) in done.stderr


@pytest.mark.parametrize(
    ("old", "new"),
    [(b'"type":"decision"', b'"type":"decis\xffion"'), (b'"type":"take"', b'"type":"t\xffake"')],
)
def test_bytes_that_are_not_utf8_are_a_bad_record(record: bytes, old: bytes, new: bytes) -> None:
    """In a line's tag, and inside an action (which is kept raw until it is replayed): msgspec
    raised `UnicodeDecodeError` from both (found by test_record_fuzz)."""
    with pytest.raises(BadRecord, match="line 2 of the record: not UTF-8"):
        parse_record(record.replace(old, new, 1))


def test_export_of_a_decision_by_a_seat_the_game_has_not_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--observations` asked the engine what seat 7 of a 3-player game of 5211 sees: an
    IndexError (found by test_record_fuzz)."""
    record = real_record(tmp_path, "5211", ["random", "random", "random"], 3)
    header, first, rest = record.split(b"\n", 2)
    decision = json.loads(first)
    decision["actions"]["7"] = decision["actions"].pop("2")
    crafted = b"\n".join([header, json.dumps(decision).encode(), rest])
    store = tmp_path / "crafted.sqlite"
    (game_id,) = make_store(store, "5211", [crafted])
    code, err = run("export", store, "-o", tmp_path / "out", "--observations")
    assert code == 1 and one_line_error(err, "export", f"{store}: game {game_id} does not replay")
    assert "decision 1: the recorded action is refused" in err
    assert "got actions of seats [0, 1, 7]" in err


def test_newlines_and_terminal_escapes_in_a_record_stay_out_of_the_error_line(
    record: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine's and the decoder's messages quote what they refuse."""
    path = tmp_path / "crafted.jsonl"
    path.write_bytes(with_header(record, options={"\n\x1b[2J": True}))
    code, err = run("replay", path)
    assert code == 1 and one_line_error(err, "replay", str(path))
    assert "\\n\\x1b[2J" in err
