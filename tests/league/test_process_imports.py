"""What the league's long-lived processes load at start: every library a process imports stays
resident while the league runs, so the server and its kept children load only what they use
(scipy's sparse matrices are the copy check's, openskill and numpy the board's, trio the
server's)."""

from __future__ import annotations

import subprocess
import sys

import pytest


def loaded(module: str, libraries: list[str]) -> list[str]:
    """Of `libraries`, those a fresh interpreter has loaded after importing `module`."""
    code = (
        f"import sys, {module}\n"
        f"print(' '.join(name for name in {libraries!r} if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


@pytest.mark.parametrize(
    ("module", "absent"),
    [
        ("tournaments.server.serve", ["scipy", "markdown_it"]),
        ("tournaments.league.viewers", ["scipy", "numpy", "openskill", "trio"]),
        ("tournaments.league.reads", ["scipy", "numpy", "openskill", "trio"]),
        ("tournaments.league.board", ["scipy", "trio"]),
    ],
)
def test_a_league_process_loads_no_library_it_does_not_use(module: str, absent: list[str]) -> None:
    assert loaded(module, absent) == []
