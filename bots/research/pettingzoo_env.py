"""Every registered game as a PettingZoo environment: `env` (AEC) and `parallel_env` (Parallel).

Both drive the rules engine through its public interface (no rules here). Agents are
`player_<seat>`. An agent's observation is PettingZoo's classic-game dict: `"observation"`, the
seat's own observation as a flat vector (`encoding`), and `"action_mask"`, 1 at the index of
each legal action (`actions`); its info holds the engine's own observation (`"observation"`, the
msgspec struct a bot receives) and the legal actions by index (`"legal"`), so scripted policies
can play too. Rewards come at the end: the engine's `returns` (per seat, the share of the other
seats it beats, in [0, 1]). A game that reaches the set-up's decision limit is truncated and
rewarded the same way from its current scores.

Simultaneous decisions (5211): the AEC environment asks the seats one after another and holds
their choices until every seat asked has chosen, then applies them together, so no seat's
observation ever shows another's choice of the same turn. The Parallel environment takes one
action per live agent at every step; the seats that do not decide then (every seat but one in
the turn-based games) have an all-zero mask and their action is ignored.

`reset(seed=s)` deals the engine's game `s`, the deal `arena match --seed s` plays; a reset
without a seed deals a seed drawn from a generator seeded by the last seed given.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces as gym
from pettingzoo import AECEnv, ParallelEnv

from bots.game_parts import module_name
from bots.research.encoding import LIMIT
from bots.research.spaces import Spaces, spaces

__all__ = ["ArenaEnv", "ArenaParallelEnv", "env", "parallel_env"]

Observation = dict[str, np.ndarray]


def env(
    game: str, players: int = 2, options: Any = None, max_decisions: int | None = None
) -> ArenaEnv:
    """The AEC environment of `game` (options: the Options struct or a mapping)."""
    return ArenaEnv(spaces(game, players, options), max_decisions)


def parallel_env(
    game: str, players: int = 2, options: Any = None, max_decisions: int | None = None
) -> ArenaParallelEnv:
    """The Parallel environment of `game` (for simultaneous games such as 5211)."""
    return ArenaParallelEnv(spaces(game, players, options), max_decisions)


class _Table:
    """The game being played, shared by both environments: the state, whose turn, what is legal."""

    def __init__(self, setup: Spaces, max_decisions: int | None) -> None:
        self.setup = setup
        self.limit = setup.spec.max_decisions if max_decisions is None else max_decisions
        self.agents = [f"player_{seat}" for seat in range(setup.players)]
        self.metadata = {
            "render_modes": ["ansi"],
            "name": f"tile_arena_{module_name(setup.game.id)}",
        }
        vector = gym.Box(-LIMIT, LIMIT, (setup.encoder.size,), np.float32)
        mask = gym.Box(0, 1, (len(setup.actions),), np.int8)
        self.observation_space = gym.Dict({"observation": vector, "action_mask": mask})
        self.action_space = gym.Discrete(len(setup.actions))
        self.seeds = random.Random()
        self.state: Any = None
        self.decisions = 0

    def deal(self, seed: int | None) -> None:
        if seed is not None:
            self.seeds.seed(seed)
        game = self.setup.game
        deal = self.seeds.getrandbits(63) if seed is None else seed
        self.state = game.new(self.setup.players, deal, self.setup.options)
        self.decisions = 0

    def asked(self) -> tuple[int, ...]:
        return self.setup.game.to_act(self.state)

    def info(self, seat: int, asked: bool) -> dict[str, Any]:
        game = self.setup.game
        legal = self.setup.actions.by_index(game.legal(self.state, seat)) if asked else {}
        return {"observation": game.observe(self.state, seat), "legal": legal}

    def observe(self, info: dict[str, Any]) -> Observation:
        vector = self.setup.encoder.encode(info["observation"])
        return {"observation": vector, "action_mask": self.setup.actions.mask(info["legal"])}

    def play(self, choices: dict[int, Any]) -> None:
        self.setup.game.apply(self.state, choices)
        self.decisions += 1

    def ended(self) -> tuple[bool, bool]:
        """(over by the rules, cut at the decision limit)."""
        over = self.setup.game.is_over(self.state)
        return over, not over and self.decisions >= self.limit

    def returns(self) -> list[float]:
        return self.setup.game.returns(self.state)


def _choice(info: dict[str, Any], agent: str, action: Any) -> Any:
    """The legal action at index `action`, or a clear error."""
    legal = None if action is None else info["legal"].get(int(action))
    if legal is None:
        raise ValueError(f"action {action} is not legal for {agent} now (see its action_mask)")
    return legal


class ArenaEnv(AECEnv[str, Observation, int]):
    """The AEC environment (see the module docstring)."""

    def __init__(self, setup: Spaces, max_decisions: int | None = None) -> None:
        super().__init__()
        self._table = _Table(setup, max_decisions)
        self.metadata = {**self._table.metadata, "is_parallelizable": False}
        self.possible_agents = self._table.agents[:]
        self.agent_selection = self.possible_agents[0]
        self.render_mode = "ansi"
        self._chosen: dict[int, Any] = {}

    def observation_space(self, agent: str) -> gym.Space[Any]:
        return self._table.observation_space

    def action_space(self, agent: str) -> gym.Space[Any]:
        return self._table.action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game (`options` is PettingZoo's and unused: the game's are the constructor's)."""
        self._table.deal(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._chosen = {}
        self._next_turn()

    def observe(self, agent: str) -> Observation:
        return self._table.observe(self.infos[agent])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        seat = self.possible_agents.index(agent)
        self._chosen[seat] = _choice(self.infos[agent], agent, action)
        waiting = [s for s in self._table.asked() if s not in self._chosen]
        if waiting:
            self.agent_selection = self.possible_agents[waiting[0]]
            self.infos[agent] = {**self.infos[agent], "legal": {}}
            self.infos[self.agent_selection] = self._table.info(waiting[0], asked=True)
            return
        self._table.play(self._chosen)
        self._chosen = {}
        self._next_turn()

    def _next_turn(self) -> None:
        """After a decision: the next seat to ask, or the end of the game and its rewards."""
        over, cut = self._table.ended()
        asked = () if over or cut else self._table.asked()
        self.infos = {
            agent: self._table.info(seat, asked=(seat,) == asked[:1])
            for seat, agent in enumerate(self.possible_agents)
        }
        self.agent_selection = self.possible_agents[asked[0] if asked else 0]
        self._clear_rewards()
        if over or cut:
            self.rewards = dict(zip(self.agents, self._table.returns(), strict=True))
            self.terminations = dict.fromkeys(self.agents, over)
            self.truncations = dict.fromkeys(self.agents, cut)
        self._accumulate_rewards()

    def render(self) -> str:
        """The whole state as text (PettingZoo's "ansi" mode)."""
        return self._table.setup.game.render(self._table.state)

    def close(self) -> None:
        """Nothing to release: the engine holds no resources."""


class ArenaParallelEnv(ParallelEnv[str, Observation, int]):
    """The Parallel environment (see the module docstring)."""

    def __init__(self, setup: Spaces, max_decisions: int | None = None) -> None:
        self._table = _Table(setup, max_decisions)
        self.metadata = self._table.metadata
        self.possible_agents = self._table.agents[:]
        self.agents = self.possible_agents[:]
        self.render_mode = "ansi"
        self._infos: dict[str, dict[str, Any]] = {}

    def observation_space(self, agent: str) -> gym.Space[Any]:
        return self._table.observation_space

    def action_space(self, agent: str) -> gym.Space[Any]:
        return self._table.action_space

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        self._table.deal(seed)
        self.agents = self.possible_agents[:]
        return self._observations(ended=False), self._infos

    def step(
        self, actions: dict[str, int]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        choices = {}
        for seat in self._table.asked():
            agent = self.possible_agents[seat]
            choices[seat] = _choice(self._infos[agent], agent, actions.get(agent))
        self._table.play(choices)
        over, cut = self._table.ended()
        observations = self._observations(over or cut)
        infos = self._infos
        rewards = dict.fromkeys(self.agents, 0.0)
        if over or cut:
            rewards = dict(zip(self.agents, self._table.returns(), strict=True))
            self.agents = []
        terminations = dict.fromkeys(rewards, over)
        truncations = dict.fromkeys(rewards, cut)
        return observations, rewards, terminations, truncations, infos

    def _observations(self, ended: bool) -> dict[str, Observation]:
        asked = () if ended else self._table.asked()
        self._infos = {
            agent: self._table.info(seat, asked=seat in asked)
            for seat, agent in enumerate(self.possible_agents)
        }
        return {agent: self._table.observe(info) for agent, info in self._infos.items()}

    def render(self) -> str:
        return self._table.setup.game.render(self._table.state)

    def close(self) -> None:
        """Nothing to release: the engine holds no resources."""
