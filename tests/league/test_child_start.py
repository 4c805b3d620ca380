"""A kept child asked to start at once has its interpreter running before the first request:
the first page after the server starts does not wait for the child's start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from tournaments.league import kept
from tournaments.league.staging import Staged, Upload
from tournaments.league.submissions import stager
from tournaments.league.unpack import UploadLimits


async def test_a_child_opened_at_once_is_running_before_its_first_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[str]] = []
    open_process = trio.lowlevel.open_process

    async def counted(argv: list[str], **options: Any) -> trio.Process:
        started.append(argv)
        return await open_process(argv, **options)

    monkeypatch.setattr(kept.trio.lowlevel, "open_process", counted)
    upload = tmp_path / "bot.py"
    upload.write_text("print('hello')\n")
    staging = stager()
    async with staging.open(at_once=True):
        assert len(started) == 1  # before any request
        staged = await staging.ask(
            Upload(str(tmp_path / "staged"), "bot.py", str(upload), UploadLimits())
        )
        assert isinstance(staged, Staged) and Path(staged.folder, "bot.py").exists()
    assert len(started) == 1  # the first request found it running
