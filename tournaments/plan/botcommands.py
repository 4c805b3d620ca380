"""What a user wrote for a bot → a runnable `referee.BotSpec`.

A bot is written in one of three ways (docs/protocol.md, "How a bot command runs", is the
user's version of these rules):

- a built-in bot's name (`random`, `greedy`), possibly followed by its arguments: it runs with
  this interpreter;
- a command line in one string (`"python3 my_bot.py --depth 3"`), split like a shell splits
  words but run without a shell. Unquoted shell syntax (`|`, `>`, `&&`, `;`, `$`, ...) is refused
  with a hint, because it would be passed to the program as plain words (`node bot.js | cat`
  would run `node` with the arguments `bot.js`, `|` and `cat`). The program is made absolute when
  it contains a `/`; of the other arguments exactly those that name an existing file or
  directory, or a `:`-separated list of them (a class path), are the bot's files: made absolute,
  because the bot runs in a private working directory, and the only paths besides its program
  that the sandbox lets it read (`.`, `..` and options starting with `-` never are). A word
  that looks like a script (`bot.py`, `bot.jar`) but names no file is refused before the game;
- in a tournament file, a table (`BotCommand`): `command` as a string (the rules above) or a
  list (the argv, verbatim but for the program), `args` appended verbatim, `files` and `cwd`
  saying exactly which files are the bot's and where it runs.

Relative paths are resolved against a base directory: the tournament file's directory for
`cwd` and `files`, the bot's `cwd` (when given) or that same base for paths in the command;
for `arena match` (whose `--cwd N=DIR` and `--files N=PATH` give seat N a table's `cwd` and
`files`) the current directory.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Annotated

import msgspec

from bots import BUILTIN_BOTS, builtin_command
from referee import BotSpec
from tournaments.errors import BotCommandError

SHELL_SYNTAX = frozenset("|&;<>()$`")
"""Characters a shell would interpret; unquoted in a one-string command they are refused."""

SCRIPT_SUFFIXES = frozenset(
    {".py", ".pyc", ".pyz", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".pm", ".php", ".lua",
     ".sh", ".bash", ".jar", ".class", ".dll", ".exe", ".R", ".jl", ".tcl", ".dart", ".wasm",
     ".ex", ".exs", ".scm", ".lisp", ".hs"}
)  # fmt: skip
"""Word endings that mark a script or program for an interpreter: such a word that names no
file is refused before the game, rather than left for the interpreter to report at a path in the
bot's private directory that the user never wrote."""
BUILTIN_NAMES = ", ".join(BUILTIN_BOTS)

Argv = Annotated[list[str], msgspec.Meta(min_length=1)]
DisplayName = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class BotCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A bot written as a table in a tournament file (the limits live in `config.Participant`)."""

    command: str | Argv
    """A built-in name or one-string command line, or the argv as a list (verbatim)."""
    args: list[str] = msgspec.field(default_factory=list)
    """Appended to the command verbatim: never turned into paths, never bound in the sandbox."""
    name: DisplayName | None = None
    """The name in records and logs; default: the participant's key."""
    cwd: str | None = None
    """The directory the bot runs in (relative to the tournament file); default: a private one."""
    files: list[str] = msgspec.field(default_factory=list)
    """The bot's own files (relative to the tournament file): readable in the sandbox, hashed."""


def shell_syntax(text: str) -> str | None:
    """The first shell construct in `text` outside quotes (a character, or `~`), else None.

    Follows the quoting `shlex.split` understands: single quotes, double quotes and backslash.
    """
    quote = ""
    escaped = False
    word_start = True
    for char in text:
        if escaped:
            escaped = False
        elif quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                escaped = True
        elif char == "\\":
            escaped = True
        elif char in "'\"":
            quote = char
        elif char in SHELL_SYNTAX or (char == "~" and word_start):
            return char
        word_start = not quote and char.isspace()
    return None


def _no_shell_hint(text: str, construct: str) -> str:
    return (
        f"bot command {text!r} uses the shell syntax {construct!r}, but bot commands run "
        "without a shell (the words are passed to the program as they are): put the command "
        "in a wrapper script (e.g. run.sh starting with `#!/bin/sh` and made executable) and "
        "give the script's path as the command"
    )


def split_command(text: str) -> list[str]:
    """The words of a one-string command; BotCommandError for an empty, unparsable or shell one."""
    construct = shell_syntax(text)
    if construct is not None:
        raise BotCommandError(_no_shell_hint(text, construct))
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise BotCommandError(f"cannot parse bot command {text!r}: {exc}") from None
    if not argv or not argv[0]:
        raise BotCommandError(
            f"empty bot command {text!r}: give a built-in bot name ({BUILTIN_NAMES}) or a command"
        )
    return argv


def _absolute(path: str, base: Path) -> str:
    return os.path.normpath(os.path.join(base, path))


def _program(word: str, base: Path) -> tuple[str, list[str]]:
    """argv[0] and its file: a path when it contains `/` (made absolute, and the bot's file if
    it is one), else a name looked up on PATH (system directories are readable anyway)."""
    if "/" not in word:
        return word, []
    program = _absolute(word, base)
    return program, [program] if os.path.isfile(program) else []


