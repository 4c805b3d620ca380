"""MCTS bot: information-set Monte Carlo tree search for every game (see `bots.search.ismcts`).

Run as `python -m bots.mcts [--ms N] [--clock wall|cpu] [--iterations N] [--c X]
[--rollout greedy|random] [--depth N] [--widen X] [--opponents search|heuristic]`; built in as
`mcts` (`arena match --game azul "mcts --ms 50" greedy`). It sees only its observation: each
decision rebuilds a state consistent with it (`Game.from_observation`) and searches worlds
re-dealt from that state until its time is up.

Time: a decision may take the clock's `move_ms` plus its bank, measured by the referee from
the moment it writes `act`. The bot reads the clock of every `act` and searches for at most
`SHARE` of what it may use (a twentieth of the bank at most), less `MARGIN_MS`: the rest covers
decoding the request, the answer's trip back and a busy machine's scheduling delays (under
`time_mode = "cpu"`, which charges none of those, `CPU_SHARE`). How far
its recent decisions went past their deadlines (the last iteration, choosing the answer,
freeing the tree) is measured and kept back from the next ones; the search never starts an
iteration that the slowest one so far would push past the deadline, and its rollouts look at
the clock every few decisions. `--ms` caps the search time below all that, never above it.

Budgets: the search time is measured on the clock the referee charges (`start.time_mode`): the
wall clock, or this process's CPU time under `time_mode = "cpu"`, where a loaded machine slows
the search without shortening it. `--clock` sets the clock of `--ms` (and of the clock's share
when `--ms` is not given) whatever the referee charges; the share on the referee's clock stays
a safety stop; in cpu time mode the search also stops at `CAP_SHARE` of the referee's
wall-clock cap. `--iterations N` makes the answers depend only on what the bot observed and its
seed: N iterations, a search shaped by `--ms` (else by the time control's share of a decision,
never by the time left), the clock only a safety stop that a search of N iterations should not
reach (under `time_mode = "cpu"` the machine's load does not bring it nearer).

Not done, by measurement: shrinking the search when the bot gets less than a whole core. Under
load, answers were late as often with searches of 18 ms (1 timeout in 1,205 decisions) as of
41 ms (1 in 1,201 and 2 in 1,176), and a greedy bot that answers in 1 ms was late too: the late
answers are stalls of the whole machine, and a shorter search only cost strength.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from typing import Any

from bots.sdk import Context, run
from bots.search.budget import CLOCKS, Timer, cpu_timer
from bots.search.ismcts import Params, Search
from protocol.messages import CPU_MODE_WALL_CAP, Clock, TimeMode
from referee.games import find_game

SHARE = 0.6
"""Of the time a decision may take on the wall clock, the share spent searching."""
CPU_SHARE = 0.9
"""The same under `time_mode = "cpu"`, where the referee charges only the bot's CPU time: a
busy machine's scheduling delays and the answer's trip cost it nothing, so the rest covers the
decision's own work around the search and the CPU clock's granularity."""
MARGIN_MS = 15.0
"""Kept back from every decision on top of the share: process and pipe overheads."""
BANK_SHARE = 20
"""A decision may draw at most 1/BANK_SHARE of the bank."""
OVERRUN_DECAY = 0.5
"""How fast the memory of a decision that ended late fades (per decision)."""
CAP_SHARE = 1 / 3
"""Of the referee's wall-clock cap on a decision in cpu time mode (`CPU_MODE_WALL_CAP` times
its limit), the share after which the search stops: a bot that gets almost no CPU still answers
within the cap, with the rest of it for its work before and after the search."""


def search_seconds(clock: Clock, cap_ms: float | None = None, charged: TimeMode = "wall") -> float:
    """How long to search for one decision under `clock`, charged on the `charged` clock (0
    when the clock is too short)."""
    allowed = clock.move_ms + clock.bank_ms / BANK_SHARE
    budget = (CPU_SHARE if charged == "cpu" else SHARE) * allowed - MARGIN_MS
    if cap_ms is not None:
        budget = min(budget, cap_ms)
    return max(0.0, budget) / 1000


def stops(
    clock: Clock, charged: TimeMode, kind: TimeMode, cap_ms: float | None
) -> dict[TimeMode, float]:
    """The seconds a search may take on each clock: `cap_ms` (at most the clock's share) on
    `kind`, the bot's; the clock's share on `charged`, the referee's, a safety stop; and in cpu
    time mode, `CAP_SHARE` of the referee's wall-clock cap."""
    seconds = {kind: search_seconds(clock, cap_ms, charged)}
    seconds.setdefault(charged, search_seconds(clock, None, charged))
    if charged == "cpu":
        cap = CAP_SHARE * CPU_MODE_WALL_CAP * (clock.move_ms + clock.bank_ms) / 1000
        seconds.setdefault("wall", cap)
    return seconds


class MctsBot:
    """The bot's state across decisions: one `Search` per game id, the settings."""

    def __init__(
        self,
        params: Params,
        cap_ms: float | None,
        iterations: int | None,
        clock: TimeMode | None = None,
    ) -> None:
        self.params = params
        self.cap_ms = cap_ms
        self.iterations = iterations
        self.clock = clock
        """The clock `cap_ms` is measured on; None: the one the referee charges."""
        self.searches: dict[str, Search] = {}
        self.overrun = 0.0
        """Seconds a recent decision went on past its deadline (the last iteration, choosing
        the answer, freeing the tree), decaying by `OVERRUN_DECAY` a decision; kept back."""

    def deadline(self, clock: Clock, charged: TimeMode) -> tuple[Timer, float]:
        """The search's timer and deadline: its `stops`, less the recent overrun, from now (a
        stop on CPU time comes with one on the wall clock)."""
        seconds = {
            kind: s - self.overrun
            for kind, s in stops(clock, charged, self.clock or charged, self.cap_ms).items()
        }
        if "cpu" in seconds:
            return cpu_timer(seconds["cpu"], seconds["wall"]), 0.0
        timer = CLOCKS["wall"]
        return timer, timer() + seconds["wall"]

    def choose(self, observation: Any, legal: list[Any], context: Context) -> int:
        timer, deadline = self.deadline(context.clock, context.time_mode)
        started = timer()
        seconds = None
        if self.iterations is not None:  # shaped by the settings, never by the time left
            full = Clock(move_ms=context.time.move_ms, bank_ms=context.time.bank_ms)
            seconds = search_seconds(full, self.cap_ms, context.time_mode)
        search = self.searches.get(context.game)
        if search is None:
            search = self.searches[context.game] = Search(find_game(context.game), self.params)
        root = search.game.from_observation(observation, context.rng)
        action = search.run(
            root,
            context.seat,
            context.rng,
            deadline,
            self.iterations,
            timer=timer,
            seconds=seconds,
        )
        index = legal.index(action)
        late = timer() - max(deadline, started)
        self.overrun = max(OVERRUN_DECAY * self.overrun, late)
        return index


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bots.mcts",
        description=__doc__.split("\n")[0],
        epilog=(
            "Budgets: the search time is measured on the clock the referee charges (the"
            ' `time_mode` of `start`): wall-clock time, or under time_mode = "cpu" this'
            " process's CPU time, so that a loaded machine slows the search without shortening"
            " it; in cpu time mode the search also stops at a third of the referee's wall-clock"
            " cap. With --iterations the answers depend only on the bot's seed and what it"
            " observed, as long as the iterations fit within the clock's share, which a loaded"
            " machine does not shorten in cpu time mode (docs/strategies.md, mcts)."
        ),
    )
    defaults = Params()
    parser.add_argument(
        "--ms",
        type=float,
        default=None,
        help="search time per decision on --clock, at most (default: the clock's share)",
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default=None,
        help=(
            "what --ms measures: wall-clock time, or this process's CPU time, which a loaded"
            " machine does not shorten (default: the clock the referee charges, its time_mode;"
            " the clock's share on that one stays a safety stop)"
        ),
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help=(
            "iterations per decision: the same answers for the same seed however loaded the"
            " machine (the clock only a safety stop; --ms, if given, also stops the search and"
            " shapes it)"
        ),
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
        "--widen",
        type=float,
        default=defaults.widen,
        help=(
            "progressive widening: a node with n visits considers its best 2 + WIDEN·√n actions"
            f" by the game's heuristic (default {defaults.widen:g})"
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
    if args.widen < 0:
        parser.error("--widen must not be negative")
    return args


def bot(args: argparse.Namespace) -> tuple[MctsBot, str]:
    """The bot the parsed command line `args` asks for, and its settings as its name shows
    them."""
    params = Params(
        c=args.c, rollout=args.rollout, depth=args.depth, opponents=args.opponents, widen=args.widen
    )
    settings = [f"rollout={args.rollout}"]
    if args.c is not None:
        settings.append(f"c={args.c}")
    if args.depth is not None:
        settings.append(f"depth={args.depth}")
    if args.opponents is not None:
        settings.append(f"opponents={args.opponents}")
    if args.widen != Params().widen:
        settings.append(f"widen={args.widen:g}")
    if args.clock is not None:
        settings.insert(0, f"clock={args.clock}")
    if args.ms is not None:
        settings.insert(0, f"ms={args.ms:g}")
    if args.iterations is not None:
        settings.insert(0, f"iterations={args.iterations}")
    return MctsBot(params, args.ms, args.iterations, args.clock), ",".join(settings)


def main(argv: Sequence[str] | None = None, name: str = "mcts") -> None:
    """Play as `name` (the bot's name in its answers' logs), set by the command line `argv`."""
    player, settings = bot(parse_args(sys.argv[1:] if argv is None else argv))
    # The tree has no reference cycles: reference counting frees it, and the cycle collector
    # would only add pauses in the middle of a timed search.
    gc.disable()
    run(player.choose, name=f"{name}({settings})")


if __name__ == "__main__":
    main()
