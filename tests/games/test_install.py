"""`pip install .` compiles the rules engines with mypyc where it can (setup.py); where it
cannot — here, a C compiler that fails — it says so in one line and installs the same sources
as pure Python, leaving no half-built extension to shadow them, and they play. A regular
install has no checkout beside it: the wheel carries the documents and kits the league's page
links (`arena serve` hands them to authors).

The build here is asked to compile one engine module, not every one pyproject.toml lists:
the fallback is the same for one extension as for eleven, and mypyc's translation of the
others is the regular build's work (CI builds and tests the compiled engines on their own)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from referee.games import GAME_IDS, find_game
from tournaments.server import library

PROJECT = Path(__file__).parents[2]
ONE_MODULE = 'mypyc = ["referee/games/tiles.py"]'
"""The mypyc list of the build tested: an engine module with no import of another engine."""
PLAYS = (
    "import referee.games.azul as azul; from tournaments.bench.playouts import playouts; "
    "print(azul.__file__); print(playouts('azul', 2, 1))"
)


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
    pyproject = source / "pyproject.toml"
    listed = re.sub(r"(?m)^mypyc = \[[^]]*\]", ONE_MODULE, pyproject.read_text())
    assert ONE_MODULE in listed
    pyproject.write_text(listed)
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
    shipped = {name for name in names if "/shipped/" in name}
    prefix = "tournaments/server/shipped/"
    assert f"{prefix}docs/protocol.md" in shipped
    for game_id in GAME_IDS:
        assert f"{prefix}docs/games/{game_id}.md" in shipped, find_game(game_id).title
    for kit in library.kits():
        assert f"{prefix}examples/{kit}/bot.toml" in shipped
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), wheel],
        check=True,
        capture_output=True,
    )
    played = subprocess.run(
        [sys.executable, "-c", PLAYS],
        cwd=tmp_path,  # not the checkout, whose sources `-c` would import first
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        check=True,
    )
    where, decisions = played.stdout.split()
    assert Path(where) == site / "referee" / "games" / "azul.py"  # the installed pure Python
    assert int(decisions) > 40  # a whole game of dozens of decisions
