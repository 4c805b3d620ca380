"""A game record re-played position by position through its engine's public interface.

`arena export --observations` and a league's seat records add to a record what each asked seat
was sent before each decision, from the one walk through a record (`referee.positions`) that the
viewer and `arena replay` use too — the request a seat faulted on included, so that a bot can be
run on it again (`arena rerun`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

import msgspec

from referee import Position, parse_record, positions


def with_observations(record: bytes, seats: Collection[int] | None = None) -> bytes:
    """The record with what each asked seat was sent, of `seats` only if given (an author's
    own): on every decision line, its `observations` and `legal` actions by seat (seats played
    by the fallback policy were sent nothing); on a seat's fault line, the `observation` and
    `legal` actions of the request it faulted on, when it was asked one (a fault at its start or
    after the game has none); in the header, only `seats`' `start` messages. `parse_record`
    ignores the extra fields, so `arena replay` checks it as before."""
    parsed = parse_record(record)
    lines = [line for line in record.splitlines() if line.strip()]
    header: dict[str, Any] = msgspec.json.decode(lines[0])
    if seats is not None:
        header["starts"] = [one for one in header.get("starts", []) if one.get("seat") in seats]
    out = [msgspec.json.encode(header)]
    walk = _Walk(positions(parsed))
    for raw in lines[1:]:
        item: dict[str, Any] = msgspec.json.decode(raw)
        kind = item.get("type")
        if kind == "decision":
            position = walk.take()
            assert position.line is not None and position.line.n == item["n"]
            game, state = position.game, position.state
            # The seats the engine asks: a line naming others (even seats the game has not) is
            # refused when it is applied, at the next position or by the loop at the end.
            asked = [seat for seat in game.to_act(state) if seat not in position.line.fallback]
            if seats is not None:
                asked = [seat for seat in asked if seat in seats]
            item["observations"] = {seat: game.observe(state, seat) for seat in asked}
            item["legal"] = {seat: game.legal(state, seat) for seat in asked}
        elif kind == "fault" and (seats is None or item["seat"] in seats):
            # A fault at decision n is written before decision n's line, if the game went on.
            position = walk.peek()
            game, state, seat = position.game, position.state, item["seat"]
            n = position.line.n if position.line is not None else walk.done + 1
            if item["decision"] == n and seat in game.to_act(state):
                item["observation"] = game.observe(state, seat)
                item["legal"] = game.legal(state, seat)
        out.append(msgspec.json.encode(item))
    walk.finish()  # the last decision applied too: a record that does not replay is refused
    return b"\n".join(out) + b"\n"


class _Walk:
    """`positions` with a look at the next one before it is taken."""

    def __init__(self, walk: Iterator[Position]) -> None:
        self._walk = walk
        self._next: Position | None = None
        self.done = 0
        """The number of the last decision taken (0 before the first)."""

    def peek(self) -> Position:
        if self._next is None:
            self._next = next(self._walk)
        return self._next

    def take(self) -> Position:
        position = self.peek()
        self._next = None
        assert position.line is not None, "a decision line has its position"
        self.done = position.line.n
        return position

    def finish(self) -> None:
        for _ in self._walk:
            pass
