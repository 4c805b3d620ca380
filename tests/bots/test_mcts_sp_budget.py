"""`SearchProfile.iterations`: Summer Pavilion's search stops at its cap of iterations however much
time is left (more made it worse against greedy); a number the bot is given wins, and the other
games keep searching until their clock runs out."""

from __future__ import annotations

import random

from bots.search import summer_pavilion
from bots.search.ismcts import Params, Search
from referee.games import find_game


def _root() -> tuple[object, int]:
    game = find_game("summer-pavilion")
    state = game.new(2, 5, game.Options(variant="grey"))
    return state, game.to_act(state)[0]


def test_summer_pavilion_stops_at_its_cap() -> None:
    search = Search(find_game("summer-pavilion"), Params())
    state, seat = _root()
    search.run(state, seat, random.Random(0), float("inf"))
    assert search.iterations == summer_pavilion.ITERATIONS == 30


def test_a_number_given_to_the_bot_wins_over_the_cap() -> None:
    search = Search(find_game("summer-pavilion"), Params())
    state, seat = _root()
    search.run(state, seat, random.Random(0), float("inf"), iterations=45)
    assert search.iterations == 45


def test_other_games_have_no_cap() -> None:
    for game_id in ("azul", "5211", "alhambra"):
        assert Search(find_game(game_id), Params()).cap is None, game_id
