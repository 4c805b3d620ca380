"""Games packed for the browser viewer: every step's spectator state, the actions, faults.

A tournament has thousands of games of kilobytes of steps each, so the report keeps them out of
its page: games travel in blocks (`block_script`), scripts the page loads only when one of their
games is opened (a `<script>` element works from file://, where `fetch` of a local file does
not). Consecutive states differ little, so a step holds only what changed since the step before
(`delta`; the page rebuilds the states, sharing what did not change), and a block keeps each
field of its games together (every game's actions, then every game's states, ...) before it is
zlib-compressed: alike next to alike is what zlib compresses best.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Sequence
from typing import Any

import msgspec

from referee import BadRecord, parse_record, positions

CALLBACK = "arenaGames"
"""The page's global function each block calls with (its name, its base64 data)."""
FORMAT = "2"
"""What a block holds and how: part of every block's name (`tournaments.report.blocks`), so a
report written by an arena that packed its games otherwise is never reused. Bump it whenever
`game_data` or `block_data` changes what they make."""
DELTAS = ("state", "private")
"""The step fields held as changes from the step before; the others are held as they are."""
FIELDS = ("n", "scores", "to_act", "actions", "ms", "fallback", *DELTAS)
_ARRAYS = (list, tuple)
_START = object()
"""What the first step's fields change from: nothing, so the first step holds them whole."""
_encode = msgspec.json.Encoder().encode
LEVEL = 6
"""zlib's level for a block: 7 made blocks 6% smaller for half as much compressing again, a
tenth of packing a game."""
OPEN_VIEWS = frozenset({("azul", 1), ("summer-pavilion", 1)})
"""The games, by (id, rules version), whose every seat sees what a spectator sees (their
observations differ in `seat` only): their steps have no `private`, found without asking each
seat's view at every step (a fifth of packing such a game). tests/report/test_report_blocks.py
plays them to check it; a game's new rules version is asked seat by seat until it is added."""


def game_data(record: bytes) -> dict[str, Any]:
    """The viewer's data of one record: header facts, steps, faults and result.

    Step 0 is the start; step k shows the state after decision k with the actions that made
    it. A record the engine cannot replay yields its steps up to there and an `error`."""
    parsed = parse_record(record)
    header = parsed.header
    # Only a finished game may show what seats hid; a game of OPEN_VIEWS hides nothing.
    hiding = parsed.result is not None and (header.game, header.rules) not in OPEN_VIEWS
    steps: list[dict[str, Any]] = []
    error = None
    previous = None
    try:
        for position in positions(parsed):
            game, state = position.game, position.state
            spectator = game.spectate(state)
            public = msgspec.to_builtins(spectator)
            scores = game.scores(state)
            steps.append(
                {
                    "n": 0 if previous is None else previous.n,
                    "state": public,
                    "private": _private(game, state, spectator, public, len(scores))
                    if hiding
                    else None,
                    "scores": scores,
                    "to_act": list(game.to_act(state)),
                    "actions": None
                    if previous is None
                    else {seat: msgspec.json.decode(raw) for seat, raw in previous.actions.items()},
                    "ms": None if previous is None else previous.ms,
                    "fallback": [] if previous is None else previous.fallback,
                }
            )
            previous = position.line
    except BadRecord as exc:
        error = str(exc)
    result = parsed.result
    return {
        "game": header.game,
        "options": header.options,
        "seed": str(header.seed),  # beyond 2**53: a JavaScript number would round it
        "names": header.names,
        "steps": steps,
        "faults": [msgspec.to_builtins(fault) for fault in parsed.faults],
        "result": None if result is None else msgspec.to_builtins(result),
        "error": error,
    }


def viewer_data(record: bytes | str) -> dict[str, Any]:
    """`game_data` of a record, or (a record that is not one, or why a record could not be
    read) the data of a viewer that says why."""
    if isinstance(record, bytes):
        try:
            return game_data(record)
        except BadRecord as exc:
            record = str(exc)
    return {"error": record, "steps": []}


