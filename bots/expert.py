"""Expert bot: the strongest built-in search, at a strength level, budgeted in CPU time.

Run as `python -m bots.expert [--level N] [mcts options]`; built in as `expert` (`arena match
--game azul "expert --level 4" "mcts --ms 1000"`). It is `mcts` (`bots/mcts.py`) searching
`LEVELS[N]` milliseconds of its own CPU time a decision (`mcts --clock cpu --ms ...`): a loaded
machine slows it without weakening it, so a benchmark against it means the same on a busy
host as on an idle one. The clock still caps it: a level asking for more than the clock's
share of a decision searches that share (`bots.mcts.search_seconds`). Any other `mcts` option
may follow (`--iterations N` for answers that depend only on the seed). Its measured strength
against `mcts` at several budgets: docs/strategies.md, "Azul's search, issue 55".
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bots import mcts

LEVELS = {1: 10.0, 2: 30.0, 3: 100.0, 4: 300.0, 5: 1000.0}
"""CPU milliseconds of search a decision, per level: each level about three times the last."""
DEFAULT_LEVEL = 5
"""The strongest: the clock's share of a decision decides, up to a second of CPU."""


def mcts_arguments(argv: Sequence[str]) -> list[str]:
    """The `mcts` command line of an `expert` one: `--level` turned into a CPU budget, the
    other options passed on (an explicit `--ms` or `--clock` wins over the level's)."""
    parser = argparse.ArgumentParser(
        prog="python -m bots.expert",
        description=__doc__.split("\n")[0],
        epilog="Any option of `python -m bots.mcts --help` may follow.",
    )
    levels = ", ".join(f"{level}: {ms:g} ms" for level, ms in sorted(LEVELS.items()))
    parser.add_argument(
        "--level",
        type=int,
        choices=sorted(LEVELS),
        default=DEFAULT_LEVEL,
        help=f"CPU time of search a decision, at most ({levels}; default {DEFAULT_LEVEL})",
    )
    args, rest = parser.parse_known_args(argv)
    return ["--clock", "cpu", "--ms", f"{LEVELS[args.level]:g}", *rest]


def main(argv: Sequence[str] | None = None) -> None:
    mcts.main(mcts_arguments(sys.argv[1:] if argv is None else argv), name="expert")


if __name__ == "__main__":
    main()
