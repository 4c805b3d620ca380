"""Train a linear softmax policy for seat 0 on a game's PettingZoo environment (REINFORCE against
uniformly random opponents) and save its weights for `policy_bot.py`.

The smallest complete example of the research path (docs/research.md), not a strong learner:

    python examples/research/train.py --game 5211 --players 3 --episodes 300 --out weights.npz
    arena match --game 5211 "python examples/research/policy_bot.py weights.npz" random random

The weights are one row per action index by one column per encoded number, so they fit the
small games (5211, Azul, Summer Pavilion: a few MB), not Alhambra's 24 392 actions.
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt

from bots.research.pettingzoo_env import ArenaEnv, env

Floats = npt.NDArray[np.float64]
Step = tuple[Floats, Floats, int]


def probabilities(weights: Floats, observation: Floats, mask: npt.NDArray[np.int8]) -> Floats:
    """The policy: a softmax of linear scores over the legal actions."""
    scores = np.where(mask == 1, weights @ observation, -np.inf)
    exp = np.exp(scores - scores.max())
    return exp / exp.sum()


def episode(
    environment: ArenaEnv, weights: Floats, rng: np.random.Generator
) -> tuple[list[Step], float]:
    """One game: seat 0's (observation, probabilities, action) steps and its final reward."""
    steps: list[Step] = []
    final = 0.0
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            final = reward if agent == "player_0" else final
            environment.step(None)
            continue
        mask = observation["action_mask"]
        if agent == "player_0":
            x = observation["observation"].astype(np.float64)
            chances = probabilities(weights, x, mask)
            action = int(rng.choice(len(chances), p=chances))
            steps.append((x, chances, action))
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        environment.step(action)
    return steps, final


def train(game: str, players: int, episodes: int, seed: int, rate: float) -> Floats:
    environment = env(game, players)
    rng = np.random.default_rng(seed)
    environment.reset(seed=seed)
    first = environment.observe("player_0")
    weights = np.zeros((first["action_mask"].size, first["observation"].size))
    baseline = 0.5
    for _ in range(episodes):
        environment.reset(seed=int(rng.integers(2**31)))
        steps, final = episode(environment, weights, rng)
        for x, chances, action in steps:  # the gradient of log π(action | x), scaled
            direction = -chances
            direction[action] += 1
            weights += rate * (final - baseline) * np.outer(direction, x)
        baseline += 0.05 * (final - baseline)
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="5211")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rate", type=float, default=1e-4)
    parser.add_argument("--out", default="weights.npz")
    args = parser.parse_args()
    weights = train(args.game, args.players, args.episodes, args.seed, args.rate)
    np.savez(args.out, weights=weights)


if __name__ == "__main__":
    main()
