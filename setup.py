"""The build: the rules engines compiled with mypyc where this machine can, and the league
server's documents and kits shipped in the package.

`arena serve` hands its authors the game's rules page, the protocol and the starter kits (see
`tournaments/server/library.py`): a regular install copies `docs/protocol.md`, `docs/games/`
and `examples/starter-*` into `tournaments/server/shipped/`, so they come with the package; an
editable install reads them in the checkout.

A regular install (`pip install .`) compiles the modules listed under `[tool.tile-arena] mypyc`
in pyproject.toml (the rules engines, Alhambra's greedy valuation and search knowledge, and
Azul's search knowledge, which their searches call at every decision of every playout) to C
extensions with mypyc — about twice the engines' pure-Python speed (docs/benchmarks.md) — when
it can: mypy comes with the build requirements, so it needs only a C compiler and Python's
headers. When it cannot, it says so in one line and installs the pure-Python engines, the same
sources. `TILE_ARENA_MYPYC=0` asks for pure Python; `TILE_ARENA_MYPYC=1` for the compiled
engines or a failed install. An editable install (`pip install -e`) is never compiled: its
extensions would sit next to the sources and shadow every later edit. Compiled classes cannot be
subclassed or monkeypatched from Python code: the tests that do so (the referee's engine-bug
tests) run on the pure-Python build (CI's editable install), and CI runs the engines' tests on
both.
"""

import os
import sys
import tomllib
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
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


COMPILE = os.environ.get("TILE_ARENA_MYPYC", "auto")
""""auto" (compile where it can), "1" (compile or fail), "0" (pure Python)."""


def say(line: str) -> None:
    """One line on the install's output (pip shows a build's stderr with -v, or on failure)."""
    print(f"tile-arena: {line}", file=sys.stderr, flush=True)


BUILDS = {"build", "build_ext", "bdist_wheel", "install"}
"""The setup commands that build the extensions: the others (pip's `egg_info` and `dist_info`
for the metadata) need no mypyc, whose type check would otherwise run once a command."""


def extensions() -> list[Extension]:
    if COMPILE == "0" or not BUILDS.intersection(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        if COMPILE == "1":
            raise
        say("mypy is not installed: installing the pure-Python rules engines")
        return []
    config = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text())
    modules: list[str] = config["tool"]["tile-arena"]["mypyc"]
    try:
        return mypycify(modules, opt_level="3", multi_file=True)
    except (Exception, SystemExit) as exc:  # mypyc's type check (it exits) or code generation
        if COMPILE == "1":
            raise
        say(f"mypyc could not compile the rules engines ({exc}): installing them in pure Python")
        return []


class BuildEnginesIfPossible(build_ext):
    """`build_ext` on every core; without a working C compiler or Python's headers, the
    pure-Python engines (nothing half-built is left to shadow them), unless asked for."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, no headers: setuptools raises several kinds
            if COMPILE == "1":
                raise
            for extension in self.extensions:
                Path(self.get_ext_fullpath(extension.name)).unlink(missing_ok=True)
            say(f"the rules engines were not compiled ({exc}): installed in pure Python")


setup(
    ext_modules=extensions(),
    cmdclass={"build_py": BuildWithDocuments, "build_ext": BuildEnginesIfPossible},
)
