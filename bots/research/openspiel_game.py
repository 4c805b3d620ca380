"""Every registered game as an OpenSpiel Python game, registered on import.

`pyspiel.load_game("tile_arena_azul", {"players": 3, "variant": "grey"})` (names:
`short_name(game_id)`; parameters: `players`, the game's options, `deals` and
`max_game_length`). The rules are the engine's, driven through its public interface.

Chance: one explicit chance node at the start deals the game — its outcome is the engine seed
(uniform over `deals` seeds, 2**16 by default) — and every later draw (bag refills, reshuffles)
follows from that seed inside the engine, so the rest of the game is deterministic given the
deal and the actions. The engines draw internally and name no draw, so later draws cannot be
chance nodes of their own; sampled stochasticity would lose serialisation (OpenSpiel cannot
save a Python game's RNG). What the seed decides and no seat has seen yet (the bag and deck
order, others' hands) is hidden information: every game is IMPERFECT_INFORMATION, with
information-state strings per seat (`ArenaObserver`). OpenSpiel's MCTS searches on the true
state, so it knows the future draws of the game it is given: give it a state built from what a
seat saw (`ArenaGame.state_from_observation`, as the example bot does) for a fair search.

5211 is SIMULTANEOUS (every seat holding cards chooses at once; a seat without has no legal
action); `pyspiel.convert_to_turn_based` makes it sequential for MCTS. The other games are
SEQUENTIAL. Returns are the engine's `returns` (in [0, 1], summing to players / 2: a
CONSTANT_SUM game), given at the end; a game reaching `max_game_length` decisions ends there and
scores from its current scores (see `specs`).
"""

from __future__ import annotations

import functools
import random
from typing import Any

import msgspec
import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from bots.game_parts import module_name
from bots.research.spaces import Spaces, spaces
from bots.research.specs import SPECS
from referee.games import GAME_IDS, Game, find_game

__all__ = [
    "DEALS",
    "ArenaGame",
    "ArenaObserver",
    "ArenaState",
    "ReturnsEvaluator",
    "load",
    "short_name",
]

DEALS = 2**16
"""The default number of deals the chance node chooses from (the `deals` parameter)."""


def short_name(game_id: str) -> str:
    """The OpenSpiel name of a game: `tile_arena_` and its module name ("tile_arena_g5211")."""
    return f"tile_arena_{module_name(game_id)}"


def load(game_id: str, players: int, options: Any = None) -> ArenaGame:
    """The OpenSpiel game of a set-up (options: the Options struct, a mapping, or None), loaded
    once per set-up: a bot asks for it at every decision."""
    return _load(game_id, players, spaces(game_id, players, options).options)


@functools.cache
def _load(game_id: str, players: int, options: Any) -> ArenaGame:
    params = {"players": players, **msgspec.structs.asdict(options)}
    game = pyspiel.load_game(short_name(game_id), params)
    assert isinstance(game, ArenaGame)
    return game


def _game_type(game: Game[Any]) -> pyspiel.GameType:
    spec = SPECS[game.id]
    options = {f.name: f.default for f in msgspec.structs.fields(game.Options)}
    sequential = pyspiel.GameType.Dynamics.SEQUENTIAL
    return pyspiel.GameType(
        short_name=short_name(game.id),
        long_name=f"tile-arena {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if spec.simultaneous else sequential,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification={
            "players": game.min_players,
            **options,
            "deals": DEALS,
            "max_game_length": spec.max_decisions,
        },
    )


