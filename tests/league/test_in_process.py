"""The shipped in-process league says what to install when its HTTP client is missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tournaments.server.testing import in_process


async def test_without_httpx2_it_names_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "httpx2", None)  # an import of it now fails
    with pytest.raises(ImportError, match=r"pip install 'tile-arena\[test\]'"):
        async with in_process(tmp_path / "cup.toml"):
            pass
