"""Writing a new participant into a tournament file, keeping every comment and the layout.

`arena add` records the bot in the file itself, so the file stays the whole truth about who
plays (the file is what people read, edit and share; a bot known only to the store would be
invisible there). tomlkit edits the document as written: the one `name = "command"` line goes
right after the last participant, indented and ended (LF or CRLF) like it (an inline table gets
it inline), and nothing else moves. The result is decoded as `arena run` would before it
replaces the file, and the file is replaced at once (a new file renamed over it), so a failure
leaves the old one whole.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.items import Table

from tournaments.plan.config import ConfigError, decode


def add_participant(file: Path, name: str, command: str) -> str:
    """Add `name = "command"` to the `[participants]` of `file`; that entry as written.

    Raises ConfigError when the file cannot be edited that way (then it is left as it was), and
    OSError when it cannot be read or replaced.
    """
    path = file.resolve()  # a symbolic link keeps pointing at the edited file
    with path.open(encoding="utf-8", newline="") as source:  # newline="": CRLF stays CRLF
        text = source.read()
    try:
        document = tomlkit.parse(text)
        _append(document["participants"], name, command)
        edited = tomlkit.dumps(document)
    except (tomlkit.exceptions.TOMLKitError, KeyError, TypeError) as exc:
        raise ConfigError(f"{file}: cannot add {name} to its [participants]: {exc}") from None
    if decode(edited, str(file)).participants.get(name) != command:
        raise ConfigError(f"{file}: {name} would not read back as {command!r}")
    _replace(path, edited)
    return tomlkit.dumps({name: command}).strip()


def _append(participants: Any, name: str, command: str) -> None:
    """Put the entry after the last `name = ...` line of a `[participants]` table: tomlkit's own
    `table[name] = ...` would put it after the comments that end the table, which belong to the
    next one. Inline tables and dotted keys get tomlkit's own placement."""
    if not isinstance(participants, Table):
        participants[name] = command
        return
    entries = [
        (key, value)
        for key, value in participants.value.body
        if key is not None and not isinstance(value, Table)
    ]
    if not entries:  # only [participants.NAME] tables: a [participants] header is added
        participants[name] = command
        return
    key, last = entries[-1]
    entry = tomlkit.item(command)
    entry.trivia.indent = last.trivia.indent
    entry.trivia.trail = "\r\n" if last.trivia.trail.endswith("\r\n") else "\n"
    participants.value._insert_after(key, name, entry)


def _replace(path: Path, text: str) -> None:
    """Write `text` to a new file beside `path` with its mode, then rename it over `path`."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
