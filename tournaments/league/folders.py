"""A version's folder on the server's disk: its hash, made once and bounded, and its removal
when the version is rejected.

These read and delete what an author uploaded (or their build made), so they run in a worker
thread (`trio.to_thread`), never in the server's event loop, and read at most what the upload
limits allow: no folder, however it was made, can keep the pages from answering.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

from referee import BotSpec
from tournaments.league.unpack import MIB, UploadLimits
from tournaments.plan.entrants import Bounds, content_hash, folder_hash


def bounds(limits: UploadLimits) -> Bounds:
    return Bounds(entries=limits.files, bytes=limits.unpacked_mb * MIB)


def upload_hash(root: Path, limits: UploadLimits) -> str:
    """16 hex digits of SHA-256 over the uploaded files (`entrants.folder_hash`): the same files
    give the same version however they were packed."""
    digest = hashlib.sha256()
    folder_hash(digest, str(root), bounds(limits))
    return digest.hexdigest()[:16]


def identity(command: str, root: Path, limits: UploadLimits) -> str:
    """What a version runs as, its command and its folder (after its build): the label's hash
    in the store, and what a worker checks before it plays the version."""
    spec = BotSpec(name="", command=[], folder=str(root))
    return content_hash(command, spec, b"", bounds(limits))


def remove(folder: Path) -> None:
    """Remove `folder` and all it holds, its read-only parts too; a missing one is fine."""
    if not folder.exists():
        return
    for top, folders, _ in os.walk(folder):  # a read-only folder's entries cannot be removed
        for name in (".", *folders):
            path = os.path.join(top, name)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) | stat.S_IRWXU)
    shutil.rmtree(folder)