def _paths(word: str, base: Path) -> list[str] | None:
    """The bot's own paths a command word names, made absolute: an existing file or directory
    (`bot.py`, `java -cp classes Main`), or a `:`-separated list of them (a class path); None
    for any other word (an option, `.` and `..`, plain text), which is passed as written."""
    if word.startswith("-") or word in (".", ".."):
        return None
    parts = word.split(":")
    if all(part and os.path.exists(_absolute(part, base)) for part in parts):
        return [_absolute(part, base) for part in parts]
    return None


def _missing_script(word: str, base: Path) -> str | None:
    """Why `word` cannot be the script it looks like (see `SCRIPT_SUFFIXES`), else None."""
    if word.startswith("-") or os.path.splitext(word)[1] not in SCRIPT_SUFFIXES:
        return None
    full = _absolute(word, base)
    if os.path.exists(full):
        return None
    return f"{word!r} looks like a script but there is no such file (looked for {full})"


def _default_name(argv: list[str], files: list[str]) -> str:
    """The base name of the last regular file the command names (its script), else of its
    program."""
    scripts = [path for path in files if os.path.isfile(path)]
    return os.path.basename(scripts[-1] if scripts else argv[0]) or argv[0]


def parse_bot(text: str, name: str | None = None, base: Path | None = None) -> BotSpec:
    """A built-in bot's name or a one-string command line (see the module docstring).

    `name` None means none was given: the spec gets a name derived from the command.
    """
    text = text.strip()
    if not text:
        raise BotCommandError(
            f"empty bot command: give a built-in bot name ({BUILTIN_NAMES}) or a command"
        )
    words = split_command(text)
    builtin = builtin_command(text)
    if builtin is not None:
        return BotSpec(name=name or text, command=builtin)
    base = Path(os.path.abspath(base or Path.cwd()))
    program, *arguments = words
    program, files = _program(program, base)
    argv = [program]
    for word in arguments:
        missing = _missing_script(word, base)
        if missing is not None:
            raise BotCommandError(f"bot command {text!r}: {missing}")
        paths = _paths(word, base)
        if paths is not None:
            word = ":".join(paths)
            files += paths
        argv.append(word)
    return BotSpec(
        name=name or _default_name(argv, files),
        command=argv,
        files=tuple(files),
        name_given=name is not None,
    )


def _directory(path: str, base: Path) -> str:
    full = _absolute(path, base)
    if not os.path.isdir(full):
        raise BotCommandError(f"cwd {path!r} is not a directory (looked for {full})")
    return full


def _own_file(path: str, base: Path) -> str:
    full = _absolute(path, base)
    if not os.path.exists(full):
        raise BotCommandError(f"files: {path!r} does not exist (looked for {full})")
    return full


def table_spec(key: str, table: BotCommand, base: Path) -> BotSpec:
    """A tournament file's table form; `key` is the participant's name in the file."""
    base = Path(os.path.abspath(base))
    cwd = None if table.cwd is None else _directory(table.cwd, base)
    run_in = Path(cwd) if cwd is not None else base
    if isinstance(table.command, str):
        spec = parse_bot(table.command, key, run_in)
        argv, files = list(spec.command), list(spec.files)
    else:
        program, files = _program(table.command[0], run_in)
        argv = [program, *table.command[1:]]
    files += [_own_file(path, base) for path in table.files]
    return BotSpec(
        name=table.name or key,
        command=[*argv, *table.args],
        files=tuple(dict.fromkeys(files)),
        cwd=cwd,
    )


def command_spec(
    text: str, cwd: str | None = None, files: list[str] | None = None, base: Path | None = None
) -> BotSpec:
    """A one-string command with a table's `cwd` and `files` (`arena match --cwd/--files`), all
    relative to `base` as in a tournament file; named from its command as `parse_bot` does."""
    if cwd is None and not files:
        return parse_bot(text, base=base)
    if builtin_command(text) is not None:
        raise BotCommandError(f"{text.strip()!r} is a built-in bot: cwd and files are for commands")
    base = base or Path.cwd()
    spec = table_spec("", BotCommand(command=text, cwd=cwd, files=files or []), base)
    named = parse_bot(text, base=Path(spec.cwd) if spec.cwd else base)  # not after a data file
    return msgspec.structs.replace(spec, name=named.name, name_given=False)


def participant_spec(key: str, entry: str | BotCommand, base: Path | None = None) -> BotSpec:
    """The spec of a tournament participant written either way; its name defaults to `key`."""
    if isinstance(entry, str):
        return parse_bot(entry, key, base)
    return table_spec(key, entry, base or Path.cwd())


def written(entry: str | BotCommand) -> str:
    """One line saying everything that decides what a participant runs (stored and hashed):
    the command text itself, or for a table its argv, args, cwd and files."""
    if isinstance(entry, str):
        return entry.strip()
    command = entry.command if isinstance(entry.command, str) else shlex.join(entry.command)
    parts = [command.strip(), *map(shlex.quote, entry.args)]
    if entry.cwd is not None:
        parts.append(f"# cwd={shlex.quote(entry.cwd)}")
    if entry.files:
        parts.append(f"# files={','.join(map(shlex.quote, entry.files))}")
    return " ".join(parts)
