"""The names `referee` re-exports, each from the module that defines it: the one list,
read by the type checker and, at import, by `lazy_loader` (see `__init__.py`)."""

from .backstop import (
    CPU_MODE_WALL_CAP as CPU_MODE_WALL_CAP,
    CPU_MODE_WALL_FACTOR as CPU_MODE_WALL_FACTOR,
)
from .build import (
    BuildResult as BuildResult,
    run_build as run_build,
)
from .clock import (
    SeatClock as SeatClock,
)
from .faults import (
    FAULT_KINDS as FAULT_KINDS,
    FORFEIT as FORFEIT,
    BotFault as BotFault,
    Fault as Fault,
    forfeit_result as forfeit_result,
    without_stderr as without_stderr,
)
from .limits import (
    ResourceLimits as ResourceLimits,
)
from .lines import (
    LineReader as LineReader,
    LineTooLong as LineTooLong,
)
from .match import (
    MatchOutcome as MatchOutcome,
    play_match as play_match,
    run_match as run_match,
)
from .process import (
    BotHandle as BotHandle,
    BotSpec as BotSpec,
    Limits as Limits,
    TimeMode as TimeMode,
    bot_environment as bot_environment,
    open_bots as open_bots,
)
from .record import (
    MAX_RECORD_BYTES as MAX_RECORD_BYTES,
    RECORD_VERSION as RECORD_VERSION,
    BadRecord as BadRecord,
    Position as Position,
    ReplayReport as ReplayReport,
    parse_record as parse_record,
    positions as positions,
    printable as printable,
    replay as replay,
    replay_states as replay_states,
    with_commands as with_commands,
)
from .rerun import (
    RerunReport as RerunReport,
    rerun_seat as rerun_seat,
)
from .sandbox import (
    SandboxChoice as SandboxChoice,
    SandboxKind as SandboxKind,
    SandboxRequest as SandboxRequest,
    SandboxUnavailable as SandboxUnavailable,
    bwrap_path as bwrap_path,
    choose as choose,
    system_program as system_program,
)
from .spawn import (
    keep_priority as keep_priority,
)
