"""A copy of a built-in bot made the ways the clone benchmark tries: under another name, its
strategy's constants changed, or playing a uniformly random legal action in a share of its
decisions, or breaking its ties with a generator of its own seeded with a fixed number and the
position (the game's seed unused: it answers the same way every time it reaches a position).

Run as `python -m bots.corpus.variant BASE [--set NAME=VALUE ...] [--noise P] [--seed S]
[--name N]`,
BASE `greedy`, `simple:RULE` (`bots.corpus.simple`, Azul) or `cards:RULE` (`bots.corpus.cards`,
5211); `--set` changes a constant of the base's module (greedy's: the game's strategy module
`bots.strategies.<game>`) before the first decision.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from bots import greedy
from bots.corpus import cards, simple
from bots.game_parts import game_module
from bots.sdk import Choose, Context, run


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bots.corpus.variant")
    parser.add_argument("base")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--noise", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--name", default="variant")
    return parser.parse_args(argv)


def base_choose(base: str) -> tuple[Choose, ModuleType | None]:
    """The base's choice, and the module of its constants (None: the game's strategy)."""
    if base == "greedy":
        return greedy.choose, None
    kind, rule = base.split(":", 1)
    module = {"simple": simple, "cards": cards}[kind]
    return module.chooser(module.RULES[rule]), module


def variant(
    base: Choose,
    changes: dict[str, float],
    noise: float,
    constants: ModuleType | None = None,
    seed: int | None = None,
) -> Choose:
    changed: set[str] = set()
    own = random.Random()

    def choose(observation: Any, legal: list[Any], context: Context) -> Any:
        if context.game not in changed:
            module = constants or game_module("bots.strategies", context.game)
            for name, value in changes.items():
                setattr(module, name, type(getattr(module, name))(value))
            changed.add(context.game)
        if noise and context.rng.random() < noise:
            return context.rng.randrange(len(legal))
        if seed is not None:
            own.seed(f"{seed}:{observation}")
            context = dataclasses.replace(context, rng=own)
        return base(observation, legal, context)

    return choose


if __name__ == "__main__":
    args = parse_args()
    changes = {key: float(value) for key, value in (item.split("=", 1) for item in args.set)}
    base, constants = base_choose(args.base)
    run(variant(base, changes, args.noise, constants, args.seed), name=args.name)
