"""Who plays: participants resolved to runnable specs, each identified by a content hash.

A bot is identified by its name *and* a hash of what it runs — the command as written plus the
bytes of every file the command names (for a built-in, every source file of the `bots` package:
its strategies and the SDK change its play too). Editing a bot's script therefore makes it a new
entry in the store, whose games are played afresh, while the old version keeps its games under
its own label: results of different code are never mixed.
(A bot run as `python -m package` is hashed by its command only.)
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shlex
from pathlib import Path

import msgspec

from bots import BUILTIN_BOTS
from referee import BotSpec, bot_spec
from referee.limits import ResourceLimits


class Entrant(msgspec.Struct, frozen=True):
    """A participant ready to play: name, command as written, content hash, runnable spec."""

    name: str
    command: str
    hash: str
    spec: BotSpec


def _files(spec: BotSpec) -> list[str]:
    """The existing files a command names (its program too, when given as a path)."""
    program, *arguments = spec.command
    named = ([program] if os.sep in program else []) + arguments
    return [arg for arg in named if os.path.isfile(arg)]


def _builtin_files(module: str) -> list[str]:
    """Every source file of a built-in bot's package: its strategies and the SDK count too."""
    found = importlib.util.find_spec(module)
    if found is None or found.origin is None:
        return []
    package = Path(found.origin).parent
    return sorted(str(path) for path in package.rglob("*.py"))


def content_hash(command: str, spec: BotSpec) -> str:
    """16 hex digits of SHA-256 over the command text and the contents of the files it runs."""
    digest = hashlib.sha256(command.strip().encode() + b"\0")
    module = BUILTIN_BOTS.get(command.strip())
    for path in _builtin_files(module) if module else _files(spec):
        digest.update(os.path.basename(path).encode() + b"\0")
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()[:16]


def entrant(
    name: str,
    command: str,
    base: Path | None = None,
    resources: ResourceLimits | None = None,
) -> Entrant:
    """Resolve `command` (a built-in name or a shell command) with relative paths from `base`.

    A tournament file's commands are relative to the file's directory, so a tournament runs the
    same from wherever `arena` is started; `base=None` means the current directory. `resources`
    are the bot's own limits (None: the match's).
    """
    with contextlib.chdir(base or Path.cwd()):
        spec = msgspec.structs.replace(bot_spec(command, name), resources=resources)
        return Entrant(name, command.strip(), content_hash(command, spec), spec)


def portable_command(command: str) -> str:
    """The command with paths made absolute, for storing a bot given on the command line."""
    if command.strip() in BUILTIN_BOTS:
        return command.strip()
    return shlex.join(bot_spec(command).command)
