"""MCTS bot: information-set Monte Carlo tree search for every game (see `bots.search.ismcts`).

Run as `python -m bots.mcts [--ms N] [--iterations N] [--c X] [--rollout greedy|random]
[--depth N] [--opponents search|heuristic]`; built in as `mcts` (`arena match --game azul
"mcts --ms 50" greedy`). It sees only its observation: each decision rebuilds a state
consistent with it (`Game.from_observation`) and searches worlds re-dealt from that state until
its time is up.

Time: a decision may take the clock's `move_ms` plus its bank, measured by the referee from
the moment it writes `act`. The bot reads the clock of every `act` and searches for at most
`SHARE` of what it may use (a twentieth of the bank at most), less `MARGIN_MS`: the rest covers
decoding the request, the answer's trip back and a busy machine's scheduling delays. How far
its recent decisions went past their deadlines (the last iteration, choosing the answer,
freeing the tree) is measured and kept back from the next ones; the search never starts an
iteration that the slowest one so far would push past the deadline, and its rollouts look at
the clock every few decisions. `--ms` caps the search time below all that, never above it.

Not done, by measurement: shrinking the search when the bot gets less than a whole core. Under
load, answers were late as often with searches of 18 ms (1 timeout in 1,205 decisions) as of
41 ms (1 in 1,201 and 2 in 1,176), and a greedy bot that answers in 1 ms was late too: the late
answers are stalls of the whole machine, and a shorter search only cost strength.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Sequence
from typing import Any

from bots.sdk import Context, run
from bots.search.ismcts import Params, Search
from protocol.messages import Clock
from referee.games import find_game

SHARE = 0.6
"""Of the time a decision may take, the share spent searching."""
MARGIN_MS = 15.0
"""Kept back from every decision on top of the share: process and pipe overheads."""
BANK_SHARE = 20
"""A decision may draw at most 1/BANK_SHARE of the bank."""
OVERRUN_DECAY = 0.5
"""How fast the memory of a decision that ended late fades (per decision)."""


def search_seconds(clock: Clock, cap_ms: float | None = None) -> float:
    """How long to search for one decision under `clock` (0 when the clock is too short)."""
    allowed = clock.move_ms + clock.bank_ms / BANK_SHARE
    budget = SHARE * allowed - MARGIN_MS
    if cap_ms is not None:
        budget = min(budget, cap_ms)
    return max(0.0, budget) / 1000


class MctsBot:
    """The bot's state across decisions: one `Search` per game id, the settings."""

    def __init__(self, params: Params, cap_ms: float | None, iterations: int | None) -> None:
        self.params = params
        self.cap_ms = cap_ms
        self.iterations = iterations
        self.searches: dict[str, Search] = {}
        self.overrun = 0.0
        """Seconds a recent decision went on past its deadline (the last iteration, choosing
        the answer, freeing the tree), decaying by `OVERRUN_DECAY` a decision; kept back."""

    def choose(self, observation: Any, legal: list[Any], context: Context) -> int:
        started = time.perf_counter()
        deadline = started + search_seconds(context.clock, self.cap_ms) - self.overrun
        search = self.searches.get(context.game)
        if search is None:
            search = self.searches[context.game] = Search(find_game(context.game), self.params)
        root = search.game.from_observation(observation, context.rng)
        action = search.run(root, context.seat, context.rng, deadline, self.iterations)
        index = legal.index(action)
        late = time.perf_counter() - max(deadline, started)
        self.overrun = max(OVERRUN_DECAY * self.overrun, late)
        return index


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bots.mcts", description=__doc__.split("\n")[0])
    defaults = Params()
    parser.add_argument(
        "--ms",
        type=float,
        default=None,
        help="search time per decision, at most (default: the clock's)",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="iterations per decision (reproducible; still stopped by the clock)",
    )
    parser.add_argument(
        "--c", type=float, default=None, help="UCB exploration constant (default: per game)"
    )
    parser.add_argument("--rollout", choices=("greedy", "random"), default=defaults.rollout)
    parser.add_argument(
        "--depth",
        type=int,
        default=None,
        help=(
            "rollout decisions before the leaf is evaluated (0: to the end, in Azul's searches"
            " under 200 ms of the round; default: per game)"
        ),
    )
    parser.add_argument(
        "--opponents",
        choices=("search", "heuristic"),
        default=None,
        help="the other seats: searched by UCB, or modelled by the heuristic (default: per game)",
    )
    args = parser.parse_args(argv)
    if args.ms is not None and args.ms <= 0:
        parser.error("--ms must be positive")
    if args.iterations is not None and args.iterations < 1:
        parser.error("--iterations must be at least 1")
    if (args.c is not None and args.c < 0) or (args.depth is not None and args.depth < 0):
        parser.error("--c and --depth must not be negative")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    params = Params(c=args.c, rollout=args.rollout, depth=args.depth, opponents=args.opponents)
    bot = MctsBot(params, args.ms, args.iterations)
    # The tree has no reference cycles: reference counting frees it, and the cycle collector
    # would only add pauses in the middle of a timed search.
    gc.disable()
    settings = [f"rollout={args.rollout}"]
    if args.c is not None:
        settings.append(f"c={args.c}")
    if args.depth is not None:
        settings.append(f"depth={args.depth}")
    if args.opponents is not None:
        settings.append(f"opponents={args.opponents}")
    if args.ms is not None:
        settings.insert(0, f"ms={args.ms:g}")
    if args.iterations is not None:
        settings.insert(0, f"iterations={args.iterations}")
    run(bot.choose, name=f"mcts({','.join(settings)})")


if __name__ == "__main__":
    main()
