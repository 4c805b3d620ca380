"""The Go and Java starter kits, each written from the docs alone, build and play every game
without a fault; the Java bot runs as `java -cp DIR Main` in the sandbox (a directory argument
is the bot's own, read-only). .ci/run installs Go and a JDK when they are missing."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_starters import EXAMPLES, assert_normal_end, play

GAMES = [("azul", 2), ("summer-pavilion", 2), ("alhambra", 3), ("5211", 3)]


@pytest.fixture(scope="module")
def built() -> Iterator[Path]:
    """A directory any user may enter (a root referee's sandboxed bot has a uid of its own)
    holding the Go binary `bot` and the Java classes in `classes/`."""
    directory = Path(tempfile.mkdtemp(prefix="arena-starters-"))
    directory.chmod(0o755)
    cache = directory / "go-cache"
    try:
        go = {"GOCACHE": str(cache), "GOPATH": str(directory / "go"), "HOME": str(directory)}
        for argv, env in [
            (["go", "build", "-o", str(directory / "bot"), "main.go"], go),
            (["javac", "-d", str(directory / "classes"), "Main.java"], {}),
        ]:
            kit = "starter-go" if argv[0] == "go" else "starter-java"
            done = subprocess.run(
                argv,
                cwd=EXAMPLES / kit,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
                env={"PATH": "/usr/local/bin:/usr/bin:/bin", **env},
            )
            assert done.returncode == 0, done.stderr
        shutil.rmtree(cache, ignore_errors=True)
        subprocess.run(["chmod", "-R", "o+rX", str(directory)], check=True)
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.slow
def test_the_go_starter_plays_every_game(
    game: str, players: int, built: Path, tmp_path: Path
) -> None:
    assert_normal_end(play(str(built / "bot"), game, players, tmp_path), players)


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.slow
def test_the_java_starter_plays_every_game_as_java_cp_dir_main(
    game: str, players: int, built: Path, tmp_path: Path
) -> None:
    bot = f"java -cp {built / 'classes'} Main"
    assert_normal_end(play(bot, game, players, tmp_path), players)
