"""The authority: rules engines (`referee.games`), bot processes, clocks and the match loop.

The public surface is re-exported here; the modules behind it each do one job:
`process` (bot processes and their groups), `lines` (a bounded line reader), `stderr` (capped
stderr logs), `clock` (time control arithmetic), `answers` (validating what bots send),
`faults` (fault kinds and forfeit ranking), `limits` (per-bot resource limits), `cgroups` (a
bot's cgroups: processes, total memory, CPU accounting), `spawn` (forking bots so that none
outlives the referee), `sandbox` (bubblewrap), `channel` (what the match loop needs of a bot:
a process, or a scripted fake in tests), `match` (the match loop), `record` (game records
and replay) and `build` (an uploaded bot's build step, limited and sandboxed as a bot).

Names load lazily (PEP 562): `import referee.games` — what a Python bot does — must not
load trio, the bot processes or the match loop. To re-export a name, add it to `_EXPORTS` and
to `__all__` and the `TYPE_CHECKING` imports (for the type checker; a test checks that the
three agree).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.build import BuildResult, run_build
    from referee.clock import SeatClock
    from referee.faults import (
        FAULT_KINDS,
        FORFEIT,
        BotFault,
        Fault,
        forfeit_result,
        without_stderr,
    )
    from referee.limits import ResourceLimits
    from referee.lines import LineReader, LineTooLong
    from referee.match import MatchOutcome, play_match, run_match
    from referee.process import (
        BotHandle,
        BotSpec,
        Limits,
        TimeMode,
        bot_environment,
        open_bots,
    )
    from referee.record import (
        MAX_RECORD_BYTES,
        RECORD_VERSION,
        BadRecord,
        Position,
        ReplayReport,
        parse_record,
        positions,
        printable,
        replay,
        replay_states,
        with_commands,
    )
    from referee.sandbox import (
        SandboxChoice,
        SandboxKind,
        SandboxRequest,
        SandboxUnavailable,
        bwrap_path,
        choose,
        system_program,
    )
    from referee.spawn import keep_priority

_EXPORTS: dict[str, str] = {
    "BadRecord": "referee.record",
    "BotFault": "referee.faults",
    "BotHandle": "referee.process",
    "BotSpec": "referee.process",
    "BuildResult": "referee.build",
    "FAULT_KINDS": "referee.faults",
    "without_stderr": "referee.faults",
    "FORFEIT": "referee.faults",
    "Fault": "referee.faults",
    "Limits": "referee.process",
    "LineReader": "referee.lines",
    "LineTooLong": "referee.lines",
    "MAX_RECORD_BYTES": "referee.record",
    "MatchOutcome": "referee.match",
    "RECORD_VERSION": "referee.record",
    "ReplayReport": "referee.record",
    "ResourceLimits": "referee.limits",
    "SandboxChoice": "referee.sandbox",
    "SandboxKind": "referee.sandbox",
    "SandboxRequest": "referee.sandbox",
    "SandboxUnavailable": "referee.sandbox",
    "SeatClock": "referee.clock",
    "TimeMode": "referee.process",
    "bot_environment": "referee.process",
    "bwrap_path": "referee.sandbox",
    "choose": "referee.sandbox",
    "forfeit_result": "referee.faults",
    "keep_priority": "referee.spawn",
    "open_bots": "referee.process",
    "parse_record": "referee.record",
    "play_match": "referee.match",
    "Position": "referee.record",
    "positions": "referee.record",
    "printable": "referee.record",
    "replay": "referee.record",
    "with_commands": "referee.record",
    "replay_states": "referee.record",
    "run_build": "referee.build",
    "run_match": "referee.match",
    "system_program": "referee.sandbox",
}
"""Public name -> the module that defines it (imported on first use)."""

__all__ = [
    "FAULT_KINDS",
    "FORFEIT",
    "MAX_RECORD_BYTES",
    "RECORD_VERSION",
    "BadRecord",
    "BotFault",
    "BotHandle",
    "BotSpec",
    "BuildResult",
    "Fault",
    "Limits",
    "LineReader",
    "LineTooLong",
    "MatchOutcome",
    "Position",
    "ReplayReport",
    "ResourceLimits",
    "SandboxChoice",
    "SandboxKind",
    "SandboxRequest",
    "SandboxUnavailable",
    "SeatClock",
    "TimeMode",
    "bot_environment",
    "bwrap_path",
    "choose",
    "forfeit_result",
    "keep_priority",
    "open_bots",
    "parse_record",
    "play_match",
    "positions",
    "printable",
    "replay",
    "replay_states",
    "run_build",
    "run_match",
    "system_program",
    "with_commands",
    "without_stderr",
]


def __getattr__(name: str) -> Any:
    """Import the module behind a public name on first use and keep the name here."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'referee' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
