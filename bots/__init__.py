"""Reference bots and the SDK for Python bot authors.

Built-in bots can be named on the command line by their short name instead of a command,
followed by their arguments (`mcts --ms 50`).
"""

from __future__ import annotations

import shlex
import sys

BUILTIN_BOTS: dict[str, str] = {
    "random": "bots.random",
    "greedy": "bots.greedy",
    "mcts": "bots.mcts",
    "expert": "bots.expert",
}


def builtin_command(name: str) -> list[str] | None:
    """The command that runs built-in bot `name` (a built-in's name, then its arguments) with
    this interpreter, or None if `name` does not start with a built-in's name."""
    try:
        words = shlex.split(name)
    except ValueError:
        return None
    module = BUILTIN_BOTS.get(words[0]) if words else None
    return None if module is None else [sys.executable, "-m", module, *words[1:]]
