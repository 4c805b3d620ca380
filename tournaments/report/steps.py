"""A game record re-played position by position through its engine's public interface.

`arena export --observations` adds to a record what each asked seat was sent before each
decision, from the one walk through a record (`referee.positions`) that the viewer and
`arena replay` use too.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import msgspec

from referee import parse_record, positions


def with_observations(record: bytes, seats: Collection[int] | None = None) -> bytes:
    """The record with, on every decision line, what each asked seat was sent: its
    `observations` and `legal` actions by seat (seats played by the fallback policy were sent
    nothing), of `seats` only if given (an author's own). `parse_record` ignores the extra
    fields, so `arena replay` checks it as before."""
    parsed = parse_record(record)
    lines = record.splitlines()
    out = [lines[0]]
    decisions = iter(positions(parsed))
    for raw in lines[1:]:
        if not raw.strip():
            continue
        item: dict[str, Any] = msgspec.json.decode(raw)
        if item.get("type") == "decision":
            position = next(decisions)
            assert position.line is not None and position.line.n == item["n"]
            game, state = position.game, position.state
            # The seats the engine asks: a line naming others (even seats the game has not) is
            # refused when it is applied, at the next position or by the loop at the end.
            asked = [seat for seat in game.to_act(state) if seat not in position.line.fallback]
            if seats is not None:
                asked = [seat for seat in asked if seat in seats]
            item["observations"] = {seat: game.observe(state, seat) for seat in asked}
            item["legal"] = {seat: game.legal(state, seat) for seat in asked}
            out.append(msgspec.json.encode(item))
        else:
            out.append(raw)
    for _ in decisions:  # the last decision applied too: a record that does not replay is refused
        pass
    return b"\n".join(out) + b"\n"
