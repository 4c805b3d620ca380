"""The `expert` bot: `mcts` on a CPU budget by level, legal in every game and player count."""

from __future__ import annotations

from typing import Any

import pytest
from mctshelp import _context, _wire
from test_mcts import VARIANTS

from bots import builtin_command
from bots.expert import DEFAULT_LEVEL, LEVELS, mcts_arguments
from bots.mcts import bot, parse_args
from referee.games import find_game


def test_a_level_is_a_cpu_budget_and_other_options_pass_through() -> None:
    args = parse_args(mcts_arguments(["--level", "2", "--c", "0.3"]))
    assert (args.clock, args.ms, args.c) == ("cpu", LEVELS[2], 0.3)
    assert parse_args(mcts_arguments([])).ms == LEVELS[DEFAULT_LEVEL]
    assert parse_args(mcts_arguments(["--ms", "7", "--clock", "wall"])).ms == 7
    assert sorted(LEVELS.values()) == [LEVELS[level] for level in sorted(LEVELS)]
    with pytest.raises(SystemExit):
        mcts_arguments(["--level", "9"])


def test_the_builtin_name_runs_the_expert_module() -> None:
    command = builtin_command("expert --level 3")
    assert command is not None
    assert command[1:] == ["-m", "bots.expert", "--level", "3"]


@pytest.mark.parametrize(("game_id", "players", "options"), VARIANTS)
def test_a_legal_action_at_every_decision(
    game_id: str, players: int, options: dict[str, Any]
) -> None:
    """A whole game with the expert in every seat (its lowest level, one iteration a
    decision, to keep the test cheap): every answer is one of `legal`."""
    game = find_game(game_id)
    state = game.new(players, 5, game.Options(**options))
    player, _ = bot(parse_args(mcts_arguments(["--level", "1", "--iterations", "1"])))
    while game.to_act(state):
        actions = {}
        for seat in game.to_act(state):
            observation, legal = _wire(game, state, seat)
            index = player.choose(observation, legal, _context(game, seat, players, seat, 1000))
            assert 0 <= index < len(legal)
            actions[seat] = legal[index]
        game.apply(state, actions)
    assert game.result(state) is not None
