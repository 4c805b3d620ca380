"""The authority: rules engines (`referee.games`), bot processes, clocks and the match loop.

The public surface is re-exported here; the modules behind it each do one job:
`process` (bot processes and their groups), `lines` (a bounded line reader), `stderr` (capped
stderr logs), `clock` (time control arithmetic), `answers` (validating what bots send),
`faults` (fault kinds and forfeit ranking), `limits` (per-bot resource limits), `cgroups` (the
pids cgroup that caps a bot's processes), `sandbox` (bubblewrap), `match` (the match loop) and
`record` (game records and replay).
"""

from referee.clock import SeatClock
from referee.faults import FAULT_KINDS, FORFEIT, BotFault, Fault, forfeit_result
from referee.lines import LineReader, LineTooLong
from referee.match import MatchOutcome, play_match, run_match
from referee.process import BotHandle, BotSpec, Limits, bot_environment, bot_spec, open_bots
from referee.record import (
    RECORD_VERSION,
    BadRecord,
    ReplayReport,
    parse_record,
    replay,
    replay_states,
)

__all__ = [
    "FAULT_KINDS",
    "FORFEIT",
    "RECORD_VERSION",
    "BadRecord",
    "BotFault",
    "BotHandle",
    "BotSpec",
    "Fault",
    "Limits",
    "LineReader",
    "LineTooLong",
    "MatchOutcome",
    "ReplayReport",
    "SeatClock",
    "bot_environment",
    "bot_spec",
    "forfeit_result",
    "open_bots",
    "parse_record",
    "play_match",
    "replay",
    "replay_states",
    "run_match",
]
