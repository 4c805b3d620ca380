"""The Go and Java starter kits, each written from the docs alone, build and play every game
without a fault; the Java bot runs as `java -cp DIR Main` in the sandbox (a directory argument
is the bot's own, read-only). Each kit needs only its own toolchain (skipped, naming it, where
it is missing); .ci/run installs Go and a JDK when they are missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from starterhelp import EXAMPLES, assert_normal_end, play

GAMES = [("azul", 2), ("summer-pavilion", 2), ("alhambra", 3), ("5211", 3)]


@pytest.fixture(scope="module")
def readable() -> Iterator[Path]:
    """A directory any user may enter (a root referee's sandboxed bot has a uid of its own)."""
    directory = Path(tempfile.mkdtemp(prefix="arena-starters-"))
    directory.chmod(0o755)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def build(argv: list[str], kit: str, env: dict[str, str], built: Path) -> None:
    """Run one kit's compiler in its folder; its output is readable by any user."""
    done = subprocess.run(
        argv,
        cwd=EXAMPLES / kit,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), **env},
    )
    assert done.returncode == 0, done.stderr
    subprocess.run(["chmod", "-R", "o+rX", str(built)], check=True)


@pytest.fixture(scope="module")
def go_bot(readable: Path) -> Path:
    """The Go kit's binary (its build cache removed: only the program stays)."""
    directory = readable / "go"
    directory.mkdir()
    cache = directory / "go-cache"
    env = {"GOCACHE": str(cache), "GOPATH": str(directory / "go"), "HOME": str(directory)}
    build(["go", "build", "-o", str(directory / "bot"), "main.go"], "starter-go", env, directory)
    shutil.rmtree(cache, ignore_errors=True)
    return directory / "bot"


@pytest.fixture(scope="module")
def java_classes(readable: Path) -> Path:
    """The Java kit's classes."""
    classes = readable / "classes"
    build(["javac", "-d", str(classes), "Main.java"], "starter-java", {}, classes)
    return classes


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.slow
@pytest.mark.needs("go")
def test_the_go_starter_plays_every_game(
    game: str, players: int, go_bot: Path, tmp_path: Path
) -> None:
    assert_normal_end(play(str(go_bot), game, players, tmp_path), players)


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.slow
@pytest.mark.needs("javac", "java")
def test_the_java_starter_plays_every_game_as_java_cp_dir_main(
    game: str, players: int, java_classes: Path, tmp_path: Path
) -> None:
    bot = f"java -cp {java_classes} Main"
    assert_normal_end(play(bot, game, players, tmp_path), players)
