"""A policy over the research encoding, played as a subprocess bot.

A policy trained on the PettingZoo environments (or any function of the same inputs) sees what
it saw there — the seat's observation encoded by `encoding`, and the mask of legal action
indices — and returns an action index. `run_policy` plays it through the bot SDK, so the bot
is a script like any other (docs/research.md, examples/research/policy_bot.py):

    from bots.research.policy_bot import run_policy

    def policy(observation, mask):
        return int(mask.nonzero()[0][0])          # an index whose mask bit is 1

    if __name__ == "__main__":
        run_policy(policy, name="first-index")

The encoding and the indices are those of the game set-up the referee starts (game, players,
options), built once per set-up, so one bot process serves every game it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from bots.research.spaces import spaces
from bots.sdk import Choose, Context, run

__all__ = ["Policy", "choose_with", "run_policy"]

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int]
"""(the encoded observation, the action mask) → the index of a legal action."""


def choose_with(policy: Policy) -> Choose:
    """The SDK's `choose` function that asks `policy`."""

    def choose(observation: Any, legal: list[Any], context: Context) -> Any:
        setup = spaces(context.game, context.players, context.options)
        by_index = setup.actions.by_index(legal)
        index = int(policy(setup.encoder.encode(observation), setup.actions.mask(by_index)))
        if index not in by_index:
            raise ValueError(f"the policy chose action {index}, which is not legal now")
        return by_index[index]

    return choose


def run_policy(policy: Policy, name: str = "policy") -> None:
    """Play every game the referee starts with `policy` (the SDK's `run`)."""
    run(choose_with(policy), name=name)
