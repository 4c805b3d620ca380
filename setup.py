"""The optional mypyc build of the rules engines (docs/benchmarks.md has the figures).

`TILE_ARENA_MYPYC=1 pip install --no-build-isolation .` (with mypy installed) compiles the
modules listed under `[tool.tile-arena] mypyc` in pyproject.toml to C extensions; without the
variable the pure-Python engines are installed. Both are the same sources, and CI runs the
engines' tests on both. Prefer a regular install for the compiled build: an editable one puts
the extensions next to the sources, where they shadow later edits until deleted. Compiled
classes cannot be subclassed or monkeypatched from Python code: the tests that do so (the
referee's engine-bug tests) run on the pure-Python build.
"""

import os
import tomllib
from pathlib import Path

from setuptools import Extension, setup


def extensions() -> list[Extension]:
    if os.environ.get("TILE_ARENA_MYPYC") != "1":
        return []
    from mypyc.build import mypycify

    config = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text())
    modules: list[str] = config["tool"]["tile-arena"]["mypyc"]
    return mypycify(modules, opt_level="3")


setup(ext_modules=extensions())
