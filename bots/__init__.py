"""Reference bots and the SDK for Python bot authors.

Built-in bots can be named on the command line by their short name instead of a command.
"""

from __future__ import annotations

import sys

BUILTIN_BOTS: dict[str, str] = {
    "random": "bots.random",
    "greedy": "bots.greedy",
}


def builtin_command(name: str) -> list[str] | None:
    """The command that runs built-in bot `name` with this interpreter, or None if not built in."""
    module = BUILTIN_BOTS.get(name)
    return None if module is None else [sys.executable, "-m", module]