def _private(
    game: Any, state: Any, spectator: Any, public: dict[str, Any], seats: int
) -> list[dict[str, Any]] | None:
    """Per seat, what its own view shows that the spectator's does not (5211's hands), or None
    when the seats see nothing more. Only for finished games, which hide nothing any more: the
    viewer's "every hand" switch shows it, and a game still being played never leaks it."""
    views = [game.observe(state, seat) for seat in range(seats)]
    # The usual answer (every seat sees what a spectator sees, but for the seat every
    # observation names: `Game.from_observation`) compared as structs, in C.
    if all(msgspec.structs.replace(view, seat=spectator.seat) == spectator for view in views):
        return None
    private = [
        {
            key: value
            for key, value in msgspec.to_builtins(view).items()
            if key != "seat" and public.get(key) != value
        }
        for view in views
    ]
    return private if any(private) else None


def delta(old: Any, new: Any) -> Any:
    """What turns JSON value `old` into `new`: for an object or a list of the same keys or
    length, an object of what changed at each key or index that changed (so `{}` for no
    change); else `new` itself, in a list of one when it is an object or a list. The page's
    `patched` applies it. (`msgspec.to_builtins` leaves tuples: JSON lists too.) Values are
    compared as Python compares them, where 1 == True: an observation's fields are typed, and
    none turns from a number into a boolean."""
    # What changed is found by comparing whole values (in C); a changed scalar is taken as it is
    # and a list whose length changed is taken whole, both without a call: most of what changes
    # in a step is a number or two deep in the state, or a list grown by a tile. Plain loops,
    # not comprehensions: on Python 3.11 a comprehension is a call of its own, and every step
    # of every game comes through here.
    kind = type(new)
    changed: dict[Any, Any] = {}
    if kind is dict:
        if type(old) is not dict or old.keys() != new.keys():
            return [new]
        for key, value in new.items():
            before = old[key]
            if before != value:
                changed[key] = _change(before, value)
        return changed
    if kind is list or kind is tuple:
        if type(old) not in _ARRAYS or len(old) != len(new):
            return [new]
        index = 0  # counted by hand: enumerate and zip(strict=) cost a sixth of the time here
        for before, value in zip(old, new):  # noqa: B905 (of one length; a keyword costs)
            if before != value:
                changed[index] = _change(before, value)
            index += 1  # noqa: SIM113
        return changed
    return new


def _change(before: Any, value: Any) -> Any:
    """A changed item of a container as `delta` holds it: its own delta when it can be one (a
    dict, or a list of the same length), else the new value (a container wrapped in a list)."""
    kind = type(value)
    if kind is dict or (
        (kind is list or kind is tuple) and type(before) in _ARRAYS and len(before) == len(value)
    ):
        return delta(before, value)
    return [value] if kind is list or kind is tuple else value


def _deltas(values: list[Any]) -> list[Any]:
    return [delta(old, new) for old, new in zip([_START, *values], values, strict=False)]


def game_fields(data: dict[str, Any]) -> dict[str, msgspec.Raw]:
    """One game's viewer data as encoded JSON by field: its header (`game`) and, per step
    field, the list over its steps (`DELTAS` as changes; `private` null when no step has it).
    Encoded at once, so a block never holds its games' steps as objects."""
    steps = data["steps"]
    fields: dict[str, Any] = {"game": {key: value for key, value in data.items() if key != "steps"}}
    for field in FIELDS:
        values = [step[field] for step in steps]
        if field == "private" and not any(values):
            fields[field] = None
        else:
            fields[field] = _deltas(values) if field in DELTAS else values
    return {field: msgspec.Raw(_encode(value)) for field, value in fields.items()}


def block_data(ids: Sequence[int], games: Sequence[dict[str, msgspec.Raw]]) -> bytes:
    """The JSON of a block: its game ids, then each field's list over its games."""
    block: dict[str, Any] = {"ids": list(ids)}
    for field in ("game", *FIELDS):
        block[field] = [game[field] for game in games]
    return _encode(block)


def block_script(name: str, ids: Sequence[int], games: Sequence[dict[str, msgspec.Raw]]) -> str:
    """A block's script: one call handing the page its games, as base64 of zlib-compressed
    JSON (the browser's DecompressionStream('deflate') reads zlib's format)."""
    packed = base64.b64encode(zlib.compress(block_data(ids, games), LEVEL)).decode("ascii")
    return f"{CALLBACK}({json.dumps(name)},{json.dumps(packed)});\n"
