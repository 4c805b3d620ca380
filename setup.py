"""The build: the league server's documents and kits shipped in the package, and the optional
mypyc build of the rules engines (docs/benchmarks.md has the figures).

`arena serve` hands its authors the game's rules page, the protocol and the starter kits (see
`tournaments/server/library.py`): a regular install copies `docs/protocol.md`, `docs/games/`
and `examples/starter-*` into `tournaments/server/shipped/`, so they come with the package; an
editable install reads them in the checkout.

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
from setuptools.command.build_py import build_py

SHIPPED = {"docs": ["protocol.md", "games/*.md"], "examples": ["starter-*/*"]}
"""What the league server offers its authors, by folder (globs), as `library.py` reads it."""


class BuildWithDocuments(build_py):
    """`build_py`, then the league's documents and kits copied into the built package."""

    def run(self) -> None:
        super().run()
        here = Path(__file__).parent
        target = Path(self.build_lib) / "tournaments" / "server" / "shipped"
        for folder, patterns in SHIPPED.items():
            for pattern in patterns:
                for source in sorted((here / folder).glob(pattern)):
                    if source.is_file():
                        self.copy_file(str(source), str(self._into(target, here, source)))

    @staticmethod
    def _into(target: Path, here: Path, source: Path) -> Path:
        destination = target / source.relative_to(here)
        destination.parent.mkdir(parents=True, exist_ok=True)
        return destination


def extensions() -> list[Extension]:
    if os.environ.get("TILE_ARENA_MYPYC") != "1":
        return []
    from mypyc.build import mypycify

    config = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text())
    modules: list[str] = config["tool"]["tile-arena"]["mypyc"]
    return mypycify(modules, opt_level="3")


setup(ext_modules=extensions(), cmdclass={"build_py": BuildWithDocuments})
