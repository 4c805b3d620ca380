"""A game record re-played position by position through its engine's public interface.

Both the viewer (the spectator's picture after every decision) and `arena export
--observations` (what each asked seat was sent before it) need the state *between* decisions,
which `referee.record.replay` does not expose; the walk here is the one place that does it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from referee import BadRecord, parse_record
from referee.games import Game, IllegalAction, find_game, parse_options

if TYPE_CHECKING:  # the record's line types, for the type checker only
    from referee.record import DecisionLine, ParsedRecord


class Position(msgspec.Struct):
    """The game before decision `line` (None: after the last one); `state` is live: read it
    before taking the next position, which applies `line` to it."""

    game: Any
    state: Any
    line: DecisionLine | None


def positions(parsed: ParsedRecord) -> Iterator[Position]:
    """Every position of the record's game: the start, then after each decision.

    Raises `BadRecord` where the engine refuses the record (naming the decision): a record
    that does not replay cannot be shown truthfully. (`parse_record` has checked the header:
    the game, its rules version, options and players are the engine's.)
    """
    header = parsed.header
    game: Game[Any] = find_game(header.game)
    state = game.new(len(header.names), header.seed, parse_options(game, header.options))
    for line in parsed.decisions:
        yield Position(game, state, line)
        try:
            actions = {
                seat: msgspec.json.decode(raw, type=game.Action)
                for seat, raw in line.actions.items()
            }
            game.apply(state, actions)
        except (msgspec.ValidationError, IllegalAction) as exc:
            raise BadRecord(f"decision {line.n}: the recorded action is refused: {exc}") from None
    yield Position(game, state, None)


def with_observations(record: bytes) -> bytes:
    """The record with, on every decision line, what each asked seat was sent: its
    `observations` and `legal` actions by seat (seats played by the fallback policy were sent
    nothing). `parse_record` ignores the extra fields, so `arena replay` checks it as before."""
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
            item["observations"] = {seat: game.observe(state, seat) for seat in asked}
            item["legal"] = {seat: game.legal(state, seat) for seat in asked}
            out.append(msgspec.json.encode(item))
        else:
            out.append(raw)
    for _ in decisions:  # the last decision applied too: a record that does not replay is refused
        pass
    return b"\n".join(out) + b"\n"
