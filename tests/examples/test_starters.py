"""The starter kits in examples/ play real games: `arena match` against `random`, no fault.

Each kit needs its own toolchain, Node.js or g++ (skipped, naming it, where it is missing;
.ci/run installs both).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from starterhelp import EXAMPLES, assert_normal_end, play

GAMES = [("azul", 2), ("5211", 3)]


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.slow
@pytest.mark.needs("node")
def test_the_node_starter_plays_a_whole_game(game: str, players: int, tmp_path: Path) -> None:
    bot = f"node {EXAMPLES / 'starter-node' / 'bot.js'}"
    assert_normal_end(play(bot, game, players, tmp_path), players)


@pytest.fixture(scope="module")
def cpp_bot() -> Iterator[Path]:
    """The C++ starter, compiled with warnings as errors.

    Into a directory of its own that any user may enter: a root referee runs sandboxed bots as
    an unprivileged uid, which cannot reach into pytest's private temporary directories.
    """
    directory = Path(tempfile.mkdtemp(prefix="arena-starter-cpp-"))
    directory.chmod(0o755)
    binary = directory / "bot"
    source = EXAMPLES / "starter-cpp" / "bot.cpp"
    flags = ["-std=c++17", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
    done = subprocess.run(
        ["g++", *flags, "-o", str(binary), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    try:
        assert done.returncode == 0, done.stderr
        yield binary
    finally:
        shutil.rmtree(directory)


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.slow
@pytest.mark.needs("g++")
def test_the_cpp_starter_plays_a_whole_game(
    game: str, players: int, cpp_bot: Path, tmp_path: Path
) -> None:
    assert_normal_end(play(str(cpp_bot), game, players, tmp_path), players)
