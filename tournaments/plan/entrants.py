"""Who plays: participants resolved to runnable specs, each identified by a content hash.

A bot is identified by its name *and* a hash of what it runs — the command as written plus the
bytes of every file the command names (for a built-in, every source file of the `bots` package:
its strategies and the SDK change its play too). Editing a bot's script therefore makes it a new
entry in the store, whose games are played afresh, while the old version keeps its games under
its own label: results of different code are never mixed.
(A bot run as `python -m package` is hashed by its command only.) An uploaded bot
(`BotSpec.folder`) is hashed by its command and its whole folder, links by their targets.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shlex
import stat
from pathlib import Path

import msgspec

from bots import BUILTIN_BOTS
from protocol import TimeControl
from protocol.errors import RequestError
from referee import BotSpec, ResourceLimits
from tournaments.plan.botcommands import BotCommand, parse_bot, participant_spec, written


class Entrant(msgspec.Struct, frozen=True):
    """A participant ready to play: name, command as written, content hash, runnable spec,
    and its own time control if it has time odds (None: the tournament's), which its hash
    holds (`odds`)."""

    name: str
    command: str
    hash: str
    spec: BotSpec
    time: TimeControl | None = None


class Player(msgspec.Struct, frozen=True):
    """A participant as the runner sees it: its store id, its label, and how to run it."""

    id: int
    label: str
    entrant: Entrant


def _files(spec: BotSpec) -> list[tuple[str, str]]:
    """The bot's own regular files (its program too, when given as a path), each with the name
    it is hashed under: its base name, or for a file inside a directory the bot names (`java
    -cp classes Main`) its path from that directory's parent, so that any change in the
    directory is a new version."""
    found = []
    for path in spec.files:
        if os.path.isdir(path):
            top = Path(path)
            inside = sorted(entry for entry in top.rglob("*") if entry.is_file())
            found += [(str(entry), str(entry.relative_to(top.parent))) for entry in inside]
        elif os.path.isfile(path):
            found.append((path, os.path.basename(path)))
    return found


def _builtin_files(module: str) -> list[str]:
    """Every source file of a built-in bot's package: its strategies and the SDK count too."""
    found = importlib.util.find_spec(module)
    if found is None or found.origin is None:
        return []
    package = Path(found.origin).parent
    return sorted(str(path) for path in package.rglob("*.py"))


def _first_word(command: str) -> str:
    words = command.split()
    return words[0] if words else ""


class Bounds(msgspec.Struct, frozen=True):
    """The most entries and bytes an uploaded bot's folder may hold when it is hashed."""

    entries: int = 1_000_000
    bytes: int = 1 << 40


UNBOUNDED = Bounds()
"""A folder made by the organiser (or already bounded when the league unpacked it)."""


def folder_hash(digest: hashlib._Hash, root: str, bounds: Bounds) -> None:
    """Add every entry of the folder `root` to `digest` in path order — a file's relative
    path, x bit and bytes, a link's target (never followed) — reading at most `bounds`
    (`RequestError` beyond), and refusing anything but files, folders and links."""
    entries: list[tuple[str, str]] = []
    for folder, folders, files in os.walk(root):
        for name in (*folders, *files):
            path = os.path.join(folder, name)
            entries.append((os.path.relpath(path, root).replace(os.sep, "/"), path))
            if len(entries) > bounds.entries:
                raise RequestError(f"the bot's folder holds more than {bounds.entries} entries")
    left = bounds.bytes
    for relative, path in sorted(entries):
        mode = os.lstat(path).st_mode
        if stat.S_ISDIR(mode):
            continue
        if stat.S_ISLNK(mode):
            digest.update(f"{relative}\0l\0{os.readlink(path)}\0".encode("utf-8", "replace"))
            continue
        if not stat.S_ISREG(mode):
            raise RequestError(f"'{relative}' in the bot's folder is not a file, folder or link")
        executable = int(bool(mode & stat.S_IXUSR))
        digest.update(f"{relative}\0{executable}\0".encode("utf-8", "replace"))
        with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC), "rb") as file:
            while chunk := file.read(1 << 20):
                left -= len(chunk)
                if left < 0:
                    raise RequestError(f"the bot's folder holds more than {bounds.bytes} bytes")
                digest.update(chunk)
        digest.update(b"\0")


def content_hash(command: str, spec: BotSpec, odds: bytes = b"", bounds: Bounds = UNBOUNDED) -> str:
    """16 hex digits of SHA-256 over the command text and the contents of the files it runs
    (and the bot's own time control, if it has one: other odds, other games); an uploaded
    bot's folder whole, within `bounds`."""
    digest = hashlib.sha256(command.strip().encode() + b"\0" + odds)
    if spec.folder is not None:
        folder_hash(digest, spec.folder, bounds)
        return digest.hexdigest()[:16]
    module = BUILTIN_BOTS.get(_first_word(command))  # a built-in, maybe with its arguments
    named = [(p, os.path.basename(p)) for p in _builtin_files(module)] if module else _files(spec)
    for path, name in named:
        digest.update(name.encode() + b"\0")
        with open(path, "rb") as file:  # a bot's weights may be large: read a MiB at a time
            while chunk := file.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()[:16]


def entrant(
    name: str,
    command: str | BotCommand,
    base: Path | None = None,
    resources: ResourceLimits | None = None,
    time: TimeControl | None = None,
) -> Entrant:
    """Resolve `command` (a built-in name, a command line or a participant table,
    `tournaments.plan.botcommands`) with relative paths from `base`.

    A tournament file's commands are relative to the file's directory, so a tournament runs the
    same from wherever `arena` is started; `base=None` means the current directory. `resources`
    are the bot's own limits (None: the match's), `time` its own time control (None: the
    tournament's).
    """
    spec = msgspec.structs.replace(participant_spec(name, command, base), resources=resources)
    text = written(command)
    return Entrant(name, text, content_hash(text, spec, odds(time)), spec, time)


def odds(time: TimeControl | None) -> bytes:
    """A bot's own time control as its identity holds it (none: the tournament's)."""
    return b"" if time is None else msgspec.json.encode(time)


def portable_command(command: str) -> str:
    """The command with paths made absolute, for storing a bot given on the command line."""
    if _first_word(command) in BUILTIN_BOTS:
        return command.strip()
    return shlex.join(parse_bot(command).command)