class ArenaGame(pyspiel.Game):
    """One game set-up; its states wrap engine states."""

    def __init__(self, game_id: str, params: dict[str, Any]) -> None:
        game = find_game(game_id)
        options = {f.name: params[f.name] for f in msgspec.structs.fields(game.Options)}
        self.setup: Spaces = spaces(game_id, params["players"], options)
        self.deals: int = params["deals"]
        self.limit: int = params["max_game_length"]
        players = params["players"]
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.setup.actions),
            max_chance_outcomes=self.deals,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=players / 2,
            max_game_length=self.limit,
        )
        super().__init__(_game_type(game), info, params)

    def new_initial_state(self) -> ArenaState:
        """The chance node that deals."""
        return ArenaState(self)

    def state_from_observation(self, observation: Any, rng: random.Random) -> ArenaState:
        """A dealt state that gives back a seat's `observation`, every part hidden from that
        seat dealt at random from `rng` (the engine's `from_observation`): what a bot searches."""
        state = ArenaState(self)
        state.play = _Play(self.setup.game, self.setup.game.from_observation(observation, rng))
        return state

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> ArenaObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return ArenaObserver(
            self.setup, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        )


class _Play:
    """A dealt game: the engine state and what an information state recalls.

    OpenSpiel clones a Python state by deep-copying its attributes; this copy is the engine's
    `clone` (and shares the immutable start), not a generic deep copy of the engine's objects.
    """

    def __init__(self, game: Game[Any], state: Any) -> None:
        self.game_id = game.id
        self.state = state
        self.start = game.clone(state)
        """The state right after the deal (never changed): information states replay from it."""
        self.moves: list[dict[int, Any]] = []
        self.recall: dict[tuple[int, bool], list[str]] = {}
        """Information-state lines by (player, private view), kept up to date once asked for."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Play:
        game = find_game(self.game_id)
        copy = _Play.__new__(_Play)
        copy.game_id = self.game_id
        copy.state = game.clone(self.state)
        copy.start = self.start
        copy.moves = self.moves[:]
        copy.recall = {key: lines[:] for key, lines in self.recall.items()}
        return copy

    def play(self, choices: dict[int, Any]) -> None:
        game = find_game(self.game_id)
        game.apply(self.state, choices)
        self.moves.append(choices)
        for (player, private), lines in self.recall.items():
            lines += _recall_step(game, self.state, choices, player, private)

    def lines(self, player: int, private: bool) -> list[str]:
        """What `player` recalls: its view after the deal and after every decision, and its own
        choices (`private`: its observation; else the public view, without choices)."""
        key = (player, private)
        if key not in self.recall:
            game = find_game(self.game_id)
            state = game.clone(self.start)
            lines = [_view(game, state, player, private)]
            for choices in self.moves:
                game.apply(state, choices)
                lines += _recall_step(game, state, choices, player, private)
            self.recall[key] = lines
        return self.recall[key]


def _view(game: Game[Any], state: Any, player: int, private: bool) -> str:
    seen = game.observe(state, player) if private else game.spectate(state)
    return msgspec.json.encode(seen).decode()


def _recall_step(
    game: Game[Any], state: Any, choices: dict[int, Any], player: int, private: bool
) -> list[str]:
    """The lines one decision adds: the player's own choice (if private and its), then the view."""
    view = _view(game, state, player, private)
    if private and player in choices:
        return [f"chose {msgspec.json.encode(choices[player]).decode()}", view]
    return [view]


