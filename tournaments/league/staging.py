"""An upload unpacked into a staging folder, hashed, and its command read — in a child process
(`python -m tournaments.league.staging`), one at a time, below the server's priority.

Why a child: an upload's work is the uploader's to choose (thousands of files, a bomb within
the caps, megabytes of noise to hash), and in the server's own process it would hold the trio
thread, or, in a thread, the GIL, while the pages wait. In a child niced below the server, the
pages are answered first and the server's memory never holds the unpacked files.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import msgspec
import trio

from protocol.errors import ArenaError, RequestError
from tournaments.league.files import League, confined_command
from tournaments.league.folders import remove, upload_hash
from tournaments.league.unpack import MANIFEST, UploadLimits, manifest, single_file_command, unpack

STAGING_NICE = 10
"""How far below the server's priority an upload is unpacked: the pages come first."""


class Staged(msgspec.Struct, frozen=True, tag=True):
    """An upload unpacked into a staging folder: how it runs and what it hashes to."""

    folder: str
    """Its path."""
    command: str
    build: str | None
    hash: str


class Refusal(msgspec.Struct, frozen=True, tag=True):
    """What was wrong with the upload, in the author's terms (a `RequestError`'s message)."""

    error: str


async def staged_apart(
    league: League, filename: str, data: bytes, limiter: trio.CapacityLimiter
) -> Staged:
    """`stage` the upload in a child process, one at a time by `limiter`: what it staged, or
    its refusal (a `RequestError`)."""
    limits = msgspec.json.encode(league.upload_limits).decode()
    argv = [sys.executable, "-m", __name__, str(league.bots_dir / ".staging"), filename, limits]
    async with limiter:
        done = await trio.run_process(
            argv, stdin=data, capture_stdout=True, capture_stderr=True, check=False
        )
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ArenaError(f"unpacking an upload failed (exit {done.returncode}): {said[-1:]}")
    answer = msgspec.json.decode(done.stdout, type=Staged | Refusal)
    if isinstance(answer, Refusal):
        raise RequestError(answer.error)
    return answer


def stage(root: Path, filename: str, data: bytes, limits: UploadLimits) -> Staged:
    """Unpack the upload into a new staging folder under `root` and read how it runs; the
    staging folder is removed when it is refused."""
    folder = root / secrets.token_hex(8)
    folder.mkdir(parents=True)
    try:
        written = unpack(data, filename, folder, limits)
        single = not (folder / MANIFEST).exists() and len(written) == 1 and "/" not in written[0]
        if single and not filename.lower().endswith((".zip", ".tar.gz", ".tgz")):
            command, build = single_file_command(folder / written[0]), None
        else:
            found = manifest(folder)
            command, build = found.command, found.build
        confined_command(command)
        return Staged(str(folder), command, build, upload_hash(folder, limits))
    except BaseException:
        remove(folder)
        raise


def main(argv: list[str]) -> int:
    """`ROOT FILENAME LIMITS` (JSON), the upload on stdin: a `Staged` or a `Refusal` as JSON."""
    os.nice(STAGING_NICE)
    root, filename, limits = Path(argv[0]), argv[1], msgspec.json.decode(argv[2], type=UploadLimits)
    answer: Staged | Refusal
    try:
        answer = stage(root, filename, sys.stdin.buffer.read(), limits)
    except RequestError as refused:
        answer = Refusal(str(refused))
    sys.stdout.buffer.write(msgspec.json.encode(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
