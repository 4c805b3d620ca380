"""The damaged-store tests' shared tournament and their one-line-error check."""

from __future__ import annotations

from pathlib import Path

from tourhelp import in_process

TOURNAMENT = """
game = "5211"
players = 2
deals = 1
seed = 5
concurrency = 1

[participants]
greedy = "greedy"
random = "random"
random-twin = "random"

[time]
move_ms = 5000
"""


def arena(*argv: str | Path) -> tuple[int, str]:
    """`arena ARGV...` in this process (`tourhelp.in_process`): exit code and stderr."""
    code, _, err = in_process(*argv)
    return code, err


def assert_one_clean_line(err: str, command: str, *phrases: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"arena {command}: error: "), err
    assert "Traceback" not in err
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