class ArenaState(pyspiel.State):
    """A state of an `ArenaGame`: the deal's chance node, then a dealt engine game."""

    def __init__(self, game: ArenaGame) -> None:
        super().__init__(game)
        self.play: _Play | None = None
        """The dealt game; None at the chance node."""

    def _setup(self) -> Spaces:
        return self.get_game().setup

    def current_player(self) -> int:
        if self.play is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        setup = self._setup()
        if setup.spec.simultaneous:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return setup.game.to_act(self.play.state)[0]

    def is_terminal(self) -> bool:
        if self.play is None:
            return False
        limit = self.get_game().limit
        return self._setup().game.is_over(self.play.state) or len(self.play.moves) >= limit

    def chance_outcomes(self) -> list[tuple[int, float]]:
        deals = self.get_game().deals
        return [(deal, 1 / deals) for deal in range(deals)]

    def _legal(self, player: int) -> dict[int, Any]:
        assert self.play is not None
        setup = self._setup()
        return setup.actions.by_index(setup.game.legal(self.play.state, player))

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._legal(player))

    def _choice(self, player: int, action: int) -> Any:
        legal = self._legal(player)
        if action not in legal:
            raise ValueError(f"action {action} is not legal for player {player}")
        return legal[action]

    def _apply_action(self, action: int) -> None:
        setup = self._setup()
        if self.play is None:
            self.play = _Play(setup.game, setup.game.new(setup.players, action, setup.options))
        else:
            player = self.current_player()
            self.play.play({player: self._choice(player, action)})

    def _apply_actions(self, actions: list[int]) -> None:
        assert self.play is not None
        setup = self._setup()
        seats = setup.game.to_act(self.play.state)
        self.play.play({seat: self._choice(seat, actions[seat]) for seat in seats})

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        setup = self._setup()
        return setup.actions.text(action)

    def returns(self) -> list[float]:
        setup = self._setup()
        if self.play is None or not self.is_terminal():
            return [0.0] * setup.players
        return setup.game.returns(self.play.state)

    def __str__(self) -> str:
        if self.play is None:
            return "not dealt"
        setup = self._setup()
        return setup.game.render(self.play.state)


class ArenaObserver:
    """OpenSpiel's observer of a set-up: one seat's view (its observation) or the public view
    (the spectator's), as the encoding's tensor or as JSON; with perfect recall, the strings
    list every view since the deal and the seat's own choices (no tensor)."""

    def __init__(self, setup: Spaces, kind: pyspiel.IIGObservationType) -> None:
        if kind.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS or not kind.public_info:
            raise ValueError("views: one seat's (private and public) or the public one")
        self._setup = setup
        self._private = kind.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._recall = kind.perfect_recall
        self.tensor: np.ndarray | None = None
        self.dict: dict[str, np.ndarray] = {}
        if not self._recall:
            self.tensor = np.zeros(setup.encoder.size, np.float32)
            self.dict = {name: self.tensor[part] for name, part in setup.encoder.parts.items()}

    def set_from(self, state: ArenaState, player: int) -> None:
        assert self.tensor is not None
        if state.play is None:
            self.tensor.fill(0)
            return
        game, engine = self._setup.game, state.play.state
        seen = game.observe(engine, player) if self._private else game.spectate(engine)
        self.tensor[:] = self._setup.encoder.encode(seen)

    def string_from(self, state: ArenaState, player: int) -> str:
        if state.play is None:
            return ""
        if self._recall:
            return "\n".join(state.play.lines(player, self._private))
        return _view(self._setup.game, state.play.state, player, self._private)


class ReturnsEvaluator(mcts.Evaluator):
    """An MCTS leaf value without a rollout: the engine's `returns` of the current scores (its
    value for a search cut short), with a uniform prior. A rollout through OpenSpiel's Python
    layer costs milliseconds (tens of them for an Alhambra game): without one, MCTS can afford
    many more simulations in the same time, the only way to search the long games in seconds."""

    def evaluate(self, state: ArenaState) -> np.ndarray:
        assert state.play is not None
        game = state.get_game().setup.game
        return np.array(game.returns(state.play.state))

    def prior(self, state: ArenaState) -> list[tuple[int, float]]:
        actions = state.legal_actions(state.current_player())
        return [(action, 1 / len(actions)) for action in actions]


def _register() -> None:
    for game_id in GAME_IDS:
        if short_name(game_id) not in pyspiel.registered_names():
            game = find_game(game_id)
            pyspiel.register_game(_game_type(game), _factory(game_id))


def _factory(game_id: str) -> type[ArenaGame]:
    """A class per game: OpenSpiel builds a game by calling its registered class with params."""

    def init(self: ArenaGame, params: dict[str, Any]) -> None:
        ArenaGame.__init__(self, game_id, params)

    return type(f"ArenaGame_{module_name(game_id)}", (ArenaGame,), {"__init__": init})


_register()
