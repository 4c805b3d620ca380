"""Bot faults: what a bot did wrong, in words its author can act on, and what it costs.

Errors are split in two (docs/protocol.md): a bot's fault becomes a recorded forfeit with a
reason, never an exception that escapes the match; an engine bug propagates loudly. `BotFault`
is the internal exception that carries a fault from where it is detected to the match loop,
which adds the seat and decision and records a `Fault`.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Collection

import msgspec

from referee.games.base import GameResult, ranks_from_keys

FAULT_KINDS: dict[str, str] = {
    "spawn": "the bot's command could not be started (not found, not executable)",
    "startup_timeout": "no `ready` within the startup limit",
    "timeout": "no answer within the decision's allowance, bank and grace",
    "crash": "the process exited (exit code or signal in the reason, with its first and last "
    "stderr lines)",
    "closed": "the bot closed its stdout or stdin but kept running",
    "malformed": "a line that is not JSON (or not UTF-8)",
    "line_too_long": "a line longer than the referee's maximum line length",
    "schema": "valid JSON that is not the expected message (unknown field, wrong type, ...)",
    "wrong_id": "an answer whose id is not the decision asked",
    "bad_index": "an `index` outside the list of legal actions",
    "illegal": "a well-formed action the rules do not allow here (the reason names the rule)",
    "resource_limit": "the bot hit a resource limit: memory, cpu, processes, disk or file size "
    "(named)",
}
"""Every fault kind, with what it means (the keys are stable: tournaments count by kind)."""

FORFEIT = "forfeit"
"""The `GameResult.tiebreak` of a game whose ranks were decided or adjusted by faults."""


class Fault(msgspec.Struct, frozen=True):
    """A recorded protocol or rules fault of one seat; the seat forfeits the game."""

    seat: int
    kind: str
    """One of `FAULT_KINDS`."""
    reason: str
    """Human readable: what the bot sent or did, and what was expected."""
    decision: int
    """The decision being asked when it happened; -1 during startup."""


class BotFault(Exception):
    """Raised where a bot's misbehaviour is detected; the match loop turns it into a `Fault`."""

    def __init__(self, kind: str, reason: str) -> None:
        assert kind in FAULT_KINDS, kind
        self.kind = kind
        self.reason = reason
        super().__init__(f"{kind}: {reason}")


FIRST_STDERR = "; first stderr lines: "
LAST_STDERR = " last stderr lines: "
EMPTY_STDERR = "; stderr was empty"
_STDERR_QUOTE = re.compile(f"{re.escape(FIRST_STDERR)}|;{re.escape(LAST_STDERR)}|{EMPTY_STDERR}")
"""Where the stderr lines a crash's reason quotes at its end begin (`stderr_quote`)."""


def stderr_quote(first: list[str], last: list[str]) -> str:
    """The end of a dead bot's reason: its first and last stderr lines on one line (a fault's
    reason is one line of a record)."""
    if not last:
        return EMPTY_STDERR
    head = f"{FIRST_STDERR}{' | '.join(first)} …" if first else ";"
    return f"{head}{LAST_STDERR}" + " | ".join(last)


def without_stderr(reason: str) -> str:
    """A fault's reason without the stderr lines quoted at its end: where the whole stderr is
    shown beside it, line by line (a version's check log)."""
    return _STDERR_QUOTE.split(reason, maxsplit=1)[0]


def excerpt(data: bytes, limit: int = 80) -> str:
    """A short printable excerpt of what a bot sent, saying how long it really was."""
    text = data[:limit].decode("utf-8", errors="replace")
    if len(data) <= limit:
        return repr(text)
    return f"{text!r}… ({len(data)} bytes)"


def describe_exit(returncode: int) -> str:
    """'exit code 3' or 'killed by signal SIGSEGV' from a Popen-style return code."""
    if returncode >= 0:
        return f"exit code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    return f"killed by signal {name}"


def forfeit_result(
    result: GameResult | None, scores: list[int], faulty: Collection[int]
) -> GameResult:
    """The result of a game in which the `faulty` seats forfeited.

    Faulty seats share the last rank; the others keep the engine's order among themselves (its
    final ranks when the game was finished, else the current scores when a forfeit ended it).
    Shared by the match loop and `replay`, so a replayed record reproduces it exactly.
    """
    if not faulty:
        if result is None:
            raise ValueError("a game that is not over needs a faulty seat to have a result")
        return result
    if result is not None:
        scores = list(result.scores)
        order = [-rank for rank in result.ranks]
    else:
        order = list(scores)
    keys = [(0, 0) if seat in faulty else (1, key) for seat, key in enumerate(order)]
    return GameResult(scores=list(scores), ranks=ranks_from_keys(keys), tiebreak=FORFEIT)
