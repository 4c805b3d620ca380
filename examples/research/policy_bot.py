"""A bot that plays the linear policy `train.py` saved: `python policy_bot.py weights.npz`.

The weights fit the game and player count they were trained for (their shape is that set-up's
action count by its encoding size); the referee's `start` names the set-up.
"""

from __future__ import annotations

import sys

import numpy as np
import numpy.typing as npt

from bots.research.policy_bot import run_policy

weights = np.load(sys.argv[1])["weights"]


def policy(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
    """The legal action with the highest score (the trained softmax's most likely action)."""
    return int(np.argmax(np.where(mask == 1, weights @ observation, -np.inf)))


if __name__ == "__main__":
    run_policy(policy, name="linear")
