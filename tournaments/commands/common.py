"""What several sub-commands share: exit codes, checked time flags, and a trio run that SIGTERM
ends cleanly.

Kept here (below the command modules, beside `tournaments.errors`) so that commands never import
from each other for plumbing, nor back from `tournaments.cli`.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import trio

from protocol import TimeControl
from protocol.errors import ArenaError, RequestError
from referee import (
    MAX_RECORD_BYTES,
    SandboxKind,
    SandboxRequest,
)
from tournaments.errors import UsageError, ungrouped
from tournaments.plan.config import TIME_RANGES, resolved_sandbox, time_error

EXIT_OK = 0
EXIT_ERROR = ArenaError.exit_code
EXIT_USAGE = RequestError.exit_code
EXIT_FAULT = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

EXIT_CODES = f"""\
exit codes:
  {EXIT_OK}    done
  {EXIT_ERROR}    failed: a bot was rejected by its check, the store cannot be used, a game
       record is not valid, or a replay diverges
  {EXIT_USAGE}    a mistake in the command line or the tournament file (the message says which)
  {EXIT_FAULT}    done, but a bot faulted (`arena match` always, `arena run` with --strict)
  {EXIT_INTERRUPTED}  stopped by Ctrl-C (finished games are stored: run again to resume)
  {EXIT_TERMINATED}  stopped by SIGTERM (likewise)"""

T = TypeVar("T")


class Terminated(Exception):
    """SIGTERM arrived: the trio run was cancelled (bots killed by the referee's cleanup)."""


def time_flag(key: str) -> Callable[[str], int]:
    """An argparse type for time control key `key` (e.g. "move_ms"), range-checked."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of ms") from None
        error = time_error(key, value)
        if error is not None:
            raise argparse.ArgumentTypeError(error)
        return value

    parse.__name__ = key  # argparse names the type in "invalid <type> value" messages
    return parse


def add_time_options(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup, defaults: TimeControl | None
) -> None:
    """`--move-ms`, `--bank-ms`, `--increment-ms`, `--startup-ms`; None defaults: "not given"."""
    for key, (low, _high, meaning) in TIME_RANGES.items():
        default = None if defaults is None else getattr(defaults, key)
        shown = "" if defaults is None else f"; default {default}"
        parser.add_argument(
            "--" + key.replace("_", "-"),
            type=time_flag(key),
            default=default,
            metavar="MS",
            help=f"{meaning} (ms, at least {low}{shown})",
        )


def read_record_file(path: Path) -> bytes:
    """The bytes of the game record file at `path` (`UsageError` if it cannot be read)."""
    try:
        with path.open("rb") as file:
            # One byte over the bound is enough for `parse_record` to refuse the file: a record
            # file is read no further (it may be huge, or endless as /dev/zero is).
            return file.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


SANDBOXES = ("auto", "bwrap", "none")


def add_sandbox_option(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup, default: str | None
) -> None:
    """`--sandbox {auto,bwrap,none}`; a None default means "as the tournament file says"."""
    parser.add_argument(
        "--sandbox",
        choices=SANDBOXES,
        default=default,
        help="auto (the default): bubblewrap where it works here, else unsandboxed with a "
        "warning; bwrap: bubblewrap or refuse to start; none: unsandboxed, without a warning",
    )


def add_time_mode_option(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup, default: str | None
) -> None:
    """`--time-mode {wall,cpu}`; a None default means "as the tournament file says"."""
    parser.add_argument(
        "--time-mode",
        choices=["wall", "cpu"],
        default=default,
        help="charge wall-clock time or the bots' CPU time, which a loaded machine does not use "
        "up" + (f" (default {default})" if default else ""),
    )


def chosen_sandbox(requested: SandboxRequest) -> SandboxKind:
    """The sandbox `--sandbox` resolves to here, its warning (if any) printed on stderr;
    `ConfigError` for "bwrap" where it does not work (`resolved_sandbox`)."""
    sandbox = resolved_sandbox(requested, "--sandbox bwrap")
    if sandbox.warning:
        print(f"arena: {sandbox.warning}", file=sys.stderr)
    return sandbox.kind


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def run_trio(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """`trio.run(fn, *args)`, but SIGTERM cancels it like Ctrl-C and raises `Terminated`.

    Cancelling (rather than dying of the signal) lets every `open_bots` kill its bots and keeps
    the store's transactions whole, so a terminated run resumes like an interrupted one.
    """
    return trio.run(_until_sigterm, fn, args)


async def _until_sigterm(fn: Callable[..., Awaitable[T]], args: tuple[Any, ...]) -> T:
    terminated = False

    async def watch(
        scope: trio.CancelScope, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        nonlocal terminated
        with trio.open_signal_receiver(signal.SIGTERM) as signals:
            task_status.started()
            async for _ in signals:
                terminated = True
                scope.cancel()
                return

    results: list[T] = []
    with ungrouped():  # the nursery wraps fn's own error; callers catch it as fn raised it
        async with trio.open_nursery() as nursery:
            await nursery.start(watch, nursery.cancel_scope)
            results.append(await fn(*args))
            nursery.cancel_scope.cancel()
    if not results:
        assert terminated, "only the SIGTERM watcher cancels fn"
        raise Terminated
    return results[0]


def parse_option_pairs(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` strings into a mapping; values that parse as JSON keep their JSON type."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option {pair!r}: expected KEY=VALUE, e.g. variant=grey")
        try:
            options[key] = json.loads(text)
        except json.JSONDecodeError:
            options[key] = text
    return options
