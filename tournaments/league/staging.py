"""An upload unpacked into a staging folder, hashed, and its command read — in the league's
kept child (`kept.Kept`: `python -m tournaments.league.staging`), one upload at a time, below
the server's priority: an upload's work is the uploader's to choose (thousands of files, a bomb
within the caps, megabytes of noise to hash), and the pages must not wait for it.
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import msgspec

from tournaments.league.child import serve
from tournaments.league.files import confined_command
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


class Upload(msgspec.Struct, frozen=True):
    """An upload to stage: under `root`, its name, the file holding its bytes (written by the
    server: no upload's bytes cross the pipe), the league's limits."""

    root: str
    filename: str
    path: str
    limits: UploadLimits


def staged(upload: Upload) -> Staged:
    """`stage` of an `Upload`."""
    data = Path(upload.path).read_bytes()
    return stage(Path(upload.root), upload.filename, data, upload.limits)


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


if __name__ == "__main__":
    sys.exit(serve(staged, Upload, STAGING_NICE))
