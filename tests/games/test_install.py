"""`pip install .` compiles the rules engines with mypyc where it can (setup.py); where it
cannot — here, a C compiler that fails — it says so in one line and installs the same sources
as pure Python, leaving no half-built extension to shadow them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PROJECT = Path(__file__).parents[2]


def tracked_copy(into: Path) -> Path:
    """The checkout's tracked files under `into`: a build of its own (a checkout's `build/`
    may hold extensions of an earlier build, which setuptools would take as up to date)."""
    listed = subprocess.run(
        ["git", "-C", str(PROJECT), "ls-files", "-z"], capture_output=True, check=True
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / name, target)
    return into


@pytest.mark.slow
def test_without_a_working_c_compiler_the_engines_install_in_pure_python(tmp_path: Path) -> None:
    source = tracked_copy(tmp_path / "src")
    env = {**os.environ, "CC": "false", "LDSHARED": "false"}
    env.pop("TILE_ARENA_MYPYC", None)  # the default: compile where it can
    wheels = tmp_path / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(wheels), str(source)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = [line for line in (done.stdout + done.stderr).splitlines() if "tile-arena: " in line]
    assert any("not compiled" in line and "pure Python" in line for line in said), said
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "referee/games/azul.py" in names
    assert not [name for name in names if name.endswith(".so")]
