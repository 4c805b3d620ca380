"""The CLI tests' shared helper: the real `arena` in a fresh process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ARENA = [sys.executable, "-m", "tournaments"]


def arena(*args: str | Path, cwd: Path, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*ARENA, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )
    assert done.returncode == code, done.stderr
    return done
