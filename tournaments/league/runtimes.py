"""The runtimes an uploaded bot can use on this server, and their versions: what `/league` tells
authors before they write a line (an uploaded bot sees the system's runtimes and nothing of the
server's own environment: `referee.system_program`)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

import msgspec

from referee import system_program

ASKED: dict[str, list[str]] = {
    "python3": ["--version"],
    "node": ["--version"],
    "java": ["-version"],
    "g++": ["--version"],
    "gcc": ["--version"],
    "go": ["version"],
    "rustc": ["--version"],
    "ruby": ["--version"],
    "perl": ["--version"],
    "php": ["--version"],
    "lua": ["-v"],
    "ghc": ["--version"],
    "dotnet": ["--version"],
}
"""Each runtime looked for, and how it is asked for its version."""
VERSION_S = 10.0


class Runtime(msgspec.Struct, frozen=True):
    name: str
    path: str
    version: str
    """The first line its version flag printed (or why there is none)."""


def runtimes(extra: Sequence[str] = ()) -> list[Runtime]:
    """The runtimes an uploaded bot finds on the server's PATH (the system's folders and the
    league's `runtimes`), with their versions; slow (it runs each): call it once, in a
    thread."""
    found = []
    for name, flag in ASKED.items():
        path = system_program(name, extra)
        if path is not None:
            found.append(Runtime(name, path, _version([path, *flag])))
    return found


def _version(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=VERSION_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"(no version: {exc})"
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[0] if lines else "(no version printed)"
