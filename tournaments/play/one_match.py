"""One match outside a tournament — `arena match`, and the league server's test games: the
request checked and resolved (game, options, seats, seeds, the referee's limits), the game
played, its record and viewer written. Nothing here prints; the caller shows what it returns.
"""

from __future__ import annotations

import datetime
import json
import random
import secrets
from pathlib import Path
from typing import Any

import msgspec

from protocol import DEFAULT_MAX_LINE_BYTES, TimeControl
from protocol.errors import RequestError
from referee import (
    BotSpec,
    Limits,
    MatchOutcome,
    ResourceLimits,
    SandboxRequest,
    TimeMode,
    run_match,
)
from referee.games import find_game, parse_options
from tournaments.output import plural
from tournaments.plan.config import resolved_sandbox
from tournaments.plan.schedule import bot_seeds, owner_secret

RECORDS_DIR = Path("arena-records")
"""Where records go when no path is given (relative to the current directory)."""


class MatchRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One game between `bots` as asked for; a None seed means a fresh random one."""

    game: str
    bots: list[BotSpec]
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    clock: TimeControl = TimeControl()
    resources: ResourceLimits = ResourceLimits()
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    sandbox: SandboxRequest = "auto"
    time_mode: TimeMode = "wall"
    seed: int | None = None
    bot_seed: int | None = None
    """The bots' own seeds derive from this; None: 0 when `seed` is given (the same request
    replays the same game), else fresh. Never derived from `seed`, which a bot must not learn."""
    record: Path | None = None
    """Where the record goes (None: a new file under `RECORDS_DIR`)."""
    force: bool = False
    """Overwrite an existing `record`."""


class Settings(msgspec.Struct, frozen=True):
    """The options in effect for a match, shown in its header (and its JSON)."""

    time: TimeControl
    limits: Limits
    options: dict[str, Any]

    def header(self) -> str:
        t, limits, res = self.time, self.limits, self.limits.resources
        bank = (
            f", bank {t.bank_ms} ms + {t.increment_ms} ms/decision"
            if t.bank_ms or t.increment_ms
            else ""
        )
        if t.first_move_ms:
            bank += f", first decision +{t.first_move_ms} ms"
        options = " ".join(f"{key}={json.dumps(value)}" for key, value in self.options.items())
        return (
            f"options: {options or 'none'} | time: {t.move_ms} ms/decision{bank}, "
            f"startup {t.startup_ms} ms, {limits.time_mode} clock | limits: "
            f"memory {res.memory_mb or 'unlimited'} MB, cpu {res.cpu_s or 'unlimited'} s, "
            f"processes {res.processes or 'unlimited'}, files {res.file_mb or 'unlimited'} MB | "
            f"sandbox: {limits.sandbox}"
        )


class MatchPlan(msgspec.Struct, frozen=True):
    """A request checked and resolved, ready to play: what `play` needs and what to show first
    (the seed, the settings, the sandbox's warning)."""

    request: MatchRequest
    game: str
    seed: int
    settings: Settings
    bot_seeds: list[int] | None
    warning: str | None


def plan(request: MatchRequest) -> MatchPlan:
    """Check `request` before any bot starts: the game and its options, the number of bots, the
    record path, the sandbox; RequestError names what is wrong."""
    game = find_game(request.game)
    options = msgspec.to_builtins(parse_options(game, request.options))
    if not game.min_players <= len(request.bots) <= game.max_players:
        raise RequestError(
            f"{game.id} takes {game.min_players}-{game.max_players} players, "
            f"got {plural(len(request.bots), 'bot')}"
        )
    if request.record is not None and request.record.exists() and not request.force:
        raise RequestError(f"--record {request.record} exists; add --force to overwrite it")
    sandbox = resolved_sandbox(request.sandbox, "--sandbox bwrap")
    # Earlier records (their seeds, every draw) must not be readable by a sandboxed bot.
    records = [RECORDS_DIR, *([] if request.record is None else [request.record])]
    limits = Limits(
        max_line_bytes=request.max_line_bytes,
        resources=request.resources,
        sandbox=sandbox.kind,
        time_mode=request.time_mode,
        hidden=tuple(str(path.resolve()) for path in records),
    )
    seed = request.seed if request.seed is not None else random.SystemRandom().randrange(2**63)
    bot_seed = request.bot_seed
    if bot_seed is None and request.seed is not None:
        bot_seed = 0
    seeds = (
        None if bot_seed is None else bot_seeds(owner_secret(bot_seed), 0, 0, 0, len(request.bots))
    )
    return MatchPlan(
        request, game.id, seed, Settings(request.clock, limits, options), seeds, sandbox.warning
    )


async def play(match: MatchPlan, log_dir: str | None) -> MatchOutcome:
    """Play the planned game, the bots' stderr logs in `log_dir` (None: the referee's own)."""
    limits = msgspec.structs.replace(match.settings.limits, log_dir=log_dir)
    return await run_match(
        match.game,
        match.settings.options,
        match.seed,
        match.request.bots,
        match.request.clock,
        limits=limits,
        bot_seeds=match.bot_seeds,
    )


def write_record(outcome: MatchOutcome, path: Path | None, *, force: bool) -> Path:
    """Write the record to `path`, or to a new file under `RECORDS_DIR`; never overwrite a
    file silently (O_EXCL), unless `force` says to.

    The default name has the time to the microsecond and a random suffix (not the seed, which
    would tell a bot reading old records the deals): parallel matches never collide.
    """
    if path is None:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        path = RECORDS_DIR / f"{outcome.game}-{stamp}-{secrets.token_hex(3)}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("wb" if force else "xb") as file:
            file.write(outcome.record)
    except FileExistsError:
        raise RequestError(
            f"--record {path} appeared while the game was played; not overwritten "
            "(add --force to overwrite)"
        ) from None
    except OSError as exc:
        raise RequestError(f"cannot write the record {path}: {exc.strerror}") from None
    return path


def write_viewer(outcome: MatchOutcome, path: Path) -> None:
    """The one-game HTML viewer (the report's viewer, in one file)."""
    from tournaments.report.shell import game_page  # loaded only when asked for

    title = f"{outcome.game}: {' vs '.join(outcome.names)} (seed {outcome.seed})"
    try:
        path.write_text(game_page(outcome.record, title), encoding="utf-8")
    except OSError as exc:
        raise RequestError(f"cannot write --html {path}: {exc.strerror}") from None
