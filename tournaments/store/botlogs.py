"""Where the bots' stderr logs of `arena match` and `arena compare` go, and telling the user.

Without `--logs DIR` the referee would leave a temporary directory behind per block of games,
unannounced. Here the command makes one itself, names the logs that hold something when it is
done, and removes the directory when no bot wrote a byte (nothing worth keeping). The referee
makes a seat's log file only when its bot writes to stderr, so a game's log paths may name
files that do not exist: only those that do, and hold something, are named.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path


@contextlib.contextmanager
def log_directory(wanted: Path | None) -> Iterator[str]:
    """The directory to give `Limits.log_dir`: `wanted`, or a new temporary one that is
    removed afterwards if every log in it is empty (else kept, and said so on stderr)."""
    if wanted is not None:
        wanted.mkdir(parents=True, exist_ok=True)
        yield str(wanted)
        return
    made = tempfile.mkdtemp(prefix="arena-logs-")
    try:
        yield made
    finally:
        if any(path.stat().st_size for path in Path(made).iterdir() if path.is_file()):
            print(f"arena: the bots' stderr logs are in {made}", file=sys.stderr)
        else:
            shutil.rmtree(made, ignore_errors=True)


def announce(paths: Sequence[str], names: Sequence[str]) -> None:
    """Name each seat's stderr log that exists and holds something (on stderr)."""
    for seat, (path, name) in enumerate(zip(paths, names, strict=True)):
        with contextlib.suppress(OSError):
            if os.path.getsize(path):
                print(f"arena: seat {seat} ({name}) stderr log: {path}", file=sys.stderr)
