"""One game packed for the browser viewer: every step's spectator state, the actions, faults.

A game's steps are kilobytes each and a tournament has thousands of games, so the report keeps
them out of its page: each game is a small script of its own (`games/<id>.js`) holding its
steps as zlib-compressed JSON in base64, which the page loads only when the game is opened (a
`<script>` element works from file://, where `fetch` of a local file does not). Consecutive
states differ little, so the compression gains ten to twenty times.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

import msgspec

from referee import BadRecord, parse_record, positions

CALLBACK = "arenaGame"
"""The page's global function each game script calls with (id, base64 data)."""


def game_data(record: bytes) -> dict[str, Any]:
    """The viewer's data of one record: header facts, steps, faults and result.

    Step 0 is the start; step k shows the state after decision k with the actions that made
    it. A record the engine cannot replay yields its steps up to there and an `error`."""
    parsed = parse_record(record)
    header = parsed.header
    finished = parsed.result is not None  # only a finished game may show what seats hid
    steps: list[dict[str, Any]] = []
    error = None
    previous = None
    try:
        for position in positions(parsed):
            game, state = position.game, position.state
            spectator = msgspec.to_builtins(game.spectate(state))
            steps.append(
                {
                    "n": 0 if previous is None else previous.n,
                    "state": spectator,
                    "private": _private(game, state, spectator) if finished else None,
                    "scores": game.scores(state),
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


def _private(game: Any, state: Any, spectator: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Per seat, what its own view shows that the spectator's does not (5211's hands), or None
    when the seats see nothing more. Only for finished games, which hide nothing any more: the
    viewer's "every hand" switch shows it, and a game still being played never leaks it."""
    views = [
        msgspec.to_builtins(game.observe(state, seat)) for seat in range(len(game.scores(state)))
    ]
    private = [
        {key: value for key, value in view.items() if key != "seat" and spectator.get(key) != value}
        for view in views
    ]
    return private if any(private) else None


def pack(data: dict[str, Any]) -> str:
    """The data as base64 of zlib-compressed JSON (the browser's DecompressionStream('deflate')
    reads zlib's format)."""
    raw = msgspec.json.encode(data)
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def game_script(game_id: int, data: dict[str, Any]) -> str:
    """The `games/<id>.js` file: one call handing the packed game to the page."""
    return f"{CALLBACK}({json.dumps(game_id)},{json.dumps(pack(data))});\n"
