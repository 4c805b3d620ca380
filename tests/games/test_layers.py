"""The engines are a layer of their own: importing them (what every Python bot does) loads no
trio, no bot processes and no match loop; `referee`'s lazy re-exports stay complete."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import referee

HEAVY = ("trio", "referee.process", "referee.match", "referee.sandbox", "tournaments")


@pytest.mark.parametrize("module", ["referee.games", "bots.sdk", "bots.random", "bots.greedy"])
def test_importing_the_engines_loads_no_referee_machinery(module: str) -> None:
    code = f"import sys, {module}; print(' '.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout.split()
    )
    assert module in loaded  # so the check below is about a real import
    assert sorted(loaded & set(HEAVY)) == []


def test_the_check_above_can_fail() -> None:
    """Asking for a referee name does load the match loop (and so trio)."""
    code = "import sys, referee; referee.play_match; print('trio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "True"


def test_every_listed_name_is_the_defining_modules() -> None:
    """Each name of `__init__.pyi` resolves, at run time, to the object of the module the stub
    names, so the stub the type checker reads is what a user gets."""
    tree = ast.parse(Path(referee.__file__).with_suffix(".pyi").read_text())
    listed = {
        alias.name: f"referee.{node.module}"
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert listed and sorted(referee.__all__) == sorted(listed)
    for name, module in listed.items():
        assert getattr(referee, name) is getattr(importlib.import_module(module), name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="nope"):
        referee.nope  # noqa: B018


def test_the_engines_are_the_build_asked_for() -> None:
    """With TILE_ARENA_MYPYC=1 (the compiled build, as CI's second step installs it) the modules
    of `[tool.tile-arena] mypyc` are C extensions; otherwise none is, so a stale extension left
    next to the sources cannot silently shadow them."""
    config = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    modules = [
        path.removesuffix(".py").replace("/", ".") for path in config["tool"]["tile-arena"]["mypyc"]
    ]
    compiled = [
        name for name in modules if not str(importlib.import_module(name).__file__).endswith(".py")
    ]
    assert compiled == (modules if os.environ.get("TILE_ARENA_MYPYC") == "1" else [])
